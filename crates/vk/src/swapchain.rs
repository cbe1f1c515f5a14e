//! The window's swapchain: creation and re-creation on a [`WindowSurface`], one view per
//! image, acquire and present. Each swapchain holds a share of its surface, so the surface
//! is destroyed only after the last swapchain made on it.
//!
//! - Extent: the surface's current extent, or the window's size clamped to the surface's
//!   limits when the surface leaves it to the swapchain (`0xFFFFFFFF`). A 0×0 extent (a
//!   minimised window) creates nothing: [`Swapchain::create`] returns `Ok(None)`.
//! - Present mode: the one asked for when the surface offers it, else FIFO (always there).
//! - Transform ([`choose_transform`]): with pre-rotation asked for, the surface's current
//!   transform on a rotated surface (Android away from its native orientation): the extent
//!   is then the native one (sides swapped at 90° and 270°) and the caller draws the frame
//!   pre-rotated ([`Swapchain::rotation`]), so the compositor has nothing to rotate.
//!   Without it, the identity where supported: frames are drawn upright, and on a rotated
//!   surface the compositor rotates them.
//! - Images: one more than the surface's minimum (at most its maximum), usage
//!   `COLOR_ATTACHMENT | TRANSFER_DST`, plus `TRANSFER_SRC` when the surface supports it
//!   (a screenshot copies the presented image: [`Swapchain::can_read_back`]), an sRGB
//!   BGRA/RGBA format when offered.
//! - Semaphores: `images + frames in flight` acquire semaphores used round robin (frame `n`
//!   reuses frame `n - k`'s, `k > frames in flight`, and the executor has waited for frame
//!   `n - 1 - frames in flight`'s fence before frame `n` acquires, so its wait is complete),
//!   and one
//!   render-finished semaphore per swapchain image (waited by that image's present; reused
//!   only when the image is acquired again, after its present).
//! - `ERROR_OUT_OF_DATE_KHR` and `SUBOPTIMAL_KHR` are values ([`Acquired::OutOfDate`],
//!   [`Presented::Suboptimal`]), not errors: the caller recreates.
//!
//! Cost: create allocates `images` views and `2 × images + frames in flight` semaphores; acquire and present
//! are one Vulkan call each.

use crate::device::Gpu;
use crate::executor::FRAMES_IN_FLIGHT;
use crate::surface::WindowSurface;
use crate::VkError;
use ash::vk;
use std::sync::Arc;

/// How frames are presented.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PresentMode {
    /// Vertical sync, no tearing (always available).
    #[default]
    Fifo,
    /// Newest frame replaces the queued one, no tearing (falls back to FIFO).
    Mailbox,
    /// No vertical sync, may tear (falls back to FIFO).
    Immediate,
}

impl PresentMode {
    /// The Vulkan mode.
    pub fn vk(self) -> vk::PresentModeKHR {
        match self {
            PresentMode::Fifo => vk::PresentModeKHR::FIFO,
            PresentMode::Mailbox => vk::PresentModeKHR::MAILBOX,
            PresentMode::Immediate => vk::PresentModeKHR::IMMEDIATE,
        }
    }
}

/// The mode used when `wanted` is asked for and the surface offers `available` (FIFO when
/// the wanted one is missing: the only mode every surface has).
pub fn choose_present_mode(
    wanted: PresentMode,
    available: &[vk::PresentModeKHR],
) -> vk::PresentModeKHR {
    if available.contains(&wanted.vk()) {
        wanted.vk()
    } else {
        vk::PresentModeKHR::FIFO
    }
}

/// The swapchain extent for a window of `window` pixels: the surface's current extent when it
/// sets one, else the window's size clamped to the surface's limits.
pub fn choose_extent(caps: &vk::SurfaceCapabilitiesKHR, window: vk::Extent2D) -> vk::Extent2D {
    if caps.current_extent.width != u32::MAX {
        return caps.current_extent;
    }
    vk::Extent2D {
        width: window
            .width
            .clamp(caps.min_image_extent.width, caps.max_image_extent.width),
        height: window
            .height
            .clamp(caps.min_image_extent.height, caps.max_image_extent.height),
    }
}

/// Images to ask for: one more than the minimum, within the maximum (0: no maximum).
pub fn choose_image_count(caps: &vk::SurfaceCapabilitiesKHR) -> u32 {
    let n = caps.min_image_count + 1;
    if caps.max_image_count > 0 {
        n.min(caps.max_image_count)
    } else {
        n
    }
}

/// The surface format: sRGB BGRA8 or RGBA8 when offered, else the first.
pub fn choose_format(formats: &[vk::SurfaceFormatKHR]) -> Option<vk::SurfaceFormatKHR> {
    let srgb = [vk::Format::B8G8R8A8_SRGB, vk::Format::R8G8B8A8_SRGB];
    formats
        .iter()
        .find(|f| srgb.contains(&f.format) && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
        .or(formats.first())
        .copied()
}

/// The swapchain images' usage on a surface that supports `supported`: colour attachment
/// and transfer destination, plus transfer source when offered (for read-back).
pub fn choose_usage(supported: vk::ImageUsageFlags) -> vk::ImageUsageFlags {
    let base = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST;
    base | (supported & vk::ImageUsageFlags::TRANSFER_SRC)
}

/// The pre-transform to create the swapchain with, and whether the compositor then rotates
/// its images.
///
/// - `pre_rotate`, on a surface whose current transform is a rotation (90°, 180°, 270°;
///   a current transform is always supported): that transform. The caller draws the frame
///   rotated by its inverse into images of the native extent ([`native_extent`]), and the
///   presentation engine's rotation shows it upright: nothing is left for the compositor.
/// - Otherwise the identity where the surface supports it, the frame drawn upright in the
///   window's orientation. Rotated surfaces then cost a compositor rotation, and Android 10
///   and later report `SUBOPTIMAL_KHR` for that alone, which the caller must not answer by
///   recreating.
pub fn choose_transform(
    caps: &vk::SurfaceCapabilitiesKHR,
    pre_rotate: bool,
) -> (vk::SurfaceTransformFlagsKHR, bool) {
    let identity = vk::SurfaceTransformFlagsKHR::IDENTITY;
    let chosen = if pre_rotate && quarter_turns(caps.current_transform).is_some() {
        caps.current_transform
    } else if caps.supported_transforms.contains(identity) {
        identity
    } else {
        caps.current_transform
    };
    (chosen, chosen != caps.current_transform)
}

/// The quarter turns clockwise of a rotation transform (identity: 0); `None` for the
/// mirrored and inherited ones, which are not pre-rotated.
pub fn quarter_turns(transform: vk::SurfaceTransformFlagsKHR) -> Option<u32> {
    use vk::SurfaceTransformFlagsKHR as T;
    [T::IDENTITY, T::ROTATE_90, T::ROTATE_180, T::ROTATE_270]
        .iter()
        .position(|&t| t == transform)
        .map(|i| i as u32)
}

/// The extent of the images for a surface of `extent` presented with `transform`: its
/// sides swapped at 90° and 270°, the display's native orientation (Android reports the
/// surface's extent in the rotated orientation, as Google's and Khronos's pre-rotation
/// samples do swap it).
pub fn native_extent(
    extent: vk::Extent2D,
    transform: vk::SurfaceTransformFlagsKHR,
) -> vk::Extent2D {
    match quarter_turns(transform) {
        Some(1 | 3) => vk::Extent2D {
            width: extent.height,
            height: extent.width,
        },
        _ => extent,
    }
}

/// What an acquire got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// Image `index` is ready once `acquire` is signalled; `render_finished` is the
    /// semaphore to signal and hand to [`Swapchain::present`]. `suboptimal`: it still
    /// presents, but the swapchain should be recreated.
    Image {
        /// The swapchain image index.
        index: u32,
        /// Signalled when the image may be written.
        acquire: vk::Semaphore,
        /// To be signalled after the image's last use and waited by the present.
        render_finished: vk::Semaphore,
        /// The swapchain no longer matches the surface exactly.
        suboptimal: bool,
    },
    /// The swapchain no longer matches the surface: recreate it.
    OutOfDate,
}

/// What a present did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presented {
    /// Presented.
    Ok,
    /// Presented, but the swapchain should be recreated.
    Suboptimal,
    /// Not presented: recreate the swapchain.
    OutOfDate,
}

/// A swapchain with its images, views and semaphores.
pub struct Swapchain {
    gpu: Arc<Gpu>,
    /// Destroyed (its last share) only after this swapchain (fields drop after `Drop::drop`).
    surface: Arc<WindowSurface>,
    loader: ash::khr::swapchain::Device,
    swapchain: vk::SwapchainKHR,
    /// The images.
    pub images: Vec<vk::Image>,
    /// A colour view of each image.
    pub views: Vec<vk::ImageView>,
    /// Their format.
    pub format: vk::Format,
    /// Their extent.
    pub extent: vk::Extent2D,
    /// The present mode in use.
    pub present_mode: vk::PresentModeKHR,
    /// The images' usage.
    pub usage: vk::ImageUsageFlags,
    /// Presented upright while the surface is rotated ([`choose_transform`]): the compositor
    /// rotates, and a `SUBOPTIMAL_KHR` is expected rather than a reason to recreate.
    pub compositor_rotates: bool,
    /// Quarter turns clockwise the presentation engine applies to the images (the
    /// pre-transform's, [`quarter_turns`]): the frame must be drawn rotated by the inverse
    /// into `extent`, which is then the native one (sides swapped at 1 and 3).
    pub rotation: u32,
    acquire: Vec<vk::Semaphore>,
    render_finished: Vec<vk::Semaphore>,
    next_acquire: usize,
}

impl std::fmt::Debug for Swapchain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Swapchain")
            .field("images", &self.images.len())
            .field("format", &self.format)
            .field("extent", &self.extent)
            .field("present_mode", &self.present_mode)
            .field("usage", &self.usage)
            .finish_non_exhaustive()
    }
}

impl Swapchain {
    /// Creates the swapchain on `surface` for a window of `window` pixels (replacing `old`,
    /// which is destroyed: the caller has waited for the frames that used it; it must be
    /// of the same surface), pre-rotated on a rotated surface when `pre_rotate`
    /// ([`choose_transform`]). `Ok(None)` when the extent is 0×0 (minimised).
    pub fn create(
        surface: &Arc<WindowSurface>,
        window: vk::Extent2D,
        mode: PresentMode,
        pre_rotate: bool,
        old: Option<Swapchain>,
    ) -> Result<Option<Swapchain>, VkError> {
        let gpu = surface.gpu();
        let (loader, s) = (surface.loader(), surface.handle());
        // SAFETY: queries on our physical device and the live surface.
        let (caps, formats, modes) = unsafe {
            (
                loader.get_physical_device_surface_capabilities(gpu.physical, s)?,
                loader.get_physical_device_surface_formats(gpu.physical, s)?,
                loader.get_physical_device_surface_present_modes(gpu.physical, s)?,
            )
        };
        let (transform, compositor_rotates) = choose_transform(&caps, pre_rotate);
        let extent = native_extent(choose_extent(&caps, window), transform);
        let rotation = quarter_turns(transform).unwrap_or(0);
        let loader = ash::khr::swapchain::Device::new(&gpu.instance, &gpu.device);
        let old_handle = old
            .as_ref()
            .map_or(vk::SwapchainKHR::null(), |o| o.swapchain);
        if extent.width == 0 || extent.height == 0 {
            drop(old);
            return Ok(None);
        }
        let format = choose_format(&formats)
            .ok_or_else(|| VkError::Setup("the surface offers no format".into()))?;
        let present_mode = choose_present_mode(mode, &modes);
        let usage = choose_usage(caps.supported_usage_flags);
        if compositor_rotates {
            log::info!(
                "the surface is rotated ({:?}): presenting upright, the compositor rotates",
                caps.current_transform
            );
        }
        if present_mode != mode.vk() {
            log::warn!("present mode {mode:?} is not available here; using FIFO");
        }
        let alpha = if caps
            .supported_composite_alpha
            .contains(vk::CompositeAlphaFlagsKHR::OPAQUE)
        {
            vk::CompositeAlphaFlagsKHR::OPAQUE
        } else {
            vk::CompositeAlphaFlagsKHR::INHERIT
        };
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(s)
            .min_image_count(choose_image_count(&caps))
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(usage)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(transform)
            .composite_alpha(alpha)
            .present_mode(present_mode)
            .clipped(true)
            .old_swapchain(old_handle);
        // SAFETY: `info` refers to the live surface and locals alive across the call; the
        // old swapchain (if any) is live and retired by this call.
        let swapchain = unsafe { loader.create_swapchain(&info, None) };
        drop(old);
        let swapchain = swapchain?;
        let mut sc = Swapchain {
            gpu: gpu.clone(),
            surface: surface.clone(),
            loader,
            swapchain,
            images: Vec::new(),
            views: Vec::new(),
            format: format.format,
            extent,
            present_mode,
            usage,
            compositor_rotates,
            rotation,
            acquire: Vec::new(),
            render_finished: Vec::new(),
            next_acquire: 0,
        };
        // On error below, dropping `sc` destroys what was made so far.
        // SAFETY: the swapchain was just created.
        sc.images = unsafe { sc.loader.get_swapchain_images(sc.swapchain) }?;
        for (i, &image) in sc.images.clone().iter().enumerate() {
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(sc.format)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: 0,
                    layer_count: 1,
                });
            // SAFETY: `image` is an image of this swapchain; the view is destroyed in Drop.
            let view = unsafe { gpu.device.create_image_view(&view_info, None) }?;
            sc.views.push(view);
            gpu.name(image, &format!("swapchain image {i}"));
            let info = vk::SemaphoreCreateInfo::default();
            // SAFETY: plain semaphore creation on our device; destroyed in Drop.
            let r = unsafe { gpu.device.create_semaphore(&info, None) }?;
            sc.render_finished.push(r);
        }
        for _ in 0..sc.images.len() + FRAMES_IN_FLIGHT {
            let info = vk::SemaphoreCreateInfo::default();
            // SAFETY: plain semaphore creation on our device; destroyed in Drop.
            let a = unsafe { gpu.device.create_semaphore(&info, None) }?;
            sc.acquire.push(a);
        }
        log::info!(
            "swapchain {}x{}, pre-rotated {}°, {} images, {:?}, {:?}, read-back {}",
            extent.width,
            extent.height,
            rotation * 90,
            sc.images.len(),
            sc.format,
            present_mode,
            if sc.can_read_back() { "yes" } else { "no" }
        );
        Ok(Some(sc))
    }

    /// The surface it presents to.
    pub fn surface(&self) -> &Arc<WindowSurface> {
        &self.surface
    }

    /// Whether the images allow copies from them (`TRANSFER_SRC`), which a screenshot of the
    /// presented frame needs (`Renderer::capture_next` in `tessera-render`).
    pub fn can_read_back(&self) -> bool {
        self.usage.contains(vk::ImageUsageFlags::TRANSFER_SRC)
    }

    /// Acquires the next image (waits without timeout for one to be available).
    pub fn acquire(&mut self) -> Result<Acquired, VkError> {
        let sem = self.acquire[self.next_acquire];
        // SAFETY: our live swapchain; `sem` is unsignalled with no pending wait: its last
        // acquire was waited by a submit whose frame's fence is retired (module docs).
        let r = unsafe {
            self.loader
                .acquire_next_image(self.swapchain, u64::MAX, sem, vk::Fence::null())
        };
        match r {
            Ok((index, suboptimal)) => {
                self.next_acquire = (self.next_acquire + 1) % self.acquire.len();
                Ok(Acquired::Image {
                    index,
                    acquire: sem,
                    render_finished: self.render_finished[index as usize],
                    suboptimal,
                })
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Acquired::OutOfDate),
            Err(e) => Err(e.into()),
        }
    }

    /// Presents image `index` once `render_finished` is signalled, on `queue`.
    pub fn present(
        &self,
        queue: vk::Queue,
        index: u32,
        render_finished: vk::Semaphore,
    ) -> Result<Presented, VkError> {
        let waits = [render_finished];
        let chains = [self.swapchain];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&chains)
            .image_indices(&indices);
        // SAFETY: `queue` is the Gpu's graphics queue, which presents to the surface; the
        // arrays outlive the call; `index` was acquired from this swapchain.
        match unsafe { self.loader.queue_present(queue, &info) } {
            Ok(false) => Ok(Presented::Ok),
            Ok(true) => Ok(Presented::Suboptimal),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Presented::OutOfDate),
            Err(e) => Err(e.into()),
        }
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        // SAFETY: the owner waited for every frame that used these objects (documented on
        // `create`); each handle is destroyed once.
        unsafe {
            for &v in &self.views {
                self.gpu.device.destroy_image_view(v, None);
            }
            for &s in self.acquire.iter().chain(&self.render_finished) {
                self.gpu.device.destroy_semaphore(s, None);
            }
            self.loader.destroy_swapchain(self.swapchain, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_presented_upright_where_the_surface_allows() {
        use vk::SurfaceTransformFlagsKHR as T;
        let caps = |supported, current| vk::SurfaceCapabilitiesKHR {
            supported_transforms: supported,
            current_transform: current,
            ..Default::default()
        };
        for pre_rotate in [false, true] {
            // A desktop window: identity, nothing rotates.
            assert_eq!(
                choose_transform(&caps(T::IDENTITY, T::IDENTITY), pre_rotate),
                (T::IDENTITY, false)
            );
            // A surface without identity: its own transform (the only valid choice).
            assert_eq!(
                choose_transform(&caps(T::ROTATE_270, T::ROTATE_270), pre_rotate),
                (T::ROTATE_270, false)
            );
        }
        // A phone in landscape without pre-rotation: upright, the compositor rotates.
        let all = T::IDENTITY | T::ROTATE_90 | T::ROTATE_180 | T::ROTATE_270;
        assert_eq!(
            choose_transform(&caps(all, T::ROTATE_90), false),
            (T::IDENTITY, true)
        );
    }

    #[test]
    fn pre_rotation_takes_the_current_rotation_and_the_native_extent() {
        use vk::SurfaceTransformFlagsKHR as T;
        let all = T::IDENTITY | T::ROTATE_90 | T::ROTATE_180 | T::ROTATE_270 | T::HORIZONTAL_MIRROR;
        let caps = |current| vk::SurfaceCapabilitiesKHR {
            supported_transforms: all,
            current_transform: current,
            ..Default::default()
        };
        // A 2400×1080 landscape surface on a phone whose panel is 1080×2400.
        let landscape = vk::Extent2D {
            width: 2400,
            height: 1080,
        };
        for (current, turns) in [(T::ROTATE_90, 1), (T::ROTATE_180, 2), (T::ROTATE_270, 3)] {
            let (t, compositor) = choose_transform(&caps(current), true);
            assert_eq!((t, compositor), (current, false), "{current:?}");
            assert_eq!(quarter_turns(t), Some(turns));
            let native = native_extent(landscape, t);
            if turns == 2 {
                assert_eq!(native, landscape);
            } else {
                assert_eq!((native.width, native.height), (1080, 2400));
            }
        }
        // Not a rotation: not pre-rotated; the identity where supported.
        assert_eq!(
            choose_transform(&caps(T::HORIZONTAL_MIRROR), true),
            (T::IDENTITY, true)
        );
        assert_eq!(quarter_turns(T::HORIZONTAL_MIRROR), None);
        assert_eq!(native_extent(landscape, T::IDENTITY), landscape);
    }

    #[test]
    fn transfer_src_is_asked_for_only_when_supported() {
        use vk::ImageUsageFlags as U;
        let base = U::COLOR_ATTACHMENT | U::TRANSFER_DST;
        assert_eq!(choose_usage(base), base);
        assert_eq!(choose_usage(base | U::TRANSFER_SRC), base | U::TRANSFER_SRC);
        // Other offered usages are not asked for.
        assert_eq!(
            choose_usage(base | U::TRANSFER_SRC | U::STORAGE | U::SAMPLED),
            base | U::TRANSFER_SRC
        );
    }

    #[test]
    fn present_mode_falls_back_to_fifo() {
        let only_fifo = [vk::PresentModeKHR::FIFO];
        assert_eq!(
            choose_present_mode(PresentMode::Mailbox, &only_fifo),
            vk::PresentModeKHR::FIFO
        );
        let all = [
            vk::PresentModeKHR::FIFO,
            vk::PresentModeKHR::MAILBOX,
            vk::PresentModeKHR::IMMEDIATE,
        ];
        assert_eq!(
            choose_present_mode(PresentMode::Immediate, &all),
            vk::PresentModeKHR::IMMEDIATE
        );
        assert_eq!(
            choose_present_mode(PresentMode::Mailbox, &all),
            vk::PresentModeKHR::MAILBOX
        );
    }

    #[test]
    fn extent_follows_the_surface_or_clamps_the_window() {
        let mut caps = vk::SurfaceCapabilitiesKHR {
            current_extent: vk::Extent2D {
                width: 640,
                height: 480,
            },
            min_image_extent: vk::Extent2D {
                width: 1,
                height: 1,
            },
            max_image_extent: vk::Extent2D {
                width: 1000,
                height: 1000,
            },
            min_image_count: 2,
            max_image_count: 3,
            ..Default::default()
        };
        let win = vk::Extent2D {
            width: 5000,
            height: 7,
        };
        assert_eq!(choose_extent(&caps, win), caps.current_extent);
        caps.current_extent.width = u32::MAX;
        assert_eq!(
            choose_extent(&caps, win),
            vk::Extent2D {
                width: 1000,
                height: 7
            }
        );
        assert_eq!(choose_image_count(&caps), 3);
        caps.max_image_count = 2;
        assert_eq!(choose_image_count(&caps), 2);
        caps.max_image_count = 0;
        assert_eq!(choose_image_count(&caps), 3);
    }
}

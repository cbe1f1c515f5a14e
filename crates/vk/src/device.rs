//! The Vulkan device: instance with validation and synchronization validation, a debug-utils
//! messenger that counts every warning and error, the queues (graphics, and a distinct
//! compute-only family when the device has one), the memory allocator, and the device facts
//! as the compiler's [`Capabilities`].
//!
//! A Vulkan 1.3 device is used as it is; a 1.2 device (what RenderDoc reports while it is
//! attached) qualifies when it has `VK_KHR_synchronization2`, `VK_KHR_maintenance4` and an
//! extension that allows `VK_ATTACHMENT_STORE_OP_NONE` (`VK_EXT_load_store_op_none` or
//! `VK_KHR_dynamic_rendering`): they are enabled (with their feature structs), and the 1.3
//! entry points are loaded from their `KHR` aliases, so the rest of the executor calls the
//! same functions either way.
//!
//! With a window ([`GpuOptions::surface`]) the instance also enables `VK_KHR_surface` and
//! the platform's surface extensions (ash-window, from the display handle), picks a
//! graphics family that presents to a probe surface of the window and enables
//! `VK_KHR_swapchain`; headless (no surface) enables none of them. The device owns no
//! surface: the app makes one per life of the native window ([`crate::surface`]).
//!
//! Every `unsafe` block here calls Vulkan through ash with handles this module created and
//! owns; destruction happens once, in `Drop`, after the device is idle.

use crate::memtype;
use crate::window::{self, SurfaceRequest};
use crate::VkError;
use ash::vk;
use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tessera_graph::Capabilities;

/// Counts validation messages (warnings and errors) and keeps the first few texts.
#[derive(Debug, Default)]
pub struct MessageCounter {
    count: AtomicU64,
    texts: Mutex<Vec<String>>,
}

impl MessageCounter {
    /// Messages seen so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// The first messages (at most 32), each with its id name.
    pub fn texts(&self) -> Vec<String> {
        self.texts.lock().map(|t| t.clone()).unwrap_or_default()
    }

    fn record(&self, text: String) {
        self.count.fetch_add(1, Ordering::SeqCst);
        log::warn!("vulkan: {text}");
        if std::env::var_os("TESSERA_VK_PRINT").is_some() {
            eprintln!("vulkan: {text}");
        }
        if let Ok(mut t) = self.texts.lock() {
            if t.len() < 32 {
                t.push(text);
            }
        }
    }
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes a valid callback-data pointer for the duration of the call,
    // and `user` is the `MessageCounter` that `Gpu` keeps alive until the messenger is
    // destroyed.
    unsafe {
        if data.is_null() || user.is_null() {
            return vk::FALSE;
        }
        let counter = &*(user as *const MessageCounter);
        let d = &*data;
        let id = if d.p_message_id_name.is_null() {
            String::new()
        } else {
            CStr::from_ptr(d.p_message_id_name)
                .to_string_lossy()
                .into_owned()
        };
        let msg = if d.p_message.is_null() {
            String::new()
        } else {
            CStr::from_ptr(d.p_message).to_string_lossy().into_owned()
        };
        counter.record(format!("[{severity:?}] {id}: {msg}"));
    }
    vk::FALSE
}

/// How to open the device.
#[derive(Clone, Debug)]
pub struct GpuOptions {
    /// Enable `VK_LAYER_KHRONOS_validation` with synchronization validation (an error when
    /// the layer is missing).
    pub validation: bool,
    /// Open the device for presenting to this window (surface and swapchain extensions, a
    /// graphics family that can present); `None` is headless.
    pub surface: Option<SurfaceRequest>,
    /// Which queue runs the plan's async-compute passes.
    pub async_queue: AsyncQueue,
}

/// Which queue the executor gives the plan's async-compute passes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AsyncQueue {
    /// A queue of a compute-only family where the device has one (desktop GPUs); else a
    /// second queue of the graphics family where it has two or more (Mali and Adreno expose
    /// no compute-only family, but several graphics queues: early raster work and the
    /// frame's async tail then run on two queues, as Arm's `async_compute` sample splits
    /// them); else none (the async passes fold onto the graphics queue).
    #[default]
    Auto,
    /// A second queue of the graphics family where it has two or more, even where a
    /// compute-only family exists (the tilers' layout, measured on a desktop GPU); none when
    /// the family has one queue. On the H200 it never ran beside the first queue
    /// (docs/perf.md).
    Graphics,
}

impl AsyncQueue {
    /// The option names, in the order of [`AsyncQueue::parse`].
    pub const NAMES: &'static [&'static str] = &["auto", "graphics"];

    /// The choice named `name` (one of [`AsyncQueue::NAMES`]).
    pub fn parse(name: &str) -> Option<AsyncQueue> {
        match name {
            "auto" => Some(AsyncQueue::Auto),
            "graphics" => Some(AsyncQueue::Graphics),
            _ => None,
        }
    }

    /// The async queue's (family, index in it), given the graphics family `gfam` with
    /// `graphics_queues` queues and the compute-only family `compute_only`, if any.
    pub fn pick(
        self,
        gfam: u32,
        graphics_queues: u32,
        compute_only: Option<u32>,
    ) -> Option<(u32, u32)> {
        let second_graphics = (graphics_queues >= 2).then_some((gfam, 1));
        match self {
            AsyncQueue::Auto => compute_only.map(|c| (c, 0)).or(second_graphics),
            AsyncQueue::Graphics => second_graphics,
        }
    }
}

// Not derivable: the default follows the build profile (validation on in debug builds).
#[allow(clippy::derivable_impls)]
impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            validation: cfg!(debug_assertions),
            surface: None,
            async_queue: AsyncQueue::Auto,
        }
    }
}

/// A queue and its family.
#[derive(Clone, Copy, Debug)]
pub struct Queue {
    /// Family index.
    pub family: u32,
    /// The queue.
    pub queue: vk::Queue,
}

/// An open device with everything the executor needs.
pub struct Gpu {
    pub(crate) entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    debug_instance: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// Debug-utils device functions (names and labels), when the extension is there.
    pub debug: Option<ash::ext::debug_utils::Device>,
    /// The physical device.
    pub physical: vk::PhysicalDevice,
    /// The logical device.
    pub device: ash::Device,
    /// The graphics queue (also compute and transfer).
    pub graphics: Queue,
    /// The async-compute queue ([`GpuOptions::async_queue`]): of a compute-only family, or a
    /// second queue of the graphics family; `None` when the device has neither.
    pub compute: Option<Queue>,
    /// Device properties.
    pub properties: vk::PhysicalDeviceProperties,
    /// Memory types and heaps.
    pub memory: vk::PhysicalDeviceMemoryProperties,
    /// The allocator (`None` only while dropping).
    pub allocator: Option<Mutex<gpu_allocator::vulkan::Allocator>>,
    /// Validation messages.
    pub messages: Arc<MessageCounter>,
    /// `vkAllocateMemory` calls made outside gpu-allocator (lazily allocated memory).
    pub direct_allocations: AtomicU64,
    /// `vkDeviceWaitIdle` calls made through [`Gpu::wait_idle`].
    wait_idles: AtomicU64,
    /// Whether validation is on.
    pub validation: bool,
    /// `VK_KHR_surface`'s instance functions, when opened for a window
    /// ([`GpuOptions::surface`]; `VK_KHR_swapchain` is then enabled too).
    pub(crate) surface_loader: Option<ash::khr::surface::Instance>,
    /// Tools attached to the device, as they name themselves
    /// (`vkGetPhysicalDeviceToolProperties`): `RenderDoc` while RenderDoc can capture.
    pub tools: Vec<String>,
    /// `sampleRateShading` is enabled (the device has it): shaders may read `gl_SampleID`.
    /// Without it the forward path resolves HDR before tone mapping.
    pub sample_rate_shading: bool,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("device", &self.device_name())
            .field("graphics", &self.graphics)
            .field("compute", &self.compute)
            .finish_non_exhaustive()
    }
}

const VALIDATION: &CStr = c"VK_LAYER_KHRONOS_validation";

impl Gpu {
    /// Opens the first device with a graphics queue (discrete GPUs first).
    pub fn new(options: &GpuOptions) -> Result<Gpu, VkError> {
        // SAFETY: loading the system Vulkan loader; its entry points are used only through
        // ash's typed wrappers below.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| VkError::NoDevice(format!("cannot load the Vulkan loader: {e}")))?;
        let messages = Arc::new(MessageCounter::default());
        // SAFETY: plain enumeration calls with a valid entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }?;
        let has_layer = layers
            .iter()
            .any(|l| l.layer_name_as_c_str().ok() == Some(VALIDATION));
        if options.validation && !has_layer {
            return Err(VkError::Setup(
                "validation requested but VK_LAYER_KHRONOS_validation is not installed \
                 (Debian: vulkan-validationlayers)"
                    .into(),
            ));
        }
        // SAFETY: as above.
        let exts = unsafe { entry.enumerate_instance_extension_properties(None) }?;
        let has_ext = |n: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(n))
        };
        let debug_utils = has_ext(ash::ext::debug_utils::NAME);
        let mut ext_names = Vec::new();
        if debug_utils {
            ext_names.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let mut layer_names = Vec::new();
        let handles = options.surface.as_ref().map(|r| r.handles()).transpose()?;
        if let Some((display, _)) = handles {
            let needed = ash_window::enumerate_required_extensions(display).map_err(|e| {
                VkError::Setup(format!("this display has no Vulkan surface extension: {e}"))
            })?;
            for &n in needed {
                // SAFETY: ash-window returns pointers to NUL-terminated static names.
                let name = unsafe { CStr::from_ptr(n) };
                if !has_ext(ash::khr::surface::NAME) {
                    // Every driver that can present offers VK_KHR_surface: without it the
                    // loader found no driver at all, as `tessera render` would say.
                    return Err(VkError::NoDevice(
                        "no Vulkan driver offers window surfaces (VK_KHR_surface): install \
                         one (Debian: mesa-vulkan-drivers) or a GPU's driver"
                            .into(),
                    ));
                }
                if !has_ext(name) {
                    return Err(VkError::Setup(format!(
                        "the Vulkan loader lacks the surface extension {}",
                        name.to_string_lossy()
                    )));
                }
                ext_names.push(n);
            }
        }
        if options.validation {
            layer_names.push(VALIDATION.as_ptr());
            ext_names.push(ash::ext::validation_features::NAME.as_ptr());
        }
        let app_name = c"tessera";
        let app = vk::ApplicationInfo::default()
            .application_name(app_name)
            .engine_name(app_name)
            .api_version(vk::API_VERSION_1_3);
        let enabled = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled);
        let severity = vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR;
        let types = vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
            | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
            | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE;
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(severity)
            .message_type(types)
            .pfn_user_callback(Some(on_message))
            .user_data(Arc::as_ptr(&messages) as *mut c_void);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&ext_names);
        if options.validation {
            info = info.push_next(&mut features);
        }
        if debug_utils {
            info = info.push_next(&mut messenger_info);
        }
        // SAFETY: every pointer in `info` refers to locals alive across the call.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(|e| VkError::NoDevice(e.to_string()))?;
        let debug_instance = if debug_utils {
            let di = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(severity)
                .message_type(types)
                .pfn_user_callback(Some(on_message))
                .user_data(Arc::as_ptr(&messages) as *mut c_void);
            // SAFETY: the counter outlives the messenger (destroyed in Drop before `messages`).
            let m = unsafe { di.create_debug_utils_messenger(&info, None) }?;
            Some((di, m))
        } else {
            None
        };
        let surface_loader = handles.map(|_| ash::khr::surface::Instance::new(&entry, &instance));
        // A probe surface of the window picks a family that presents to it; the app makes
        // its own surfaces afterwards (`WindowSurface`), as many as the window's lives.
        let probe = match handles {
            None => Ok(None),
            // SAFETY: the handles are the live window's (the request holds it) and the
            // probe is destroyed below, before this function returns; the instance enabled
            // the extensions ash-window asked for.
            Some(h) => unsafe { window::create_raw(&entry, &instance, h) }.map(Some),
        };
        let opened = probe.and_then(|probe| {
            let probe = surface_loader.as_ref().zip(probe);
            let opened = Self::open_device(&instance, probe, options.async_queue);
            if let Some((loader, p)) = probe {
                // SAFETY: no swapchain was made on the probe; only the support queries
                // used it.
                unsafe { loader.destroy_surface(p, None) };
            }
            opened
        });
        let (physical, properties, device, graphics, compute, memory, allocator) = match opened {
            Ok(parts) => parts,
            Err(e) => {
                // SAFETY: nothing created from the instance is alive when opening failed
                // but the messenger, destroyed here before it.
                unsafe {
                    if let Some((d, m)) = &debug_instance {
                        d.destroy_debug_utils_messenger(*m, None);
                    }
                    instance.destroy_instance(None);
                }
                return Err(e);
            }
        };
        let debug = debug_instance
            .as_ref()
            .map(|_| ash::ext::debug_utils::Device::new(&instance, &device));
        let tools = attached_tools(&entry, &instance, physical, &properties);
        // SAFETY: a feature query on our physical device; `open_device` enabled the feature
        // exactly when this reports it.
        let sample_rate_shading = unsafe { instance.get_physical_device_features(physical) }
            .sample_rate_shading
            == vk::TRUE;
        if !tools.is_empty() {
            log::info!("tools attached to the device: {}", tools.join(", "));
        }
        Ok(Gpu {
            entry,
            instance,
            debug_instance,
            debug,
            physical,
            device,
            graphics,
            compute,
            properties,
            memory,
            allocator: Some(Mutex::new(allocator)),
            messages,
            direct_allocations: AtomicU64::new(0),
            wait_idles: AtomicU64::new(0),
            validation: options.validation,
            surface_loader,
            tools,
            sample_rate_shading,
        })
    }

    #[allow(clippy::type_complexity)]
    fn open_device(
        instance: &ash::Instance,
        surface: Option<(&ash::khr::surface::Instance, vk::SurfaceKHR)>,
        async_queue: AsyncQueue,
    ) -> Result<
        (
            vk::PhysicalDevice,
            vk::PhysicalDeviceProperties,
            ash::Device,
            Queue,
            Option<Queue>,
            vk::PhysicalDeviceMemoryProperties,
            gpu_allocator::vulkan::Allocator,
        ),
        VkError,
    > {
        // SAFETY: enumeration and property queries on a valid instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| VkError::NoDevice(e.to_string()))?;
        let mut best: Option<(
            u32,
            vk::PhysicalDevice,
            vk::PhysicalDeviceProperties,
            u32,
            Option<(u32, u32)>,
        )> = None;
        for p in physicals {
            // SAFETY: `p` comes from this instance.
            let props = unsafe { instance.get_physical_device_properties(p) };
            if props.api_version < vk::API_VERSION_1_2 {
                continue;
            }
            if props.api_version < vk::API_VERSION_1_3
                && !(has_extensions(instance, p, &EXTS_1_2) && store_op_none(instance, p).is_some())
            {
                log::info!(
                    "skipping a Vulkan 1.2 device without {} and one of {}",
                    EXTS_1_2.map(|e| e.to_string_lossy()).join(", "),
                    STORE_OP_NONE.map(|e| e.to_string_lossy()).join(", ")
                );
                continue;
            }
            // SAFETY: as above.
            let families = unsafe { instance.get_physical_device_queue_family_properties(p) };
            let presents = |i: usize| {
                surface.is_none_or(|(loader, s)| {
                    // SAFETY: a support query of a family of `p` and our probe surface.
                    unsafe { loader.get_physical_device_surface_support(p, i as u32, s) }
                        .unwrap_or(false)
                })
            };
            let Some(g) = families.iter().enumerate().position(|(i, f)| {
                f.queue_flags
                    .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
                    && presents(i)
            }) else {
                continue;
            };
            if surface.is_some() && !has_extensions(instance, p, &[ash::khr::swapchain::NAME]) {
                continue;
            }
            let c = async_queue.pick(
                g as u32,
                families[g].queue_count,
                compute_only_family(&families),
            );
            let rank = match props.device_type {
                vk::PhysicalDeviceType::DISCRETE_GPU => 0,
                vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
                _ => 2,
            };
            if best.as_ref().is_none_or(|b| rank < b.0) {
                best = Some((rank, p, props, g as u32, c));
            }
        }
        let Some((_, physical, properties, gfam, cfam)) = best else {
            return Err(VkError::NoDevice(
                "none is Vulkan 1.3 (or 1.2 with VK_KHR_synchronization2, \
                 VK_KHR_maintenance4 and VK_EXT_load_store_op_none or \
                 VK_KHR_dynamic_rendering) with a graphics queue (that presents to the \
                 window, with VK_KHR_swapchain, when a window is used)"
                    .into(),
            ));
        };
        let core_1_3 = properties.api_version >= vk::API_VERSION_1_3;
        // The graphics queue (which presents) first and at the higher priority when the
        // async queue is a second one of its family.
        let prio = [1.0f32];
        let shared_prio = [1.0f32, 0.5];
        let async_in_graphics = cfam.is_some_and(|(f, _)| f == gfam);
        let mut queue_infos = vec![vk::DeviceQueueCreateInfo::default()
            .queue_family_index(gfam)
            .queue_priorities(if async_in_graphics {
                &shared_prio
            } else {
                &prio
            })];
        if let Some((c, _)) = cfam.filter(|_| !async_in_graphics) {
            queue_infos.push(
                vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(c)
                    .queue_priorities(&prio),
            );
        }
        // SAFETY: a feature query on our physical device.
        let have = unsafe { instance.get_physical_device_features(physical) };
        // Independent blend where the device has it: a pass may blend one colour attachment
        // and overwrite another (the synthetic bodies' partial writes do).
        let features = vk::PhysicalDeviceFeatures::default()
            .fragment_stores_and_atomics(true)
            .independent_blend(have.independent_blend == vk::TRUE)
            // Per-sample shading (`gl_SampleID`): tone mapping inside a multisampled render
            // pass maps each sample (`Gpu::sample_rate_shading`).
            .sample_rate_shading(have.sample_rate_shading == vk::TRUE);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .host_query_reset(true);
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .maintenance4(true);
        let mut sync2 =
            vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
        let mut maint4 = vk::PhysicalDeviceMaintenance4Features::default().maintenance4(true);
        let mut ext_names: Vec<_> = EXTS_1_2.iter().map(|e| e.as_ptr()).collect();
        ext_names.extend(store_op_none(instance, physical).map(CStr::as_ptr));
        let mut core_ext_names = Vec::new();
        if surface.is_some() {
            ext_names.push(ash::khr::swapchain::NAME.as_ptr());
            core_ext_names.push(ash::khr::swapchain::NAME.as_ptr());
        }
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_features(&features)
            .push_next(&mut f12);
        info = if core_1_3 {
            info.enabled_extension_names(&core_ext_names)
                .push_next(&mut f13)
        } else {
            // Vulkan 1.2 (RenderDoc attached, older drivers): the same features as extensions.
            info.enabled_extension_names(&ext_names)
                .push_next(&mut sync2)
                .push_next(&mut maint4)
        };
        // SAFETY: `info` points at locals alive across the call; the physical device is ours.
        let device = unsafe { instance.create_device(physical, &info, None) }?;
        let device = if core_1_3 {
            device
        } else {
            // SAFETY: the device was just created from this instance; every function of
            // Vulkan 1.3 that the executor calls (synchronization2, maintenance4) is loaded
            // from its KHR alias, which has the same signature and is enabled above.
            unsafe { load_with_khr_aliases(instance, device.handle()) }
        };
        let graphics = Queue {
            family: gfam,
            // SAFETY: the queue was requested in `info`.
            queue: unsafe { device.get_device_queue(gfam, 0) },
        };
        let compute = cfam.map(|(c, index)| Queue {
            family: c,
            // SAFETY: as above.
            queue: unsafe { device.get_device_queue(c, index) },
        });
        // SAFETY: property query on our physical device.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let allocator =
            gpu_allocator::vulkan::Allocator::new(&gpu_allocator::vulkan::AllocatorCreateDesc {
                instance: instance.clone(),
                device: device.clone(),
                physical_device: physical,
                debug_settings: Default::default(),
                buffer_device_address: false,
                allocation_sizes: gpu_allocator::AllocationSizes::default(),
            });
        let allocator = match allocator {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the device has no children yet.
                unsafe { device.destroy_device(None) };
                return Err(VkError::Setup(format!("allocator: {e}")));
            }
        };
        Ok((
            physical, properties, device, graphics, compute, memory, allocator,
        ))
    }

    /// True when RenderDoc is attached: it captures images with other usage than asked
    /// (no `TRANSIENT_ATTACHMENT`, transfer usage added), which changes memory requirements.
    pub fn renderdoc_attached(&self) -> bool {
        self.tools.iter().any(|t| t.contains("RenderDoc"))
    }

    /// The device's Vulkan version, `major.minor.patch`.
    pub fn api_version(&self) -> String {
        let v = self.properties.api_version;
        format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        )
    }

    /// The device name.
    pub fn device_name(&self) -> String {
        self.properties
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The memory types as a slice.
    pub fn memory_types(&self) -> &[vk::MemoryType] {
        let n = (self.memory.memory_type_count as usize).min(vk::MAX_MEMORY_TYPES);
        &self.memory.memory_types[..n]
    }

    /// Checks that the device can create image `name` (`format`, `samples`, `usage`, 2D,
    /// optimal tiling) with that sample count, before any image is created: the counts the
    /// device supports for it (`vkGetPhysicalDeviceImageFormatProperties`, which folds in
    /// the framebuffer and sampled-image sample-count limits) or an error naming the
    /// resource, the count and the supported counts.
    pub fn check_samples(
        &self,
        name: &str,
        format: tessera_graph::Format,
        samples: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<(), VkError> {
        let counts = |flags: vk::SampleCountFlags| {
            (0..7)
                .map(|b| 1u32 << b)
                .filter(|n| flags.contains(vk::SampleCountFlags::from_raw(*n)))
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        // SAFETY: a property query on our physical device with a complete set of arguments.
        let props = unsafe {
            self.instance.get_physical_device_image_format_properties(
                self.physical,
                crate::conv::format(format),
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                vk::ImageCreateFlags::empty(),
            )
        };
        let supported = match props {
            Ok(p) => p.sample_counts,
            Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED) => {
                return Err(VkError::Unsupported(format!(
                    "'{name}': this device cannot create {format} images with usage {usage:?}"
                )))
            }
            Err(e) => return Err(e.into()),
        };
        match crate::conv::samples(samples) {
            Some(flag) if supported.contains(flag) => Ok(()),
            _ => Err(VkError::Unsupported(format!(
                "'{name}' has {samples} samples; this device supports {} sample(s) for {format} \
                 images used this way",
                counts(supported)
            ))),
        }
    }

    /// What kind of GPU this is: the profile whose preset applies and its tile budget
    /// ([`crate::device_class`]).
    pub fn class(&self) -> crate::device_class::DeviceClass {
        crate::device_class::classify(
            self.properties.vendor_id,
            &self.device_name(),
            memtype::has_lazily_allocated(self.memory_types()),
        )
    }

    /// The device facts as the compiler's capabilities (the tile budget from [`Gpu::class`]).
    pub fn capabilities(&self) -> Capabilities {
        let limits = &self.properties.limits;
        Capabilities {
            profile: self.device_name(),
            async_compute: self.compute.is_some(),
            lazily_allocated: memtype::has_lazily_allocated(self.memory_types()),
            max_color_attachments: limits.max_color_attachments,
            max_input_attachments: limits.max_per_stage_descriptor_input_attachments.min(64),
            tile_bits_per_pixel: self.class().tile_bits_per_pixel,
            // Covers every image alignment seen on desktop and mobile drivers; the executor
            // still checks each placement against the real requirement.
            placement_alignment: 65536,
            buffer_image_granularity: limits.buffer_image_granularity,
            memory_classes: memtype::memory_classes(self.memory_types(), self.probe_type_bits()),
            depth_resolve_modes: self.depth_resolve_modes(),
        }
    }

    /// The depth resolve modes of the device (`supportedDepthResolveModes`, Vulkan 1.2):
    /// what a multisampled depth attachment may be resolved with on write-back.
    pub fn depth_resolve_modes(&self) -> tessera_graph::ResolveModes {
        let mut resolve = vk::PhysicalDeviceDepthStencilResolveProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut resolve);
        // SAFETY: a property query on our physical device; `resolve` outlives the call.
        unsafe {
            self.instance
                .get_physical_device_properties2(self.physical, &mut props)
        };
        crate::conv::resolve_modes(resolve.supported_depth_resolve_modes)
    }

    /// `memoryTypeBits` of a representative buffer, sampled/storage image, colour attachment
    /// and depth attachment, asked without creating them (`vkGetDevice*MemoryRequirements`,
    /// Vulkan 1.3), for [`memtype::memory_classes`].
    pub fn probe_type_bits(&self) -> [u32; 4] {
        let d = &self.device;
        let transfer = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        let buffer = vk::BufferCreateInfo::default()
            .size(65536)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::INDIRECT_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let mut reqs = vk::MemoryRequirements2::default();
        // SAFETY: a query with a complete create info; nothing is created.
        unsafe {
            d.get_device_buffer_memory_requirements(
                &vk::DeviceBufferMemoryRequirements::default().create_info(&buffer),
                &mut reqs,
            )
        };
        let buffer_bits = reqs.memory_requirements.memory_type_bits;
        // D32_SFLOAT where it is a depth attachment format, else the always supported D16.
        // SAFETY: a property query on our physical device.
        let d32 = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical, vk::Format::D32_SFLOAT)
        };
        let depth_format = if d32
            .optimal_tiling_features
            .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
        {
            vk::Format::D32_SFLOAT
        } else {
            vk::Format::D16_UNORM
        };
        let image = |format, usage| {
            let info = vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(format)
                .extent(vk::Extent3D {
                    width: 256,
                    height: 256,
                    depth: 1,
                })
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(usage | transfer)
                .sharing_mode(vk::SharingMode::EXCLUSIVE)
                .initial_layout(vk::ImageLayout::UNDEFINED);
            let mut reqs = vk::MemoryRequirements2::default();
            // SAFETY: as above; the formats and usages are supported by every Vulkan 1.3
            // device (R8G8B8A8_UNORM sampled, storage and colour attachment; the depth
            // format checked above).
            unsafe {
                d.get_device_image_memory_requirements(
                    &vk::DeviceImageMemoryRequirements::default().create_info(&info),
                    &mut reqs,
                )
            };
            reqs.memory_requirements.memory_type_bits
        };
        [
            buffer_bits,
            image(
                vk::Format::R8G8B8A8_UNORM,
                vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::STORAGE,
            ),
            image(
                vk::Format::R8G8B8A8_UNORM,
                vk::ImageUsageFlags::COLOR_ATTACHMENT
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::INPUT_ATTACHMENT,
            ),
            image(
                depth_format,
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::INPUT_ATTACHMENT,
            ),
        ]
    }

    /// Nanoseconds per timestamp tick.
    pub fn timestamp_period(&self) -> f64 {
        f64::from(self.properties.limits.timestamp_period)
    }

    /// Gives a Vulkan object a debug name (RenderDoc and validation messages show it).
    pub fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(d) = &self.debug else { return };
        let Ok(c) = CString::new(name.replace('\0', " ")) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&c);
        // SAFETY: `handle` is a live object of this device; `c` outlives the call.
        if let Err(e) = unsafe { d.set_debug_utils_object_name(&info) } {
            log::debug!("naming {name}: {e}");
        }
    }

    /// Number of `vkAllocateMemory` calls alive: gpu-allocator's memory blocks plus the
    /// executor's own (lazily allocated) allocations.
    pub fn allocation_count(&self) -> u64 {
        let blocks = self
            .allocator
            .as_ref()
            .and_then(|a| {
                a.lock()
                    .ok()
                    .map(|a| a.generate_report().blocks.len() as u64)
            })
            .unwrap_or(0);
        blocks + self.direct_allocations.load(Ordering::SeqCst)
    }

    /// `vkDeviceWaitIdle` calls made so far through [`Gpu::wait_idle`] (tests assert that
    /// steady-state frames and uploads make none).
    pub fn wait_idle_count(&self) -> u64 {
        self.wait_idles.load(Ordering::SeqCst)
    }

    /// Waits until the device is idle (counted: [`Gpu::wait_idle_count`]).
    pub fn wait_idle(&self) -> Result<(), VkError> {
        self.wait_idles.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the device is valid; no queue is used from another thread.
        unsafe { self.device.device_wait_idle() }?;
        Ok(())
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: every child object was destroyed by its owner before the Gpu (they borrow
        // it); the allocator frees its memory before the device goes, the messenger before
        // the instance.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.allocator.take();
            self.device.destroy_device(None);
            if let Some((d, m)) = self.debug_instance.take() {
                d.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// Device extensions a Vulkan 1.2 device needs for what the executor uses of Vulkan 1.3.
const EXTS_1_2: [&CStr; 2] = [
    ash::khr::synchronization2::NAME,
    ash::khr::maintenance4::NAME,
];

/// Extensions that give a Vulkan 1.2 device `VK_ATTACHMENT_STORE_OP_NONE` (core in 1.3), which
/// the executor records for attachments no subpass writes; the first one present is enabled.
const STORE_OP_NONE: [&CStr; 2] = [
    ash::ext::load_store_op_none::NAME,
    ash::khr::dynamic_rendering::NAME,
];

/// The extension of [`STORE_OP_NONE`] to enable on a Vulkan 1.2 device, if it has one.
fn store_op_none(instance: &ash::Instance, p: vk::PhysicalDevice) -> Option<&'static CStr> {
    STORE_OP_NONE
        .into_iter()
        .find(|e| has_extensions(instance, p, &[e]))
}

/// Whether the physical device offers every extension of `names`.
fn has_extensions(instance: &ash::Instance, p: vk::PhysicalDevice, names: &[&CStr]) -> bool {
    // SAFETY: an enumeration on a physical device of this instance.
    let Ok(exts) = (unsafe { instance.enumerate_device_extension_properties(p) }) else {
        return false;
    };
    names.iter().all(|n| {
        exts.iter()
            .any(|e| e.extension_name_as_c_str().ok() == Some(*n))
    })
}

/// Loads a Vulkan 1.2 device's functions, the Vulkan 1.3 ones from their `KHR` aliases
/// (`vkCmdPipelineBarrier2KHR` for `vkCmdPipelineBarrier2`, ...; same signatures), the older
/// ones under their core names.
///
/// # Safety
/// `device` must be a live device of `instance` with the aliased extensions enabled.
unsafe fn load_with_khr_aliases(instance: &ash::Instance, device: vk::Device) -> ash::Device {
    let get = |name: &CStr| {
        // SAFETY: the caller guarantees a live device; `name` is NUL-terminated.
        unsafe { instance.get_device_proc_addr(device, name.as_ptr()) }
            .map_or(std::ptr::null(), |f| f as *const c_void)
    };
    let mut core = |name: &CStr| get(name);
    let mut khr = |name: &CStr| {
        let mut alias = name.to_bytes().to_vec();
        alias.extend_from_slice(b"KHR");
        CString::new(alias).map_or(std::ptr::null(), |k| get(&k))
    };
    // Functions left null are never called (ash panics with the function's name if one
    // were): the executor uses only synchronization2 and maintenance4 of Vulkan 1.3.
    ash::Device::from_parts_1_3(
        device,
        ash::DeviceFnV1_0::load(&mut core),
        ash::DeviceFnV1_1::load(&mut core),
        ash::DeviceFnV1_2::load(&mut core),
        ash::DeviceFnV1_3::load(&mut khr),
    )
}

/// A compute-capable family without graphics (the async-compute queue), if any.
pub fn compute_only_family(families: &[vk::QueueFamilyProperties]) -> Option<u32> {
    families
        .iter()
        .position(|f| {
            f.queue_count > 0
                && f.queue_flags.contains(vk::QueueFlags::COMPUTE)
                && !f.queue_flags.contains(vk::QueueFlags::GRAPHICS)
        })
        .map(|i| i as u32)
}

/// The names of the tools attached to `physical` (RenderDoc, validation, profilers), through
/// `VK_EXT_tooling_info` where the device lists it, else core Vulkan 1.3; empty when the
/// device has neither or the query fails (only a log line depends on it).
fn attached_tools(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    properties: &vk::PhysicalDeviceProperties,
) -> Vec<String> {
    // SAFETY: an enumeration on a valid physical device.
    let exts =
        unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
    let has_ext = exts
        .iter()
        .any(|e| e.extension_name_as_c_str().ok() == Some(ash::ext::tooling_info::NAME));
    let name = |t: &vk::PhysicalDeviceToolProperties<'_>| {
        t.name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if has_ext {
        let ext = ash::ext::tooling_info::Instance::new(entry, instance);
        // SAFETY: the device lists VK_EXT_tooling_info, so the function is there.
        return unsafe { ext.get_physical_device_tool_properties(physical) }
            .map(|v| v.iter().map(name).collect())
            .unwrap_or_default();
    }
    if properties.api_version < vk::API_VERSION_1_3 {
        return Vec::new();
    }
    // SAFETY: a Vulkan 1.3 device has the core query; `out` is default-initialised.
    unsafe {
        let Ok(n) = instance.get_physical_device_tool_properties_len(physical) else {
            return Vec::new();
        };
        let mut out = vec![vk::PhysicalDeviceToolProperties::default(); n];
        match instance.get_physical_device_tool_properties(physical, &mut out) {
            Ok(()) => out.iter().map(name).collect(),
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fam(flags: vk::QueueFlags, n: u32) -> vk::QueueFamilyProperties {
        vk::QueueFamilyProperties {
            queue_flags: flags,
            queue_count: n,
            ..Default::default()
        }
    }

    #[test]
    fn the_async_queue_is_a_compute_only_family_or_a_second_graphics_queue() {
        use super::AsyncQueue;
        // A desktop GPU: the compute-only family, unless a graphics queue is asked for.
        assert_eq!(AsyncQueue::Auto.pick(0, 16, Some(2)), Some((2, 0)));
        assert_eq!(AsyncQueue::Graphics.pick(0, 16, Some(2)), Some((0, 1)));
        // A tiler: no compute-only family, several graphics queues: the second one.
        assert_eq!(AsyncQueue::Auto.pick(0, 2, None), Some((0, 1)));
        assert_eq!(AsyncQueue::Graphics.pick(0, 2, None), Some((0, 1)));
        // lavapipe: one queue in one family, nothing to run beside it.
        assert_eq!(AsyncQueue::Auto.pick(0, 1, None), None);
        assert_eq!(AsyncQueue::Graphics.pick(0, 1, Some(1)), None);
        for name in AsyncQueue::NAMES {
            assert!(AsyncQueue::parse(name).is_some(), "{name}");
        }
        assert_eq!(AsyncQueue::parse("compute"), None);
    }

    #[test]
    fn async_compute_needs_a_distinct_compute_only_family() {
        use vk::QueueFlags as Q;
        // lavapipe: one family does everything.
        assert_eq!(
            compute_only_family(&[fam(Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER, 1)]),
            None
        );
        // NVIDIA: graphics, transfer-only, compute-only.
        assert_eq!(
            compute_only_family(&[
                fam(Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER, 16),
                fam(Q::TRANSFER, 2),
                fam(Q::COMPUTE | Q::TRANSFER, 8),
            ]),
            Some(2)
        );
        assert_eq!(compute_only_family(&[fam(Q::COMPUTE, 0)]), None);
    }
}

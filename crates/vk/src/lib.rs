//! # tessera-vk
//!
//! Tessera's Vulkan executor: it turns a compiled [`tessera_graph::Plan`] into Vulkan work
//! exactly as planned, with ash and gpu-allocator.
//!
//! - [`device`]: instance, validation with synchronization validation and a message counter,
//!   queues, the device facts as [`tessera_graph::Capabilities`].
//! - [`conv`], [`memtype`], [`barrier`] and [`submit`]: pure mappings, memory-type
//!   decisions, plan barriers as Vulkan barriers (ownership transfers included) and the
//!   submission layout with its timeline values (tested without a device).
//! - [`resources`]: images and buffers, one allocation per plan block with each placement
//!   bound at its planned offset, memoryless attachments, staging rings, and the renderer's
//!   own images and buffers ([`resources::OwnedImage`], [`resources::OwnedBuffer`]).
//! - [`render`]: `VkRenderPass` objects (a device-lifetime cache) and framebuffers from the
//!   plan's render passes.
//! - [`executor`]: the three lifetimes — device (caches, frame slots, upload ring), plan
//!   ([`executor::Executor::prepare`]: compile for the device, real sizes, recompile, bind,
//!   rebuilt only when the graph or options change) and frame (barriers, render passes with
//!   clear values, one submit per plan batch with timeline semaphores, imports handed in with
//!   binary semaphores, GPU timestamps); each pass records through [`executor::PassBodies`].
//! - [`shader`]: shader modules, and GLSL to SPIR-V at run time with the `glsl` feature
//!   (`tessera-glsl`: `#include`, defines, file:line errors; the Android build has none).
//! - [`device_class`]: what kind of GPU the device is (desktop, Mali and its architecture,
//!   Adreno): the profile whose preset applies and the tile budget, from its identity.
//! - [`surface`]: window surfaces, one per life of the native window (Android takes it
//!   away on suspend); the device outlives them.
//! - [`swapchain`]: the window's swapchain (create, recreate, acquire, present).
//! - [`capture`]: RenderDoc frame capture through its in-app API, loaded at run time.
//!
//! The synthetic pass bodies behind `tessera exec` are a client of the executor in a crate
//! of their own, `tessera-synth`; the executor's test-only switches
//! ([`executor::TestHooks`]) exist with the `test-hooks` feature, which it enables.
//!
//! The project's `unsafe` lives in the Vulkan crates: here in `device`, `resources`,
//! `render`, `executor`, `shader`, `surface`, `window`, `swapchain` and `capture`, and in
//! `tessera-synth`; each block says why it is sound.

#![warn(missing_docs)]

pub mod barrier;
pub mod capture;
pub mod conv;
pub mod device;
pub mod device_class;
pub mod executor;
pub mod limits;
pub mod memtype;
pub mod render;
pub mod resources;
pub mod shader;
pub mod submit;
pub mod surface;
pub mod swapchain;
mod window;

pub use device::{AsyncQueue, Gpu, GpuOptions};
pub use surface::{SurfaceRequest, WindowSource, WindowSurface};

/// What can go wrong in the executor.
#[derive(Debug, thiserror::Error)]
pub enum VkError {
    /// The device was lost (`VK_ERROR_DEVICE_LOST`).
    #[error("vulkan: {}", ash::vk::Result::ERROR_DEVICE_LOST)]
    DeviceLost,
    /// The window surface was lost (`VK_ERROR_SURFACE_LOST_KHR`).
    #[error("vulkan: {}", ash::vk::Result::ERROR_SURFACE_LOST_KHR)]
    SurfaceLost,
    /// The swapchain no longer matches its surface (`VK_ERROR_OUT_OF_DATE_KHR`).
    #[error("vulkan: {}", ash::vk::Result::ERROR_OUT_OF_DATE_KHR)]
    OutOfDate,
    /// A device memory allocation failed (`VK_ERROR_OUT_OF_DEVICE_MEMORY`).
    #[error("vulkan: {}", ash::vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)]
    OutOfDeviceMemory,
    /// Any other failed Vulkan call (the cases above have variants of their own: build
    /// this through `From<vk::Result>`, which picks them).
    #[error("vulkan: {0}")]
    Vk(ash::vk::Result),
    /// The graph imports a resource that this frame does not hand in.
    #[error(
        "'{name}' is imported and handed in by the renderer (per frame, or every import), but this frame does not hand it in"
    )]
    MissingImport {
        /// The imported resource.
        name: String,
    },
    /// A pass has no body to record it.
    #[error("pass '{pass}' has no body")]
    MissingBody {
        /// The pass.
        pass: String,
    },
    /// An error with where it happened in front (`"{context}: {source}"`); the cause keeps
    /// its variant ([`VkError::root`]).
    #[error("{context}: {source}")]
    In {
        /// Where: a pass, a recording.
        context: String,
        /// What went wrong.
        source: Box<VkError>,
    },
    /// Setting up the device or a resource failed.
    #[error("{0}")]
    Setup(String),
    /// No Vulkan device could be opened (no loader, no driver, no suitable device): the
    /// message says why.
    #[error("no Vulkan device ({0})")]
    NoDevice(String),
    /// The graph or plan asks for something the executor or device cannot do.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Allocation failed.
    #[error("allocation: {0}")]
    Alloc(#[from] gpu_allocator::AllocationError),
    /// A shader did not compile.
    #[error("shader: {0}")]
    Shader(String),
    /// The graph does not compile for this device.
    #[error("the frame does not compile for this device: {0}")]
    Compile(tessera_graph::CompileError),
}

impl From<ash::vk::Result> for VkError {
    /// The Vulkan result as its own variant where callers act on it (device lost, surface
    /// lost, out of date, out of device memory), else [`VkError::Vk`].
    fn from(r: ash::vk::Result) -> Self {
        use ash::vk::Result as R;
        match r {
            R::ERROR_DEVICE_LOST => VkError::DeviceLost,
            R::ERROR_SURFACE_LOST_KHR => VkError::SurfaceLost,
            R::ERROR_OUT_OF_DATE_KHR => VkError::OutOfDate,
            R::ERROR_OUT_OF_DEVICE_MEMORY => VkError::OutOfDeviceMemory,
            r => VkError::Vk(r),
        }
    }
}

impl VkError {
    /// The error itself, behind any [`VkError::In`] context.
    pub fn root(&self) -> &VkError {
        match self {
            VkError::In { source, .. } => source.root(),
            e => e,
        }
    }

    /// `context: self`.
    pub fn context(self, context: impl Into<String>) -> VkError {
        VkError::In {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// Whether the device was lost.
    pub fn is_device_lost(&self) -> bool {
        matches!(self.root(), VkError::DeviceLost)
    }

    /// Whether the window surface was lost.
    pub fn is_surface_lost(&self) -> bool {
        matches!(self.root(), VkError::SurfaceLost)
    }

    /// Whether the swapchain is out of date.
    pub fn is_out_of_date(&self) -> bool {
        matches!(self.root(), VkError::OutOfDate)
    }

    /// Whether device memory ran out.
    pub fn is_out_of_device_memory(&self) -> bool {
        matches!(self.root(), VkError::OutOfDeviceMemory)
    }
}

#[cfg(test)]
mod error_tests {
    use super::VkError;
    use ash::vk;

    #[test]
    fn vulkan_results_callers_act_on_have_variants() {
        assert!(matches!(
            VkError::from(vk::Result::ERROR_DEVICE_LOST),
            VkError::DeviceLost
        ));
        assert!(matches!(
            VkError::from(vk::Result::ERROR_SURFACE_LOST_KHR),
            VkError::SurfaceLost
        ));
        assert!(matches!(
            VkError::from(vk::Result::ERROR_OUT_OF_DATE_KHR),
            VkError::OutOfDate
        ));
        assert!(matches!(
            VkError::from(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            VkError::OutOfDeviceMemory
        ));
        assert!(matches!(
            VkError::from(vk::Result::ERROR_INITIALIZATION_FAILED),
            VkError::Vk(vk::Result::ERROR_INITIALIZATION_FAILED)
        ));
        // `?` on a VkResult maps the same way.
        let f = || -> Result<(), VkError> { Err(vk::Result::ERROR_DEVICE_LOST)? };
        assert!(f().unwrap_err().is_device_lost());
    }

    #[test]
    fn messages_are_as_before() {
        for r in [
            vk::Result::ERROR_DEVICE_LOST,
            vk::Result::ERROR_SURFACE_LOST_KHR,
            vk::Result::ERROR_OUT_OF_DATE_KHR,
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            vk::Result::ERROR_UNKNOWN,
        ] {
            assert_eq!(VkError::from(r).to_string(), format!("vulkan: {r}"));
        }
    }

    #[test]
    fn context_keeps_the_variant() {
        let e = VkError::from(vk::Result::ERROR_DEVICE_LOST)
            .context("recording 'shade'")
            .context("pass 'shade'");
        assert!(e.is_device_lost());
        assert!(!e.is_surface_lost());
        assert_eq!(
            e.to_string(),
            format!(
                "pass 'shade': recording 'shade': vulkan: {}",
                vk::Result::ERROR_DEVICE_LOST
            )
        );
    }
}

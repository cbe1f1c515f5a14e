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
//! `render`, `executor`, `shader`, `surface`, `swapchain` and `capture`, and in
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

pub use device::{Gpu, GpuOptions};
pub use surface::{SurfaceRequest, WindowSource, WindowSurface};

/// What can go wrong in the executor.
#[derive(Debug, thiserror::Error)]
pub enum VkError {
    /// A Vulkan call failed.
    #[error("vulkan: {0}")]
    Vk(#[from] ash::vk::Result),
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

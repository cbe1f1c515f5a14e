//! What the renderer owns on the GPU.

pub mod frame_data;
pub mod pipelines;
pub mod scene;

//! What the renderer owns on the GPU.

pub mod frame_data;
pub mod generic;
pub mod pipelines;
pub mod scene;

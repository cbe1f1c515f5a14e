//! What the renderer owns on the GPU.

pub mod commands;
pub mod descriptors;
pub mod flat_pipeline;
pub mod frame_data;
pub mod generic;
pub mod lighting_support;
pub mod pass;
pub mod pipelines;
pub mod samples;
pub mod scene;
pub mod ui;

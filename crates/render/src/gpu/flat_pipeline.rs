//! The fixed state every 2-D raster pipeline shares (the full-screen passes of
//! [`super::generic`], the UI of [`super::ui`]): triangle lists, no culling, no depth, one
//! dynamic viewport and scissor. Only the stages, the vertex input, the samples and the
//! blending differ, so they are what a caller gives.

use crate::RenderError;
use ash::vk;
use tessera_vk::Gpu;

/// What differs between the 2-D pipelines.
#[derive(Debug)]
pub struct FlatPipeline<'a> {
    /// The vertex and fragment stages.
    pub stages: &'a [vk::PipelineShaderStageCreateInfo<'a>],
    /// The vertex input (empty for a full-screen triangle made in the vertex shader).
    pub vertex: &'a vk::PipelineVertexInputStateCreateInfo<'a>,
    /// Rasterization samples.
    pub samples: vk::SampleCountFlags,
    /// Blending of each colour attachment of the subpass.
    pub blend: &'a [vk::PipelineColorBlendAttachmentState],
    /// The pipeline layout.
    pub layout: vk::PipelineLayout,
    /// The render pass and subpass it draws in.
    pub subpass: (vk::RenderPass, u32),
}

impl FlatPipeline<'_> {
    /// Creates it; the caller destroys it.
    pub fn create(&self, gpu: &Gpu) -> Result<vk::Pipeline, RenderError> {
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(self.samples);
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(self.blend);
        let depth = vk::PipelineDepthStencilStateCreateInfo::default();
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(self.stages)
            .vertex_input_state(self.vertex)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .depth_stencil_state(&depth)
            .dynamic_state(&dynamic)
            .layout(self.layout)
            .render_pass(self.subpass.0)
            .subpass(self.subpass.1);
        // SAFETY: a complete create info for a live render pass and subpass, with live
        // modules and layout.
        let pipelines = unsafe {
            gpu.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, e)| RenderError::from(e))?;
        Ok(pipelines[0])
    }
}

//! The post-processing passes: tone mapping, and the read-back of the output.

use super::sets::{draw_fullscreen, input_set};
use super::Targets;
use crate::builder::{BufferRef, FrameBuilder, ImportFlags};
use crate::gpu::pipelines::PipelineKind;
use ash::vk;
use tessera_graph::PassKind;

/// `tonemap`: HDR (an input attachment) times `exposure`, ACES fit, into the output.
pub fn declare_tonemap(fb: &mut FrameBuilder<'_>, t: &Targets, exposure: f32) {
    let (hdr, output) = (t.hdr, t.output);
    fb.pass("tonemap", PassKind::Raster, |p| {
        p.input(hdr).color(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let (pipeline, layout, input_layout) = {
                let mut p = pc.pipelines()?.borrow_mut();
                (
                    p.get(pc.gpu, PipelineKind::Tonemap, rp, sp)?,
                    p.layouts.tonemap,
                    p.layouts.hdr_input,
                )
            };
            let set = input_set(pc, input_layout, &[hdr])?;
            draw_fullscreen(
                pc,
                (pipeline, layout),
                extent,
                &[set],
                &exposure.to_le_bytes(),
            );
            Ok(())
        }
    });
}

/// `readback`: copies the output into the imported host-visible buffer `readback` of
/// `bytes`, which it returns.
pub fn declare_readback(fb: &mut FrameBuilder<'_>, t: &Targets, bytes: u64) -> BufferRef {
    let t = *t;
    let buffer = fb.import_buffer("readback", bytes, ImportFlags::default());
    fb.pass("readback", PassKind::Transfer, |p| {
        p.copy_from(t.output).copy_to(buffer);
        move |pc| {
            let im = pc.image(t.output)?;
            let dst = pc.buffer(buffer)?;
            let region = vk::BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: 0,
                buffer_image_height: 0,
                image_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                },
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: im.extent.width,
                    height: im.extent.height,
                    depth: 1,
                },
            };
            // The host reads the buffer after the frame's fence: make the copy visible
            // to it (host access is outside the graph's model).
            let to_host = [vk::BufferMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::HOST)
                .dst_access_mask(vk::AccessFlags2::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(dst)
                .offset(0)
                .size(vk::WHOLE_SIZE)];
            // SAFETY: recording outside a render pass; the plan put the image in
            // TRANSFER_SRC_OPTIMAL and ordered the copy after the tone mapping.
            unsafe {
                pc.gpu.device.cmd_copy_image_to_buffer(
                    pc.cmd,
                    im.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    dst,
                    &[region],
                );
                pc.gpu.device.cmd_pipeline_barrier2(
                    pc.cmd,
                    &vk::DependencyInfo::default().buffer_memory_barriers(&to_host),
                );
            }
            Ok(())
        }
    });
    buffer
}

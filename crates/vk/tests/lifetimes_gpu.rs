//! The executor's three lifetimes on the GPU (lavapipe, validation and synchronization
//! validation on, zero messages asserted): an unchanged `prepare` rebuilds nothing, a resize
//! rebuilds the plan while render passes and pipelines stay, uploads never wait for the idle
//! device, imports handed in per frame with binary semaphores, and a recording error that
//! leaves the executor usable. Pixels are read back to show the work really ran.

use ash::vk;
use std::sync::Arc;
use tessera_graph::graph::ClearValue;
use tessera_graph::graph::{Import, Origin};
use tessera_graph::{Access, CompileOptions, Format, Graph, ImageDesc, PassId, ResourceId};
use tessera_vk::executor::{
    ExecOptions, Executor, FrameImports, ImportedImage, PassBodies, PassSetup, RecordContext,
    SamplerDesc,
};
use tessera_vk::resources::{OwnedBuffer, OwnedImage};
use tessera_vk::shader::{compile_glsl, module};
use tessera_vk::{Gpu, GpuOptions, VkError};

fn gpu() -> Arc<Gpu> {
    Arc::new(
        Gpu::new(&GpuOptions {
            validation: true,
            surface: None,
            ..Default::default()
        })
        .expect("a Vulkan 1.3 device with validation layers"),
    )
}

const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const CLEAR_BYTES: [u8; 4] = [0, 0, 255, 255];
const DRAWN_BYTES: [u8; 4] = [255, 0, 0, 255];

/// `draw` clears a transient `scene` to blue and draws a red triangle over its top-left
/// half; `copy` copies it into the imported `out`.
fn scene_graph(w: u32, h: u32) -> (Graph, ResourceId) {
    let mut g = Graph::new("lifetimes");
    let scene = g.image("scene", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    g.resource_mut(out).origin = Origin::Imported(Import {
        clear_on_first_use: true,
        ..Import::default()
    });
    g.raster("draw")
        .clears_to(scene, Access::ColorWrite, ClearValue::Color(CLEAR))
        .id();
    g.transfer("copy")
        .uses(scene, Access::TransferSrc)
        .uses(out, Access::TransferDst)
        .id();
    (g, out)
}

/// `draw` straight into an imported image handed in every frame, presented at the end.
fn present_graph(w: u32, h: u32) -> (Graph, ResourceId) {
    let mut g = Graph::new("present");
    let out = g.image("swapchain", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    g.resource_mut(out).origin = Origin::PRESENTED;
    g.raster("draw")
        .clears_to(out, Access::ColorWrite, ClearValue::Color(CLEAR))
        .id();
    (g, out)
}

const VERT: &str = "#version 450
void main() {
    vec2 p[3] = vec2[](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0));
    gl_Position = vec4(p[gl_VertexIndex], 0.0, 1.0);
}
";
const FRAG: &str = "#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(1.0, 0.0, 0.0, 1.0); }
";

/// Test bodies: a pipeline for the raster pass, kept while its render pass handle stays; a
/// copy for the transfer pass; an optional deliberate failure.
#[derive(Default)]
struct Bodies {
    draw: Option<PassId>,
    pipeline: Option<(vk::RenderPass, vk::Pipeline)>,
    layout: vk::PipelineLayout,
    pipelines_created: u32,
    rebuilds_heard: u32,
    fail_on_frame: Option<u64>,
    frames_done: Vec<u64>,
    /// Descriptor sets the raster pass allocates per frame, of `set_layout`.
    sets_per_frame: u32,
    set_layout: vk::DescriptorSetLayout,
    /// `rebuilt` fails (once).
    fail_rebuilt: bool,
}

impl Bodies {
    fn make_pipeline(&mut self, gpu: &Gpu, rp: vk::RenderPass, sub: u32) -> Result<(), VkError> {
        let d = &gpu.device;
        if self.layout == vk::PipelineLayout::null() {
            // SAFETY: an empty layout.
            self.layout = unsafe {
                d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            }?;
        }
        let v = compile_glsl(VERT, "tri.vert", vk::ShaderStageFlags::VERTEX, &[], None)?;
        let f = compile_glsl(FRAG, "tri.frag", vk::ShaderStageFlags::FRAGMENT, &[], None)?;
        let (vm, fm) = (module(gpu, &v, "tri.vert")?, module(gpu, &f, "tri.frag")?);
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vm)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fm)
                .name(c"main"),
        ];
        let vi = vk::PipelineVertexInputStateCreateInfo::default();
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let rs = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vi)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .multisample_state(&ms)
            .color_blend_state(&cb)
            .dynamic_state(&dy)
            .layout(self.layout)
            .render_pass(rp)
            .subpass(sub);
        // SAFETY: complete create info; the modules are destroyed after.
        let r = unsafe { d.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) };
        // SAFETY: no longer needed once the pipeline exists.
        unsafe {
            d.destroy_shader_module(vm, None);
            d.destroy_shader_module(fm, None);
        }
        let p = r.map_err(|(_, e)| e)?[0];
        if let Some((_, old)) = self.pipeline.replace((rp, p)) {
            // SAFETY: no frame in flight (the executor waited before rebuilding).
            unsafe { d.destroy_pipeline(old, None) };
        }
        self.pipelines_created += 1;
        Ok(())
    }
}

impl PassBodies for Bodies {
    fn rebuilt(&mut self, gpu: &Gpu, passes: &[PassSetup]) -> Result<(), VkError> {
        self.rebuilds_heard += 1;
        if std::mem::take(&mut self.fail_rebuilt) {
            return Err(VkError::Setup("deliberate rebuild failure".into()));
        }
        for p in passes {
            if let Some((rp, sub, _)) = p.subpass {
                self.draw = Some(p.id);
                if self.pipeline.map(|(r, _)| r) != Some(rp) {
                    self.make_pipeline(gpu, rp, sub)?;
                }
            }
        }
        Ok(())
    }

    fn record(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        if self.fail_on_frame == Some(ctx.frame) {
            return Err(VkError::Setup("deliberate failure".into()));
        }
        let d = &ctx.gpu.device;
        if Some(pass.id) == self.draw {
            for _ in 0..self.sets_per_frame {
                ctx.descriptor_set(self.set_layout)?;
            }
            let (_, _, extent) = pass.subpass.expect("raster pass in a subpass");
            let pipeline = self.pipeline.expect("built in rebuilt").1;
            let viewport = vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: extent.width as f32,
                height: extent.height as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            let scissor = vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent,
            };
            // SAFETY: inside the pass's subpass with a pipeline made for its render pass.
            unsafe {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
                d.cmd_set_viewport(cmd, 0, &[viewport]);
                d.cmd_set_scissor(cmd, 0, &[scissor]);
                d.cmd_draw(cmd, 3, 1, 0, 0);
            }
            return Ok(());
        }
        let src = pass.uses.iter().find(|u| u.access == Access::TransferSrc);
        let dst = pass.uses.iter().find(|u| u.access == Access::TransferDst);
        let (Some(s), Some(t)) = (
            src.and_then(|u| ctx.image(u.resource)),
            dst.and_then(|u| ctx.image(u.resource)),
        ) else {
            return Err(VkError::Setup("copy without images".into()));
        };
        let sub = vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        };
        let region = vk::ImageCopy {
            src_subresource: sub,
            dst_subresource: sub,
            extent: vk::Extent3D {
                width: s.extent.width,
                height: s.extent.height,
                depth: 1,
            },
            ..Default::default()
        };
        // SAFETY: both images are in the layouts the plan's barriers put them in.
        unsafe {
            d.cmd_copy_image(
                cmd,
                s.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                t.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            )
        };
        Ok(())
    }

    fn frame_done(&mut self, _gpu: &Gpu, frame: u64) {
        self.frames_done.push(frame);
    }

    fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: no frame in flight.
        unsafe {
            if let Some((_, p)) = self.pipeline.take() {
                gpu.device.destroy_pipeline(p, None);
            }
            if self.layout != vk::PipelineLayout::null() {
                gpu.device.destroy_pipeline_layout(self.layout, None);
            }
            if self.set_layout != vk::DescriptorSetLayout::null() {
                gpu.device
                    .destroy_descriptor_set_layout(self.set_layout, None);
            }
        }
    }
}

/// Reads an image (in `layout`, all its work submitted) back through a one-time copy:
/// RGBA8 bytes, row by row.
fn read_image(
    exec: &mut Executor,
    image: vk::Image,
    layout: vk::ImageLayout,
    w: u32,
    h: u32,
) -> Vec<u8> {
    let bytes = u64::from(w * h * 4);
    let mut at = 0;
    exec.once(|gpu, cmd, ring| {
        at = ring.reserve(bytes).expect("fits the one-time ring");
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let to = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(layout)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(image)
            .subresource_range(range)];
        let back = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
            .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .new_layout(layout)
            .image(image)
            .subresource_range(range)];
        let region = vk::BufferImageCopy {
            buffer_offset: at,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_extent: vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
            ..Default::default()
        };
        // SAFETY: recording a transition, a copy into the ring and the transition back.
        unsafe {
            let d = &gpu.device;
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&to),
            );
            d.cmd_copy_image_to_buffer(
                cmd,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                ring.buffer,
                &[region],
            );
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&back),
            );
        }
    })
    .expect("read back");
    let ring = exec.staging().expect("ring");
    ring.bytes().expect("mapped")[at as usize..(at + bytes) as usize].to_vec()
}

fn pixel(bytes: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]
}

fn assert_clean(gpu: &Gpu) {
    assert_eq!(gpu.messages.count(), 0, "{:#?}", gpu.messages.texts());
}

/// Runs `frames` frames of the scene graph and checks `out`: red top-left, blue bottom-right.
fn run_scene(exec: &mut Executor, bodies: &mut Bodies, out: ResourceId, w: u32, h: u32) {
    for _ in 0..3 {
        exec.frame(bodies, &FrameImports::NONE).expect("frame");
    }
    exec.finish(bodies).expect("finish");
    let image = exec.resources().unwrap().image(out.index()).unwrap().image;
    let layout = exec.end_layouts()[out.index()];
    let px = read_image(exec, image, layout, w, h);
    assert_eq!(pixel(&px, w, 0, 0), DRAWN_BYTES);
    assert_eq!(pixel(&px, w, w - 1, h - 1), CLEAR_BYTES);
}

#[test]
fn unchanged_prepare_rebuilds_nothing_and_a_resize_keeps_render_passes_and_pipelines() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let mut bodies = Bodies::default();
    let (g, out) = scene_graph(32, 16);
    assert!(exec.prepare(&g, &CompileOptions::ALL, &mut bodies).unwrap());
    let first = exec.stats();
    assert_eq!(first.rebuilds, 1);
    assert_eq!(first.render_passes_created, 1);
    assert_eq!(first.framebuffers_created, 1);
    run_scene(&mut exec, &mut bodies, out, 32, 16);
    // The same graph again (declared anew, as a renderer does every frame): nothing.
    let (again, _) = scene_graph(32, 16);
    assert!(!exec
        .prepare(&again, &CompileOptions::ALL, &mut bodies)
        .unwrap());
    assert_eq!(exec.stats().rebuilds, 1);
    assert_eq!(bodies.rebuilds_heard, 1);
    let idle_before = gpu.wait_idle_count();
    // A resize: a rebuild with the same render pass (cache hit, pipeline kept) and a new
    // framebuffer.
    let (big, out) = scene_graph(48, 40);
    assert!(exec
        .prepare(&big, &CompileOptions::ALL, &mut bodies)
        .unwrap());
    let after = exec.stats();
    assert_eq!(after.rebuilds, 2);
    assert_eq!(bodies.rebuilds_heard, 2);
    assert_eq!(
        after.render_passes_created, first.render_passes_created,
        "the resize found its render pass in the cache"
    );
    assert_eq!(
        bodies.pipelines_created, 1,
        "the pipeline survived the rebuild"
    );
    assert_eq!(after.framebuffers_created, first.framebuffers_created + 1);
    assert_eq!(
        exec.graph().unwrap().resources[out.index()]
            .image_desc()
            .unwrap()
            .width,
        48
    );
    run_scene(&mut exec, &mut bodies, out, 48, 40);
    assert_eq!(
        gpu.wait_idle_count(),
        idle_before,
        "rebuilds wait on fences"
    );
    assert_eq!(bodies.frames_done.len(), 6);
    // Other options: a rebuild.
    assert!(exec
        .prepare(&big, &CompileOptions::NONE, &mut bodies)
        .unwrap());
    assert_eq!(exec.stats().rebuilds, 3);
    run_scene(&mut exec, &mut bodies, out, 48, 40);
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

#[test]
fn uploads_never_wait_for_the_idle_device() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let mut bodies = Bodies::default();
    let (g, _) = scene_graph(16, 16);
    exec.prepare(&g, &CompileOptions::ALL, &mut bodies).unwrap();
    // 3 MiB per frame through a ring that starts at 8 MiB: the ring waits for older frames;
    // one 20 MiB upload makes it grow.
    const CHUNK: u64 = 3 << 20;
    const FRAMES: u64 = 8;
    let total = CHUNK * FRAMES + (20 << 20);
    let dst = OwnedBuffer::new(
        &gpu,
        total,
        vk::BufferUsageFlags::TRANSFER_DST,
        true,
        "upload target",
    )
    .unwrap();
    let tex = OwnedImage::new(
        &gpu,
        vk::Format::R8G8B8A8_UNORM,
        vk::Extent2D {
            width: 8,
            height: 4,
        },
        2,
        vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
        "texture",
    )
    .unwrap();
    let idle_before = gpu.wait_idle_count();
    let pattern = |i: u64| -> Vec<u8> {
        (0..CHUNK)
            .map(|b| (b.wrapping_mul(31) ^ i.wrapping_mul(7)) as u8)
            .collect()
    };
    for f in 0..FRAMES {
        exec.upload_buffer(dst.buffer, f * CHUNK, &pattern(f))
            .unwrap();
        let mip0 = vec![f as u8; 8 * 4 * 4];
        let mip1 = vec![f as u8 + 1; 4 * 2 * 4];
        exec.upload_image(
            tex.image,
            vk::Format::R8G8B8A8_UNORM,
            tex.extent,
            &[&mip0, &mip1],
        )
        .unwrap();
        exec.frame(&mut bodies, &FrameImports::NONE).unwrap();
    }
    let big: Vec<u8> = (0..(20u64 << 20)).map(|b| (b % 251) as u8).collect();
    exec.upload_buffer(dst.buffer, CHUNK * FRAMES, &big)
        .unwrap();
    exec.frame(&mut bodies, &FrameImports::NONE).unwrap();
    exec.finish(&mut bodies).unwrap();
    let stats = exec.stats();
    assert_eq!(
        gpu.wait_idle_count(),
        idle_before,
        "uploads waited for the idle device"
    );
    assert_eq!(stats.wait_idle_calls, idle_before);
    assert_eq!(stats.uploads, 2 * FRAMES + 1);
    assert!(
        stats.upload_waits > 0,
        "the ring never had to wait: {stats:?}"
    );
    assert_eq!(
        stats.bytes_uploaded,
        total + FRAMES * (8 * 4 * 4 + 4 * 2 * 4)
    );
    let got = dst.mapped().expect("host-visible");
    for f in 0..FRAMES {
        let at = (f * CHUNK) as usize;
        assert!(
            got[at..at + CHUNK as usize] == pattern(f)[..],
            "chunk {f} did not land"
        );
    }
    assert!(
        got[(CHUNK * FRAMES) as usize..] == big[..],
        "the big upload did not land"
    );
    let (mut dst, mut tex) = (dst, tex);
    dst.destroy(&gpu);
    tex.destroy(&gpu);
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

/// A binary semaphore, signalled by an empty submit (what an acquire would do).
fn signalled_semaphore(gpu: &Gpu) -> vk::Semaphore {
    let d = &gpu.device;
    // SAFETY: a complete create info; the semaphore is destroyed by the caller.
    let s = unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.unwrap();
    let sig = [vk::SemaphoreSubmitInfo::default()
        .semaphore(s)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let info = vk::SubmitInfo2::default().signal_semaphore_infos(&sig);
    // SAFETY: an empty submit signalling a fresh binary semaphore.
    unsafe { d.queue_submit2(gpu.graphics.queue, &[info], vk::Fence::null()) }.unwrap();
    s
}

/// Waits on `s` with an empty submit and a fence (what a present would do), on the host.
fn wait_semaphore(gpu: &Gpu, s: vk::Semaphore) {
    let d = &gpu.device;
    // SAFETY: complete create info; destroyed below.
    let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.unwrap();
    let wait = [vk::SemaphoreSubmitInfo::default()
        .semaphore(s)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let info = vk::SubmitInfo2::default().wait_semaphore_infos(&wait);
    // SAFETY: an empty submit waiting for a semaphore a frame signals; the fence is waited
    // (a frame that never signals fails the test after 10 s instead of hanging it).
    unsafe {
        d.queue_submit2(gpu.graphics.queue, &[info], fence).unwrap();
        d.wait_for_fences(&[fence], true, 10_000_000_000)
            .expect("the frame signals its semaphore");
        d.destroy_fence(fence, None);
    }
}

/// One frame into `image` handed in as `swap`, as a window's: it waits for a signalled
/// acquire semaphore and signals one the host then waits for (the present). Both are
/// pushed to `semaphores`, to destroy once every frame is done.
fn present_frame(
    gpu: &Gpu,
    exec: &mut Executor,
    bodies: &mut Bodies,
    swap: ResourceId,
    image: ImportedImage,
    semaphores: &mut Vec<vk::Semaphore>,
) {
    let acquire = signalled_semaphore(gpu);
    // SAFETY: a complete create info; destroyed by the caller.
    let done = unsafe {
        gpu.device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
    }
    .unwrap();
    exec.frame(
        bodies,
        &FrameImports {
            images: &[(swap, image)],
            wait: &[acquire],
            signal: &[done],
            ..FrameImports::NONE
        },
    )
    .unwrap();
    wait_semaphore(gpu, done);
    semaphores.extend([acquire, done]);
}

#[test]
fn images_handed_in_per_frame_with_binary_semaphores() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let mut bodies = Bodies::default();
    let (w, h) = (24, 12);
    let (g, swap) = present_graph(w, h);
    exec.prepare(&g, &CompileOptions::ALL, &mut bodies).unwrap();
    // The executor creates nothing for a per-frame import, and a frame without it fails.
    assert!(exec.resources().unwrap().res[swap.index()].is_null());
    let e = exec.frame(&mut bodies, &FrameImports::NONE).unwrap_err();
    assert!(e.to_string().contains("swapchain"), "{e}");
    let extent = vk::Extent2D {
        width: w,
        height: h,
    };
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let mut images: Vec<OwnedImage> = (0..2)
        .map(|i| {
            OwnedImage::new(
                &gpu,
                vk::Format::R8G8B8A8_UNORM,
                extent,
                1,
                usage,
                &format!("swap {i}"),
            )
            .unwrap()
        })
        .collect();
    // A wrong extent is refused with the resource's name.
    let wrong = ImportedImage {
        extent: vk::Extent2D {
            width: 1,
            height: 1,
        },
        ..images[0].imported()
    };
    let e = exec
        .frame(
            &mut bodies,
            &FrameImports {
                images: &[(swap, wrong)],
                ..FrameImports::NONE
            },
        )
        .unwrap_err();
    assert!(e.to_string().contains("swapchain"), "{e}");
    let fbs_before = exec.stats().framebuffers_created;
    let idle_before = gpu.wait_idle_count();
    let mut semaphores = Vec::new();
    for f in 0..6usize {
        present_frame(
            &gpu,
            &mut exec,
            &mut bodies,
            swap,
            images[f % 2].imported(),
            &mut semaphores,
        );
    }
    exec.finish(&mut bodies).unwrap();
    assert_eq!(
        exec.stats().framebuffers_created,
        fbs_before + 2,
        "one framebuffer per handed-in view, cached"
    );
    // A swapchain replaced: the framebuffers of its views are forgotten (a new view may
    // get a destroyed one's handle), and the next frames make them anew.
    exec.forget_imported_views(&mut bodies).unwrap();
    for image in images.iter().take(2) {
        present_frame(
            &gpu,
            &mut exec,
            &mut bodies,
            swap,
            image.imported(),
            &mut semaphores,
        );
    }
    exec.finish(&mut bodies).unwrap();
    assert_eq!(
        exec.stats().framebuffers_created,
        fbs_before + 4,
        "the forgotten framebuffers are made again"
    );
    assert_eq!(gpu.wait_idle_count(), idle_before);
    let layout = exec.end_layouts()[swap.index()];
    assert_eq!(
        layout,
        vk::ImageLayout::PRESENT_SRC_KHR,
        "the plan's present barrier ran"
    );
    let ext = &exec.plan().unwrap().external;
    assert!(ext.len() == 1 && ext[0].first_pass == "draw" && ext[0].last_pass == "draw");
    for im in &images {
        let px = read_image(&mut exec, im.image, layout, w, h);
        assert_eq!(pixel(&px, w, 0, 0), DRAWN_BYTES);
        assert_eq!(pixel(&px, w, w - 1, h - 1), CLEAR_BYTES);
    }
    for s in semaphores {
        // SAFETY: every submit that used them is complete.
        unsafe { gpu.device.destroy_semaphore(s, None) };
    }
    for im in &mut images {
        im.destroy(&gpu);
    }
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

#[test]
fn a_recording_error_aborts_one_frame_and_the_next_works() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let mut bodies = Bodies::default();
    let (g, out) = scene_graph(16, 8);
    // Bodies that fail to follow a rebuild leave no plan behind: the same graph is built
    // again next time.
    bodies.fail_rebuilt = true;
    assert!(exec.prepare(&g, &CompileOptions::ALL, &mut bodies).is_err());
    assert!(exec.plan().is_none());
    assert!(exec.frame(&mut bodies, &FrameImports::NONE).is_err());
    assert!(exec.prepare(&g, &CompileOptions::ALL, &mut bodies).unwrap());
    exec.frame(&mut bodies, &FrameImports::NONE).unwrap();
    bodies.fail_on_frame = Some(1);
    let e = exec.frame(&mut bodies, &FrameImports::NONE).unwrap_err();
    assert!(e.to_string().contains("deliberate failure"), "{e}");
    assert!(
        e.to_string().contains("draw"),
        "the error names the pass: {e}"
    );
    assert_eq!(
        exec.frames(),
        1,
        "nothing of the failed frame was submitted"
    );
    assert_eq!(exec.stats().aborted_frames, 1);
    // The next attempt is frame 1 again; let it pass.
    bodies.fail_on_frame = None;
    run_scene(&mut exec, &mut bodies, out, 16, 8);
    assert_eq!(exec.frames(), 4);
    assert_eq!(bodies.frames_done, vec![0, 1, 2, 3]);
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

#[test]
fn descriptor_sets_per_frame_slot_are_reused_and_samplers_cached() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let binding = [vk::DescriptorSetLayoutBinding::default()
        .binding(0)
        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
        .descriptor_count(1)
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
    // SAFETY: a complete create info; destroyed with the bodies.
    let set_layout = unsafe {
        gpu.device.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binding),
            None,
        )
    }
    .unwrap();
    let mut bodies = Bodies {
        sets_per_frame: 300,
        set_layout,
        ..Bodies::default()
    };
    let (g, _) = scene_graph(8, 8);
    exec.prepare(&g, &CompileOptions::ALL, &mut bodies).unwrap();
    for _ in 0..8 {
        exec.descriptor_set(set_layout).unwrap();
        exec.frame(&mut bodies, &FrameImports::NONE).unwrap();
    }
    exec.finish(&mut bodies).unwrap();
    // 301 sets per frame need two pools of 256 per slot; without the reset at each slot's
    // retirement 8 frames would need ten.
    assert_eq!(exec.stats().descriptor_pools, 4, "{:?}", exec.stats());
    let a = exec.sampler(SamplerDesc::LINEAR_CLAMP).unwrap();
    let b = exec.sampler(SamplerDesc::NEAREST_CLAMP).unwrap();
    assert_ne!(a, b);
    assert_eq!(exec.sampler(SamplerDesc::LINEAR_CLAMP).unwrap(), a);
    assert_eq!(exec.stats().samplers_created, 2);
    assert_ne!(exec.pipeline_cache(), vk::PipelineCache::null());
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

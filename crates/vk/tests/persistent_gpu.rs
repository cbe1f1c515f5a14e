//! Persistent resources on the GPU (lavapipe, validation and synchronization validation on,
//! zero messages asserted): frame 1 (stale) a compute pass fills a persistent image and
//! buffer; frame 2 (valid) the writer is skipped and a copy reads frame 1's content back;
//! frame 3 (stale again) the writer runs with new content and the copy sees it. The
//! executor keeps the objects across the re-plans (`persistent_epoch` unchanged). Run with
//! the writer on the graphics queue and on the (emulated) async-compute queue.

use ash::vk;
use std::sync::Arc;
use tessera_graph::graph::{Import, Origin};
use tessera_graph::{
    Access, CompileOptions, Format, Graph, ImageDesc, PassId, QueueKind, ResourceId,
};
use tessera_vk::executor::{
    ExecOptions, Executor, FrameImports, PassBodies, PassSetup, RecordContext,
};
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

const SIDE: u32 = 4;
const TEXELS: u64 = (SIDE * SIDE) as u64;

/// The fill shader: buffer word `i` = `v + i`, texel `i` = (v, i, 0, 255) / 255.
const FILL: &str = "#version 450
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint v; } p;
layout(set = 0, binding = 0) buffer B { uint d[16]; } b;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D img;
void main() {
    uint i = gl_LocalInvocationIndex;
    b.d[i] = p.v + i;
    imageStore(img, ivec2(int(i % 4u), int(i / 4u)), vec4(float(p.v) / 255.0, float(i) / 255.0, 0.0, 1.0));
}
";

struct Ids {
    lut: ResourceId,
    sh: ResourceId,
    out_lut: ResourceId,
    out_sh: ResourceId,
}

/// `fill` (compute, on `queue`) writes the persistent `lut` (image) and `sh` (buffer);
/// `read` copies both into imported buffers.
fn graph(valid: bool, queue: QueueKind) -> (Graph, Ids) {
    let mut g = Graph::new("persistent");
    let lut = g.persistent_image(
        "lut",
        ImageDesc::new(Format::R8G8B8A8_UNORM, SIDE, SIDE),
        valid,
    );
    let sh = g.persistent_buffer("sh", TEXELS * 4, valid);
    let out_lut = g.buffer("out lut", TEXELS * 4);
    let out_sh = g.buffer("out sh", TEXELS * 4);
    for r in [out_lut, out_sh] {
        g.resource_mut(r).origin = Origin::Imported(Import::default());
    }
    g.compute("fill")
        .uses(sh, Access::StorageWrite)
        .uses(lut, Access::StorageWrite)
        .on_queue(queue);
    g.transfer("read")
        .uses(lut, Access::TransferSrc)
        .uses(sh, Access::TransferSrc)
        .uses(out_lut, Access::TransferDst)
        .uses(out_sh, Access::TransferDst);
    (
        g,
        Ids {
            lut,
            sh,
            out_lut,
            out_sh,
        },
    )
}

/// The fill pipeline and the value the next `fill` writes; counts the bodies called.
#[derive(Default)]
struct Bodies {
    value: u32,
    fills: u32,
    reads: u32,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Bodies {
    fn make(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        if self.pipeline != vk::Pipeline::null() {
            return Ok(());
        }
        let d = &gpu.device;
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
        ];
        // SAFETY: plain create infos pointing at locals.
        unsafe {
            self.set_layout = d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )?;
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .size(4)];
            let sets = [self.set_layout];
            self.layout = d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&sets)
                    .push_constant_ranges(&ranges),
                None,
            )?;
        }
        let spv = compile_glsl(FILL, "fill.comp", vk::ShaderStageFlags::COMPUTE, &[], None)?;
        let m = module(gpu, &spv, "fill.comp")?;
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(m)
                    .name(c"main"),
            )
            .layout(self.layout);
        // SAFETY: the module and layout are live; the module is destroyed after creation.
        let made = unsafe {
            let p = d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
            d.destroy_shader_module(m, None);
            p
        };
        self.pipeline = made.map_err(|(_, e)| VkError::from(e))?[0];
        Ok(())
    }

    fn fill(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        self.fills += 1;
        let find = |a: Access| pass.uses.iter().find(|u| u.access == a).map(|u| u.resource);
        let writes: Vec<ResourceId> = pass
            .uses
            .iter()
            .filter(|u| u.access == Access::StorageWrite)
            .map(|u| u.resource)
            .collect();
        let _ = find;
        let buffer = writes
            .iter()
            .find_map(|&r| ctx.buffer(r))
            .expect("the buffer");
        let image = writes
            .iter()
            .find_map(|&r| ctx.image(r))
            .expect("the image");
        let view = image.shader_view;
        let set = ctx.descriptor_set(self.set_layout)?;
        let d = &ctx.gpu.device;
        let bi = [vk::DescriptorBufferInfo::default()
            .buffer(buffer)
            .range(vk::WHOLE_SIZE)];
        let ii = [vk::DescriptorImageInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::GENERAL)];
        let writes = [
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&bi),
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                .image_info(&ii),
        ];
        // SAFETY: the set is this frame's, the resources are in the layouts the plan's
        // barriers put them in (GENERAL for storage), the pipeline was made in `rebuilt`.
        unsafe {
            d.update_descriptor_sets(&writes, &[]);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &self.value.to_ne_bytes(),
            );
            d.cmd_dispatch(cmd, 1, 1, 1);
        }
        Ok(())
    }

    fn read(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
        ids: &Ids,
    ) -> Result<(), VkError> {
        self.reads += 1;
        let _ = pass;
        let d = &ctx.gpu.device;
        let lut = ctx.image(ids.lut).expect("lut").image;
        let sh = ctx.buffer(ids.sh).expect("sh");
        let (out_lut, out_sh) = (
            ctx.buffer(ids.out_lut).expect("out lut"),
            ctx.buffer(ids.out_sh).expect("out sh"),
        );
        let region = vk::BufferImageCopy {
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_extent: vk::Extent3D {
                width: SIDE,
                height: SIDE,
                depth: 1,
            },
            ..Default::default()
        };
        let copy = vk::BufferCopy {
            size: TEXELS * 4,
            ..Default::default()
        };
        // SAFETY: the plan's barriers put the image in TRANSFER_SRC and order the copies.
        unsafe {
            d.cmd_copy_image_to_buffer(
                cmd,
                lut,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                out_lut,
                &[region],
            );
            d.cmd_copy_buffer(cmd, sh, out_sh, &[copy]);
        }
        Ok(())
    }
}

/// The bodies with the ids of the graph they record.
struct Frame<'a> {
    bodies: &'a mut Bodies,
    ids: &'a Ids,
    fill: Option<PassId>,
}

impl PassBodies for Frame<'_> {
    fn rebuilt(&mut self, gpu: &Gpu, passes: &[PassSetup]) -> Result<(), VkError> {
        self.fill = passes.iter().find(|p| p.name == "fill").map(|p| p.id);
        self.bodies.make(gpu)
    }

    fn record(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        if pass.name == "fill" {
            self.bodies.fill(ctx, pass, cmd)
        } else {
            self.bodies.read(ctx, pass, cmd, self.ids)
        }
    }

    fn frame_done(&mut self, _gpu: &Gpu, _frame: u64) {}

    fn destroy(&mut self, _gpu: &Gpu) {}
}

/// Copies `bytes` of buffer `buffer` (all its work finished) back through the one-time ring.
fn read_buffer(exec: &mut Executor, buffer: vk::Buffer, bytes: u64) -> Vec<u8> {
    let mut at = 0;
    exec.once(|gpu, cmd, ring| {
        at = ring.reserve(bytes).expect("fits the one-time ring");
        let copy = vk::BufferCopy {
            src_offset: 0,
            dst_offset: at,
            size: bytes,
        };
        // SAFETY: both buffers are live; the frames that wrote `buffer` are finished.
        unsafe {
            gpu.device
                .cmd_copy_buffer(cmd, buffer, ring.buffer, &[copy])
        };
    })
    .expect("read back");
    let ring = exec.staging().expect("ring");
    ring.bytes().expect("mapped")[at as usize..(at + bytes) as usize].to_vec()
}

/// Runs two frames of the graph with `valid`, the fill body writing `value`; returns what
/// `read` copied: the buffer's words and the image's texels.
fn frame(
    exec: &mut Executor,
    bodies: &mut Bodies,
    valid: bool,
    queue: QueueKind,
    value: u32,
) -> (Vec<u32>, Vec<[u8; 4]>) {
    let (g, ids) = graph(valid, queue);
    bodies.value = value;
    let mut f = Frame {
        bodies,
        ids: &ids,
        fill: None,
    };
    exec.prepare(&g, &CompileOptions::ALL, &mut f)
        .expect("prepare");
    // Two frames of the plan back to back (no wait between them: synchronization
    // validation sees the second frame's accesses against the first's).
    for _ in 0..2 {
        exec.frame(&mut f, &FrameImports::NONE).expect("frame");
    }
    exec.finish(&mut f).expect("finish");
    let _ = f.fill;
    let res = exec.resources().expect("resources");
    let buffer = |r: ResourceId| match res.res[r.index()] {
        tessera_vk::resources::Res::Buffer(b) => b.buffer,
        _ => panic!("a buffer"),
    };
    let (out_sh, out_lut) = (buffer(ids.out_sh), buffer(ids.out_lut));
    let words = read_buffer(exec, out_sh, TEXELS * 4)
        .chunks(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let texels = read_buffer(exec, out_lut, TEXELS * 4)
        .chunks(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    (words, texels)
}

fn expected(value: u32) -> (Vec<u32>, Vec<[u8; 4]>) {
    (
        (0..TEXELS as u32).map(|i| value + i).collect(),
        (0..TEXELS as u8)
            .map(|i| [value as u8, i, 0, 255])
            .collect(),
    )
}

fn assert_clean(gpu: &Gpu) {
    assert_eq!(gpu.messages.count(), 0, "{:#?}", gpu.messages.texts());
}

fn run(queue: QueueKind, options: ExecOptions) {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), options).unwrap();
    let mut bodies = Bodies::default();
    assert_eq!(
        exec.persistent_epoch("sh"),
        None,
        "nothing made before a plan"
    );
    // Frames 1-2: stale, the writer runs.
    let got = frame(&mut exec, &mut bodies, false, queue, 7);
    assert_eq!(got, expected(7));
    assert_eq!((bodies.fills, bodies.reads), (2, 2));
    let epochs = (exec.persistent_epoch("sh"), exec.persistent_epoch("lut"));
    assert!(epochs.0.is_some() && epochs.1.is_some(), "{epochs:?}");
    let plan = exec.plan().unwrap();
    assert!(plan.skipped.is_empty());
    if queue == QueueKind::AsyncCompute {
        assert_eq!(plan.queues.async_compute.to_vec(), ["fill"], "{plan:#?}");
    }
    assert_clean(&gpu);
    // Frames 3-4: valid, the writer is skipped (its body not called): the earlier content.
    let got = frame(&mut exec, &mut bodies, true, queue, 99);
    assert_eq!(exec.plan().unwrap().skipped, ["fill"]);
    assert_eq!((bodies.fills, bodies.reads), (2, 4));
    assert_eq!(got, expected(7));
    assert_eq!(
        (exec.persistent_epoch("sh"), exec.persistent_epoch("lut")),
        epochs,
        "kept across the re-plan"
    );
    assert_clean(&gpu);
    // Frames 5-6: stale again, the writer runs with new content.
    let got = frame(&mut exec, &mut bodies, false, queue, 42);
    assert_eq!((bodies.fills, bodies.reads), (4, 6));
    assert_eq!(got, expected(42));
    assert_eq!(
        (exec.persistent_epoch("sh"), exec.persistent_epoch("lut")),
        epochs
    );
    // Valid again, twice (the same plan, no re-plan between): still the last content.
    for _ in 0..2 {
        let got = frame(&mut exec, &mut bodies, true, queue, 5);
        assert_eq!(got, expected(42));
    }
    assert_eq!(bodies.fills, 4);
    assert_clean(&gpu);
    // A changed description makes a new object: a new epoch, content lost.
    let (mut g, ids) = graph(true, queue);
    g.resource_mut(ids.sh).kind = tessera_graph::graph::ResourceKind::Buffer { size: TEXELS * 8 };
    let mut f = Frame {
        bodies: &mut bodies,
        ids: &ids,
        fill: None,
    };
    exec.prepare(&g, &CompileOptions::ALL, &mut f)
        .expect("prepare");
    exec.frame(&mut f, &FrameImports::NONE).expect("frame");
    exec.finish(&mut f).expect("finish");
    assert_ne!(exec.persistent_epoch("sh"), epochs.0);
    assert_eq!(exec.persistent_epoch("lut"), epochs.1);
    assert_clean(&gpu);
    let mut f = Frame {
        bodies: &mut bodies,
        ids: &ids,
        fill: None,
    };
    exec.destroy(&mut f);
    bodies.destroy(&gpu);
}

impl Bodies {
    fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: no frame in flight (the executor was destroyed).
        unsafe {
            gpu.device.destroy_pipeline(self.pipeline, None);
            gpu.device.destroy_pipeline_layout(self.layout, None);
            gpu.device
                .destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

#[test]
fn persistent_content_survives_skipped_writers_on_the_graphics_queue() {
    run(QueueKind::Graphics, ExecOptions::default());
}

#[test]
fn persistent_content_survives_skipped_writers_across_queues() {
    run(
        QueueKind::AsyncCompute,
        ExecOptions {
            emulate_async: true,
            ..ExecOptions::default()
        },
    );
}

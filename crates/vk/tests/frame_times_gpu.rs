//! The newest frame's GPU pass times on the GPU (lavapipe, validation on, zero messages
//! asserted): they advance every frame whether the plan stays or is rebuilt every frame, and
//! say which plan ran them. The plan's own times (`timings`, `take_frame_times`) start over
//! at every re-plan, which is what froze a window's GPU times while it toggled.

use ash::vk;
use std::sync::Arc;
use tessera_graph::graph::{ClearValue, Import, Origin};
use tessera_graph::{Access, CompileOptions, Format, Graph, ImageDesc, QueueKind};
use tessera_vk::executor::{
    ExecOptions, Executor, FrameImports, PassBodies, PassSetup, RecordContext, TimedFrame,
};
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

/// `draw` clears a transient `scene` (its render pass's load op: the body records nothing);
/// `copy` copies it into the imported `out`, which keeps both passes.
fn graph() -> Graph {
    let mut g = Graph::new("frame_times");
    let scene = g.image("scene", ImageDesc::new(Format::R8G8B8A8_UNORM, 32, 16));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 32, 16));
    g.resource_mut(out).origin = Origin::Imported(Import {
        clear_on_first_use: true,
        ..Import::default()
    });
    g.raster("draw")
        .clears_to(
            scene,
            Access::ColorWrite,
            ClearValue::Color([0.0, 0.0, 1.0, 1.0]),
        )
        .id();
    g.transfer("copy")
        .uses(scene, Access::TransferSrc)
        .uses(out, Access::TransferDst)
        .id();
    g
}

/// Records the copy; the raster pass needs nothing but its clear.
struct Bodies;

impl PassBodies for Bodies {
    fn rebuilt(&mut self, _gpu: &Gpu, _passes: &[PassSetup]) -> Result<(), VkError> {
        Ok(())
    }

    fn record(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        if pass.subpass.is_some() {
            return Ok(());
        }
        let image = |a: Access| {
            pass.uses
                .iter()
                .find(|u| u.access == a)
                .and_then(|u| ctx.image(u.resource))
        };
        let (Some(s), Some(t)) = (image(Access::TransferSrc), image(Access::TransferDst)) else {
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
            ctx.gpu.device.cmd_copy_image(
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

    fn destroy(&mut self, _gpu: &Gpu) {}
}

fn assert_clean(gpu: &Gpu) {
    assert_eq!(gpu.messages.count(), 0, "{:#?}", gpu.messages.texts());
}

/// The newest frame's number and plan.
fn newest(exec: &Executor) -> Option<(u64, u64)> {
    exec.newest_frame().map(|n| (n.frame, n.plan))
}

/// The frame's spans are those of the running plan's passes (`draw`, `copy`), valid, on the
/// graphics queue, and the helpers agree with them.
fn check_spans(exec: &Executor, n: &TimedFrame) {
    let names: Vec<&str> = n.times.passes.iter().map(|s| s.pass.as_str()).collect();
    let planned: Vec<&str> = exec.passes().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, planned, "every pass of the plan is timed");
    assert_eq!(names, ["draw", "copy"]);
    for s in &n.times.passes {
        assert_eq!(s.queue, QueueKind::Graphics);
        assert!(s.end_ns >= s.start_ns, "{s:?}");
    }
    let per_pass: f64 = n.times.gpu_ms_per_pass().iter().map(|(_, ms)| ms).sum();
    let busy = n.times.queue_busy_ms(QueueKind::Graphics);
    let span = n.times.span_ms();
    assert!(
        busy <= per_pass + 1e-9 && busy <= span + 1e-9,
        "{busy} {per_pass} {span}"
    );
    assert_eq!(n.times.queue_busy_ms(QueueKind::AsyncCompute), 0.0);
}

#[test]
fn steady_frames_advance_the_newest_frame_under_the_running_plan() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let mut bodies = Bodies;
    assert_eq!(exec.plan_generation(), 0, "no plan yet");
    assert!(exec.newest_frame().is_none());
    assert!(exec
        .prepare(&graph(), &CompileOptions::ALL, &mut bodies)
        .unwrap());
    let plan = exec.plan_generation();
    assert_eq!(plan, exec.stats().rebuilds);
    let mut last = None;
    for i in 0..8u64 {
        exec.frame(&mut bodies, &FrameImports::NONE).unwrap();
        // Frame i reuses the slot of frame i - 2, whose timestamps it reads.
        if i < 2 {
            assert_eq!(newest(&exec), None, "after frame {i}: nothing complete yet");
            continue;
        }
        let n = exec.newest_frame().expect("a completed frame");
        assert_eq!((n.frame, n.plan), (i - 2, plan), "after frame {i}");
        assert!(last < Some(n.frame), "after frame {i}: newer than {last:?}");
        last = Some(n.frame);
        check_spans(&exec, n);
    }
    // The plan's own record of the same frames agrees.
    let read = exec.take_frame_times();
    assert_eq!(read.len(), 6);
    assert_eq!(read.last(), exec.newest_frame().map(|n| &n.times));
    assert!(exec.timings().iter().all(|t| t.frames == 6));
    exec.finish(&mut bodies).unwrap();
    assert_eq!(
        newest(&exec),
        Some((7, plan)),
        "finish reads the last frame"
    );
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

#[test]
fn replanning_every_frame_keeps_the_newest_frame_advancing() {
    let gpu = gpu();
    let mut exec = Executor::new(gpu.clone(), ExecOptions::default()).unwrap();
    let mut bodies = Bodies;
    // Two plans of one graph, taking turns: every `prepare` builds a new plan.
    let options = [CompileOptions::ALL, CompileOptions::NONE];
    let mut generations = Vec::new();
    let mut last = None;
    for i in 0..8u64 {
        assert!(exec
            .prepare(&graph(), &options[i as usize % 2], &mut bodies)
            .unwrap());
        let plan = exec.plan_generation();
        assert!(!generations.contains(&plan), "a new number for a new plan");
        generations.push(plan);
        // The new plan has timed nothing: what a UI reading it showed (frozen times).
        assert!(exec.take_frame_times().is_empty());
        assert!(exec.timings().iter().all(|t| t.frames == 0));
        exec.frame(&mut bodies, &FrameImports::NONE).unwrap();
        if i == 0 {
            // The first plan's first frame is still in flight.
            assert_eq!(newest(&exec), None);
            continue;
        }
        // The re-plan read frame i - 1, run by the previous plan: stale, and marked so.
        let n = exec.newest_frame().expect("the frame before the re-plan");
        assert_eq!(n.frame, i - 1, "after frame {i}");
        assert!(last < Some(n.frame), "after frame {i}: newer than {last:?}");
        last = Some(n.frame);
        assert_eq!(n.plan, generations[i as usize - 1]);
        assert_ne!(n.plan, exec.plan_generation(), "stale after frame {i}");
        assert_eq!(n.times.passes.len(), 2);
    }
    exec.finish(&mut bodies).unwrap();
    let n = exec.newest_frame().expect("the last frame");
    assert_eq!(
        (n.frame, n.plan),
        (7, exec.plan_generation()),
        "current again"
    );
    check_spans(&exec, n);
    exec.destroy(&mut bodies);
    assert_clean(&gpu);
}

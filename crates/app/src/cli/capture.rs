//! What goes beside a RenderDoc capture of the renderer's frame (`tessera render --capture`,
//! the window's capture key): the plan that frame ran, the frame description it was
//! compiled from and the device facts (`tessera_verify::SideFiles`), so that
//! `tessera verify-capture OUT.rdc` can hold the capture against them anywhere, later.

use std::path::Path;
use tessera_fsio::Output;
use tessera_graph::frame_file::FrameFile;
use tessera_render::Renderer;
use tessera_verify::SideFiles;
use tessera_vk::Gpu;

/// Writes the side files of `rdc` for the plan `renderer` runs now; returns their paths.
pub fn write_beside(rdc: &Path, renderer: &Renderer) -> anyhow::Result<SideFiles> {
    let files = SideFiles::beside(rdc);
    let exec = renderer.executor();
    let (Some(plan), Some(graph)) = (exec.plan(), exec.graph()) else {
        anyhow::bail!("no plan ran, so there is nothing to write beside the capture");
    };
    let caps = plan.device.clone().unwrap_or_default();
    let frame = FrameFile::describe(graph, &caps);
    let fallbacks = exec
        .resources()
        .map(|r| r.memoryless_fallbacks.clone())
        .unwrap_or_default();
    let device = device_facts(renderer.gpu(), &caps, &fallbacks, renderer);
    let [plan_out, frame_out, device_out] = side_outputs(rdc)?;
    let write = |out: &Output, text: String| super::out::write(out, (text + "\n").as_bytes());
    write(&plan_out, serde_json::to_string_pretty(plan)?)?;
    write(&frame_out, serde_json::to_string_pretty(&frame)?)?;
    write(&device_out, serde_json::to_string_pretty(&device)?)?;
    Ok(files)
}

/// The side files of `rdc` (plan, frame, device facts) checked as outputs, so that `render
/// --capture` refuses a bad one before rendering.
pub fn side_outputs(rdc: &Path) -> anyhow::Result<[Output; 3]> {
    let files = SideFiles::beside(rdc);
    let output = super::out::output;
    Ok([
        output("--capture's plan", &files.plan)?,
        output("--capture's frame", &files.frame)?,
        output("--capture's device facts", &files.device)?,
    ])
}

/// The device as the capture saw it.
fn device_facts(
    gpu: &Gpu,
    caps: &tessera_graph::Capabilities,
    fallbacks: &[String],
    renderer: &Renderer,
) -> serde_json::Value {
    let p = &gpu.properties;
    let heaps = &gpu.memory.memory_heaps[..gpu.memory.memory_heap_count as usize];
    serde_json::json!({
        "device": gpu.device_name(),
        "vendor_id": p.vendor_id,
        "device_id": p.device_id,
        "api_version": gpu.api_version(),
        "driver_version": p.driver_version,
        "tools": gpu.tools,
        "renderdoc_attached": gpu.renderdoc_attached(),
        "graphics_family": gpu.graphics.family,
        "async_compute_family": gpu.compute.map(|c| c.family),
        "emulate_async": renderer.settings().emulate_async,
        "tile_rules": renderer.settings().tile_rules.map(|r| serde_json::json!({
            "lazily_allocated": r.lazily_allocated,
            "tile_bits_per_pixel": r.tile_bits_per_pixel,
        })),
        "memory_types": gpu.memory_types().iter().map(|t| serde_json::json!({
            "flags": format!("{:?}", t.property_flags),
            "heap": t.heap_index,
        })).collect::<Vec<_>>(),
        "memory_heaps": heaps.iter().map(|h| serde_json::json!({
            "bytes": h.size,
            "flags": format!("{:?}", h.flags),
        })).collect::<Vec<_>>(),
        "capabilities": caps,
        "memoryless_in_ordinary_memory": fallbacks,
    })
}

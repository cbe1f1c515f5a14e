//! `tessera exec FILE [--frames N] [--no-optimize] [--emulate-async] [--capture OUT.rdc]
//! [--json]`: run a frame description on the GPU with synthetic pass bodies, compare every
//! frame's results with a CPU model and print a summary ending in
//! `validation messages: V, mismatches: M`. `--capture` records the last frame with
//! RenderDoc (loaded at run time; an error when it is not installed).

use std::path::PathBuf;
use tessera_graph::{frame_file, CompileOptions};
use tessera_vk::executor::ExecOptions;
use tessera_vk::synth::{self, ExecConfig, ExecReport};

#[derive(Debug, clap::Args)]
pub struct ExecArgs {
    /// Frame description (.json or .toml).
    file: PathBuf,
    /// Frames to run, at least 1 (results are read back and compared every frame).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    frames: u64,
    /// Turn every optimisation off (merging, memoryless, aliasing, async, reordering).
    #[arg(long)]
    no_optimize: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Capture the last frame with RenderDoc into this .rdc file (needs RenderDoc's
    /// librenderdoc.so; Debian: renderdoc).
    #[arg(long, value_name = "OUT.rdc")]
    capture: Option<PathBuf>,
    /// Longest image side for the synthetic run (images are scaled down to it).
    #[arg(long, default_value_t = 64)]
    max_extent: u32,
    /// Run without the validation layers.
    #[arg(long)]
    no_validation: bool,
    /// Compile with an async-compute queue even when the device has none, and run that
    /// queue's batches as separate submits on the graphics queue (same timeline semaphores):
    /// exercises the cross-queue parts of async plans on one-queue devices.
    #[arg(long)]
    emulate_async: bool,
    /// Test only: drop the planned semaphore waits of the batch starting with this pass
    /// (validation or the comparison must then report the missing synchronization).
    #[arg(long, hide = true, value_name = "PASS")]
    drop_waits_before: Option<String>,
    /// Test only: drop every planned barrier on this resource.
    #[arg(long, hide = true, value_name = "RESOURCE")]
    drop_barriers_on: Option<String>,
}

pub fn run(args: &ExecArgs) -> anyhow::Result<()> {
    // The file's device profile is ignored: the plan is compiled for the real device.
    let (graph, _profile) = frame_file::load(&args.file)?;
    let config = ExecConfig {
        frames: args.frames,
        options: if args.no_optimize {
            CompileOptions::NONE
        } else {
            CompileOptions::ALL
        },
        max_extent: args.max_extent.max(1),
        validation: !args.no_validation,
        exec: ExecOptions {
            emulate_async: args.emulate_async,
            drop_waits_before: args.drop_waits_before.clone(),
            drop_barriers_on: args.drop_barriers_on.clone(),
        },
    };
    let report = match &args.capture {
        Some(out) => synth::run_with_capture(&graph, &config, out),
        None => synth::run(&graph, &config),
    }
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&to_json(&graph.name, &report))?
        );
    } else {
        print!("{}", summary(&graph.name, &report));
    }
    if report.validation_messages > 0 || report.mismatches > 0 {
        anyhow::bail!(
            "{} validation messages, {} mismatches",
            report.validation_messages,
            report.mismatches
        );
    }
    Ok(())
}

fn summary(name: &str, r: &ExecReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let queue = match (r.emulated_async, r.async_compute) {
        (true, _) => "emulated on the graphics queue",
        (false, true) => "yes",
        (false, false) => "no",
    };
    let _ = writeln!(
        s,
        "frame '{name}' on {} (async compute queue: {queue})",
        r.device
    );
    if let Some((from, to)) = r.scaled {
        let _ = writeln!(
            s,
            "images scaled down for the synthetic run: longest side {from} -> {to} px"
        );
    }
    let _ = writeln!(
        s,
        "passes: {} ({} async), render passes: {} ({} subpasses), barriers: {} ({} ownership-transfer halves), syncs: {}, submits per frame: {}",
        r.passes,
        r.async_passes,
        r.render_passes,
        r.subpasses,
        r.barriers,
        r.queue_transfers,
        r.syncs,
        r.submits_per_frame
    );
    let _ = writeln!(
        s,
        "memory: {} plan blocks, {} vkAllocateMemory allocations alive",
        r.blocks, r.allocations
    );
    let _ = writeln!(
        s,
        "GPU time per pass (mean over {} frames):",
        r.timings.first().map_or(0, |t| t.frames)
    );
    for t in &r.timings {
        let _ = writeln!(s, "  {:<24} {:>10.1} us", t.pass, t.mean_us);
    }
    let _ = writeln!(
        s,
        "compared every frame: {} ({} values over {} frames)",
        r.compared_resources.join(", "),
        r.compared_values,
        r.frames_checked
    );
    for n in &r.mismatch_notes {
        let _ = writeln!(s, "  mismatch: {n}");
    }
    for m in &r.messages {
        let _ = writeln!(s, "  validation: {m}");
    }
    if let Some(c) = &r.capture {
        let _ = writeln!(s, "RenderDoc capture of the last frame: {}", c.display());
    }
    let _ = writeln!(s, "frames: {}", r.frames);
    let _ = writeln!(
        s,
        "validation messages: {}, mismatches: {}",
        r.validation_messages, r.mismatches
    );
    s
}

fn to_json(name: &str, r: &ExecReport) -> serde_json::Value {
    serde_json::json!({
        "frame": name,
        "device": r.device,
        "async_compute": r.async_compute,
        "emulated_async": r.emulated_async,
        "async_passes": r.async_passes,
        "queue_transfers": r.queue_transfers,
        "scaled": r.scaled.map(|(a, b)| serde_json::json!({"from": a, "to": b})),
        "frames": r.frames,
        "frames_checked": r.frames_checked,
        "passes": r.passes,
        "render_passes": r.render_passes,
        "subpasses": r.subpasses,
        "barriers": r.barriers,
        "syncs": r.syncs,
        "submits_per_frame": r.submits_per_frame,
        "blocks": r.blocks,
        "allocations": r.allocations,
        "compared_resources": r.compared_resources,
        "compared_values": r.compared_values,
        "timings_us": r.timings.iter().map(|t| serde_json::json!({"pass": t.pass, "mean_us": t.mean_us, "frames": t.frames})).collect::<Vec<_>>(),
        "mismatch_notes": r.mismatch_notes,
        "messages": r.messages,
        "capture": r.capture.as_ref().map(|c| c.display().to_string()),
        "validation_messages": r.validation_messages,
        "mismatches": r.mismatches,
    })
}

//! `tessera exec FILE [--frames N] [--no-optimize] [--emulate-async] [--capture OUT.rdc]
//! [--json]`: run a frame description on the GPU with synthetic pass bodies, compare every
//! frame's results with a CPU model of the frame as declared and print a summary ending in
//! `validation messages: V, mismatches: M` (`validation: off, mismatches: M` with
//! `--no-validation`). `--capture` records the last frame with RenderDoc (loaded at run
//! time; an error when it is not installed).
//!
//! Before any device is opened the frame is compiled as written, as `tessera plan` does
//! (same errors, naming the file), and the flags are checked: a `--capture` path that is a
//! directory means `DIR/<frame file stem>.rdc`, and the capture file must be writable as
//! an output (`tessera_fsio::Output`: a regular file or none, not the frame file).
//! Only then is the frame scaled down and run. Exit status 1 on a mismatch, a validation
//! message, or a resource of which no value could be compared.

use std::path::{Path, PathBuf};
use tessera_graph::CompileOptions;
use tessera_synth::{self as synth, ExecConfig, ExecReport};
use tessera_vk::executor::{ExecOptions, TestHooks};
use tessera_vk::VkError;

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
    /// Capture the last frame with RenderDoc into this .rdc file, or into DIR/<frame>.rdc
    /// when it names a directory (needs RenderDoc's librenderdoc.so; Debian: renderdoc).
    #[arg(long, value_name = "OUT.rdc")]
    capture: Option<PathBuf>,
    /// Longest image side for the synthetic run (images are scaled down to it), at least 1.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
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
    let capture = args
        .capture
        .as_deref()
        .map(|c| capture_path(&args.file, c))
        .transpose()?;
    // The frame as written must be valid, exactly as for `tessera plan`, before the
    // synthetic run scales it (scaling clamps mips and sizes) and before a device is opened.
    let graph = super::plan::compile_file(&args.file, None, args.no_optimize)?.graph;
    let config = ExecConfig {
        frames: args.frames,
        options: if args.no_optimize {
            CompileOptions::NONE
        } else {
            CompileOptions::ALL
        },
        max_extent: args.max_extent,
        validation: !args.no_validation,
        exec: ExecOptions {
            emulate_async: args.emulate_async,
            // The synthetic run lets the executor create the imports it does not hand in.
            imports_handed_in: false,
            tile_rules: None,
        },
        hooks: TestHooks {
            drop_waits_before: args.drop_waits_before.clone(),
            drop_barriers_on: args.drop_barriers_on.clone(),
            ..TestHooks::default()
        },
        alter_plan: None,
    };
    let report = match &capture {
        Some(out) => synth::run_with_capture(&graph, &config, out),
        None => synth::run(&graph, &config),
    }
    .map_err(|e| match e {
        // The machine, not the frame: no file name.
        VkError::NoDevice(_) => anyhow::anyhow!("{e}"),
        e => anyhow::anyhow!("{}: {e}", args.file.display()),
    })?;
    let text = if args.json {
        serde_json::to_string_pretty(&to_json(&graph.name, &report))? + "\n"
    } else {
        summary(&graph.name, &report)
    };
    super::out::print(|out| out.write_all(text.as_bytes()))?;
    let mut failures = Vec::new();
    if report.validation_messages > 0 {
        failures.push(format!(
            "{} validation messages",
            report.validation_messages
        ));
    }
    if report.mismatches > 0 {
        failures.push(format!("{} mismatches", report.mismatches));
    }
    if !report.uncompared.is_empty() {
        failures.push(format!(
            "{} resources with no value compared",
            report.uncompared.len()
        ));
    }
    if !failures.is_empty() {
        anyhow::bail!("{}", failures.join(", "));
    }
    Ok(())
}

/// Where the capture goes: `path`, or `path/<frame file stem>.rdc` when `path` is a
/// directory; checked as an output (a regular file or none, in an existing folder, not the
/// frame file) before the run, not after it.
fn capture_path(frame: &Path, path: &Path) -> anyhow::Result<PathBuf> {
    let out = if path.is_dir() {
        let stem = frame
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tessera".into());
        path.join(format!("{stem}.rdc"))
    } else {
        path.to_path_buf()
    };
    let output = super::out::output("--capture", &out)?;
    super::out::distinct(&[&output], &[("FILE", frame)])?;
    Ok(out)
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
    for n in &r.uncompared {
        let _ = writeln!(s, "  nothing compared: {n}");
    }
    for m in &r.messages {
        let _ = writeln!(s, "  validation: {m}");
    }
    if let Some(c) = &r.capture {
        let _ = writeln!(s, "RenderDoc capture of the last frame: {}", c.display());
    }
    let _ = writeln!(s, "frames: {}", r.frames);
    if r.validation {
        let _ = writeln!(
            s,
            "validation messages: {}, mismatches: {}",
            r.validation_messages, r.mismatches
        );
    } else {
        let _ = writeln!(s, "validation: off, mismatches: {}", r.mismatches);
    }
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
        "uncompared": r.uncompared,
        "compared_values": r.compared_values,
        "timings_us": r.timings.iter().map(|t| serde_json::json!({"pass": t.pass, "mean_us": t.mean_us, "frames": t.frames})).collect::<Vec<_>>(),
        "mismatch_notes": r.mismatch_notes,
        "messages": r.messages,
        "capture": r.capture.as_ref().map(|c| c.display().to_string()),
        "validation": r.validation,
        "validation_messages": r.validation.then_some(r.validation_messages),
        "mismatches": r.mismatches,
    })
}

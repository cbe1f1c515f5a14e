//! `tessera verify-capture OUT.rdc [--plan OUT.plan.json] [--frame OUT.frame.json]
//! [--device OUT.device.json] [--json]`: holds a RenderDoc capture against the plan of the
//! frame it captured (`tessera_verify`) and prints, for every planned render pass, its
//! subpasses and each attachment's planned and captured load/store ops, then the label and
//! name checks and every difference. Exit status 1 on any difference.
//!
//! The plan, frame and device files default to those `tessera render --capture OUT.rdc`
//! writes beside the capture. The device facts are optional: they say what ran the frame
//! and which memoryless attachments got ordinary memory (RenderDoc attached, or no lazily
//! allocated memory type), which the report notes instead of counting as differences.

use super::out;
use std::path::PathBuf;
use std::process::ExitCode;
use tessera_graph::frame_file;
use tessera_verify::{facts, rdc, table, verify, SideFiles};

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The RenderDoc capture (.rdc).
    capture: PathBuf,
    /// The plan of the captured frame [default: OUT.plan.json beside the capture].
    #[arg(long, value_name = "PLAN.json")]
    plan: Option<PathBuf>,
    /// The frame description the plan was compiled from [default: OUT.frame.json].
    #[arg(long, value_name = "FRAME.json")]
    frame: Option<PathBuf>,
    /// The device facts [default: OUT.device.json, if it exists].
    #[arg(long, value_name = "DEVICE.json")]
    device: Option<PathBuf>,
    /// Print the verdict as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    // The capture first: a mistyped capture name is about the capture, not its side files.
    match std::fs::metadata(&args.capture) {
        Ok(m) if m.is_file() => {}
        Ok(_) => anyhow::bail!(
            "{}: not a file (a RenderDoc capture, .rdc, is expected)",
            args.capture.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("{}: no such capture file", args.capture.display())
        }
        Err(e) => anyhow::bail!("{}: {e}", args.capture.display()),
    }
    let beside = SideFiles::beside(&args.capture);
    let plan_path = args.plan.clone().unwrap_or(beside.plan);
    let frame_path = args.frame.clone().unwrap_or(beside.frame);
    let missing = |what: &str, flag: &str, p: &std::path::Path| {
        anyhow::anyhow!(
            "{}: the {what} of the capture is missing (give {flag}, or capture with \
             `tessera render --capture`, which writes it beside the .rdc)",
            p.display()
        )
    };
    if !plan_path.is_file() {
        return Err(missing("plan", "--plan", &plan_path));
    }
    if !frame_path.is_file() {
        return Err(missing("frame description", "--frame", &frame_path));
    }
    let plan_text = frame_file::read_text(&plan_path)?;
    let plan = super::plan_json::parse_plan(&plan_text, &plan_path)?;
    let (graph, _) = frame_file::load(&frame_path)?;
    let device = match &args.device {
        Some(p) => Some(read_device(p)?),
        None if beside.device.is_file() => Some(read_device(&beside.device)?),
        None => None,
    };
    log::info!("converting {} with renderdoccmd", args.capture.display());
    let xml = rdc::convert(&args.capture)?;
    let captured = facts::parse(&xml)?;
    let mut verdict = verify(&graph, &plan, &captured);
    if let Some(d) = &device {
        device_notes(d, &mut verdict.notes);
    }
    let text = if args.json {
        serde_json::to_string_pretty(&to_json(&verdict))? + "\n"
    } else {
        let head = format!(
            "capture {} against plan {} ({} passes, {} render passes{})\n",
            args.capture.display(),
            plan_path.display(),
            plan.order.len(),
            plan.render_passes.len(),
            device
                .as_ref()
                .and_then(|d| d["device"].as_str())
                .map(|n| format!(", captured on {n}"))
                .unwrap_or_default()
        );
        head + &table::render(&verdict)
    };
    out::print(|o| o.write_all(text.as_bytes()))?;
    Ok(if verdict.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read_device(path: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let text = frame_file::read_text(path)?;
    serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: device facts: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })
}

/// What the device facts explain: memoryless attachments in ordinary memory, and why.
fn device_notes(d: &serde_json::Value, notes: &mut Vec<String>) {
    let list: Vec<&str> = d["memoryless_in_ordinary_memory"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    if list.is_empty() {
        return;
    }
    let lazy = d["memory_types"].as_array().is_some_and(|types| {
        types.iter().any(|t| {
            t["flags"]
                .as_str()
                .is_some_and(|f| f.contains("LAZILY_ALLOCATED"))
        })
    });
    let why = if !lazy {
        "the device has no lazily allocated memory type"
    } else if d["renderdoc_attached"].as_bool() == Some(true) {
        "RenderDoc was attached and created them without TRANSIENT_ATTACHMENT"
    } else {
        "their memory requirements allowed no lazily allocated type"
    };
    notes.push(format!(
        "memoryless {} bound to ordinary memory ({why}); their load/store ops still keep \
         them in tile memory",
        list.iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
}

fn to_json(v: &tessera_verify::Verdict) -> serde_json::Value {
    serde_json::json!({
        "passed": v.passed(),
        "render_passes": v.render_passes.iter().map(|rp| serde_json::json!({
            "subpasses": rp.subpasses,
            "captured_subpasses": rp.captured_subpasses,
            "differences": rp.differences,
            "attachments": rp.attachments.iter().map(|a| serde_json::json!({
                "resource": a.resource,
                "memoryless": a.memoryless,
                "planned": {"load": a.load, "store": a.store},
                "captured": a.captured.as_ref().map(|(l, s)| serde_json::json!({"load": l, "store": s})),
                "ok": a.ok,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "labels": {"planned": v.labels.0, "found": v.labels.1},
        "transient_names": {"transient": v.transient_names.0, "named": v.transient_names.1},
        "notes": v.notes,
        "differences": v.differences,
    })
}

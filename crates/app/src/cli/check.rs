//! `tessera check FRAME PLAN.json`: run the independent checker (`tessera_graph::check`) on
//! a plan against the frame it claims to be compiled from: a plan from `tessera plan --json`,
//! edited by hand, or written by another tool. Each violation is printed with its rule id
//! and the passes and resources involved; the exit status is 1 when there is any.
//!
//! The plan names the device and options it was compiled with (`device`, `options`), so it
//! checks on its own; for a plan without them (written before those fields existed) the
//! device is `--profile` or else the frame's `device`, and the options are `--no-optimize`
//! or else every optimisation on. The flags override what the plan records.

use super::out;
use super::plan_json::parse_plan;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tessera_graph::check::Violation;
use tessera_graph::{frame_file, Capabilities, CompileOptions, Plan};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Frame description the plan was compiled from (.json or .toml).
    frame: PathBuf,
    /// The plan (`tessera plan --json` output).
    plan: PathBuf,
    /// Device profile to check against, instead of the plan's `device` (needed only for a
    /// plan without one, whose default is the frame's `device`).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Capabilities::PROFILES))]
    profile: Option<String>,
    /// Check against every optimisation off, instead of the plan's `options` (needed only
    /// for a plan without them, whose default is every optimisation on).
    #[arg(long)]
    no_optimize: bool,
}

/// What a verdict is about, for its summary line.
pub struct Context<'a> {
    /// The plan, as named to the user.
    pub plan: &'a str,
    /// The frame file, when it is not already named by `plan`.
    pub frame: Option<&'a str>,
    /// Device checked against, and where it came from (if that needs saying).
    pub device: (&'a Capabilities, Option<&'a str>),
    /// Options checked against, and where they came from (if that needs saying).
    pub options: (&'a CompileOptions, Option<&'a str>),
}

/// `n thing` or `n things`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The device in a few words: its profile, and whether fields differ from the profile's.
fn device_text(caps: &Capabilities) -> String {
    match Capabilities::profile(&caps.profile) {
        Some(p) if p == *caps => format!("device {}", caps.profile),
        Some(_) => format!("device {} with overrides", caps.profile),
        None => format!("device '{}'", caps.profile),
    }
}

/// The options in a few words.
fn options_text(o: &CompileOptions) -> String {
    if *o == CompileOptions::ALL {
        return "every optimisation on".into();
    }
    if *o == CompileOptions::NONE {
        return "every optimisation off".into();
    }
    let all = [
        ("reorder", o.reorder),
        ("merge", o.merge),
        ("memoryless", o.memoryless),
        ("alias", o.alias),
        ("async_compute", o.async_compute),
        ("minimize_syncs", o.minimize_syncs),
    ];
    let list = |on: bool| {
        all.iter()
            .filter(|(_, v)| *v == on)
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("optimisations on: {}; off: {}", list(true), list(false))
}

/// Prints the violations, one per line (`[rule] detail`), then a one-line summary.
pub fn report(
    w: &mut dyn Write,
    c: &Context,
    plan: &Plan,
    verdict: &Result<(), Vec<Violation>>,
) -> io::Result<()> {
    let from = |text: String, source: Option<&str>| match source {
        Some(s) => format!("{text}, {s}"),
        None => text,
    };
    let against = format!(
        "{}; {}",
        from(device_text(c.device.0), c.device.1),
        from(options_text(c.options.0), c.options.1)
    );
    let frame = c.frame.map(|f| format!(" against {f}")).unwrap_or_default();
    match verdict {
        Ok(()) => writeln!(
            w,
            "ok: {} passes every check{frame} ({}, {}, {}; {against})",
            c.plan,
            count(plan.order.len(), "pass", "passes"),
            count(plan.render_passes.len(), "render pass", "render passes"),
            count(plan.barriers.len(), "barrier", "barriers"),
        ),
        Err(violations) => {
            for v in violations {
                writeln!(w, "{v}")?;
            }
            writeln!(
                w,
                "{}: {}{frame} ({against})",
                c.plan,
                count(violations.len(), "violation", "violations"),
            )
        }
    }
}

pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let (graph, frame_caps) = match frame_file::load(&args.frame) {
        Ok(loaded) => loaded,
        Err(e) => {
            // A plan given as the frame: say that the arguments are the other way round.
            let is_plan = frame_file::read_text(&args.frame)
                .ok()
                .is_some_and(|t| parse_plan(&t, &args.frame).is_ok());
            if is_plan {
                anyhow::bail!(
                    "{} is a plan, not a frame: the arguments are FRAME PLAN.json",
                    args.frame.display()
                );
            }
            return Err(e.into());
        }
    };
    let text = frame_file::read_text(&args.plan)?;
    let plan = parse_plan(&text, &args.plan).map_err(|e| {
        let syntax = frame_file::Syntax::of_path(&args.plan);
        if frame_file::parse(&text, syntax, "").is_ok() {
            anyhow::anyhow!(
                "{} is a frame file, not a plan (`tessera plan FRAME --json` writes one): the arguments are FRAME PLAN.json",
                args.plan.display()
            )
        } else {
            e
        }
    })?;
    let (caps, device_from) = match (&args.profile, &plan.device) {
        (Some(p), _) => (
            Capabilities::profile(p).ok_or_else(|| anyhow::anyhow!("unknown profile '{p}'"))?,
            "from --profile",
        ),
        (None, Some(d)) => (d.clone(), "from the plan"),
        (None, None) => (frame_caps, "from the frame (the plan records no device)"),
    };
    let (options, options_from) = match (args.no_optimize, plan.options) {
        (true, _) => (CompileOptions::NONE, "from --no-optimize"),
        (false, Some(o)) => (o, "from the plan"),
        (false, None) => (CompileOptions::ALL, "the default (the plan records none)"),
    };
    let verdict = tessera_graph::check::check(&graph, &caps, &options, &plan);
    let (plan_name, frame_name) = (
        args.plan.display().to_string(),
        args.frame.display().to_string(),
    );
    let context = Context {
        plan: &plan_name,
        frame: Some(&frame_name),
        device: (&caps, Some(device_from)),
        options: (&options, Some(options_from)),
    };
    out::print(|w| report(w, &context, &plan, &verdict))?;
    Ok(if verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

//! `tessera plan FILE [--json] [--check]`: compile a frame file and print the report or the
//! plan JSON, and with `--check` run the independent checker on the plan (exit 1 on any
//! violation). `tessera plan --frame [frame flags]`: the same for the renderer's own frame
//! (`tessera render`'s, declared without a device). `tessera plan --diff OLD NEW`: print what
//! changed between two plans.

use super::frame_args::FrameArgs;
use super::plan_json::parse_plan;
use super::{check, out};
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tessera_graph::{
    compile, frame_file, report::Report, Capabilities, CompileOptions, Graph, Plan,
};

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Frame description (.json or .toml).
    #[arg(required_unless_present_any = ["diff", "frame"], conflicts_with = "frame")]
    file: Option<PathBuf>,
    /// Compile the renderer's own frame (the one `tessera render` runs, from the
    /// configuration, the scene and the frame flags) instead of a file.
    #[arg(long)]
    frame: bool,
    #[command(flatten)]
    frame_args: FrameArgs,
    /// Print the compiled plan as JSON instead of the report.
    #[arg(long)]
    json: bool,
    /// Device profile to compile for, overriding the file's `device`.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Capabilities::PROFILES))]
    profile: Option<String>,
    /// Turn every optimisation off (merging, memoryless, aliasing, async, reordering).
    #[arg(long)]
    no_optimize: bool,
    /// Also run the independent checker on the compiled plan: violations go to standard
    /// error and the exit status is 1 when there is any.
    #[arg(long)]
    check: bool,
    /// Print what changed from plan OLD to plan NEW (passes, merges, load/store ops,
    /// placements, barriers, bytes). Each is `tessera plan --json` output or a frame file
    /// (compiled for its own device).
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with_all = ["file", "frame", "json", "profile", "no_optimize", "check"])]
    diff: Option<Vec<PathBuf>>,
}

/// A compiled frame with what it was compiled for.
pub struct Compiled {
    pub graph: Graph,
    pub caps: Capabilities,
    pub options: CompileOptions,
    pub plan: Plan,
}

/// Declares the renderer's frame as `args` choose it (for `profile`, desktop when absent)
/// and compiles it for that profile: the graph `tessera render` runs, without a device.
pub fn compile_builtin(
    args: &FrameArgs,
    profile: Option<&str>,
    no_optimize: bool,
) -> anyhow::Result<Compiled> {
    let profile = profile.unwrap_or("desktop");
    let chosen = args.choose(profile, no_optimize)?;
    let caps =
        Capabilities::profile(profile).with_context(|| format!("unknown profile '{profile}'"))?;
    let defaults = tessera_render::Settings::default();
    let settings = tessera_render::Settings {
        width: chosen.width,
        height: chosen.height,
        options: chosen.options,
        features: chosen.features,
        profile: profile.to_string(),
        // The prepass resolves its depth in a mode the profile has, as on a device.
        depth_resolve: tessera_render::renderer::depth_resolve_in(
            defaults.depth_resolve,
            caps.depth_resolve_modes,
        ),
        ..defaults
    };
    let graph = tessera_render::frame_graph(&chosen.scene, &settings);
    let plan = compile(&graph, &caps, &chosen.options)
        .map_err(|e| anyhow::anyhow!("the renderer's frame: {e}"))?;
    Ok(Compiled {
        graph,
        caps,
        options: chosen.options,
        plan,
    })
}

/// Compiles what the command names: the renderer's frame with `--frame`, else `file`; a
/// frame flag without `--frame` is an error (a frame file describes its own frame).
pub fn compile_choice(
    file: Option<&Path>,
    frame: (bool, &FrameArgs),
    profile: Option<&str>,
    no_optimize: bool,
) -> anyhow::Result<Compiled> {
    match (frame.0, file) {
        (true, _) => compile_builtin(frame.1, profile, no_optimize),
        (false, Some(file)) => {
            if frame.1.any_given() {
                anyhow::bail!(
                    "the frame flags (--config, --scene, --width, features...) choose the renderer's frame: add --frame, or leave them out with a frame file"
                );
            }
            compile_file(file, profile, no_optimize)
        }
        (false, None) => anyhow::bail!("a frame file (or --frame) is needed"),
    }
}

/// Loads and compiles a frame file, for `profile` if given.
pub fn compile_file(
    file: &Path,
    profile: Option<&str>,
    no_optimize: bool,
) -> anyhow::Result<Compiled> {
    let (graph, mut caps) = frame_file::load(file)?;
    if let Some(p) = profile {
        caps = Capabilities::profile(p).with_context(|| format!("unknown profile '{p}'"))?;
    }
    compile_graph(graph, caps, no_optimize, file)
}

fn compile_graph(
    graph: Graph,
    caps: Capabilities,
    no_optimize: bool,
    file: &Path,
) -> anyhow::Result<Compiled> {
    let options = if no_optimize {
        CompileOptions::NONE
    } else {
        CompileOptions::ALL
    };
    let plan =
        compile(&graph, &caps, &options).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    Ok(Compiled {
        graph,
        caps,
        options,
        plan,
    })
}

/// Reads a plan: `tessera plan --json` output, or else a frame file compiled for its device.
/// When it is neither, the error is the plan's when the text has a plan's `order`, the
/// frame's when it has `passes` or `resources` (or is TOML), and both otherwise.
pub fn load_plan(path: &Path) -> anyhow::Result<Plan> {
    let text = frame_file::read_text(path)?;
    let plan_error = match parse_plan(&text, path) {
        Ok(plan) => return Ok(plan),
        Err(e) => e,
    };
    let syntax = frame_file::Syntax::of_path(path);
    let frame_error = match frame_file::parse(&text, syntax, &path.display().to_string())
        .map_err(anyhow::Error::from)
        .and_then(|(graph, caps)| compile_graph(graph, caps, false, path))
    {
        Ok(c) => return Ok(c.plan),
        Err(e) => e,
    };
    let keys = match syntax {
        frame_file::Syntax::Toml => None,
        frame_file::Syntax::Json => {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text).ok()
        }
    };
    let has = |k: &str| keys.as_ref().is_some_and(|m| m.contains_key(k));
    if has("order") {
        Err(plan_error)
    } else if syntax == frame_file::Syntax::Toml || has("passes") || has("resources") {
        Err(frame_error)
    } else {
        anyhow::bail!(
            "{}: neither a plan (`tessera plan --json` output: {}) nor a frame file ({})",
            path.display(),
            without_path(&plan_error, path),
            without_path(&frame_error, path)
        )
    }
}

/// An error's message without the leading `path:` it starts with, to say the path once.
fn without_path(e: &anyhow::Error, path: &Path) -> String {
    let text = format!("{e:#}");
    let shown = path.display().to_string();
    text.strip_prefix(&shown)
        .map(|rest| rest.trim_start_matches(':').trim_start().to_string())
        .unwrap_or(text)
}

pub fn run(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    if let Some(paths) = &args.diff {
        let [old, new] = paths.as_slice() else {
            anyhow::bail!("--diff takes two plans: OLD NEW");
        };
        let d = tessera_viewer::diff::diff(&load_plan(old)?, &load_plan(new)?);
        out::print(|w| write!(w, "{d}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let c = compile_choice(
        args.file.as_deref(),
        (args.frame, &args.frame_args),
        args.profile.as_deref(),
        args.no_optimize,
    )?;
    let source = match &args.file {
        Some(file) if !args.frame => file.display().to_string(),
        _ => "the renderer's frame".to_string(),
    };
    if args.json {
        let text = serde_json::to_string_pretty(&c.plan)?;
        out::print(|w| writeln!(w, "{text}"))?;
    } else {
        out::print(|w| {
            write!(
                w,
                "{}",
                Report {
                    plan: &c.plan,
                    name: &c.graph.name
                }
            )
        })?;
    }
    if !args.check {
        return Ok(ExitCode::SUCCESS);
    }
    let verdict = tessera_graph::check::check(&c.graph, &c.caps, &c.options, &c.plan);
    let context = check::Context {
        plan: &format!("the plan of {source}"),
        frame: None,
        device: (&c.caps, None),
        options: (&c.options, None),
    };
    let mut err = std::io::stderr().lock();
    // A closed standard error loses the text, never the verdict: the exit status says it.
    match check::report(&mut err, &context, &c.plan, &verdict) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(e).context("writing to standard error")
        }
        _ => {}
    }
    Ok(if verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

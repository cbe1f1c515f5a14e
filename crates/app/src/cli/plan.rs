//! `tessera plan FILE [--json]`: compile a frame file and print the report or the plan JSON.
//! `tessera plan --diff OLD NEW`: print what changed between two plans.

use anyhow::Context as _;
use std::path::{Path, PathBuf};
use tessera_graph::{
    compile, frame_file, report::Report, Capabilities, CompileOptions, Graph, Plan,
};

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Frame description (.json or .toml).
    #[arg(required_unless_present = "diff")]
    file: Option<PathBuf>,
    /// Print the compiled plan as JSON instead of the report.
    #[arg(long)]
    json: bool,
    /// Device profile to compile for, overriding the file's `device`.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Capabilities::PROFILES))]
    profile: Option<String>,
    /// Turn every optimisation off (merging, memoryless, aliasing, async, reordering).
    #[arg(long)]
    no_optimize: bool,
    /// Print what changed from plan OLD to plan NEW (passes, merges, load/store ops,
    /// placements, barriers, bytes). Each is `tessera plan --json` output or a frame file
    /// (compiled for its own device).
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with_all = ["file", "json", "profile", "no_optimize"])]
    diff: Option<Vec<PathBuf>>,
}

/// Loads and compiles a frame file, for `profile` if given.
pub fn compile_file(
    file: &Path,
    profile: Option<&str>,
    no_optimize: bool,
) -> anyhow::Result<(Graph, Plan)> {
    let (graph, mut caps) = frame_file::load(file)?;
    if let Some(p) = profile {
        caps = Capabilities::profile(p).with_context(|| format!("unknown profile '{p}'"))?;
    }
    let options = if no_optimize {
        CompileOptions::NONE
    } else {
        CompileOptions::ALL
    };
    let plan =
        compile(&graph, &caps, &options).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    Ok((graph, plan))
}

/// Reads a plan: `tessera plan --json` output, or else a frame file compiled for its device.
pub fn load_plan(path: &Path) -> anyhow::Result<Plan> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    match serde_json::from_str::<Plan>(&text) {
        Ok(plan) => Ok(plan),
        Err(plan_error) => match compile_file(path, None, false) {
            Ok((_, plan)) => Ok(plan),
            Err(frame_error) => anyhow::bail!(
                "{}: neither a plan (`tessera plan --json`: {plan_error}) nor a frame file ({frame_error:#})",
                path.display()
            ),
        },
    }
}

pub fn run(args: &PlanArgs) -> anyhow::Result<()> {
    if let Some(paths) = &args.diff {
        let [old, new] = paths.as_slice() else {
            anyhow::bail!("--diff takes two plans: OLD NEW");
        };
        let d = tessera_viewer::diff::diff(&load_plan(old)?, &load_plan(new)?);
        print!("{d}");
        return Ok(());
    }
    let Some(file) = &args.file else {
        anyhow::bail!("a frame file is needed");
    };
    let (graph, plan) = compile_file(file, args.profile.as_deref(), args.no_optimize)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&plan)?);
    } else {
        print!(
            "{}",
            Report {
                plan: &plan,
                name: &graph.name
            }
        );
    }
    Ok(())
}

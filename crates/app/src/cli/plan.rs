//! `tessera plan FILE [--json]`: compile a frame file and print the report or the plan JSON.

use anyhow::Context as _;
use std::path::PathBuf;
use tessera_graph::{compile, frame_file, report::Report, Capabilities, CompileOptions};

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Frame description (.json or .toml).
    file: PathBuf,
    /// Print the compiled plan as JSON instead of the report.
    #[arg(long)]
    json: bool,
    /// Device profile to compile for, overriding the file's `device`.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Capabilities::PROFILES))]
    profile: Option<String>,
    /// Turn every optimisation off (merging, memoryless, aliasing, async, reordering).
    #[arg(long)]
    no_optimize: bool,
}

pub fn run(args: &PlanArgs) -> anyhow::Result<()> {
    let (graph, mut caps) = frame_file::load(&args.file)?;
    if let Some(p) = &args.profile {
        caps = Capabilities::profile(p).with_context(|| format!("unknown profile '{p}'"))?;
    }
    let options = if args.no_optimize {
        CompileOptions::NONE
    } else {
        CompileOptions::ALL
    };
    let plan = compile(&graph, &caps, &options)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
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

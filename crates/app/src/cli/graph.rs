//! `tessera graph FILE --html OUT.html [--dot OUT.dot] [--diff-against OLD.json]`: compile a
//! frame file and write the render graph viewer's page (one self-contained HTML file) and/or
//! a Graphviz digraph of the compiled plan. `--frame` (with the frame flags of `tessera
//! render`) shows the renderer's own frame instead of a file.

use super::frame_args::FrameArgs;
use super::out;
use super::plan::{compile_choice, load_plan};
use std::path::{Path, PathBuf};
use tessera_viewer::{diff, dot, html, Page};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("out").required(true).multiple(true).args(["html", "dot"])))]
pub struct GraphArgs {
    /// Frame description (.json or .toml).
    #[arg(required_unless_present = "frame", conflicts_with = "frame")]
    file: Option<PathBuf>,
    /// Show the renderer's own frame (the one `tessera render` runs, from the configuration,
    /// the scene and the frame flags) instead of a file.
    #[arg(long)]
    frame: bool,
    #[command(flatten)]
    frame_args: FrameArgs,
    /// Write the viewer page (self-contained HTML: no network) here.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Write a Graphviz digraph here.
    #[arg(long, value_name = "OUT.dot")]
    dot: Option<PathBuf>,
    /// Show what changed against this plan (`tessera plan --json` output, or a frame file).
    #[arg(long, value_name = "OLD.json")]
    diff_against: Option<PathBuf>,
    /// Device profile to compile for, overriding the file's `device`.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(tessera_graph::Capabilities::PROFILES))]
    profile: Option<String>,
    /// Turn every optimisation off (merging, memoryless, aliasing, async, reordering).
    #[arg(long)]
    no_optimize: bool,
}

pub fn run(args: &GraphArgs) -> anyhow::Result<()> {
    let mut inputs: Vec<(&str, &Path)> = args.file.iter().map(|f| ("FILE", f.as_path())).collect();
    if let Some(old) = &args.diff_against {
        inputs.push(("--diff-against", old.as_path()));
    }
    let outputs: Vec<(&str, &Path)> = [("--html", &args.html), ("--dot", &args.dot)]
        .into_iter()
        .filter_map(|(what, p)| Some((what, p.as_deref()?)))
        .collect();
    out::distinct_paths(&inputs, &outputs)?;
    let c = compile_choice(
        args.file.as_deref(),
        (args.frame, &args.frame_args),
        args.profile.as_deref(),
        args.no_optimize,
    )?;
    let (graph, plan) = (&c.graph, &c.plan);
    let page = Page::build(graph, plan);
    if let Some(out) = &args.html {
        let old = match &args.diff_against {
            Some(path) => Some((path.display().to_string(), load_plan(path)?)),
            None => None,
        };
        let d = old
            .as_ref()
            .map(|(name, old)| (name.as_str(), diff::diff(old, plan)));
        let text = html::html(&page, d.as_ref().map(|(n, d)| (*n, d)));
        out::write_file(out, text.as_bytes())?;
        log::info!("wrote {}", out.display());
    } else if args.diff_against.is_some() {
        anyhow::bail!("--diff-against is shown in the HTML page: add --html OUT.html");
    }
    if let Some(out) = &args.dot {
        out::write_file(out, dot::dot(&page).as_bytes())?;
        log::info!("wrote {}", out.display());
    }
    Ok(())
}

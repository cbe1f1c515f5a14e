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
    /// Write the viewer page (self-contained HTML: no network) here (`-`: standard output).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Write a Graphviz digraph here (`-`: standard output).
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

/// Where one output goes: standard output for `-`, else a file checked before any work.
enum Target {
    Stdout,
    File(tessera_fsio::Output),
}

impl Target {
    fn new(option: &str, path: &Path) -> anyhow::Result<Target> {
        if path.as_os_str() == out::STDOUT {
            return Ok(Target::Stdout);
        }
        Ok(Target::File(out::output(option, path)?))
    }

    fn file(&self) -> Option<&tessera_fsio::Output> {
        match self {
            Target::File(o) => Some(o),
            Target::Stdout => None,
        }
    }

    fn write(&self, text: &str) -> anyhow::Result<()> {
        match self {
            Target::Stdout => out::print(|w| w.write_all(text.as_bytes())),
            Target::File(o) => {
                out::write(o, text.as_bytes())?;
                log::info!("wrote {}", o.path().display());
                Ok(())
            }
        }
    }
}

pub fn run(args: &GraphArgs) -> anyhow::Result<()> {
    let mut inputs: Vec<(&str, &Path)> = args.file.iter().map(|f| ("FILE", f.as_path())).collect();
    if let Some(old) = &args.diff_against {
        inputs.push(("--diff-against", old.as_path()));
    }
    inputs.extend(args.frame_args.inputs());
    let html_out = args
        .html
        .as_deref()
        .map(|p| Target::new("--html", p))
        .transpose()?;
    let dot_out = args
        .dot
        .as_deref()
        .map(|p| Target::new("--dot", p))
        .transpose()?;
    if html_out.is_none() && args.diff_against.is_some() {
        anyhow::bail!("--diff-against is shown in the HTML page: add --html OUT.html");
    }
    if matches!(
        (&html_out, &dot_out),
        (Some(Target::Stdout), Some(Target::Stdout))
    ) {
        anyhow::bail!("--html and --dot both write standard output: give one of them a file");
    }
    let files: Vec<&tessera_fsio::Output> = html_out
        .iter()
        .chain(&dot_out)
        .filter_map(Target::file)
        .collect();
    out::distinct(&files, &inputs)?;
    let c = compile_choice(
        args.file.as_deref(),
        (args.frame, &args.frame_args),
        args.profile.as_deref(),
        args.no_optimize,
    )?;
    let (graph, plan) = (&c.graph, &c.plan);
    let page = Page::build(graph, plan);
    if let Some(target) = &html_out {
        let old = match &args.diff_against {
            Some(path) => Some((path.display().to_string(), load_plan(path)?)),
            None => None,
        };
        let d = old
            .as_ref()
            .map(|(name, old)| (name.as_str(), diff::diff(old, plan)));
        target.write(&html::html(&page, d.as_ref().map(|(n, d)| (*n, d))))?;
    }
    if let Some(target) = &dot_out {
        target.write(&dot::dot(&page))?;
    }
    Ok(())
}

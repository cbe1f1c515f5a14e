//! Command-line interface: one module per subcommand.

mod bench;
mod capture;
mod check;
mod exec;
mod frame_args;
mod graph;
pub mod out;
mod plan;
mod plan_json;
mod progress;
mod render;
pub mod run;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Tessera: a Vulkan renderer whose whole frame runs through a render graph.
///
/// Without a subcommand it is `tessera run`, and takes `run`'s flags
/// (`tessera --width 320 --height 180`).
#[derive(Debug, Parser)]
#[command(
    name = "tessera",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// What to do [default: `run`, the desktop window].
    #[command(subcommand)]
    command: Option<Command>,
    /// `tessera run`'s flags, for `tessera` alone.
    #[command(flatten, next_help_heading = "Options of `tessera run` (the default)")]
    run: run::RunArgs,
}

/// An error in what the user asked for (a flag, the configuration file): the program exits
/// with status 2, as for clap's own usage errors.
#[derive(Debug)]
pub struct UsageError(anyhow::Error);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for UsageError {}

/// Marks `e` as a usage error (exit status 2).
pub fn usage(e: anyhow::Error) -> anyhow::Error {
    anyhow::Error::new(UsageError(e))
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile a frame description and print the plan.
    Plan(plan::PlanArgs),
    /// Check a plan (`tessera plan --json` output, or any plan JSON) against its frame with
    /// the independent checker; exit 1 on any violation.
    Check(check::CheckArgs),
    /// Run a frame description on the GPU with synthetic passes and check the results.
    Exec(exec::ExecArgs),
    /// Render frames of a scene (or glTF model) through the graph and write the last as PNG.
    Render(render::RenderArgs),
    /// Open the desktop window: the frame rendered through the graph into the swapchain,
    /// with live toggles and the UI (the default; without a display it renders
    /// headless to a PNG instead).
    #[command(after_help = run::keys_help())]
    Run(run::RunArgs),
    /// Check a RenderDoc capture against the plan of the frame it captured (the files
    /// `render --capture` writes beside it); exit 1 on any difference.
    VerifyCapture(verify::VerifyArgs),
    /// Measure what each graph optimisation buys on the real frame: GPU, CPU, memory and
    /// plan figures per size and mode, side by side in one run.
    Bench(bench::BenchArgs),
    /// Write the render graph viewer (one self-contained HTML page) or Graphviz of a frame.
    Graph(graph::GraphArgs),
}

/// Parses the command line and runs the subcommand; the exit status on success (`check`
/// and `plan --check` end with 1 when the plan breaks a rule).
pub fn run() -> anyhow::Result<ExitCode> {
    // `tessera` alone (`cargo run --release`) opens the window, with `run`'s flags if given.
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Run(cli.run));
    match command {
        Command::Plan(args) => plan::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Exec(args) => exec::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Render(args) => render::run(&args),
        Command::Run(args) => run::run(&args),
        Command::VerifyCapture(args) => verify::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Graph(args) => graph::run(&args).map(|()| ExitCode::SUCCESS),
    }
}

//! Command-line interface: one module per subcommand.

mod exec;
mod graph;
mod plan;

use clap::{Parser, Subcommand};

/// Tessera: a Vulkan renderer whose whole frame runs through a render graph.
#[derive(Debug, Parser)]
#[command(name = "tessera", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile a frame description and print the plan.
    Plan(plan::PlanArgs),
    /// Run a frame description on the GPU with synthetic passes and check the results.
    Exec(exec::ExecArgs),
    /// Write the render graph viewer (one self-contained HTML page) or Graphviz of a frame.
    Graph(graph::GraphArgs),
}

/// Parses the command line and runs the subcommand.
pub fn run() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Plan(args) => plan::run(&args),
        Command::Exec(args) => exec::run(&args),
        Command::Graph(args) => graph::run(&args),
    }
}

//! `gobang-lab`: the engine's measuring tools. Each subcommand lives in its own module; add new
//! ones as a module plus a variant of [`Command`].

mod bench;
mod deadline;
mod fit;
mod losses;
mod puzzles;
mod rules_bench;
mod selfplay;
mod tune;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "gobang-lab",
    about = "Gobang engine benchmarks and test runners"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Search fixed positions to a fixed depth; print nodes, nodes/s and a node-count signature.
    Bench(bench::Args),
    /// Time many short searches from outside; print how late the engine answers.
    Deadline(deadline::Args),
    /// Fit the evaluation weights to finished games (Texel method) or labelled positions; write a
    /// weights file.
    Fit(fit::FitArgs),
    /// Find where each finished game was lost: the loser's first move that allowed a VCT, and
    /// whether another move there did not.
    Losses(losses::Args),
    /// Run the puzzle collections and report what is solved and how fast.
    Puzzles(puzzles::Args),
    /// Measure the rules core: move+undo pairs/s and forbidden-point listing calls/s.
    RulesBench(rules_bench::Args),
    /// Play a match between two engine configurations or Gomocup brains; print score and Elo.
    Selfplay(selfplay::SelfplayArgs),
    /// Tune evaluation weights by SPSA self-play; write a weights file and a check-match result.
    Tune(tune::TuneArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Bench(args) => bench::run(&args),
        Command::Deadline(args) => deadline::run(&args),
        Command::Fit(args) => fit::run(&args),
        Command::Losses(args) => losses::run(&args),
        Command::Puzzles(args) => puzzles::run(&args),
        Command::RulesBench(args) => rules_bench::run(&args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Tune(args) => tune::run(args),
    }
}

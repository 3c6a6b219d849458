//! `gobang-lab`: the engine's measuring tools. Each subcommand lives in its own module; add new
//! ones as a module plus a variant of [`Command`].

/// `println!` for the subcommands' reports, ending quietly on a closed pipe ([`print_line`]).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::print_line(format_args!($($arg)*))
    };
}

mod bench;
mod deadline;
mod fit;
mod fit_order;
mod label;
mod losses;
mod puzzles;
mod random_openings;
mod rng;
mod rules_bench;
mod selfplay;
mod tune;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use gobang::engine::time::TimeControl;
use gobang::engine::vcf::Vcf;
use gobang::engine::vct::Vct;
use gobang::engine::Limits;
use gobang::game::record::{GameRecord, RecordError, RecordFormat};
use gobang::game::Game;
use gobang::rules::{Board, Rule};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The largest transposition table the tools' options accept, in MiB (the engine's own limit).
const MAX_HASH_MB: u64 = (gobang::engine::MAX_HASH_BYTES >> 20) as u64;

/// The evaluation weights in the file at `path`, or the engine's built-in ones without a path.
fn weights_or_default(path: Option<&std::path::Path>) -> anyhow::Result<gobang::engine::Weights> {
    match path {
        Some(path) => gobang::engine::Weights::load(path)
            .with_context(|| format!("reading {}", path.display())),
        None => Ok(gobang::engine::Weights::default()),
    }
}

/// A table size in MiB, as the options accept it (at most [`MAX_HASH_MB`]), in bytes.
fn hash_bytes(mb: u64) -> usize {
    (mb.min(MAX_HASH_MB) as usize) << 20
}

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
    /// Fit the search's quiet-move order to a player's choices in finished games; print the
    /// tables.
    FitOrder(fit_order::Args),
    /// Label positions of finished games with the engine's own fixed-depth search value, for
    /// `fit --labels`.
    Label(label::Args),
    /// Find where each finished game was lost: the loser's first move that allowed a VCT, and
    /// whether another move there did not.
    Losses(losses::Args),
    /// Run the puzzle collections and report what is solved and how fast.
    Puzzles(puzzles::Args),
    /// Write an opening file of random distinct starting positions (base openings, turned, plus
    /// a few random quiet stones), for training data.
    RandomOpenings(random_openings::Args),
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
        Command::FitOrder(args) => fit_order::run(&args),
        Command::Label(args) => label::run(&args),
        Command::Losses(args) => losses::run(&args),
        Command::Puzzles(args) => puzzles::run(&args),
        Command::RandomOpenings(args) => random_openings::run(&args),
        Command::RulesBench(args) => rules_bench::run(&args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Tune(args) => tune::run(args),
    }
}

/// Prints one line of a report. Rust programs ignore SIGPIPE, so `println!` into a pipe whose
/// reader has gone (`gobang-lab bench | head -3`) panics with "Broken pipe"; a measuring tool should
/// stop quietly then, as `cat` does. (Restoring SIGPIPE's default action instead would also kill
/// `selfplay` when a brain it talks to dies.)
fn print_line(line: std::fmt::Arguments) {
    use std::io::Write as _;
    if let Err(error) = writeln!(std::io::stdout().lock(), "{line}") {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        panic!("cannot write to standard output: {error}");
    }
}

/// The record files among `paths`: files as given, folders as their record files (by extension),
/// sorted by name. Shared by the subcommands that read finished games (`fit`, `fit-order`, `label`,
/// `losses`).
fn record_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read folder {}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && RecordFormat::from_path(p).is_some())
                .collect();
            entries.sort();
            files.extend(entries);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// The game of the record file `path`, replayed (and so checked move by move) under `rule`
/// (psq files do not say which).
fn load_game(path: &Path, rule: Rule) -> Result<Game, RecordError> {
    let mut record = GameRecord::load(path)?;
    record.rule = rule;
    record.to_game()
}

/// The VCF and VCT solvers for looks at positions outside any search (`losses`, `puzzles
/// --solver-nodes`): their tables are allocated once and cleared before each look.
struct Solver {
    vcf: Vcf,
    vct: Vct,
    nodes: u64,
    depth: i32,
}

/// What one VCT look found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    Win,
    NoWin,
    OutOfBudget,
}

impl Solver {
    /// Looks of at most `nodes` nodes and `depth` attacker moves.
    fn new(nodes: u64, depth: i32) -> Solver {
        Solver {
            vcf: Vcf::new(),
            vct: Vct::new(),
            nodes,
            depth,
        }
    }

    /// Whether the side to move of `board` wins by VCT, looked for from fresh tables.
    fn look(&mut self, board: &mut Board) -> Look {
        let stop = AtomicBool::new(false);
        let limits = Limits::turn_time(Duration::from_secs(24 * 3600));
        let mut clock = TimeControl::new(&limits, &stop);
        self.vcf.clear();
        self.vct.clear();
        let found = self
            .vct
            .solve(board, &mut self.vcf, self.depth, self.nodes, &mut clock, 0);
        match found {
            Some(_) => Look::Win,
            None if self.vct.nodes() >= self.nodes => Look::OutOfBudget,
            None => Look::NoWin,
        }
    }

    /// Nodes (VCF nodes included) the last look visited.
    fn nodes_used(&self) -> u64 {
        self.vct.nodes()
    }
}

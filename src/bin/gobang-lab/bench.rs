//! `gobang-lab bench`: fixed positions searched to a fixed depth, each from cleared tables, so
//! that the total node count is a deterministic signature of the search's behaviour (with one
//! search thread; with more, the count varies from run to run and only time and nodes/s mean
//! something). One engine serves every position, its tables touched before the clock starts, so
//! the figures measure the search rather than the system mapping fresh memory.

use gobang::engine::{Engine, EngineOptions, Limits};
use gobang::rules::{Board, Move, Pos, Rule};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Search depth for every position.
    #[arg(long, default_value_t = 8)]
    depth: u32,
    /// Search threads per engine (Lazy SMP).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// Bench positions: a rule and the moves played so far, in human notation.
pub const POSITIONS: &[(Rule, &str)] = &[
    (Rule::Renju, "h8"),
    (Rule::Renju, "h8 i9 j8"),
    (Rule::Renju, "h8 h9 i10"),
    (Rule::Renju, "h8 h9 j8 i7 j10 j9 i9"),
    (Rule::Renju, "h8 i9 g10 j8 g8 g9"),
    (Rule::Renju, "h8 g9 i9 h10 g8 i7 f7"),
    (Rule::Freestyle, "h8 i9 h9 h10 i8"),
    (Rule::Standard, "h8 i8 g9 g7 h10"),
];

pub fn board_of(rule: Rule, moves: &str) -> anyhow::Result<Board> {
    let moves: Vec<Move> = moves
        .split_whitespace()
        .map(|m| m.parse::<Pos>().map(Move::Place))
        .collect::<Result<_, _>>()?;
    Ok(Board::from_moves(rule, &moves)?)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let stop = AtomicBool::new(false);
    let mut total_nodes = 0u64;
    let mut engine = Engine::with_options(EngineOptions {
        threads: args.threads,
        ..EngineOptions::default()
    });
    engine.touch_tables();
    let started = Instant::now();
    for (index, (rule, moves)) in POSITIONS.iter().enumerate() {
        let board = board_of(*rule, moves)?;
        engine.clear();
        let result = engine.search(&board, &Limits::depth(args.depth), &stop, &mut |_| {});
        total_nodes += result.nodes;
        let best = result.best_move.map_or("-".to_string(), |p| p.to_string());
        say!(
            "position {:2} ({:9}): best {:3} score {:>11} nodes {:10} time {:7.3}s",
            index + 1,
            rule.name(),
            best,
            result.score.to_string(),
            result.nodes,
            result.elapsed.as_secs_f64()
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    say!("===========================");
    say!("depth            {}", args.depth);
    say!("threads          {}", args.threads);
    say!("total time (s)   {seconds:.3}");
    say!("nodes            {total_nodes}");
    say!(
        "nodes/second     {:.0}",
        total_nodes as f64 / seconds.max(1e-9)
    );
    say!("signature        {total_nodes}");
    Ok(())
}

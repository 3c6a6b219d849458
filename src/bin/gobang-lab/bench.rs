//! `gobang-lab bench`: fixed positions searched to a fixed depth, each from cleared tables, so
//! that the total node count is a deterministic signature of the search's behaviour (with one
//! search thread; with more, the count varies from run to run and only time and nodes/s mean
//! something). One engine serves every position, its tables touched before the clock starts, so
//! the figures measure the search rather than the system mapping fresh memory.

use crate::MAX_HASH_MB;
use gobang::engine::{Engine, EngineOptions, Limits, DEFAULT_HASH_BYTES};
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
    /// Search the middle-game positions ([`MIDGAME_POSITIONS`]) instead of the opening ones.
    #[arg(long)]
    midgame: bool,
    /// Transposition table budget in MiB, 1 to 2048 (the engine's default when absent); the
    /// table takes the largest power of two of entries that fits.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_HASH_MB))]
    hash_mb: Option<u64>,
    /// Evaluation weights file (default: the engine's built-in weights); the signature then
    /// belongs to these weights
    #[arg(long)]
    weights: Option<std::path::PathBuf>,
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

/// Middle-game bench positions (renju, 17-18 stones, Black to move in five, so that renju
/// suspects are judged often): positions from eight games of session 44's control run against
/// PentaZen 0.4.17 (`gobang-lab selfplay`, 500 ms a move; games 1, 27, 79, 92, 105, 144, 183 and
/// 196 of the 208), none of them decided within the bench's depth 8.
pub const MIDGAME_POSITIONS: &[(Rule, &str)] = &[
    (
        Rule::Renju,
        "h8 h9 h10 j10 l12 g9 i9 g11 g8 i8 g10 e10 e8 h11 i11 d8 d9 d11",
    ),
    (
        Rule::Renju,
        "h8 h9 i9 j8 i10 j10 i11 i12 g9 i7 f8 e7 h11 j9 j12 h10 j7 e8",
    ),
    (
        Rule::Renju,
        "h8 h9 j7 g7 i6 g8 g6 f7 e6 f5 f6 h6 h5 k8 e4 g4 e7 e5",
    ),
    (
        Rule::Renju,
        "h8 h9 i6 j7 i8 i7 g7 g8 f6 i9 h6 e6 f7 j9 j6 g6 k9",
    ),
    (
        Rule::Renju,
        "h8 i9 j10 j9 k9 i11 i10 k10 g9 f10 i8 j8 g11 g10 j7 f9 k6 l5",
    ),
    (
        Rule::Renju,
        "h8 i9 f10 h7 j7 g9 j9 g8 g10 i10 f9 i8 i7 f7 e6 g6 e8",
    ),
    (
        Rule::Renju,
        "h8 i9 f8 i7 g6 k7 h6 i6 i8 g8 g7 i5 f6 h7 j5 j7 l7 j8",
    ),
    (
        Rule::Renju,
        "h8 i9 f7 e5 f3 h9 j9 i8 g10 g11 i7 f10 g7 h7 j6 g9 e9",
    ),
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
        weights: crate::weights_or_default(args.weights.as_deref())?,
        threads: args.threads,
        hash_bytes: args.hash_mb.map_or(DEFAULT_HASH_BYTES, crate::hash_bytes),
        ..EngineOptions::default()
    });
    engine.touch_tables();
    let started = Instant::now();
    let positions = if args.midgame {
        MIDGAME_POSITIONS
    } else {
        POSITIONS
    };
    for (index, (rule, moves)) in positions.iter().enumerate() {
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
    say!("hash (MiB)       {}", engine.options().hash_bytes >> 20);
    say!("total time (s)   {seconds:.3}");
    say!("nodes            {total_nodes}");
    say!(
        "nodes/second     {:.0}",
        total_nodes as f64 / seconds.max(1e-9)
    );
    say!("signature        {total_nodes}");
    Ok(())
}

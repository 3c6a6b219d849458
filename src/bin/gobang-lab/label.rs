//! `gobang-lab label`: labels positions of finished games with the engine's own search value, for
//! `fit --labels` (distillation: the evaluation fitted to what a deeper search says of a
//! position rather than to how the game ended).
//!
//! Every `every`-th position of each game (from `min-stones` stones on, the game's index choosing
//! the offset so that all plies are sampled over many games) is searched to a fixed depth from a
//! cleared engine, so the labels do not depend on the order positions are met in. The value
//! becomes the side to move's expected score `sigmoid(value / scale)`, a proven win 1 and a
//! proven loss 0. Positions the opening book answers are left out (no search value). Each output
//! line is `TARGET MOVES...`, the format `fit --labels` reads.

use anyhow::Context;
use gobang::engine::{Engine, EngineOptions, Limits, Score};
use gobang::game::record::write_atomically;
use gobang::rules::{Board, Move, Rule};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

#[derive(clap::Args)]
pub struct Args {
    /// Game records (files, or folders whose record files are all read)
    #[arg(required = true)]
    records: Vec<PathBuf>,
    /// Rule the games were played under (psq files do not say)
    #[arg(long, default_value = "renju")]
    rule: Rule,
    /// Search depth of each label
    #[arg(long, default_value_t = 6)]
    depth: u32,
    /// Label one position in this many of each game
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
    /// Positions with fewer stones than this are left out
    #[arg(long, default_value_t = 6)]
    min_stones: usize,
    /// Eval units per logistic unit when turning a value into an expected score (`fit` prints
    /// the scale that fits the weights)
    #[arg(long, default_value_t = 475.0)]
    scale: f64,
    /// Label only the games whose index (in name order) is SHARD modulo SHARDS, as `SHARD/SHARDS`,
    /// so that several processes can share the work
    #[arg(long, default_value = "0/1", value_parser = parse_shard)]
    shard: (usize, usize),
    /// Table size of the labelling searches, in MiB
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=crate::MAX_HASH_MB))]
    hash_mb: u64,
    /// Evaluation weights of the labelling searches (default: the built-in ones)
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Where to write the labels
    #[arg(long, default_value = "labels.txt")]
    out: PathBuf,
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (shard, shards) = text
        .split_once('/')
        .ok_or_else(|| format!("'{text}' is not SHARD/SHARDS"))?;
    let shard: usize = shard.parse().map_err(|_| format!("bad shard '{shard}'"))?;
    let shards: usize = shards
        .parse()
        .map_err(|_| format!("bad shard count '{shards}'"))?;
    if shard >= shards {
        return Err(format!("shard {shard} is not below the count {shards}"));
    }
    Ok((shard, shards))
}

/// The side to move's expected score for a search `score`.
fn expected_score(score: Score, scale: f64) -> f64 {
    match score {
        Score::Eval(value) => crate::fit::sigmoid(f64::from(value) / scale),
        Score::WinIn(_) => 1.0,
        Score::LossIn(_) => 0.0,
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let (shard, shards) = args.shard;
    let stop = AtomicBool::new(false);
    let mut engine = Engine::with_options(EngineOptions {
        weights: crate::weights_or_default(args.weights.as_deref())?,
        hash_bytes: crate::hash_bytes(args.hash_mb),
        ..EngineOptions::default()
    });
    let limits = Limits::depth(args.depth);
    let mut out = String::new();
    let (mut games, mut labels, mut skipped) = (0usize, 0usize, 0usize);
    let files = crate::record_files(&args.records)?;
    for (index, path) in files.iter().enumerate() {
        if index % shards != shard {
            continue;
        }
        let game = match crate::load_game(path, args.rule) {
            Ok(game) => game,
            Err(error) => {
                skipped += 1;
                eprintln!("skipped {}: {error:#}", path.display());
                continue;
            }
        };
        games += 1;
        let mut board = Board::new(args.rule);
        let mut line = String::new();
        for (ply, &mv) in game.moves().iter().enumerate() {
            // A labels line lists stones only, so a game's labels end at its first pass. The
            // record's moves were checked when it was read: none lands on an occupied point.
            let Move::Place(p) = mv else {
                break;
            };
            if board.stone_count() >= args.min_stones
                && (ply as u64 + index as u64) % args.every == 0
            {
                engine.clear();
                let result = engine.search(&board, &limits, &stop, &mut |_| {});
                if result.book_opening.is_none() && result.best_move.is_some() {
                    let target = expected_score(result.score, args.scale);
                    writeln!(out, "{target:.4}{line}")?;
                    labels += 1;
                }
            }
            board.make_move(p);
            write!(line, " {p}")?;
        }
        if games % 100 == 0 {
            eprintln!("{games} games, {labels} labels");
        }
    }
    write_atomically(&args.out, out.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    say!(
        "{games} games ({skipped} skipped), {labels} labels written to {}",
        args.out.display()
    );
    Ok(())
}

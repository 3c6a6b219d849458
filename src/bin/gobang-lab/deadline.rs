//! `gobang-lab deadline`: how late the engine answers. Many searches at short move limits, in
//! positions with long VCF/VCT work (the puzzles, from the attacker's and from the defender's
//! side) and in the bench's openings, each timed by the caller around `Engine::search`. Prints,
//! per limit, the worst and mean time past the move limit and past the engine's own hard deadline
//! (the limit minus its safety margin), and which search was the latest. With `--games`, the
//! positions are instead every position of the given game records (to replay a slow move).

use crate::bench;
use anyhow::Context as _;
use gobang::engine::puzzle;
use gobang::engine::time::TimeControl;
use gobang::engine::{Engine, EngineOptions, Limits};
use gobang::game::record::GameRecord;
use gobang::rules::{Board, Move, Rule};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Move limits to measure, in milliseconds.
    #[arg(long, value_delimiter = ',', default_value = "50,90,200")]
    limits: Vec<u64>,
    /// Puzzles with solution lines (all are used).
    #[arg(long, default_value = "../shared/data/puzzles/engine_test_puzzles.txt")]
    solutions: PathBuf,
    /// Goal-only problems (a sample is used, VCT problems first: they are the slowest to search).
    #[arg(long, default_value = "../shared/data/puzzles/lfz084_puzzles.txt")]
    problems: PathBuf,
    /// How many goal-only problems to sample.
    #[arg(long, default_value_t = 120)]
    sample: usize,
    /// How many times every position is searched at every limit.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Game records whose every position is searched instead of the puzzles (e.g. self-play
    /// games with a slow move), replayed under `--rule`.
    #[arg(long, num_args = 1..)]
    games: Vec<PathBuf>,
    /// Rule for `--games` (a .psq file does not always say).
    #[arg(long, default_value = "renju")]
    rule: Rule,
    /// Search threads of the engine (Lazy SMP).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// A position to search, with a name for the report.
struct Case {
    name: String,
    board: Board,
}

fn read_puzzles(path: &PathBuf) -> anyhow::Result<Vec<puzzle::Puzzle>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    puzzle::parse(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Every position of the game records, before each move.
fn game_cases(args: &Args) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    for path in &args.games {
        let record =
            GameRecord::load(path).with_context(|| format!("reading {}", path.display()))?;
        let moves: Vec<Move> = record.moves.iter().map(|m| m.mv).collect();
        for played in 0..moves.len() {
            let board = Board::from_moves(args.rule, &moves[..played])
                .with_context(|| format!("replaying {}", path.display()))?;
            cases.push(Case {
                name: format!("{} before move {}", path.display(), played + 1),
                board,
            });
        }
    }
    Ok(cases)
}

/// Every puzzle as given and with the defender to move (who then faces a VCF/VCT threat).
fn cases(args: &Args) -> anyhow::Result<Vec<Case>> {
    if !args.games.is_empty() {
        return game_cases(args);
    }
    let mut puzzles = read_puzzles(&args.solutions)?;
    let mut problems = read_puzzles(&args.problems)?;
    // VCT first, then VCT3, then VCF; evenly spread within each goal.
    problems.sort_by_key(|p| match p.goal.as_str() {
        "VCT" => 0,
        "VCT3" => 1,
        _ => 2,
    });
    let vct = problems.iter().filter(|p| p.goal == "VCT").count();
    let step = (vct / args.sample.max(1)).max(1);
    puzzles.extend(problems.into_iter().step_by(step).take(args.sample));
    let mut cases = Vec::new();
    for puzzle in &puzzles {
        let board = puzzle
            .board()
            .with_context(|| format!("setting up {}", puzzle.name))?;
        cases.push(Case {
            name: puzzle.name.clone(),
            board,
        });
        let defender = Board::from_stones(puzzle.rule, &puzzle.stones, puzzle.to_move.opponent());
        if let Ok(board) = defender {
            cases.push(Case {
                name: format!("{} (defender to move)", puzzle.name),
                board,
            });
        }
    }
    for (index, (rule, moves)) in bench::POSITIONS.iter().enumerate() {
        cases.push(Case {
            name: format!("bench position {}", index + 1),
            board: bench::board_of(*rule, moves)?,
        });
    }
    Ok(cases)
}

/// Lateness figures of one move limit.
#[derive(Default)]
struct Lateness {
    searches: usize,
    /// Searches that answered after the move limit.
    over_limit: usize,
    /// Sum and maximum of the time past the move limit (zero when on time).
    sum_over_limit: Duration,
    worst_over_limit: Duration,
    /// Searches that ran into the engine's hard deadline, and their time past it.
    hit_hard: usize,
    sum_past_hard: Duration,
    worst_past_hard: Duration,
    worst_case: String,
    slowest: Duration,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let cases = cases(args)?;
    say!(
        "{} positions, {} search(es) each per limit, {} thread(s)",
        cases.len(),
        args.repeat,
        args.threads
    );
    for &ms in &args.limits {
        let limit = Duration::from_millis(ms);
        let limits = Limits::turn_time(limit);
        let never = AtomicBool::new(false);
        let hard = TimeControl::new(&limits, &never).hard_limit();
        let mut engine = Engine::with_options(EngineOptions {
            threads: args.threads,
            ..EngineOptions::default()
        });
        let mut figures = Lateness::default();
        for round in 0..args.repeat {
            for case in &cases {
                let stop = AtomicBool::new(false);
                let started = Instant::now();
                let result = engine.search(&case.board, &limits, &stop, &mut |_| {});
                let elapsed = started.elapsed();
                anyhow::ensure!(
                    result.best_move.is_some() || case.board.is_full(),
                    "no move in {}",
                    case.name
                );
                figures.searches += 1;
                let over = elapsed.saturating_sub(limit);
                if !over.is_zero() {
                    figures.over_limit += 1;
                }
                figures.sum_over_limit += over;
                figures.worst_over_limit = figures.worst_over_limit.max(over);
                if elapsed >= hard {
                    figures.hit_hard += 1;
                    figures.sum_past_hard += elapsed - hard;
                    figures.worst_past_hard = figures.worst_past_hard.max(elapsed - hard);
                }
                if elapsed > figures.slowest {
                    figures.slowest = elapsed;
                    figures.worst_case = format!("{} (round {})", case.name, round + 1);
                }
            }
        }
        let millis = |d: Duration| d.as_secs_f64() * 1e3;
        say!(
            "limit {ms} ms (engine's hard deadline {:.1} ms):",
            millis(hard)
        );
        say!(
            "  {} searches, {} answered after the limit; past the limit: worst {:.2} ms, mean {:.3} ms",
            figures.searches,
            figures.over_limit,
            millis(figures.worst_over_limit),
            millis(figures.sum_over_limit) / figures.searches.max(1) as f64
        );
        say!(
            "  {} ran into the hard deadline; past it: worst {:.2} ms, mean {:.3} ms",
            figures.hit_hard,
            millis(figures.worst_past_hard),
            millis(figures.sum_past_hard) / figures.hit_hard.max(1) as f64
        );
        say!(
            "  slowest answer {:.2} ms: {}",
            millis(figures.slowest),
            figures.worst_case
        );
    }
    Ok(())
}

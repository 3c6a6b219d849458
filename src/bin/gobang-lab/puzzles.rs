//! `gobang-lab puzzles`: the puzzles with solution lines (each must be won; the first move and the
//! time are printed) and the goal-only collections (share won within the time limit, by collection).
//! With `--solver-nodes` the goal-only problems go to the VCT solver alone at that node budget
//! instead of the whole engine, which measures the solver apart from the clock.

use crate::{Look, Solver};
use anyhow::Context as _;
use gobang::engine::puzzle::{self, Puzzle};
use gobang::engine::{Engine, Limits, Score};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Puzzles with known solution lines.
    #[arg(long, default_value = "../shared/data/puzzles/engine_test_puzzles.txt")]
    solutions: PathBuf,
    /// Goal-only problems (the side to move can force a win of the given kind).
    #[arg(long, default_value = "../shared/data/puzzles/lfz084_puzzles.txt")]
    problems: PathBuf,
    /// Time limit per puzzle with a solution line, in seconds.
    #[arg(long, default_value_t = 10.0)]
    solution_time: f64,
    /// Time limit per goal-only problem, in seconds.
    #[arg(long, default_value_t = 1.0)]
    problem_time: f64,
    /// Only run goal-only problems with this goal (VCF, VCT, VCT3).
    #[arg(long)]
    goal: Option<String>,
    /// Skip the goal-only problems.
    #[arg(long)]
    no_problems: bool,
    /// List every unsolved goal-only problem.
    #[arg(long)]
    verbose: bool,
    /// Give the goal-only problems to the VCT solver alone (fresh tables, up to 14 attacker
    /// moves) with this many nodes each, instead of the engine with its time limit.
    #[arg(long)]
    solver_nodes: Option<u64>,
}

/// Attacker moves the solver may use with `--solver-nodes`.
const SOLVER_DEPTH: i32 = 14;

fn read(path: &PathBuf) -> anyhow::Result<Vec<Puzzle>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    puzzle::parse(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Searches a puzzle; returns whether a win was proven, the first move and the time taken.
fn attempt(
    engine: &mut Engine,
    puzzle: &Puzzle,
    seconds: f64,
) -> anyhow::Result<(bool, String, Duration, String)> {
    let board = puzzle
        .board()
        .with_context(|| format!("setting up {}", puzzle.name))?;
    engine.clear();
    let stop = AtomicBool::new(false);
    // The clock keeps a safety margin; give it a little more so the puzzle gets its full time.
    let limits = Limits {
        max_depth: Some(gobang::engine::MAX_DEPTH),
        ..Limits::turn_time(Duration::from_secs_f64(seconds * 1.1))
    };
    let result = engine.search(&board, &limits, &stop, &mut |_| {});
    let won = matches!(result.score, Score::WinIn(_));
    let first = result.best_move.map_or("-".to_string(), |p| p.to_string());
    let pv: Vec<String> = result.pv.iter().map(|p| p.to_string()).collect();
    Ok((
        won,
        first,
        result.elapsed,
        format!("{} [{}]", result.score, pv.join(" ")),
    ))
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let mut engine = Engine::new();
    let solved_lines = read(&args.solutions)?;
    let mut solved = 0;
    say!(
        "Puzzles with solution lines ({}):",
        args.solutions.display()
    );
    for puzzle in &solved_lines {
        let (won, first, elapsed, line) = attempt(&mut engine, puzzle, args.solution_time)?;
        solved += won as usize;
        let expected = puzzle
            .solution
            .first()
            .map_or("-".to_string(), |p| p.to_string());
        say!(
            "  {:45} {:4} {:>7.3}s  move {:3} (solution starts {:3}) {}",
            puzzle.name,
            puzzle.goal,
            elapsed.as_secs_f64(),
            first,
            expected,
            if won { "solved" } else { "NOT SOLVED" }
        );
        if args.verbose {
            say!("      {line}");
        }
    }
    say!("  solved {solved}/{}", solved_lines.len());
    if args.no_problems {
        return Ok(());
    }
    let problems = read(&args.problems)?;
    let mut solver = args
        .solver_nodes
        .map(|nodes| Solver::new(nodes, SOLVER_DEPTH));
    let started = std::time::Instant::now();
    let mut solver_nodes_used = 0;
    let mut by_collection: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut by_goal: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for puzzle in &problems {
        if args
            .goal
            .as_ref()
            .is_some_and(|g| !g.eq_ignore_ascii_case(&puzzle.goal))
        {
            continue;
        }
        let won = match solver.as_mut() {
            Some(solver) => {
                let mut board = puzzle
                    .board()
                    .with_context(|| format!("setting up {}", puzzle.name))?;
                let look = solver.look(&mut board);
                solver_nodes_used += solver.nodes_used();
                look == Look::Win
            }
            None => {
                let (won, _, elapsed, _) = attempt(&mut engine, puzzle, args.problem_time)?;
                won && elapsed.as_secs_f64() <= args.problem_time
            }
        };
        if !won && args.verbose {
            say!("  unsolved: {}", puzzle.name);
        }
        for (map, key) in [
            (
                &mut by_collection,
                format!("{} [{}]", puzzle.collection(), puzzle.goal),
            ),
            (&mut by_goal, puzzle.goal.clone()),
        ] {
            let entry = map.entry(key).or_default();
            entry.0 += won as usize;
            entry.1 += 1;
        }
    }
    match args.solver_nodes {
        Some(nodes) => say!(
            "Goal-only problems ({}), proven by the VCT solver alone within {nodes} nodes each \
             ({solver_nodes_used} nodes in {:.1} s):",
            args.problems.display(),
            started.elapsed().as_secs_f64()
        ),
        None => say!(
            "Goal-only problems ({}), solved within {} s each:",
            args.problems.display(),
            args.problem_time
        ),
    }
    for (map, title) in [(&by_collection, "collection"), (&by_goal, "goal")] {
        say!("  by {title}:");
        for (name, (won, total)) in map {
            say!(
                "    {name:50} {won:5}/{total:<5} {:6.1}%",
                100.0 * *won as f64 / (*total).max(1) as f64
            );
        }
    }
    Ok(())
}

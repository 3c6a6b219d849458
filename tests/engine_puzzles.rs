//! The 21 puzzles with known solution lines (VCF and VCT, both colours, renju) must be won.
//! For VCF puzzles the engine's line is replayed and must end in a five.

use gobang::engine::puzzle::{self, Puzzle};
use gobang::engine::{Engine, Limits, Score, MAX_DEPTH};
use gobang::rules::Color;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn puzzles() -> Vec<Puzzle> {
    puzzle::parse(include_str!("fixtures/engine_test_puzzles.txt")).unwrap()
}

#[test]
fn all_solution_line_puzzles_are_won() {
    let all = puzzles();
    assert_eq!(all.len(), 21);
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new();
    let mut failures = Vec::new();
    for puzzle in &all {
        let board = puzzle.board().unwrap();
        engine.clear();
        // A node limit rather than a time limit keeps the test independent of the machine's load.
        let limits = Limits {
            max_depth: Some(MAX_DEPTH),
            max_nodes: Some(6_000_000),
            ..Limits::turn_time(Duration::from_secs(600))
        };
        let result = engine.search(&board, &limits, &stop, &mut |_| {});
        let Some(best) = result.best_move else {
            failures.push(format!("{}: no move", puzzle.name));
            continue;
        };
        if board.side_to_move() == Color::Black {
            assert!(!board.is_forbidden(best), "{}", puzzle.name);
        }
        let Score::WinIn(moves) = result.score else {
            failures.push(format!("{}: {} after {}", puzzle.name, result.score, best));
            continue;
        };
        // A complete line (attacker, defender, ..., five) is replayed.
        if result.pv.len() == 2 * moves as usize - 1 {
            let mut replay = board.clone();
            for &m in &result.pv {
                replay.play(m).unwrap();
            }
            let last = *result.pv.last().unwrap();
            assert!(
                replay.winning_line(last).is_some(),
                "{}: {:?}",
                puzzle.name,
                result.pv
            );
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

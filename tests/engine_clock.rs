//! The engine answers inside its time limit and stops promptly when told to.

use gobang::engine::{Engine, Limits};
use gobang::rules::{Board, Move, Pos, Rule};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn middle_game() -> Board {
    let moves: Vec<Move> = "h8 i9 j8 i8 i7 h6 g9 j10 k9 h10"
        .split_whitespace()
        .map(|m| Move::Place(m.parse::<Pos>().unwrap()))
        .collect();
    Board::from_moves(Rule::Renju, &moves).unwrap()
}

#[test]
fn a_one_second_search_returns_within_the_second() {
    let stop = AtomicBool::new(false);
    let board = middle_game();
    let started = Instant::now();
    let result = Engine::new().search(
        &board,
        &Limits::turn_time(Duration::from_secs(1)),
        &stop,
        &mut |_| {},
    );
    // Loose bound: this checks the deadline logic, not the machine's speed.
    assert!(
        started.elapsed() < Duration::from_millis(1200),
        "{:?}",
        started.elapsed()
    );
    assert!(result.best_move.is_some());
}

#[test]
fn the_stop_flag_ends_a_long_search() {
    let stop = AtomicBool::new(false);
    let board = middle_game();
    let started = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
        });
        Engine::new().search(&board, &Limits::depth(40), &stop, &mut |_| {})
    });
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(result.best_move.is_some());
}

#[test]
fn progress_is_reported_each_depth() {
    let stop = AtomicBool::new(false);
    let mut depths = Vec::new();
    let result = Engine::new().search(&middle_game(), &Limits::depth(4), &stop, &mut |info| {
        depths.push(info.depth);
        assert!(!info.pv.is_empty());
    });
    assert!(!depths.is_empty());
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
    assert_eq!(result.depth, *depths.last().unwrap());
}

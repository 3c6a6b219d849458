//! Lazy SMP: an engine with two search threads plays legal moves, finds forced wins, and stops on
//! the stop flag and the clock like a single-threaded one.

use gobang::engine::puzzle;
use gobang::engine::{Engine, EngineOptions, Limits, Score, MAX_DEPTH};
use gobang::rules::{Board, Color, Pos, Rule};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn p(text: &str) -> Pos {
    text.parse().unwrap()
}

fn two_threads() -> Engine {
    Engine::with_options(EngineOptions {
        threads: 2,
        hash_bytes: 8 << 20,
        ..EngineOptions::default()
    })
}

#[test]
fn two_threads_play_legal_renju_games() {
    let stop = AtomicBool::new(false);
    let mut engine = two_threads();
    for opening in [["h8", "i9", "j8"], ["h8", "h9", "j10"]] {
        let mut board = Board::new(Rule::Renju);
        for m in opening {
            board.play(p(m)).unwrap();
        }
        engine.clear();
        for _ in 0..30 {
            let limits = Limits {
                max_depth: Some(4),
                ..Limits::turn_time(Duration::from_secs(30))
            };
            let result = engine.search(&board, &limits, &stop, &mut |_| {});
            let Some(best) = result.best_move else { break };
            assert!(board.is_empty(best), "{best} is occupied");
            if board.side_to_move() == Color::Black {
                assert_eq!(board.forbidden_kind(best), None, "{board:?} {best}");
            }
            board.play(best).unwrap();
            if board.winning_line(best).is_some() {
                break;
            }
        }
    }
}

#[test]
fn two_threads_find_forced_wins() {
    // From the main search (no root VCF below depth 4): an open three becomes an open four.
    let stones = [
        (p("h8"), Color::Black),
        (p("i8"), Color::Black),
        (p("j8"), Color::Black),
        (p("a1"), Color::White),
        (p("o15"), Color::White),
        (p("a15"), Color::White),
    ];
    let board = Board::from_stones(Rule::Freestyle, &stones, Color::Black).unwrap();
    let stop = AtomicBool::new(false);
    let result = two_threads().search(&board, &Limits::depth(3), &stop, &mut |_| {});
    assert!(matches!(result.score, Score::WinIn(_)), "{}", result.score);
    assert!([p("g8"), p("k8")].contains(&result.best_move.unwrap()));
    // The VCT puzzles of the solution-line collection, node-limited like the puzzle test.
    let puzzles = puzzle::parse(include_str!("fixtures/engine_test_puzzles.txt")).unwrap();
    let mut engine = two_threads();
    for puzzle in puzzles.iter().filter(|p| p.goal == "VCT").take(6) {
        engine.clear();
        let limits = Limits {
            max_depth: Some(MAX_DEPTH),
            max_nodes: Some(6_000_000),
            ..Limits::turn_time(Duration::from_secs(600))
        };
        let result = engine.search(&puzzle.board().unwrap(), &limits, &stop, &mut |_| {});
        assert!(
            matches!(result.score, Score::WinIn(_)),
            "{}: {}",
            puzzle.name,
            result.score
        );
    }
}

#[test]
fn two_threads_honour_the_stop_flag_and_the_clock() {
    let moves = "h8 i9 j8 i8 i7 h6 g9 j10 k9 h10";
    let mut board = Board::new(Rule::Renju);
    for m in moves.split_whitespace() {
        board.play(p(m)).unwrap();
    }
    let stop = AtomicBool::new(false);
    let mut engine = two_threads();
    let started = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
        });
        engine.search(&board, &Limits::depth(40), &stop, &mut |_| {})
    });
    // Loose bounds: they check that both threads stop, not the machine's speed.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(result.best_move.is_some());
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let limits = Limits::turn_time(Duration::from_millis(500));
    let result = engine.search(&board, &limits, &stop, &mut |_| {});
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(result.best_move.is_some());
}

//! The transposition table changes how fast the search is, not what it finds: at a fixed depth the
//! best move is the same with and without it.

use gobang::engine::{Engine, EngineOptions, Limits};
use gobang::rules::{Board, Move, Pos, Rule};
use std::sync::atomic::AtomicBool;

const POSITIONS: &[(Rule, &str)] = &[
    (Rule::Renju, "h8 i9 j8 i8 i7 h6"),
    (Rule::Renju, "h8 h9 j8 i7 j10 j9 i9"),
    (Rule::Renju, "h8 i7 j6 g9 i9 i8 h9 j9 g10 f11 h10 h11"),
    (Rule::Freestyle, "h8 i9 i8 g8 j7 k6 h10 j9 h9 h7 g10"),
    (Rule::Standard, "h8 g9 i7 i9 j9 h10 j8 j6 k7 l6"),
];

#[test]
fn same_best_move_with_and_without_the_table() {
    let stop = AtomicBool::new(false);
    for (rule, moves) in POSITIONS {
        let moves: Vec<Move> = moves
            .split_whitespace()
            .map(|m| Move::Place(m.parse::<Pos>().unwrap()))
            .collect();
        let board = Board::from_moves(*rule, &moves).unwrap();
        let mut answers = Vec::new();
        for use_tt in [true, false] {
            let mut engine = Engine::with_options(EngineOptions {
                use_tt,
                hash_bytes: 4 << 20,
                ..EngineOptions::default()
            });
            let result = engine.search(&board, &Limits::depth(4), &stop, &mut |_| {});
            answers.push(result.best_move);
        }
        assert_eq!(answers[0], answers[1], "{rule:?} {moves:?}");
    }
}

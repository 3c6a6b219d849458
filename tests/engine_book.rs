//! The opening book through the engine facade: from the empty board, Black answers White's
//! second stone next to its first with Kagetsu or Hogetsu, whatever the search would prefer.

use gobang::engine::{Engine, Limits};
use gobang::rules::{Board, Move, Pos, Rule};
use std::sync::atomic::AtomicBool;

fn search(rule: Rule, moves: &[&str]) -> (Option<String>, u32, Option<&'static str>) {
    let moves: Vec<Move> = moves
        .iter()
        .map(|m| Move::Place(m.parse::<Pos>().unwrap()))
        .collect();
    let board = Board::from_moves(rule, &moves).unwrap();
    let stop = AtomicBool::new(false);
    let result = Engine::new().search(&board, &Limits::depth(8), &stop, &mut |_| {});
    (
        result.best_move.map(Pos::to_notation),
        result.depth,
        result.book_opening,
    )
}

#[test]
fn black_plays_kagetsu_against_a_direct_second_move() {
    // Without the book a depth-8 search plays g10 here.
    let (best, depth, opening) = search(Rule::Renju, &["h8", "h9"]);
    assert_eq!(best.as_deref(), Some("i9"));
    assert_eq!(
        opening,
        Some("Kagetsu"),
        "the result names the book's opening"
    );
    assert!(
        depth <= 4,
        "a single root move gets a short search, not depth {depth}"
    );
}

#[test]
fn black_plays_hogetsu_against_an_indirect_second_move() {
    // Without the book a depth-8 search plays j8 here (Kosei).
    let (best, _, opening) = search(Rule::Renju, &["h8", "i9"]);
    assert_eq!(best.as_deref(), Some("g9"));
    assert_eq!(opening, Some("Hogetsu"));
    assert_eq!(
        search(Rule::Freestyle, &["h8", "g7"]).0.as_deref(),
        Some("i7")
    );
}

#[test]
fn searched_moves_name_no_book_opening() {
    let (best, _, opening) = search(Rule::Renju, &["h8", "h10"]);
    assert!(best.is_some());
    assert_eq!(opening, None);
}

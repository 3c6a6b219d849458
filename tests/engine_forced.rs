//! Engine forced-move logic through the public facade: own fives, blocks, Black's forbidden
//! blocks, open fours and open threes, and Black never choosing a forbidden point.

use gobang::engine::{Engine, Limits, Score};
use gobang::rules::{Board, Color, Pos, Rule};
use std::sync::atomic::AtomicBool;

fn p(text: &str) -> Pos {
    text.parse().unwrap()
}

fn board(rule: Rule, black: &[&str], white: &[&str], to_move: Color) -> Board {
    let mut stones: Vec<(Pos, Color)> = black.iter().map(|&s| (p(s), Color::Black)).collect();
    stones.extend(white.iter().map(|&s| (p(s), Color::White)));
    Board::from_stones(rule, &stones, to_move).unwrap()
}

fn search(board: &Board, depth: u32) -> (Option<Pos>, Score) {
    let stop = AtomicBool::new(false);
    let result = Engine::new().search(board, &Limits::depth(depth), &stop, &mut |_| {});
    (result.best_move, result.score)
}

#[test]
fn takes_its_own_five() {
    let b = board(
        Rule::Renju,
        &["h8", "i8", "j8", "k8"],
        &["g8", "a1", "a2", "n14"],
        Color::Black,
    );
    assert_eq!(search(&b, 4), (Some(p("l8")), Score::WinIn(1)));
}

#[test]
fn five_beats_blocking() {
    // Both have a four; the side to move wins rather than blocks.
    let b = board(
        Rule::Freestyle,
        &["h8", "i8", "j8", "k8", "a15"],
        &["c3", "c4", "c5", "c6", "g8"],
        Color::White,
    );
    let (best, score) = search(&b, 4);
    assert!(best == Some(p("c2")) || best == Some(p("c7")), "{best:?}");
    assert_eq!(score, Score::WinIn(1));
}

#[test]
fn blocks_the_opponents_four() {
    let b = board(
        Rule::Renju,
        &["h8", "i8", "j8", "k8"],
        &["g8", "b2", "n14"],
        Color::White,
    );
    assert_eq!(search(&b, 4).0, Some(p("l8")));
}

#[test]
fn black_cannot_block_on_a_forbidden_point() {
    // White's diagonal four i9-l12 (m13 taken) completes only on h8, a double three for Black.
    let b = board(
        Rule::Renju,
        &["f8", "g8", "h6", "h7", "m13"],
        &["i9", "j10", "k11", "l12", "a1"],
        Color::Black,
    );
    assert_eq!(b.forbidden_kind(p("h8")).map(|k| k.label()), Some("3x3"));
    let (best, score) = search(&b, 4);
    assert_eq!(score, Score::LossIn(1));
    assert_ne!(best, Some(p("h8")));
}

#[test]
fn an_open_four_is_lost() {
    let b = board(
        Rule::Freestyle,
        &["h8", "i8", "j8", "k8"],
        &["a1", "a2", "o15"],
        Color::White,
    );
    assert_eq!(search(&b, 4).1, Score::LossIn(1));
}

#[test]
fn an_open_three_is_answered() {
    let b = board(
        Rule::Renju,
        &["h8", "i8", "j8", "c13"],
        &["b2", "n14", "n2"],
        Color::White,
    );
    let (best, _) = search(&b, 4);
    assert!(
        [p("g8"), p("k8"), p("f8"), p("l8")].contains(&best.unwrap()),
        "{best:?}"
    );
}

#[test]
fn black_never_plays_a_forbidden_point() {
    // h8 is Black's only way to make threes, and it is a double three.
    let b = board(
        Rule::Renju,
        &["f8", "g8", "h6", "h7"],
        &["a1", "o1", "a15"],
        Color::Black,
    );
    assert!(b.is_forbidden(p("h8")));
    for depth in [1, 2, 4] {
        let (best, _) = search(&b, depth);
        assert_ne!(best, Some(p("h8")), "depth {depth}");
    }
}

#[test]
fn quick_renju_games_have_no_forbidden_black_moves() {
    let stop = AtomicBool::new(false);
    for opening in [["h8", "i9", "j8"], ["h8", "h9", "j10"], ["h8", "i7", "g9"]] {
        let mut b = Board::new(Rule::Renju);
        for m in opening {
            b.play(p(m)).unwrap();
        }
        let mut engine = Engine::new();
        for _ in 0..40 {
            let result = engine.search(&b, &Limits::depth(2), &stop, &mut |_| {});
            let Some(best) = result.best_move else { break };
            if b.side_to_move() == Color::Black {
                assert_eq!(b.forbidden_kind(best), None, "{b:?} {best}");
            }
            b.play(best).unwrap();
            if b.winning_line(best).is_some() {
                break;
            }
        }
    }
}

#[test]
fn a_lost_position_still_gets_a_move() {
    // Two separate White open threes and nothing for Black: no single defence holds.
    let b = board(
        Rule::Renju,
        &["a15", "o15", "o1", "a1"],
        &["h8", "i8", "j8", "c3", "c4", "c5"],
        Color::Black,
    );
    let (best, score) = search(&b, 4);
    assert!(best.is_some());
    assert!(matches!(score, Score::LossIn(_)), "{score}");
}

//! Opening knowledge the search cannot find in time: Black's third move when the game starts
//! from the empty board. Renju theory knows two openings as sure wins for Black, Kagetsu (花月,
//! direct: `h8 h9 i9`) and Hogetsu (浦月, indirect: `h8 i9 g9`); they are why tournament rules
//! make Black choose among the 26 openings and let White swap. When White's second stone touches
//! Black's first, Black plays the one of the two that White's stone allows.

use crate::rules::{Board, Color, Pos, SIZE};

/// A move from the book, with the name of the opening it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub pos: Pos,
    pub opening: &'static str,
}

/// Black's book move in a position of one Black and one White stone next to it (orthogonally:
/// Kagetsu; diagonally: Hogetsu), or `None` for any other position. Of the two mirror-image
/// points the one nearer the centre is taken (the first when both are as near).
pub fn black_third_move(board: &Board) -> Option<BookMove> {
    if board.stone_count() != 2 || board.side_to_move() != Color::Black {
        return None;
    }
    let black = Pos::all().find(|&p| board.stone(p) == Some(Color::Black))?;
    let white = Pos::all().find(|&p| board.stone(p) == Some(Color::White))?;
    if black.distance(white) != 1 {
        return None;
    }
    let (bx, by) = (i32::from(black.x()), i32::from(black.y()));
    let (dx, dy) = (i32::from(white.x()) - bx, i32::from(white.y()) - by);
    let (opening, offsets) = if dx == 0 || dy == 0 {
        // Kagetsu: beside White's stone, diagonally next to Black's.
        (
            "Kagetsu",
            [
                (dx + dy.abs(), dy + dx.abs()),
                (dx - dy.abs(), dy - dx.abs()),
            ],
        )
    } else {
        // Hogetsu: next to Black's stone on the other diagonal.
        ("Hogetsu", [(-dx, dy), (dx, -dy)])
    };
    let centre = i32::from(SIZE / 2);
    offsets
        .iter()
        .filter_map(|&(ox, oy)| {
            let (x, y) = (u8::try_from(bx + ox).ok()?, u8::try_from(by + oy).ok()?);
            Pos::new(x, y)
        })
        .filter(|&p| board.is_empty(p))
        .min_by_key(|&p| {
            let (x, y) = (i32::from(p.x()) - centre, i32::from(p.y()) - centre);
            x * x + y * y
        })
        .map(|pos| BookMove { pos, opening })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Rule};

    fn board(moves: &str) -> Board {
        let moves: Vec<Move> = moves
            .split_whitespace()
            .map(|m| Move::Place(Pos::from_notation(m).expect("test move")))
            .collect();
        Board::from_moves(Rule::Renju, &moves).expect("test position")
    }

    fn book(moves: &str) -> Option<String> {
        black_third_move(&board(moves)).map(|m| m.pos.to_notation())
    }

    fn opening(moves: &str) -> Option<&'static str> {
        black_third_move(&board(moves)).map(|m| m.opening)
    }

    #[test]
    fn a_direct_second_move_gets_kagetsu() {
        assert_eq!(book("h8 h9").as_deref(), Some("i9"));
        assert_eq!(book("h8 g8").as_deref(), Some("g7"));
        assert_eq!(book("h8 h7").as_deref(), Some("i7"));
        assert_eq!(book("h8 i8").as_deref(), Some("i7"));
        assert_eq!(opening("h8 i8"), Some("Kagetsu"));
    }

    #[test]
    fn an_indirect_second_move_gets_hogetsu() {
        assert_eq!(book("h8 i9").as_deref(), Some("g9"));
        assert_eq!(book("h8 g7").as_deref(), Some("i7"));
        assert_eq!(book("h8 g9").as_deref(), Some("i9"));
        assert_eq!(opening("h8 g9"), Some("Hogetsu"));
    }

    #[test]
    fn near_the_edge_the_point_on_the_board_is_taken() {
        assert_eq!(book("a1 a2").as_deref(), Some("b2"));
        assert_eq!(book("a1 b2"), None);
        assert_eq!(book("o8 n9").as_deref(), Some("n7"));
    }

    #[test]
    fn other_positions_have_no_book_move() {
        assert_eq!(book(""), None);
        assert_eq!(book("h8"), None);
        assert_eq!(book("h8 h10"), None);
        assert_eq!(book("h8 i9 g9"), None);
        assert_eq!(book("h8 i9 g9 f10"), None);
    }
}

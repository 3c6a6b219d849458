//! Opening knowledge the search cannot find in time, for games started from the empty board:
//! White's second move and Black's third. Renju theory knows two openings as sure wins for Black,
//! Kagetsu (花月, direct: `h8 h9 i9`) and Hogetsu (浦月, indirect: `h8 i9 g9`); they are why
//! tournament rules make Black choose among the 26 openings and let White swap. When White's
//! second stone touches Black's first, Black plays the one of the two that White's stone allows.
//! White's second stone goes straight beside Black's first (a direct opening): the point the
//! search chose too, after seconds of a 15-second move (session 64); theory has no better
//! answer, Black wins either way (a diagonal second stone lost every game to both test engines
//! in session 28).

use crate::rules::{Board, Color, Pos, SIZE};

/// A move from the book, with the name of the opening it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub pos: Pos,
    pub opening: &'static str,
}

/// The book move for the side to move, if the position is in the book.
pub fn book_move(board: &Board) -> Option<BookMove> {
    white_second_move(board).or_else(|| black_third_move(board))
}

/// White's book move when the board holds one Black stone: the point orthogonally next to it
/// that is nearest the centre (below it first when several are as near), or `None` for any
/// other position.
pub fn white_second_move(board: &Board) -> Option<BookMove> {
    if board.stone_count() != 1 || board.side_to_move() != Color::White {
        return None;
    }
    let black = Pos::all().find(|&p| board.stone(p) == Some(Color::Black))?;
    nearest_centre(black, &[(0, 1), (-1, 0), (1, 0), (0, -1)], board).map(|pos| BookMove {
        pos,
        opening: "direct opening",
    })
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
    nearest_centre(black, &offsets, board).map(|pos| BookMove { pos, opening })
}

/// Of the empty on-board points at `offsets` from `from`, the one nearest the centre (the first
/// of equals).
fn nearest_centre(from: Pos, offsets: &[(i32, i32)], board: &Board) -> Option<Pos> {
    let (fx, fy) = (i32::from(from.x()), i32::from(from.y()));
    let centre = i32::from(SIZE / 2);
    offsets
        .iter()
        .filter_map(|&(ox, oy)| {
            let (x, y) = (u8::try_from(fx + ox).ok()?, u8::try_from(fy + oy).ok()?);
            Pos::new(x, y)
        })
        .filter(|&p| board.is_empty(p))
        .min_by_key(|&p| {
            let (x, y) = (i32::from(p.x()) - centre, i32::from(p.y()) - centre);
            x * x + y * y
        })
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

    fn white_book(moves: &str) -> Option<String> {
        white_second_move(&board(moves)).map(|m| m.pos.to_notation())
    }

    #[test]
    fn white_answers_a_first_stone_straight_beside_it_towards_the_centre() {
        assert_eq!(white_book("h8").as_deref(), Some("h7"));
        assert_eq!(white_book("a1").as_deref(), Some("b1"));
        assert_eq!(white_book("o15").as_deref(), Some("o14"));
        assert_eq!(white_book("h3").as_deref(), Some("h4"));
        assert_eq!(white_book("c8").as_deref(), Some("d8"));
        let second = white_second_move(&board("h8")).expect("book move");
        assert_eq!(second.opening, "direct opening");
    }

    #[test]
    fn the_book_gives_each_side_its_own_move() {
        let move_of = |moves: &str| book_move(&board(moves)).map(|m| m.pos.to_notation());
        assert_eq!(move_of("h8").as_deref(), Some("h7"));
        assert_eq!(move_of("h8 h7").as_deref(), Some("i7"));
        assert_eq!(move_of(""), None);
        assert_eq!(move_of("h8 h7 i7"), None);
        assert_eq!(white_book(""), None);
        assert_eq!(white_book("h8 h7"), None);
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

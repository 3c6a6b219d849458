//! The RIF renju judge: which points Black may not play.
//!
//! Five first: a Black move that makes exactly five wins whatever else it makes. Otherwise an
//! overline, two or more fours (also two fours on one line, such as `X.X?X.X`), or two or more
//! *real* threes are forbidden. A three is real only if some point that turns it into a straight
//! four (exactly five at both ends) is itself not forbidden once the three is on the board: that
//! check is the same judge, recursively, to any depth. Per the RIF definition of a three ("to which
//! you, without at the same time a five in a row is made, can add one more stone to attain a
//! straight four"), a straight-four point that would also make a five does not count either; the
//! Piskvork/Gomocup judge and Rapfi read it the same way.
//!
//! Layer 3 marks the suspects (overline, two fours or two open threes, without a five); only those
//! get the exact check, which places stones temporarily and restores the board.

use super::board::Board;
use super::line::LineShape;
use super::pos::{Color, Pos, Rule, DIRECTIONS};
use super::shape::Shape;
use std::fmt;

/// Why a Black move is forbidden in renju.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForbiddenKind {
    DoubleThree,
    DoubleFour,
    Overline,
}

impl ForbiddenKind {
    /// Short label as players write it: `3x3`, `4x4`, `overline`.
    pub fn label(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "3x3",
            ForbiddenKind::DoubleFour => "4x4",
            ForbiddenKind::Overline => "overline",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "double three",
            ForbiddenKind::DoubleFour => "double four",
            ForbiddenKind::Overline => "overline",
        }
    }
}

impl fmt::Display for ForbiddenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

impl Board {
    /// Whether a Black stone on `p` would be forbidden, and why. `None` for legal points, for
    /// occupied or off-board points, and under rules other than renju. Only suspects (see
    /// [`Board::is_renju_suspect`]) cost more than a lookup: they are judged on a scratch copy.
    pub fn forbidden_kind(&self, p: Pos) -> Option<ForbiddenKind> {
        if !self.needs_judging(p) {
            return None;
        }
        self.clone().judge_suspect(p)
    }

    /// Whether a Black stone on `p` would be forbidden, judged on this board itself: the stones
    /// placed while judging are taken back, so the board ends as it was, without the copy that
    /// [`Board::forbidden_kind`] makes (the engine's move generation asks this of every
    /// candidate point of Black's that is a suspect).
    pub fn is_forbidden_in_place(&mut self, p: Pos) -> bool {
        self.needs_judging(p) && self.judge_suspect(p).is_some()
    }

    /// Whether `p` needs the exact judge: a renju suspect on an empty point under renju.
    fn needs_judging(&self, p: Pos) -> bool {
        self.rule() == Rule::Renju
            && p.is_on_board()
            && self.is_empty(p)
            && self.is_renju_suspect(p)
    }

    /// The exact judgement of suspect `p`; stones placed while judging are removed again.
    fn judge_suspect(&mut self, p: Pos) -> Option<ForbiddenKind> {
        if !self.is_renju_suspect(p) {
            return None;
        }
        let lines: [LineShape; 4] =
            std::array::from_fn(|dir| self.line_shape(p, Color::Black, dir));
        if lines.contains(&LineShape::Overline) {
            return Some(ForbiddenKind::Overline);
        }
        if lines.iter().map(|s| s.fours()).sum::<u8>() >= 2 {
            return Some(ForbiddenKind::DoubleFour);
        }
        self.put_stone(p, Color::Black);
        let mut real_threes = 0;
        for dir in (0..4).filter(|&dir| lines[dir] == LineShape::OpenThree) {
            if self.is_real_three(p, dir) {
                real_threes += 1;
                if real_threes >= 2 {
                    break;
                }
            }
        }
        self.remove_stone(p, Color::Black);
        (real_threes >= 2).then_some(ForbiddenKind::DoubleThree)
    }

    /// Whether a Black stone on `p` would be forbidden.
    pub fn is_forbidden(&self, p: Pos) -> bool {
        self.forbidden_kind(p).is_some()
    }

    /// Every point Black may not play, with the reason, in board order (top row first).
    pub fn forbidden_points(&self) -> Vec<(Pos, ForbiddenKind)> {
        let suspects: Vec<Pos> = Pos::all()
            .filter(|&p| self.is_empty(p) && self.is_renju_suspect(p))
            .collect();
        if suspects.is_empty() {
            return Vec::new();
        }
        let mut scratch = self.clone();
        suspects
            .into_iter()
            .filter_map(|p| scratch.judge_suspect(p).map(|kind| (p, kind)))
            .collect()
    }

    /// With a Black stone on `p`: does the line through `p` along `dir` hold a real three, that is,
    /// an empty point that makes a straight four with `p`, makes no five, and is not forbidden?
    fn is_real_three(&mut self, p: Pos, dir: usize) -> bool {
        let step = DIRECTIONS[dir];
        for sign in [-1, 1] {
            for distance in 1..=4 {
                let q = p.step(step, sign * distance);
                if !q.is_on_board() {
                    break;
                }
                if !self.is_empty(q) {
                    continue;
                }
                if self.makes_straight_four(p, q, dir)
                    && self.shape(q, Color::Black) != Shape::Five
                    && self.judge_suspect(q).is_none()
                {
                    return true;
                }
            }
        }
        false
    }

    /// With a Black stone on `p`: would a Black stone on empty `q` make a straight four through
    /// both along `dir`, with both completions exactly five?
    fn makes_straight_four(&mut self, p: Pos, q: Pos, dir: usize) -> bool {
        let step = DIRECTIONS[dir];
        self.put_stone(q, Color::Black);
        let (first, length) = self.run_through(p, Color::Black, dir);
        let contains_q = (0..length as i32).any(|i| first.step(step, i) == q);
        let straight = length == 4
            && contains_q
            && [
                (first.step(step, -1), first.step(step, -2)),
                (first.step(step, 4), first.step(step, 5)),
            ]
            .iter()
            .all(|&(end, beyond)| {
                end.is_on_board() && self.is_empty(end) && self.stone(beyond) != Some(Color::Black)
            });
        self.remove_stone(q, Color::Black);
        straight
    }
}

//! Static evaluation: a weighted sum of the layer 3 shape counts of both sides.
//!
//! The board keeps, per side, how many empty points would make each combined [`Shape`]
//! (five, open four, four-three, open three, ...) and updates those counts on every move and undo.
//! A weighted sum over them is therefore incremental for free: evaluating costs 28 multiplications
//! whatever the position. Weights differ for the side to move (its threats are tempo) and for the
//! opponent (its threats must be answered). Under renju, Black's double-three, double-four and
//! overline points are forbidden, so they carry no weight for Black.
//!
//! [`Weights`] can be read from and written to a small text file (`own.OpenThree 40` lines), so
//! that tuning tools can measure weights rather than guess them.

use crate::rules::{Board, Color, Rule, Shape};
use std::fmt::Write as _;
use std::path::Path;

/// Evaluation weights, per combined shape, for the side to move and for its opponent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Value of one empty point where the side to move would make the shape.
    pub own: [i32; Shape::ALL.len()],
    /// Value (subtracted) of one empty point where the opponent would make the shape.
    pub opp: [i32; Shape::ALL.len()],
}

impl Default for Weights {
    /// Hand-tuned starting values.
    fn default() -> Weights {
        Weights {
            //   None Two OTwo DTwo Three T2 OThree DThree Four 43 OFour DFour Over Five
            own: [0, 2, 7, 16, 7, 20, 40, 80, 22, 300, 600, 600, 0, 3000],
            opp: [0, 2, 6, 13, 6, 16, 28, 55, 16, 110, 160, 160, 0, 1200],
        }
    }
}

/// A weights file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("line {line}: {reason}")]
    Syntax { line: usize, reason: String },
    #[error("cannot read weights file: {0}")]
    Io(#[from] std::io::Error),
}

fn shape_name(shape: Shape) -> String {
    format!("{shape:?}")
}

impl Weights {
    /// The text form: one `own.<Shape> <value>` or `opp.<Shape> <value>` line per weight.
    /// `#` starts a comment.
    pub fn to_text(&self) -> String {
        let mut text = String::from("# gobang evaluation weights: <side>.<shape> <value>\n");
        for (side, values) in [("own", &self.own), ("opp", &self.opp)] {
            for shape in Shape::ALL {
                let _ = writeln!(
                    text,
                    "{side}.{} {}",
                    shape_name(shape),
                    values[shape as usize]
                );
            }
        }
        text
    }

    /// Reads the text form. Weights not mentioned keep their default values.
    pub fn from_text(text: &str) -> Result<Weights, WeightsError> {
        let mut weights = Weights::default();
        for (number, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let syntax = |reason: String| WeightsError::Syntax {
                line: number + 1,
                reason,
            };
            let mut words = line.split_whitespace();
            let name = words.next().unwrap_or("");
            let value: i32 = words
                .next()
                .ok_or_else(|| syntax(format!("'{name}' has no value")))?
                .parse()
                .map_err(|_| syntax(format!("'{name}' needs an integer value")))?;
            if words.next().is_some() {
                return Err(syntax("expected '<side>.<shape> <value>'".to_string()));
            }
            let (side, shape) = name
                .split_once('.')
                .ok_or_else(|| syntax(format!("'{name}' is not '<side>.<shape>'")))?;
            let index = Shape::ALL
                .iter()
                .position(|&s| shape_name(s) == shape)
                .ok_or_else(|| syntax(format!("unknown shape '{shape}'")))?;
            match side {
                "own" => weights.own[index] = value,
                "opp" => weights.opp[index] = value,
                other => return Err(syntax(format!("unknown side '{other}' (own or opp)"))),
            }
        }
        Ok(weights)
    }

    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        Weights::from_text(&std::fs::read_to_string(path)?)
    }

    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        std::fs::write(path, self.to_text())?;
        Ok(())
    }
}

/// The shapes that are forbidden for Black under renju (and so worth nothing to Black).
fn forbidden_shape(shape: Shape) -> bool {
    matches!(
        shape,
        Shape::DoubleThree | Shape::DoubleFour | Shape::Overline
    )
}

/// Per-colour weight tables with the renju adjustments applied, ready for the hot path.
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// `[side to move][colour whose counts are weighted][shape]`, signed from the side to move's
    /// point of view.
    table: [[[i32; Shape::ALL.len()]; 2]; 2],
}

impl Evaluator {
    pub fn new(weights: &Weights, rule: Rule) -> Evaluator {
        let mut table = [[[0; Shape::ALL.len()]; 2]; 2];
        for me in [Color::Black, Color::White] {
            for color in [Color::Black, Color::White] {
                for shape in Shape::ALL {
                    let value = if color == me {
                        weights.own[shape as usize]
                    } else {
                        -weights.opp[shape as usize]
                    };
                    let dead = rule.has_forbidden(color) && forbidden_shape(shape);
                    table[me.index()][color.index()][shape as usize] = if dead { 0 } else { value };
                }
            }
        }
        Evaluator { table }
    }

    /// The evaluation of `board` for the side to move (positive is good for it).
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        let me = board.side_to_move();
        let mut total = 0;
        for color in [Color::Black, Color::White] {
            let weights = &self.table[me.index()][color.index()];
            for shape in &Shape::ALL[1..] {
                total += weights[*shape as usize] * board.shape_count(color, *shape) as i32;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let mut weights = Weights::default();
        weights.own[Shape::OpenThree as usize] = 123;
        weights.opp[Shape::Four as usize] = -7;
        assert_eq!(Weights::from_text(&weights.to_text()).unwrap(), weights);
    }

    #[test]
    fn bad_text_is_reported_with_its_line() {
        let error = Weights::from_text("own.Five 3\nown.Six 4\n").unwrap_err();
        assert!(error.to_string().starts_with("line 2"), "{error}");
        assert!(Weights::from_text("own.Five x").is_err());
        assert!(Weights::from_text("both.Five 1").is_err());
        assert!(Weights::from_text("own.Five 1 2").is_err());
    }

    #[test]
    fn symmetric_position_favours_the_side_to_move() {
        let board = Board::from_moves(
            Rule::Freestyle,
            &[
                crate::rules::Move::Place("h8".parse().unwrap()),
                crate::rules::Move::Place("a1".parse().unwrap()),
            ],
        )
        .unwrap();
        let evaluator = Evaluator::new(&Weights::default(), Rule::Freestyle);
        // Black to move with a centre stone against a corner stone.
        assert!(evaluator.evaluate(&board) > 0);
    }
}

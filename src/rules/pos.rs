//! Board coordinates, colours and rule sets, and every conversion between the notations players
//! and programs use (human `h8`, Gomocup `x,y`, SGF letters). All coordinate conversions live here.
//!
//! A [`Pos`] is one byte on a 16-wide padded grid: `x | y << 4`, with `x` the column (0 = `a`, left)
//! and `y` the row counted from the **top** (0 = row 15). Column 15 and row 15 are never on the
//! board, so stepping off any edge with wrapping `u8` arithmetic lands on a padding cell.

use std::fmt;
use std::str::FromStr;

/// Side length of the board.
pub const SIZE: u8 = 15;
/// Number of cells on the padded grid.
pub const GRID: usize = 256;

/// A point on the padded grid. Only [`Pos::is_on_board`] points are playable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos(pub u8);

/// The four line directions as grid steps: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [u8; 4] = [1, 16, 17, 15];

impl Pos {
    /// The centre point, `h8`.
    pub const CENTER: Pos = Pos(7 | (7 << 4));

    /// The point at column `x` and row `y` counted from the top, both 0-based.
    pub fn new(x: u8, y: u8) -> Option<Pos> {
        (x < SIZE && y < SIZE).then_some(Pos(x | (y << 4)))
    }

    /// Column, 0 = `a` (left).
    pub fn x(self) -> u8 {
        self.0 & 15
    }

    /// Row counted from the top, 0 = row 15.
    pub fn y(self) -> u8 {
        self.0 >> 4
    }

    /// Index into a [`GRID`]-sized array.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub fn is_on_board(self) -> bool {
        self.x() < SIZE && self.y() < SIZE
    }

    /// The neighbour `steps` cells away along direction `dir` (negative steps go backwards).
    /// The result may be off the board; check [`Pos::is_on_board`].
    pub fn step(self, dir: u8, steps: i32) -> Pos {
        Pos(self.0.wrapping_add((dir as i32 * steps) as u8))
    }

    /// Every point on the board, row by row from the top.
    pub fn all() -> impl Iterator<Item = Pos> {
        (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| Pos(x | (y << 4))))
    }

    /// Chebyshev distance between two on-board points.
    pub fn distance(self, other: Pos) -> u8 {
        self.x()
            .abs_diff(other.x())
            .max(self.y().abs_diff(other.y()))
    }

    /// Human notation: column letter `a`-`o`, row number 1-15 from the bottom (`h8` is the centre).
    pub fn to_notation(self) -> String {
        format!("{}{}", (b'a' + self.x()) as char, SIZE - self.y())
    }

    /// Parses human notation such as `h8`, `H8` or `o15`.
    pub fn from_notation(text: &str) -> Result<Pos, CoordError> {
        let text = text.trim();
        let bad = || CoordError::Notation(text.to_string());
        let mut chars = text.chars();
        let column = chars.next().ok_or_else(bad)?.to_ascii_lowercase();
        if !column.is_ascii_lowercase() {
            return Err(bad());
        }
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let row: u8 = digits.parse().map_err(|_| bad())?;
        let x = column as u8 - b'a';
        if !(1..=SIZE).contains(&row) {
            return Err(bad());
        }
        Pos::new(x, SIZE - row).ok_or_else(bad)
    }

    /// Gomocup protocol coordinates: 0-based `x` (column) and `y` (row from the top).
    pub fn to_gomocup(self) -> (u8, u8) {
        (self.x(), self.y())
    }

    pub fn from_gomocup(x: i64, y: i64) -> Result<Pos, CoordError> {
        let off = || CoordError::OffBoard(x, y);
        let x = u8::try_from(x).map_err(|_| off())?;
        let y = u8::try_from(y).map_err(|_| off())?;
        Pos::new(x, y).ok_or_else(off)
    }

    /// SGF point: two letters, column then row from the top (`hh` is the centre).
    pub fn to_sgf(self) -> String {
        format!("{}{}", (b'a' + self.x()) as char, (b'a' + self.y()) as char)
    }

    pub fn from_sgf(text: &str) -> Result<Pos, CoordError> {
        let bad = || CoordError::Sgf(text.to_string());
        let bytes = text.as_bytes();
        if bytes.len() != 2 || !bytes.iter().all(u8::is_ascii_lowercase) {
            return Err(bad());
        }
        Pos::new(bytes[0] - b'a', bytes[1] - b'a').ok_or_else(bad)
    }
}

impl fmt::Debug for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_on_board() {
            write!(f, "{}", self.to_notation())
        } else {
            write!(f, "Pos({:#04x})", self.0)
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_notation())
    }
}

impl FromStr for Pos {
    type Err = CoordError;
    fn from_str(text: &str) -> Result<Pos, CoordError> {
        Pos::from_notation(text)
    }
}

/// Why a coordinate could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoordError {
    #[error("'{0}' is not a board point (expected a letter a-o and a row 1-15, like h8)")]
    Notation(String),
    #[error("({0}, {1}) is off the 15x15 board")]
    OffBoard(i64, i64),
    #[error("'{0}' is not an SGF point on a 15x15 board (expected two letters a-o)")]
    Sgf(String),
}

/// A player's colour. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "Black",
            Color::White => "White",
        }
    }
}

/// The rule set a game is played under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rule {
    /// Five or more in a row wins, for both sides.
    Freestyle,
    /// Exactly five wins, for both sides; an overline wins nothing but is allowed.
    Standard,
    /// RIF renju: Black must make exactly five and may not play double-three, double-four or
    /// overline; White wins with five or more.
    #[default]
    Renju,
}

impl Rule {
    /// Whether `color` needs exactly five (an overline does not win).
    pub fn exact_five(self, color: Color) -> bool {
        match self {
            Rule::Freestyle => false,
            Rule::Standard => true,
            Rule::Renju => color == Color::Black,
        }
    }

    /// Whether `color` has forbidden moves under this rule.
    pub fn has_forbidden(self, color: Color) -> bool {
        self == Rule::Renju && color == Color::Black
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "Freestyle",
            Rule::Standard => "Standard",
            Rule::Renju => "Renju",
        }
    }

    /// Gomocup `INFO rule` value: 0 freestyle, 1 exact five, 4 renju.
    pub fn to_gomocup(self) -> u32 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
        }
    }

    /// Reads a Gomocup `INFO rule` bitmask; bit 4 (renju) wins over bit 1 (exact five). The
    /// continuous-game and caro bits are not supported.
    pub fn from_gomocup(bits: u32) -> Option<Rule> {
        if bits & !0b101 != 0 {
            return None;
        }
        Some(if bits & 4 != 0 {
            Rule::Renju
        } else if bits & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        })
    }
}

impl FromStr for Rule {
    type Err = String;
    fn from_str(text: &str) -> Result<Rule, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "renju" => Ok(Rule::Renju),
            "standard" | "gomoku" => Ok(Rule::Standard),
            "freestyle" => Ok(Rule::Freestyle),
            other => Err(format!(
                "unknown rule '{other}' (expected renju, standard or freestyle)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_for_every_point() {
        for p in Pos::all() {
            assert_eq!(Pos::from_notation(&p.to_notation()), Ok(p));
            assert_eq!(Pos::from_sgf(&p.to_sgf()), Ok(p));
            let (x, y) = p.to_gomocup();
            assert_eq!(Pos::from_gomocup(x.into(), y.into()), Ok(p));
        }
        assert_eq!(Pos::all().count(), 225);
    }

    #[test]
    fn known_points_in_every_notation() {
        assert_eq!(Pos::CENTER.to_notation(), "h8");
        assert_eq!(Pos::CENTER.to_sgf(), "hh");
        assert_eq!(Pos::CENTER.to_gomocup(), (7, 7));
        let a1 = Pos::from_notation("A1").unwrap();
        assert_eq!((a1.x(), a1.y()), (0, 14));
        assert_eq!(a1.to_sgf(), "ao");
        let o15: Pos = "o15".parse().unwrap();
        assert_eq!(o15.to_gomocup(), (14, 0));
        assert_eq!(o15.to_sgf(), "oa");
        assert_eq!(Pos::from_sgf("hg").unwrap().to_notation(), "h9");
    }

    #[test]
    fn bad_coordinates_are_rejected() {
        for bad in ["", "h", "h0", "h16", "p8", "88", "h8x", "h-1", "ü8", "h 8"] {
            assert!(Pos::from_notation(bad).is_err(), "{bad}");
        }
        for bad in ["", "h", "hp", "HH", "hhh", "p1"] {
            assert!(Pos::from_sgf(bad).is_err(), "{bad}");
        }
        assert!(Pos::from_gomocup(15, 0).is_err());
        assert!(Pos::from_gomocup(-1, 3).is_err());
        assert!(Pos::from_gomocup(i64::MAX, 3).is_err());
    }

    #[test]
    fn steps_off_any_edge_land_on_padding() {
        for p in Pos::all() {
            for dir in DIRECTIONS {
                for steps in [-1, 1] {
                    let q = p.step(dir, steps);
                    if q.is_on_board() {
                        assert!(p.distance(q) == 1, "{p:?} {dir} {steps}");
                    }
                }
            }
        }
        let right_edge = Pos::new(14, 3).unwrap();
        assert!(!right_edge.step(1, 1).is_on_board());
        assert!(!right_edge.step(17, 1).is_on_board());
        let left_edge = Pos::new(0, 3).unwrap();
        assert!(!left_edge.step(1, -1).is_on_board());
        assert!(!left_edge.step(15, 1).is_on_board());
        assert!(!Pos::new(4, 0).unwrap().step(16, -1).is_on_board());
        assert!(!Pos::new(4, 14).unwrap().step(16, 1).is_on_board());
    }

    #[test]
    fn gomocup_rule_bits() {
        assert_eq!(Rule::from_gomocup(0), Some(Rule::Freestyle));
        assert_eq!(Rule::from_gomocup(1), Some(Rule::Standard));
        assert_eq!(Rule::from_gomocup(4), Some(Rule::Renju));
        assert_eq!(Rule::from_gomocup(5), Some(Rule::Renju));
        assert_eq!(Rule::from_gomocup(2), None);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            assert_eq!(Rule::from_gomocup(rule.to_gomocup()), Some(rule));
        }
    }
}

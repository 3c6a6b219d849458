//! Layer 2: the shape a stone would make on one line.
//!
//! For an empty point, a side and a direction, the [`LineShape`] is what a stone of that side placed
//! there would make on that line: five, overline, (open) four, (open) three, (open) two. It depends
//! only on the ten cells within distance five along the line, so it is read from a precomputed
//! table indexed by those cells ([`LineKey`]: two bits per cell).
//!
//! The table is built once by a memoised recursion over the 3^10 own/empty/blocked windows:
//! a point is a *four* if exactly one empty point completes a five through it (an *open four* if
//! two completions bracket the same four stones, a line *double four* if they belong to two fours),
//! a *three* if some empty point makes it a four (*open three* if some point makes an open four),
//! and a *two* likewise from threes. With exact-five semantics a six or longer is never a five, so
//! `X.XXXX.` is not an open four and a Black overline is [`LineShape::Overline`].

use super::pos::{Color, Rule};
use std::sync::OnceLock;

/// What a stone placed at a point would make along one line, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum LineShape {
    None = 0,
    Two = 1,
    OpenTwo = 2,
    Three = 3,
    OpenThree = 4,
    Four = 5,
    OpenFour = 6,
    /// Two separate fours on the same line, e.g. `X.X?X.X`.
    DoubleFour = 7,
    /// Six or more in a row where exactly five is needed.
    Overline = 8,
    Five = 9,
}

impl LineShape {
    const ALL: [LineShape; 10] = [
        LineShape::None,
        LineShape::Two,
        LineShape::OpenTwo,
        LineShape::Three,
        LineShape::OpenThree,
        LineShape::Four,
        LineShape::OpenFour,
        LineShape::DoubleFour,
        LineShape::Overline,
        LineShape::Five,
    ];

    pub const fn from_u8(value: u8) -> LineShape {
        LineShape::ALL[value as usize]
    }

    /// How many distinct fours this line shape holds (an open four is one four).
    pub fn fours(self) -> u8 {
        match self {
            LineShape::Four | LineShape::OpenFour => 1,
            LineShape::DoubleFour => 2,
            _ => 0,
        }
    }
}

/// One side's view of the ten cells around a point along a line, as a base-3 number: each cell is
/// 0 empty, 1 own stone, 2 blocked (opponent stone or off the board). The cell `offset` steps away
/// has weight [`cell_weight`]`(offset)`. Fits in 16 bits (3^10 = 59049 keys).
pub type LineKey = u16;

/// Number of cells on each side of a point that a line shape depends on.
pub const REACH: i32 = 5;

/// Number of distinct [`LineKey`]s.
pub const KEY_COUNT: usize = 59049;

/// Weights of the cells at offsets -5..=5 (index `offset + 5`; the centre has none).
const WEIGHTS: [u16; 11] = [19683, 6561, 2187, 729, 243, 0, 81, 27, 9, 3, 1];

/// The weight in a [`LineKey`] of the cell `offset` steps away (offset in -5..=5, not 0).
#[inline]
pub fn cell_weight(offset: i32) -> u16 {
    WEIGHTS[(offset + REACH) as usize]
}

/// Cell values in a [`LineKey`].
pub const EMPTY: u16 = 0;
pub const OWN: u16 = 1;
pub const BLOCKED: u16 = 2;

/// Line shapes for every key, indexed by `exact as usize` then the key.
fn tables() -> &'static [Box<ShapeTable>; 2] {
    static TABLES: OnceLock<[Box<ShapeTable>; 2]> = OnceLock::new();
    TABLES.get_or_init(|| [build_memo(false), build_memo(true)])
}

/// The line-shape table for `color` under `rule` (exact-five semantics where the rule needs it):
/// index it with a [`LineKey`], the entry is a [`LineShape`] as `u8`.
pub fn shape_table(rule: Rule, color: Color) -> &'static ShapeTable {
    &tables()[rule.exact_five(color) as usize]
}

/// The shape a `color` stone makes at the centre of `key` under `rule`.
pub fn line_shape(key: LineKey, color: Color, rule: Rule) -> LineShape {
    LineShape::from_u8(shape_table(rule, color)[key as usize])
}

const WINDOW: usize = 11;
const CENTER: usize = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Own,
    Blocked,
}

/// A line-shape table: one entry per [`LineKey`] value, so that indexing it needs no bounds
/// check (the keys past [`KEY_COUNT`] never occur and hold [`LineShape::None`]).
pub type ShapeTable = [u8; 1 << 16];

/// Shapes of every own/empty/blocked window, by [`LineKey`] (which is [`memo_index`]).
fn build_memo(exact: bool) -> Box<ShapeTable> {
    // u8::MAX marks the keys not classified yet.
    let mut table = Box::new([u8::MAX; 1 << 16]);
    for index in 0..KEY_COUNT {
        let mut window = [Cell::Own; WINDOW];
        let mut rest = index;
        for i in (0..WINDOW).rev().filter(|&i| i != CENTER) {
            window[i] = [Cell::Empty, Cell::Own, Cell::Blocked][rest % 3];
            rest /= 3;
        }
        classify(&mut window, exact, &mut table[..]);
    }
    table[KEY_COUNT..].fill(LineShape::None as u8);
    table
}

fn memo_index(window: &[Cell; WINDOW]) -> usize {
    window
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != CENTER)
        .fold(0, |acc, (_, cell)| acc * 3 + *cell as usize)
}

/// Length of the unbroken run of own stones through the centre, and whether it contains `cell`.
fn run_through_center(window: &[Cell; WINDOW], cell: usize) -> (usize, bool) {
    let mut left = CENTER;
    while left > 0 && window[left - 1] == Cell::Own {
        left -= 1;
    }
    let mut right = CENTER;
    while right + 1 < WINDOW && window[right + 1] == Cell::Own {
        right += 1;
    }
    (right - left + 1, (left..=right).contains(&cell))
}

fn is_five(length: usize, exact: bool) -> bool {
    if exact {
        length == 5
    } else {
        length >= 5
    }
}

/// The shape at the centre of `window` (whose centre is treated as an own stone).
fn classify(window: &mut [Cell; WINDOW], exact: bool, memo: &mut [u8]) -> LineShape {
    window[CENTER] = Cell::Own;
    let index = memo_index(window);
    if memo[index] != u8::MAX {
        return LineShape::from_u8(memo[index]);
    }
    let shape = classify_uncached(window, exact, memo);
    memo[index] = shape as u8;
    shape
}

fn classify_uncached(window: &mut [Cell; WINDOW], exact: bool, memo: &mut [u8]) -> LineShape {
    let (length, _) = run_through_center(window, CENTER);
    if is_five(length, exact) {
        return LineShape::Five;
    }
    if length >= 6 {
        return LineShape::Overline;
    }
    let candidates: Vec<usize> = (CENTER - 4..=CENTER + 4)
        .filter(|&i| window[i] == Cell::Empty)
        .collect();
    let mut five_points = Vec::new();
    for &i in &candidates {
        window[i] = Cell::Own;
        let (length, contains) = run_through_center(window, i);
        window[i] = Cell::Empty;
        if contains && is_five(length, exact) {
            five_points.push(i);
        }
    }
    match five_points.as_slice() {
        [] => {}
        [_] => return LineShape::Four,
        [a, b] if b - a == 5 => return LineShape::OpenFour,
        _ => return LineShape::DoubleFour,
    }
    let mut best = LineShape::None;
    for &i in &candidates {
        window[i] = Cell::Own;
        let next = classify(window, exact, memo);
        window[i] = Cell::Empty;
        let derived = match next {
            LineShape::OpenFour => LineShape::OpenThree,
            LineShape::Four | LineShape::DoubleFour => LineShape::Three,
            LineShape::OpenThree => LineShape::OpenTwo,
            LineShape::Three => LineShape::Two,
            _ => LineShape::None,
        };
        best = best.max(derived);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds Black's key from a picture such as `"..XX?X..."` with `?` the point, `X` black, `O`
    /// white, `|` the board edge (everything beyond it is off the board).
    fn key_of(picture: &str) -> LineKey {
        let cells: Vec<char> = picture.chars().collect();
        let center = cells
            .iter()
            .position(|&c| c == '?')
            .expect("picture needs a ?") as i32;
        let mut key = 0;
        for offset in [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5] {
            let index = center + offset;
            let between = if offset < 0 {
                index..center
            } else {
                center + 1..index + 1
            };
            let off_board = between
                .clone()
                .any(|i| i < 0 || i as usize >= cells.len() || cells[i as usize] == '|');
            let value = if off_board {
                BLOCKED
            } else {
                match cells[index as usize] {
                    'X' => OWN,
                    'O' => BLOCKED,
                    _ => EMPTY,
                }
            };
            key += value * cell_weight(offset);
        }
        key
    }

    fn black(picture: &str, exact: bool) -> LineShape {
        let rule = if exact {
            Rule::Standard
        } else {
            Rule::Freestyle
        };
        line_shape(key_of(picture), Color::Black, rule)
    }

    #[test]
    fn weights_are_powers_of_three_in_cell_order() {
        let offsets = [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5];
        for (slot, offset) in offsets.into_iter().enumerate() {
            assert_eq!(cell_weight(offset), 3u16.pow(9 - slot as u32));
        }
    }

    #[test]
    fn fives_and_overlines() {
        assert_eq!(black("....XX?XX....", true), LineShape::Five);
        assert_eq!(black("...XXX?XX....", true), LineShape::Overline);
        assert_eq!(black("...XXX?XX....", false), LineShape::Five);
        assert_eq!(black("|?XXXX.....", true), LineShape::Five);
    }

    #[test]
    fn fours() {
        assert_eq!(black(".....?XXX.....", true), LineShape::OpenFour);
        assert_eq!(black("....O?XXX.....", true), LineShape::Four);
        assert_eq!(black("|?XXX.....", true), LineShape::Four);
        assert_eq!(black("....X.?XXX.....", true), LineShape::Four);
        assert_eq!(black("....X.?XXX.....", false), LineShape::OpenFour);
        assert_eq!(black(".....XX.?X.....", true), LineShape::Four);
        assert_eq!(black("...X.X?X.X....", true), LineShape::DoubleFour);
        assert_eq!(black("...XX.?X.XX....", true), LineShape::DoubleFour);
        assert_eq!(black(".XXX.?.XXX.", true), LineShape::DoubleFour);
    }

    #[test]
    fn threes_and_twos() {
        assert_eq!(black(".....?XX......", true), LineShape::OpenThree);
        assert_eq!(black("....X?.X......", true), LineShape::OpenThree);
        assert_eq!(black("....O?XX......", true), LineShape::Three);
        assert_eq!(black("...O.?XX.O....", true), LineShape::Three);
        assert_eq!(black("....X..?XX.O...", true), LineShape::Three);
        assert_eq!(black("....X..?XX.O...", false), LineShape::OpenThree);
        assert_eq!(black("...X..?XX..X...", true), LineShape::Three);
        assert_eq!(black("...X..?XX..X...", false), LineShape::OpenThree);
        assert_eq!(black(".....?X.......", true), LineShape::OpenTwo);
        assert_eq!(black(".....?..X.....", true), LineShape::OpenTwo);
        assert_eq!(black("....O?X.......", true), LineShape::Two);
        assert_eq!(black("....O?...O....", true), LineShape::None);
    }

    #[test]
    fn rules_choose_five_semantics_per_colour() {
        let six = key_of("...XXX?XX...");
        assert_eq!(line_shape(six, Color::White, Rule::Renju), LineShape::Five);
        assert_eq!(
            line_shape(six, Color::Black, Rule::Renju),
            LineShape::Overline
        );
        assert_eq!(
            line_shape(six, Color::White, Rule::Standard),
            LineShape::Overline
        );
        assert_eq!(
            line_shape(six, Color::Black, Rule::Freestyle),
            LineShape::Five
        );
    }
}

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

    pub fn from_u8(value: u8) -> LineShape {
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

/// Two bits per cell for the ten cells around a point along a line: slots 0-4 are offsets -5..-1,
/// slots 5-9 are offsets +1..+5. Cell codes: 0 empty, 1 black, 2 white, 3 off the board.
pub type LineKey = u32;

pub const CELL_EMPTY: u32 = 0;
pub const CELL_BLACK: u32 = 1;
pub const CELL_WHITE: u32 = 2;
pub const CELL_WALL: u32 = 3;

/// Number of cells on each side of a point that a line shape depends on.
pub const REACH: i32 = 5;

/// The bit offset in a [`LineKey`] of the cell `offset` steps away (offset in -5..=5, not 0).
pub fn slot_shift(offset: i32) -> u32 {
    debug_assert!(offset != 0 && offset.abs() <= REACH);
    let slot = if offset < 0 { offset + 5 } else { offset + 4 };
    2 * slot as u32
}

/// Line shapes for every key: index `exact as usize`, then the key; each byte holds Black's shape
/// in the low nibble and White's in the high nibble.
struct LineTables {
    by_exactness: [Box<[u8]>; 2],
}

fn tables() -> &'static LineTables {
    static TABLES: OnceLock<LineTables> = OnceLock::new();
    TABLES.get_or_init(|| LineTables {
        by_exactness: [build_table(false), build_table(true)],
    })
}

/// The shape a stone of the side whose cell code is `own` (1 black, 2 white) makes at the centre of
/// `key`. `exact` selects exact-five semantics.
#[inline]
pub fn line_shape(key: LineKey, own: u32, exact: bool) -> LineShape {
    let packed = tables().by_exactness[exact as usize][key as usize];
    LineShape::from_u8(if own == CELL_BLACK {
        packed & 15
    } else {
        packed >> 4
    })
}

/// Forces the tables to be built now rather than on first use.
pub fn init_tables() {
    tables();
}

const WINDOW: usize = 11;
const CENTER: usize = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Own,
    Blocked,
}

fn build_table(exact: bool) -> Box<[u8]> {
    let mut memo = vec![u8::MAX; 3usize.pow(10)];
    let mut table = vec![0u8; 1 << 20].into_boxed_slice();
    for (key, entry) in table.iter_mut().enumerate() {
        let mut packed = 0u8;
        for (own, nibble) in [(CELL_BLACK, 0), (CELL_WHITE, 4)] {
            let mut window = [Cell::Own; WINDOW];
            for offset in [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5] {
                let code = (key as u32 >> slot_shift(offset)) & 3;
                window[(CENTER as i32 + offset) as usize] = if code == CELL_EMPTY {
                    Cell::Empty
                } else if code == own {
                    Cell::Own
                } else {
                    Cell::Blocked
                };
            }
            packed |= (classify(&mut window, exact, &mut memo) as u8) << nibble;
        }
        *entry = packed;
    }
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

    /// Builds a key from a picture such as `"..XX?X..."` with `?` the point, `X` black, `O` white,
    /// `|` the board edge (everything beyond it is off the board).
    fn key_of(picture: &str) -> LineKey {
        let cells: Vec<char> = picture.chars().collect();
        let center = cells
            .iter()
            .position(|&c| c == '?')
            .expect("picture needs a ?") as i32;
        let mut key = 0;
        for offset in [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5] {
            let index = center + offset;
            let edge_between = if offset < 0 {
                (index..center).any(|i| i >= 0 && cells[i as usize] == '|') || index < 0
            } else {
                (center + 1..=index).any(|i| (i as usize) < cells.len() && cells[i as usize] == '|')
                    || index as usize >= cells.len()
            };
            let code = if edge_between {
                CELL_WALL
            } else {
                match cells[index as usize] {
                    'X' => CELL_BLACK,
                    'O' => CELL_WHITE,
                    _ => CELL_EMPTY,
                }
            };
            key |= code << slot_shift(offset);
        }
        key
    }

    fn black(picture: &str, exact: bool) -> LineShape {
        line_shape(key_of(picture), CELL_BLACK, exact)
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
    fn white_reads_its_own_stones() {
        let key = key_of("....OO?OO....");
        assert_eq!(line_shape(key, CELL_WHITE, false), LineShape::Five);
        assert_eq!(line_shape(key, CELL_BLACK, false), LineShape::None);
    }
}

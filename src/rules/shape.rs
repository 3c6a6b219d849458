//! Layer 3: the four line shapes of a point combined into one [`Shape`] per side.
//!
//! The combination is a table lookup on the four 4-bit line shapes packed into a `u16`
//! ([`PackedLines`]). It yields the shapes the engine scores (five, open four, four-three, double
//! three, ...), a flag marking the points where a Black renju move *may* be forbidden (overline,
//! two or more fours, two or more open threes, without a five): the exact judge only looks there,
//! and the point's [`LineShapePair`] (its two strongest line shapes), which the evaluation weighs
//! on top of the shape.

use super::line::LineShape;
use std::sync::OnceLock;

/// A point's combined shape for one side, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Shape {
    None = 0,
    Two = 1,
    OpenTwo = 2,
    DoubleTwo = 3,
    Three = 4,
    ThreeTwo = 5,
    OpenThree = 6,
    /// Two or more open threes (forbidden for Black in renju when both are real).
    DoubleThree = 7,
    Four = 8,
    /// A four and an open three (legal for Black, usually winning).
    FourThree = 9,
    OpenFour = 10,
    /// Two or more fours (forbidden for Black in renju).
    DoubleFour = 11,
    /// Six or more where exactly five is needed (forbidden for Black in renju).
    Overline = 12,
    Five = 13,
}

/// Number of [`Shape`] values, for per-shape counters.
pub const SHAPE_COUNT: usize = 14;

impl Shape {
    pub const ALL: [Shape; SHAPE_COUNT] = [
        Shape::None,
        Shape::Two,
        Shape::OpenTwo,
        Shape::DoubleTwo,
        Shape::Three,
        Shape::ThreeTwo,
        Shape::OpenThree,
        Shape::DoubleThree,
        Shape::Four,
        Shape::FourThree,
        Shape::OpenFour,
        Shape::DoubleFour,
        Shape::Overline,
        Shape::Five,
    ];

    pub fn from_u8(value: u8) -> Shape {
        Shape::ALL[value as usize]
    }

    /// Whether the shape contains at least one four (a five next move if not answered).
    pub fn has_four(self) -> bool {
        matches!(
            self,
            Shape::Four | Shape::FourThree | Shape::OpenFour | Shape::DoubleFour
        )
    }
}

/// The four line shapes of one point and side, 4 bits each, direction `d` at bits `4d..4d+4`.
pub type PackedLines = u16;

/// One combined-shape entry: the shape in the low 7 bits, [`RENJU_SUSPECT`] in bit 7 and the
/// [`LineShapePair`] index from bit `PAIR_SHIFT` (10) up.
pub type CombinedEntry = u16;

/// Set on entries where a Black renju stone could be forbidden and the exact judge must look.
pub const RENJU_SUSPECT: CombinedEntry = 0x80;

/// Number of [`LineShapePair`] indices.
pub const PAIR_COUNT: usize = 55;

/// Where the pair index starts in a [`CombinedEntry`]: the six bits above it hold any index, so
/// that a table of [`PAIR_SLOTS`] counts indexed by [`entry_pair`] needs no bounds check.
const PAIR_SHIFT: u32 = 10;

/// Every value [`entry_pair`] can return (at least [`PAIR_COUNT`]).
pub const PAIR_SLOTS: usize = 1 << (16 - PAIR_SHIFT);
const _: () = assert!(PAIR_COUNT <= PAIR_SLOTS);

/// The two strongest line shapes of a point and side (`strongest >= second`), a finer class
/// than the combined [`Shape`]: a four with an open two and a four with nothing else are both
/// [`Shape::Four`] but differ here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineShapePair {
    pub strongest: LineShape,
    pub second: LineShape,
}

impl LineShapePair {
    /// The pair's index in `0..PAIR_COUNT`.
    pub fn index(self) -> usize {
        let (a, b) = (self.strongest as usize, self.second as usize);
        a * (a + 1) / 2 + b
    }

    /// The pair with index `index` (in `0..PAIR_COUNT`).
    #[inline]
    pub fn from_index(index: usize) -> LineShapePair {
        PAIRS[index]
    }

    /// Every pair, in index order.
    pub fn all() -> impl Iterator<Item = LineShapePair> {
        PAIRS.iter().copied()
    }

    /// The combined shape of these two lines alone. A point's weaker two lines can only turn a
    /// [`Shape::Three`] into a [`Shape::ThreeTwo`]: fours, fives, overlines and open threes, and
    /// so whether a renju Black stone might be forbidden, are all decided by the pair.
    pub fn shape(self) -> Shape {
        let lines = self.strongest as u16 | (self.second as u16) << 4;
        entry_shape(combine_uncached(lines))
    }
}

/// Every [`LineShapePair`], at its index.
const PAIRS: [LineShapePair; PAIR_COUNT] = {
    let mut pairs = [LineShapePair {
        strongest: LineShape::None,
        second: LineShape::None,
    }; PAIR_COUNT];
    let mut strongest = 0;
    while strongest < 10 {
        let mut second = 0;
        while second <= strongest {
            pairs[strongest * (strongest + 1) / 2 + second] = LineShapePair {
                strongest: LineShape::from_u8(strongest as u8),
                second: LineShape::from_u8(second as u8),
            };
            second += 1;
        }
        strongest += 1;
    }
    pairs
};

/// The combination table: index it with [`PackedLines`] (every value has an entry, so indexing
/// needs no bounds check).
pub fn table() -> &'static [CombinedEntry; 1 << 16] {
    static TABLE: OnceLock<Box<[CombinedEntry; 1 << 16]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([0; 1 << 16]);
        for (lines, entry) in (0..=u16::MAX).zip(table.iter_mut()) {
            *entry = combine_uncached(lines);
        }
        table
    })
}

/// Combined shape entry for four packed line shapes.
#[inline]
pub fn combine(lines: PackedLines) -> CombinedEntry {
    table()[lines as usize]
}

/// The line shape in direction `dir` of a packed set.
#[inline]
pub fn line_of(lines: PackedLines, dir: usize) -> LineShape {
    LineShape::from_u8(((lines >> (4 * dir)) & 15) as u8)
}

fn combine_uncached(lines: PackedLines) -> CombinedEntry {
    let shapes: Vec<LineShape> = (0..4)
        .map(|d| {
            let value = ((lines >> (4 * d)) & 15) as u8;
            LineShape::from_u8(value.min(LineShape::Five as u8))
        })
        .collect();
    let count = |s: LineShape| shapes.iter().filter(|&&x| x == s).count();
    let fours: u8 = shapes.iter().map(|s| s.fours()).sum();
    let open_threes = count(LineShape::OpenThree);
    let shape = if count(LineShape::Five) > 0 {
        Shape::Five
    } else if count(LineShape::Overline) > 0 {
        Shape::Overline
    } else if fours >= 2 {
        Shape::DoubleFour
    } else if count(LineShape::OpenFour) > 0 {
        Shape::OpenFour
    } else if fours == 1 && open_threes > 0 {
        Shape::FourThree
    } else if fours == 1 {
        Shape::Four
    } else if open_threes >= 2 {
        Shape::DoubleThree
    } else if open_threes == 1 {
        Shape::OpenThree
    } else if count(LineShape::Three) > 0 && count(LineShape::OpenTwo) > 0 {
        Shape::ThreeTwo
    } else if count(LineShape::Three) > 0 {
        Shape::Three
    } else if count(LineShape::OpenTwo) >= 2 {
        Shape::DoubleTwo
    } else if count(LineShape::OpenTwo) == 1 {
        Shape::OpenTwo
    } else if count(LineShape::Two) > 0 {
        Shape::Two
    } else {
        Shape::None
    };
    let suspect = count(LineShape::Five) == 0
        && (count(LineShape::Overline) > 0 || fours >= 2 || open_threes >= 2);
    let mut sorted = shapes.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let pair = LineShapePair {
        strongest: sorted[0],
        second: sorted[1],
    };
    shape as CombinedEntry
        | if suspect { RENJU_SUSPECT } else { 0 }
        | (pair.index() as CombinedEntry) << PAIR_SHIFT
}

/// The shape of an entry.
#[inline]
pub fn entry_shape(entry: CombinedEntry) -> Shape {
    Shape::from_u8((entry & 0x7F) as u8)
}

/// The [`LineShapePair`] index of an entry.
#[inline]
pub fn entry_pair(entry: CombinedEntry) -> usize {
    (entry >> PAIR_SHIFT) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(lines: [LineShape; 4]) -> PackedLines {
        lines
            .iter()
            .enumerate()
            .fold(0, |acc, (d, s)| acc | (*s as u16) << (4 * d))
    }

    #[test]
    fn combinations() {
        use LineShape as L;
        let cases = [
            (
                [L::Five, L::OpenThree, L::OpenThree, L::None],
                Shape::Five,
                false,
            ),
            ([L::Overline, L::Five, L::None, L::None], Shape::Five, false),
            (
                [L::Overline, L::None, L::None, L::None],
                Shape::Overline,
                true,
            ),
            (
                [L::Four, L::Four, L::None, L::None],
                Shape::DoubleFour,
                true,
            ),
            (
                [L::DoubleFour, L::None, L::None, L::None],
                Shape::DoubleFour,
                true,
            ),
            (
                [L::OpenFour, L::Four, L::None, L::None],
                Shape::DoubleFour,
                true,
            ),
            (
                [L::OpenFour, L::OpenThree, L::None, L::None],
                Shape::OpenFour,
                false,
            ),
            (
                [L::Four, L::OpenThree, L::None, L::None],
                Shape::FourThree,
                false,
            ),
            (
                [L::Four, L::OpenThree, L::OpenThree, L::None],
                Shape::FourThree,
                true,
            ),
            (
                [L::OpenThree, L::OpenThree, L::None, L::None],
                Shape::DoubleThree,
                true,
            ),
            (
                [L::OpenThree, L::Three, L::None, L::None],
                Shape::OpenThree,
                false,
            ),
            (
                [L::Three, L::OpenTwo, L::None, L::None],
                Shape::ThreeTwo,
                false,
            ),
            (
                [L::OpenTwo, L::OpenTwo, L::Two, L::None],
                Shape::DoubleTwo,
                false,
            ),
            ([L::Two, L::None, L::None, L::None], Shape::Two, false),
            ([L::None; 4], Shape::None, false),
        ];
        for (lines, shape, suspect) in cases {
            let entry = combine(pack(lines));
            assert_eq!(entry_shape(entry), shape, "{lines:?}");
            assert_eq!(entry & RENJU_SUSPECT != 0, suspect, "{lines:?}");
        }
    }

    #[test]
    fn entries_carry_the_two_strongest_lines() {
        use LineShape as L;
        let entry = combine(pack([L::Two, L::Four, L::None, L::OpenTwo]));
        let pair = LineShapePair {
            strongest: L::Four,
            second: L::OpenTwo,
        };
        assert_eq!(entry_pair(entry), pair.index());
        assert_eq!(entry_shape(entry), Shape::Four);
        let indices: Vec<usize> = LineShapePair::all().map(LineShapePair::index).collect();
        assert_eq!(indices, (0..PAIR_COUNT).collect::<Vec<_>>());
        assert_eq!(LineShapePair::from_index(entry_pair(entry)), pair);
        for pair in LineShapePair::all() {
            assert!(pair.strongest >= pair.second);
            assert_eq!(LineShapePair::from_index(pair.index()), pair);
        }
        let double_three = LineShapePair {
            strongest: L::OpenThree,
            second: L::OpenThree,
        };
        assert_eq!(double_three.shape(), Shape::DoubleThree);
    }

    #[test]
    fn line_of_reads_back_each_direction() {
        let lines = pack([
            LineShape::Two,
            LineShape::Four,
            LineShape::OpenThree,
            LineShape::Five,
        ]);
        assert_eq!(line_of(lines, 0), LineShape::Two);
        assert_eq!(line_of(lines, 1), LineShape::Four);
        assert_eq!(line_of(lines, 2), LineShape::OpenThree);
        assert_eq!(line_of(lines, 3), LineShape::Five);
    }
}

//! The layered board: layer 1 (stones, move stack, Zobrist key) and the incremental upkeep of
//! layer 2 (per point, side and direction: the [`LineShape`] a stone there would make) and layer 3
//! (per point and side: the combined [`Shape`] and the [`LineShapePair`] of its two strongest lines,
//! with per-shape and per-pair counts of the empty points).
//!
//! A move or undo touches only the ten points within distance five along each of the four lines
//! through it: their [`LineKey`]s change by one cell, and their shapes are looked up again.
//! [`Board::verify_layers`] recomputes everything from scratch for tests.

use super::line::{self, LineKey, LineShape, BLOCKED, EMPTY, OWN, REACH};
use super::pos::{Color, Pos, Rule, DIRECTIONS, GRID};
use super::shape::{
    self, entry_pair, CombinedEntry, LineShapePair, PackedLines, Shape, PAIR_COUNT, PAIR_SLOTS,
    RENJU_SUSPECT,
};

/// A move: a stone on a point, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Place(Pos),
    Pass,
}

impl Move {
    pub fn pos(self) -> Option<Pos> {
        match self {
            Move::Place(p) => Some(p),
            Move::Pass => None,
        }
    }
}

/// Why a stone cannot be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    #[error("{0} is off the board")]
    OffBoard(Pos),
    #[error("{0} is already occupied")]
    Occupied(Pos),
}

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn zobrist_table() -> [[u64; GRID]; 2] {
    let mut table = [[0u64; GRID]; 2];
    let mut state = 0x00C0_FFEE_2024_u64;
    let mut color = 0;
    while color < 2 {
        let mut i = 0;
        while i < GRID {
            let (next, value) = splitmix64(state);
            state = next;
            table[color][i] = value;
            i += 1;
        }
        color += 1;
    }
    table
}

static ZOBRIST: [[u64; GRID]; 2] = zobrist_table();
/// Mixed into the key whenever the side to move changes, so that a pass changes the key.
const ZOBRIST_WHITE_TO_MOVE: u64 = 0x5851_F42D_4C95_7F2D;

/// Layers 1-3 of a 15x15 board under one rule.
#[derive(Clone)]
pub struct Board {
    rule: Rule,
    /// This rule's layer-2 tables per side ([`line::shape_table`]).
    line_tables: [&'static line::ShapeTable; 2],
    /// The layer-3 combination table ([`shape::table`]).
    combine_table: &'static [CombinedEntry; 1 << 16],
    /// Cell codes ([`CELL_EMPTY`] etc.), off-board cells are walls.
    cells: [u8; GRID],
    /// Layer 2 inputs: per point and direction, both sides' views of the ten cells around, as a
    /// [`KeyPair`] (one addition updates both when a stone comes or goes).
    keys: [[KeyPair; 4]; GRID],
    /// Layer 2: per point, both sides' four 4-bit line shapes as a [`LinesPair`] (zero on
    /// occupied points).
    lines: [LinesPair; GRID],
    /// Layer 3: per point and side, the combined entry (shape plus renju-suspect flag).
    combined: [[CombinedEntry; 2]; GRID],
    /// Per side, how many empty points have each combined shape (a byte each: at most the 225
    /// points of the board, and the smaller the counts, the less each stone placement saves).
    shape_counts: [[u8; COUNT_SLOTS]; 2],
    /// Per side, how many empty points have each [`LineShapePair`] (by index; the slots past
    /// [`PAIR_COUNT`] stay zero).
    pair_counts: [[u8; PAIR_SLOTS]; 2],
    /// Per side, a bit per [`Pos::index`]: the empty points where that side would make a four
    /// or more ([`Shape::Four`] and up), so that threat scans skip the rest of the board.
    four_bits: [FourBits; 2],
    history: Vec<Move>,
    /// Layer 2 and 3 entries of the points each stone placement changed, as they were before it,
    /// so that taking the stone back restores them instead of looking them up again.
    saved_points: Vec<SavedPoint>,
    /// Per stone placement: where its entries start in `saved_points`, and the counts before it.
    saved_frames: Vec<SavedFrame>,
    to_move: Color,
    hash: u64,
    stones: usize,
}

impl Board {
    pub fn new(rule: Rule) -> Board {
        let mut board = Board {
            rule,
            line_tables: [
                line::shape_table(rule, Color::Black),
                line::shape_table(rule, Color::White),
            ],
            combine_table: shape::table(),
            cells: [CELL_WALL; GRID],
            keys: [[0; 4]; GRID],
            lines: [0; GRID],
            combined: [[0; 2]; GRID],
            shape_counts: [[0; COUNT_SLOTS]; 2],
            pair_counts: [[0; PAIR_SLOTS]; 2],
            four_bits: [[0; 4]; 2],
            history: Vec::with_capacity(225),
            saved_points: Vec::with_capacity(225 * 48),
            saved_frames: Vec::with_capacity(225),
            to_move: Color::Black,
            hash: 0,
            stones: 0,
        };
        for p in Pos::all() {
            board.cells[p.index()] = CELL_EMPTY;
        }
        for p in Pos::all() {
            board.keys[p.index()] = board.keys_from_scratch(p);
        }
        for p in Pos::all() {
            board.refresh_point(p);
        }
        board
    }

    /// A board with `moves` played in order (passes allowed).
    pub fn from_moves(rule: Rule, moves: &[Move]) -> Result<Board, PlaceError> {
        let mut board = Board::new(rule);
        for &mv in moves {
            match mv {
                Move::Place(p) => board.play(p)?,
                Move::Pass => board.pass(),
            }
        }
        Ok(board)
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The stone on `p`, if any.
    pub fn stone(&self, p: Pos) -> Option<Color> {
        match self.cells[p.index()] {
            CELL_BLACK => Some(Color::Black),
            CELL_WHITE => Some(Color::White),
            _ => None,
        }
    }

    pub fn is_empty(&self, p: Pos) -> bool {
        self.cells[p.index()] == CELL_EMPTY
    }

    /// The side to move: the opponent of whoever moved last (Black on an empty board).
    pub fn side_to_move(&self) -> Color {
        self.to_move
    }

    fn set_side_to_move(&mut self, color: Color) {
        if color != self.to_move {
            self.hash ^= ZOBRIST_WHITE_TO_MOVE;
            self.to_move = color;
        }
    }

    /// A position given as stones rather than moves (puzzles, `YXBOARD`, forbidden-move
    /// fixtures): places each stone in the order given, then sets the side to move.
    pub fn from_stones(
        rule: Rule,
        stones: &[(Pos, Color)],
        to_move: Color,
    ) -> Result<Board, PlaceError> {
        let mut board = Board::new(rule);
        for &(p, color) in stones {
            board.place_stone(p, color)?;
        }
        board.set_side_to_move(to_move);
        Ok(board)
    }

    /// Test positions written as Black's and White's points in notation (`h8`), `to_move` to play.
    #[cfg(test)]
    pub(crate) fn from_points(rule: Rule, black: &[&str], white: &[&str], to_move: Color) -> Board {
        let mut stones: Vec<(Pos, Color)> = Vec::new();
        for (points, color) in [(black, Color::Black), (white, Color::White)] {
            for point in points {
                stones.push((point.parse().expect("a point"), color));
            }
        }
        Board::from_stones(rule, &stones, to_move).expect("legal stones")
    }

    /// Places a `color` stone on `p` whoever is to move, as one history entry; the opponent of
    /// `color` moves next. Used to set up positions.
    pub fn place_stone(&mut self, p: Pos, color: Color) -> Result<(), PlaceError> {
        if !p.is_on_board() {
            return Err(PlaceError::OffBoard(p));
        }
        if !self.is_empty(p) {
            return Err(PlaceError::Occupied(p));
        }
        self.put_stone(p, color);
        self.history.push(Move::Place(p));
        self.set_side_to_move(color.opponent());
        Ok(())
    }

    pub fn history(&self) -> &[Move] {
        &self.history
    }

    pub fn last_move(&self) -> Option<Move> {
        self.history.last().copied()
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> usize {
        self.stones
    }

    pub fn is_full(&self) -> bool {
        self.stones == 225
    }

    /// Zobrist key of the stones and the side to move.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The Zobrist key the position will have once the side to move plays on empty `p`.
    pub fn hash_after(&self, p: Pos) -> u64 {
        self.hash ^ ZOBRIST[self.to_move.index()][p.index()] ^ ZOBRIST_WHITE_TO_MOVE
    }

    /// Places the side to move's stone on `p` after checking it is an empty board point. Renju
    /// legality is not checked here: see [`Board::forbidden_kind`] and the game layer.
    pub fn play(&mut self, p: Pos) -> Result<(), PlaceError> {
        if !p.is_on_board() {
            return Err(PlaceError::OffBoard(p));
        }
        if !self.is_empty(p) {
            return Err(PlaceError::Occupied(p));
        }
        self.make_move(p);
        Ok(())
    }

    /// Places the side to move's stone on `p`, which must be empty and on the board. The engine's
    /// hot path; callers guarantee the precondition.
    #[inline]
    pub fn make_move(&mut self, p: Pos) {
        debug_assert!(p.is_on_board() && self.is_empty(p), "{p:?} is not playable");
        let color = self.to_move;
        self.put_stone(p, color);
        self.history.push(Move::Place(p));
        self.set_side_to_move(color.opponent());
    }

    /// Passes the turn.
    pub fn pass(&mut self) {
        self.history.push(Move::Pass);
        self.set_side_to_move(self.to_move.opponent());
    }

    /// Takes back the last move (stone or pass); `None` on an empty history.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.history.pop()?;
        match mv {
            Move::Place(p) => {
                let color = self.stone(p).expect("a played point holds a stone");
                self.remove_stone(p, color);
                self.set_side_to_move(color);
            }
            Move::Pass => self.set_side_to_move(self.to_move.opponent()),
        }
        Some(mv)
    }

    /// Layer 2: the shape a `color` stone on empty point `p` would make along direction `dir`
    /// (an index into [`DIRECTIONS`]). [`LineShape::None`] on occupied points.
    #[inline]
    pub fn line_shape(&self, p: Pos, color: Color, dir: usize) -> LineShape {
        shape::line_of(side_half(self.lines[p.index()], color.index()), dir)
    }

    /// Layer 3: the combined shape a `color` stone on empty point `p` would make.
    #[inline]
    pub fn shape(&self, p: Pos, color: Color) -> Shape {
        shape::entry_shape(self.combined[p.index()][color.index()])
    }

    /// Layer 3: the two strongest line shapes a `color` stone on empty point `p` would make.
    #[inline]
    pub fn shape_pair(&self, p: Pos, color: Color) -> LineShapePair {
        LineShapePair::from_index(entry_pair(self.combined[p.index()][color.index()]))
    }

    /// The combined shape `color` would make on empty `t` if the opponent had a stone on empty
    /// `q` as well: only the line through both changes, and only when `q` is within reach of
    /// `t` along it. (Without the renju judge: Black's forbidden points are not looked at.)
    pub fn shape_if_blocked(&self, t: Pos, color: Color, q: Pos) -> Shape {
        shape::entry_shape(self.entry_if_blocked(t, color, q))
    }

    /// [`Board::is_renju_suspect`] of empty `t` if White had a stone on empty `q` as well.
    pub fn is_renju_suspect_if_blocked(&self, t: Pos, q: Pos) -> bool {
        self.rule == Rule::Renju && self.entry_if_blocked(t, Color::Black, q) & RENJU_SUSPECT != 0
    }

    /// Layer 3 of empty `t` for `color` with an opponent stone on empty `q` as well.
    fn entry_if_blocked(&self, t: Pos, color: Color, q: Pos) -> CombinedEntry {
        let side = color.index();
        let dx = q.x() as i32 - t.x() as i32;
        let dy = q.y() as i32 - t.y() as i32;
        let (dir, offset) = if dy == 0 {
            (0, dx)
        } else if dx == 0 {
            (1, dy)
        } else if dx == dy {
            (2, dx)
        } else if dx == -dy {
            (3, dy)
        } else {
            return self.combined[t.index()][side];
        };
        if offset == 0 || offset.abs() > REACH {
            return self.combined[t.index()][side];
        }
        let key = side_half(self.keys[t.index()][dir], side) + BLOCKED * line::cell_weight(offset);
        let line_shape = self.line_tables[side][key as usize] as u16;
        let shift = 4 * dir;
        let lines = (side_half(self.lines[t.index()], side) & !(15 << shift)) | line_shape << shift;
        self.combine_table[lines as usize]
    }

    /// The empty points where `color` would make [`Shape::Four`] or more. Kept incrementally:
    /// no scan of the board.
    #[inline]
    pub fn four_or_more_points(&self, color: Color) -> PointSet {
        PointSet(self.four_bits[color.index()])
    }

    /// Whether a Black stone on `p` might be forbidden in renju (the exact judge decides).
    #[inline]
    pub fn is_renju_suspect(&self, p: Pos) -> bool {
        self.rule == Rule::Renju
            && self.combined[p.index()][Color::Black.index()] & RENJU_SUSPECT != 0
    }

    /// How many empty points have combined shape `shape` for `color`.
    #[inline]
    pub fn shape_count(&self, color: Color, shape: Shape) -> u16 {
        u16::from(self.shape_counts[color.index()][shape as usize])
    }

    /// How many empty points have `pair` as their two strongest line shapes for `color`.
    #[inline]
    pub fn pair_count(&self, color: Color, pair: LineShapePair) -> u16 {
        u16::from(self.pair_counts[color.index()][pair.index()])
    }

    /// The per-pair counts of `color`, indexed by [`LineShapePair::index`].
    #[inline]
    pub fn pair_counts(&self, color: Color) -> &[u8] {
        &self.pair_counts[color.index()][..PAIR_COUNT]
    }

    /// Empty points where `color` would make a five (a win if played).
    pub fn five_points(&self, color: Color) -> Vec<Pos> {
        if self.shape_count(color, Shape::Five) == 0 {
            return Vec::new();
        }
        Pos::all()
            .filter(|&p| self.is_empty(p) && self.shape(p, color) == Shape::Five)
            .collect()
    }

    /// The unbroken run of `color` stones through `p` along direction `dir`, as (first, length):
    /// `first` is the run's end in the negative direction.
    pub fn run_through(&self, p: Pos, color: Color, dir: usize) -> (Pos, usize) {
        let step = DIRECTIONS[dir];
        let own = color_code(color);
        let mut first = p;
        while self.cells[first.step(step, -1).index()] == own {
            first = first.step(step, -1);
        }
        let mut length = 1;
        while self.cells[first.step(step, length as i32).index()] == own {
            length += 1;
        }
        (first, length)
    }

    /// The winning line made by the stone on `p`, if it is a win for its colour under the rule
    /// (exactly five where the rule needs it, five or more otherwise).
    pub fn winning_line(&self, p: Pos) -> Option<Vec<Pos>> {
        let color = self.stone(p)?;
        let exact = self.rule.exact_five(color);
        (0..4).find_map(|dir| {
            let (first, length) = self.run_through(p, color, dir);
            let wins = if exact { length == 5 } else { length >= 5 };
            wins.then(|| {
                (0..length)
                    .map(|i| first.step(DIRECTIONS[dir], i as i32))
                    .collect()
            })
        })
    }

    /// Debug check: recomputes layers 2 and 3 and the counts from the stones and compares them with
    /// the incrementally kept ones. Returns a description of the first difference.
    pub fn verify_layers(&self) -> Result<(), String> {
        let mut counts = [[0u8; COUNT_SLOTS]; 2];
        let mut pair_counts = [[0u8; PAIR_SLOTS]; 2];
        for p in Pos::all() {
            let keys = self.keys_from_scratch(p);
            if keys != self.keys[p.index()] {
                return Err(format!("line keys differ at {p}"));
            }
            for color in [Color::Black, Color::White] {
                let (lines, entry) = if self.is_empty(p) {
                    let lines = self.lines_from_keys(p, color);
                    (lines, shape::combine(lines))
                } else {
                    (0, 0)
                };
                if lines != side_half(self.lines[p.index()], color.index()) {
                    return Err(format!("layer 2 differs at {p} for {color:?}"));
                }
                if entry != self.combined[p.index()][color.index()] {
                    return Err(format!("layer 3 differs at {p} for {color:?}"));
                }
                if self.is_empty(p) {
                    counts[color.index()][shape::entry_shape(entry) as usize] += 1;
                    pair_counts[color.index()][entry_pair(entry)] += 1;
                }
            }
        }
        if counts != self.shape_counts {
            return Err("shape counts differ".to_string());
        }
        if pair_counts != self.pair_counts {
            return Err("pair counts differ".to_string());
        }
        for color in [Color::Black, Color::White] {
            let listed: Vec<Pos> = self.four_or_more_points(color).collect();
            let expected: Vec<Pos> = Pos::all()
                .filter(|&p| self.is_empty(p) && self.shape(p, color) >= Shape::Four)
                .collect();
            if listed != expected {
                return Err(format!("four points of {color:?} differ"));
            }
        }
        if self.saved_frames.len() != self.stones {
            return Err("undo frames do not match the stones".to_string());
        }
        let mut hash = if self.to_move == Color::White {
            ZOBRIST_WHITE_TO_MOVE
        } else {
            0
        };
        for p in Pos::all() {
            if let Some(color) = self.stone(p) {
                hash ^= ZOBRIST[color.index()][p.index()];
            }
        }
        if hash != self.hash {
            return Err("Zobrist key differs".to_string());
        }
        Ok(())
    }

    fn keys_from_scratch(&self, p: Pos) -> [KeyPair; 4] {
        let mut keys = [0; 4];
        for (dir, &step) in DIRECTIONS.iter().enumerate() {
            for sign in [-1, 1] {
                let mut off_board = false;
                for distance in 1..=REACH {
                    let q = p.step(step, sign * distance);
                    off_board |= !q.is_on_board();
                    let code = if off_board {
                        CELL_WALL
                    } else {
                        self.cells[q.index()]
                    };
                    let weight = line::cell_weight(sign * distance);
                    for side in 0..2 {
                        keys[dir] += KeyPair::from(cell_value(code, side) * weight) << (16 * side);
                    }
                }
            }
        }
        keys
    }

    fn lines_from_keys(&self, p: Pos, color: Color) -> PackedLines {
        let side = color.index();
        (0..4).fold(0, |acc, dir| {
            let shape = self.line_tables[side][side_half(self.keys[p.index()][dir], side) as usize];
            acc | (shape as u16) << (4 * dir)
        })
    }

    /// Places a `color` stone on empty `p` (no history entry). Every placement is taken back by
    /// [`Board::remove_stone`] in last-in first-out order.
    pub(super) fn put_stone(&mut self, p: Pos, color: Color) {
        self.saved_frames.push(SavedFrame {
            first_point: self.saved_points.len() as u32,
            shape_counts: self.shape_counts,
            pair_counts: self.pair_counts,
            four_bits: self.four_bits,
        });
        self.save_point(p);
        self.cells[p.index()] = color_code(color);
        self.hash ^= ZOBRIST[color.index()][p.index()];
        self.stones += 1;
        for side in 0..2 {
            let entry = self.combined[p.index()][side];
            self.shape_counts[side][count_slot(entry)] -= 1;
            self.pair_counts[side][entry_pair(entry)] -= 1;
            clear_bit(&mut self.four_bits[side], p);
            self.combined[p.index()][side] = 0;
        }
        self.lines[p.index()] = 0;
        self.update_neighbours(p, color);
    }

    /// Takes back the stone most recently placed by [`Board::put_stone`], which is on `p`.
    pub(super) fn remove_stone(&mut self, p: Pos, color: Color) {
        self.cells[p.index()] = CELL_EMPTY;
        self.hash ^= ZOBRIST[color.index()][p.index()];
        self.stones -= 1;
        let stone = STONE_KEYS[color.index()];
        let neighbours = &neighbour_table()[p.index()];
        for (dir, line) in neighbours.iter().enumerate() {
            for &(q, weight) in &line.cells[..line.len as usize] {
                self.keys[q as usize][dir] -= stone * KeyPair::from(weight);
            }
        }
        let frame = self
            .saved_frames
            .pop()
            .expect("remove_stone pairs with an earlier put_stone");
        for saved in self.saved_points.drain(frame.first_point as usize..).rev() {
            self.lines[saved.pos as usize] = saved.lines;
            self.combined[saved.pos as usize] = saved.combined;
        }
        self.shape_counts = frame.shape_counts;
        self.pair_counts = frame.pair_counts;
        self.four_bits = frame.four_bits;
    }

    #[inline]
    fn save_point(&mut self, p: Pos) {
        self.saved_points.push(SavedPoint {
            pos: p.0,
            lines: self.lines[p.index()],
            combined: self.combined[p.index()],
        });
    }

    /// Adds a `color` stone on `p` to the keys of the points along the four lines through it, and
    /// refreshes the shapes of the empty ones (saving what they were).
    #[inline]
    fn update_neighbours(&mut self, p: Pos, color: Color) {
        let stone = STONE_KEYS[color.index()];
        let neighbours = &neighbour_table()[p.index()];
        for (dir, line) in neighbours.iter().enumerate() {
            for &(q, weight) in &line.cells[..line.len as usize] {
                let q = Pos(q);
                let key = &mut self.keys[q.index()][dir];
                *key += stone * KeyPair::from(weight);
                let new_keys = *key;
                if self.cells[q.index()] == CELL_EMPTY {
                    self.refresh_direction(q, dir, new_keys);
                }
            }
        }
    }

    /// Looks up empty `q`'s line shapes along `dir` for both sides from its new keys along `dir`
    /// (`keys`; passed in rather than read back from `self.keys`, so that the CPU need not wait
    /// for the store that just wrote them); when one changed, saves the point's old layers (for
    /// [`Board::remove_stone`]) and updates them.
    #[inline]
    fn refresh_direction(&mut self, q: Pos, dir: usize, keys: KeyPair) {
        let shift = 4 * dir;
        let shapes = LinesPair::from(self.line_tables[0][side_half(keys, 0) as usize])
            | LinesPair::from(self.line_tables[1][side_half(keys, 1) as usize]) << 16;
        let old_lines = self.lines[q.index()];
        let new_lines = (old_lines & !(0x000F_000F << shift)) | shapes << shift;
        if new_lines == old_lines {
            return;
        }
        self.save_point(q);
        self.lines[q.index()] = new_lines;
        for side in 0..2 {
            let lines = side_half(new_lines, side);
            if lines != side_half(old_lines, side) {
                self.set_combined(q, side, self.combine_table[lines as usize]);
            }
        }
    }

    /// Computes layers 2 and 3 of empty point `p` from its keys (used on a new board).
    fn refresh_point(&mut self, p: Pos) {
        let lines = [Color::Black, Color::White].map(|color| self.lines_from_keys(p, color));
        self.lines[p.index()] = LinesPair::from(lines[0]) | LinesPair::from(lines[1]) << 16;
        for (side, side_lines) in lines.into_iter().enumerate() {
            self.shape_counts[side][Shape::None as usize] += 1;
            self.pair_counts[side][0] += 1;
            self.combined[p.index()][side] = 0;
            self.set_combined(p, side, self.combine_table[side_lines as usize]);
        }
    }

    #[inline]
    fn set_combined(&mut self, p: Pos, side: usize, entry: CombinedEntry) {
        let old = self.combined[p.index()][side];
        self.shape_counts[side & 1][count_slot(old)] -= 1;
        self.shape_counts[side & 1][count_slot(entry)] += 1;
        self.pair_counts[side & 1][entry_pair(old)] -= 1;
        self.pair_counts[side & 1][entry_pair(entry)] += 1;
        if count_slot(entry) >= Shape::Four as usize {
            set_bit(&mut self.four_bits[side & 1], p);
        } else if count_slot(old) >= Shape::Four as usize {
            clear_bit(&mut self.four_bits[side & 1], p);
        }
        self.combined[p.index()][side] = entry;
    }
}

/// The on-board points within [`REACH`] of a point along one direction, with the weight the
/// point's cell has in *their* keys.
#[derive(Clone, Copy)]
struct LineNeighbours {
    cells: [(u8, LineKey); 2 * REACH as usize],
    len: u8,
}

fn neighbour_table() -> &'static [[LineNeighbours; 4]; GRID] {
    static TABLE: std::sync::OnceLock<Box<[[LineNeighbours; 4]; GRID]>> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let empty = LineNeighbours {
            cells: [(0, 0); 2 * REACH as usize],
            len: 0,
        };
        let mut table = Box::new([[empty; 4]; GRID]);
        for p in Pos::all() {
            for (dir, &step) in DIRECTIONS.iter().enumerate() {
                let entry = &mut table[p.index()][dir];
                for sign in [-1i32, 1] {
                    for distance in 1..=REACH {
                        let q = p.step(step, sign * distance);
                        if !q.is_on_board() || p.distance(q) != distance as u8 {
                            break;
                        }
                        entry.cells[entry.len as usize] =
                            (q.0, line::cell_weight(-sign * distance));
                        entry.len += 1;
                    }
                }
            }
        }
        table
    })
}

/// A point's layer 2 and 3 entries as they were before a stone placement changed them.
#[derive(Clone, Copy)]
struct SavedPoint {
    pos: u8,
    lines: LinesPair,
    combined: [CombinedEntry; 2],
}

/// What one stone placement saved: where its points start, and the counts before it.
#[derive(Clone, Copy)]
struct SavedFrame {
    first_point: u32,
    shape_counts: [[u8; COUNT_SLOTS]; 2],
    pair_counts: [[u8; PAIR_SLOTS]; 2],
    four_bits: [FourBits; 2],
}

/// One bit per [`Pos::index`] (a [`GRID`]-sized set of points).
type FourBits = [u64; GRID / 64];

/// A set of points, iterated in [`Pos::all`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointSet(FourBits);

impl Iterator for PointSet {
    type Item = Pos;

    #[inline]
    fn next(&mut self) -> Option<Pos> {
        let word_index = self.0.iter().position(|&word| word != 0)?;
        let word = &mut self.0[word_index];
        let bit = word.trailing_zeros() as usize;
        *word &= *word - 1;
        Some(Pos((word_index * 64 + bit) as u8))
    }
}

#[inline]
fn set_bit(bits: &mut FourBits, p: Pos) {
    bits[p.index() >> 6] |= 1 << (p.index() & 63);
}

#[inline]
fn clear_bit(bits: &mut FourBits, p: Pos) {
    bits[p.index() >> 6] &= !(1 << (p.index() & 63));
}

/// Per-shape counters are indexed by the low four bits of a combined entry (the shape).
const COUNT_SLOTS: usize = 16;

#[inline]
fn count_slot(entry: CombinedEntry) -> usize {
    (entry & 15) as usize
}

const CELL_EMPTY: u8 = 0;
const CELL_BLACK: u8 = 1;
const CELL_WHITE: u8 = 2;
const CELL_WALL: u8 = 3;

fn color_code(color: Color) -> u8 {
    match color {
        Color::Black => CELL_BLACK,
        Color::White => CELL_WHITE,
    }
}

/// Both sides' [`PackedLines`] of a point: Black's in the low 16 bits, White's in the high 16.
type LinesPair = u32;

/// Both sides' [`LineKey`]s of a point along one direction: Black's in the low 16 bits, White's in
/// the high 16. Neither half ever leaves `0..KEY_COUNT`, so adding or subtracting whole pairs
/// never carries from one half into the other.
type KeyPair = u32;

/// Side `side`'s half of a [`KeyPair`] or [`LinesPair`] (Black's the low 16 bits, White's the
/// high 16): its [`LineKey`] or its [`PackedLines`].
#[inline]
fn side_half(pair: u32, side: usize) -> u16 {
    (pair >> (16 * side)) as u16
}

/// What a stone of each colour (by [`Color::index`]) adds to a [`KeyPair`] per unit of cell
/// weight: its own side sees [`OWN`], the other side [`BLOCKED`].
const STONE_KEYS: [KeyPair; 2] = [
    OWN as KeyPair | (BLOCKED as KeyPair) << 16,
    BLOCKED as KeyPair | (OWN as KeyPair) << 16,
];

/// A cell's value in side `side`'s [`LineKey`]s.
fn cell_value(code: u8, side: usize) -> LineKey {
    match code {
        CELL_EMPTY => EMPTY,
        CELL_BLACK if side == 0 => OWN,
        CELL_WHITE if side == 1 => OWN,
        _ => BLOCKED,
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Board ({:?}, {} stones)", self.rule, self.stones)?;
        for y in 0..15 {
            for x in 0..15 {
                let p = Pos::new(x, y).expect("in range");
                let c = match self.stone(p) {
                    Some(Color::Black) => 'x',
                    Some(Color::White) => 'o',
                    None => '.',
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Pos {
        text.parse().unwrap()
    }

    #[test]
    fn new_board_is_consistent() {
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            let board = Board::new(rule);
            board.verify_layers().unwrap();
            assert_eq!(board.shape_count(Color::Black, Shape::None), 225);
        }
    }

    #[test]
    fn move_and_undo_restore_everything() {
        let mut board = Board::new(Rule::Renju);
        let empty_hash = board.hash();
        for text in ["h8", "h9", "i9", "g7", "a1", "o15", "j10"] {
            board.play(p(text)).unwrap();
            board.verify_layers().unwrap();
        }
        board.pass();
        board.verify_layers().unwrap();
        while board.undo().is_some() {
            board.verify_layers().unwrap();
        }
        assert_eq!(board.hash(), empty_hash);
    }

    #[test]
    fn hash_after_foretells_the_key_of_a_move() {
        let mut board = Board::new(Rule::Renju);
        for text in ["h8", "h9", "i9", "g7", "a1", "o15"] {
            let foretold = board.hash_after(p(text));
            board.make_move(p(text));
            assert_eq!(board.hash(), foretold, "after {text}");
        }
        board.pass();
        let foretold = board.hash_after(p("j10"));
        board.make_move(p("j10"));
        assert_eq!(board.hash(), foretold, "after a pass and j10");
    }

    #[test]
    fn play_rejects_occupied_and_off_board() {
        let mut board = Board::new(Rule::Renju);
        board.play(Pos::CENTER).unwrap();
        assert_eq!(
            board.play(Pos::CENTER),
            Err(PlaceError::Occupied(Pos::CENTER))
        );
        assert!(matches!(board.play(Pos(15)), Err(PlaceError::OffBoard(_))));
    }

    #[test]
    fn shapes_follow_the_stones() {
        let mut board = Board::new(Rule::Renju);
        for text in ["h8", "a1", "i8", "a3", "j8", "a5"] {
            board.play(p(text)).unwrap();
        }
        assert_eq!(board.shape(p("k8"), Color::Black), Shape::OpenFour);
        assert_eq!(board.shape(p("g8"), Color::Black), Shape::OpenFour);
        assert_eq!(board.shape(p("a2"), Color::White), Shape::Four);
        assert_eq!(board.shape(p("a4"), Color::White), Shape::Four);
        assert_eq!(board.five_points(Color::Black), Vec::<Pos>::new());
    }
}

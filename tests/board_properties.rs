//! Property tests of the layered board: random games with undo at random points keep layers 2
//! and 3 (and the Zobrist key) equal to a from-scratch recomputation, with layer 3's line-shape
//! pair the two strongest of layer 2's lines; the same stones placed in another order give the
//! same key and shapes; the shape a point would have after a block, read without placing the
//! block, is the shape it has after it, and a block never gives a side without forbidden points a
//! new threat; and the table-driven renju judge agrees with a slow judge written here directly
//! from the RIF definitions, on random crowded positions.

use gobang::rules::{Board, Color, ForbiddenKind, LineShape, Pos, Rule, Shape};
use proptest::prelude::*;

fn rule_strategy() -> impl Strategy<Value = Rule> {
    prop_oneof![
        Just(Rule::Renju),
        Just(Rule::Standard),
        Just(Rule::Freestyle)
    ]
}

/// One step of a random game: play the n-th empty point (modulo), or undo.
#[derive(Clone, Debug)]
enum Action {
    Play(usize),
    Pass,
    Undo,
}

fn action_strategy() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => (0usize..225).prop_map(Action::Play),
        1 => Just(Action::Pass),
        2 => Just(Action::Undo),
    ]
}

fn empty_points(board: &Board) -> Vec<Pos> {
    Pos::all().filter(|&p| board.is_empty(p)).collect()
}

/// A board from the picked moves (each the n-th empty point, modulo), stopping while an empty
/// point is left; its empty points; and the picked one of them.
fn board_and_empty_point(rule: Rule, picks: &[usize], q_pick: usize) -> (Board, Vec<Pos>, Pos) {
    let mut board = Board::new(rule);
    for &n in picks {
        let empties = empty_points(&board);
        if empties.len() < 2 {
            break;
        }
        board.make_move(empties[n % empties.len()]);
    }
    let empties = empty_points(&board);
    let q = empties[q_pick % empties.len()];
    (board, empties, q)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn incremental_layers_match_recomputation(
        rule in rule_strategy(),
        actions in prop::collection::vec(action_strategy(), 1..120),
    ) {
        let mut board = Board::new(rule);
        for action in actions {
            match action {
                Action::Play(n) => {
                    let empties = empty_points(&board);
                    if empties.is_empty() {
                        continue;
                    }
                    board.make_move(empties[n % empties.len()]);
                }
                Action::Pass => board.pass(),
                Action::Undo => {
                    board.undo();
                }
            }
            if let Err(difference) = board.verify_layers() {
                prop_assert!(false, "{difference}\n{board:?}");
            }
        }
        for p in empty_points(&board) {
            for color in [Color::Black, Color::White] {
                let mut lines: Vec<LineShape> =
                    (0..4).map(|dir| board.line_shape(p, color, dir)).collect();
                lines.sort_unstable_by(|a, b| b.cmp(a));
                let pair = board.shape_pair(p, color);
                prop_assert_eq!((pair.strongest, pair.second), (lines[0], lines[1]));
            }
        }
        while board.undo().is_some() {}
        prop_assert_eq!(board.hash(), Board::new(rule).hash());
    }

    #[test]
    fn key_and_shapes_do_not_depend_on_move_order(
        rule in rule_strategy(),
        picks in prop::collection::vec(0usize..225, 1..80),
        seed in any::<u64>(),
    ) {
        let mut board = Board::new(rule);
        for n in picks {
            let empties = empty_points(&board);
            board.make_move(empties[n % empties.len()]);
        }
        let mut stones: Vec<(Pos, Color)> = Pos::all()
            .filter_map(|p| board.stone(p).map(|c| (p, c)))
            .collect();
        // Deterministic shuffle from the seed.
        let mut state = seed | 1;
        for i in (1..stones.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            stones.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let rebuilt = Board::from_stones(rule, &stones, board.side_to_move()).unwrap();
        prop_assert_eq!(rebuilt.hash(), board.hash());
        for p in Pos::all() {
            for color in [Color::Black, Color::White] {
                prop_assert_eq!(rebuilt.shape(p, color), board.shape(p, color));
            }
        }
        prop_assert_eq!(rebuilt.forbidden_points(), board.forbidden_points());
    }

    #[test]
    fn shape_if_blocked_equals_the_shape_after_the_block(
        rule in rule_strategy(),
        picks in prop::collection::vec(0usize..225, 1..80),
        q_pick in 0usize..225,
    ) {
        let (mut board, empties, q) = board_and_empty_point(rule, &picks, q_pick);
        for color in [Color::Black, Color::White] {
            let predicted: Vec<_> = empties
                .iter()
                .map(|&t| {
                    let suspect = board.is_renju_suspect_if_blocked(t, q);
                    (t, board.shape_if_blocked(t, color, q), suspect)
                })
                .collect();
            board.place_stone(q, color.opponent()).unwrap();
            for (t, shape, suspect) in predicted {
                if t != q {
                    prop_assert_eq!(shape, board.shape(t, color), "{} blocked by {}", t, q);
                    if color == Color::Black {
                        prop_assert_eq!(suspect, board.is_renju_suspect(t), "{} after {}", t, q);
                    }
                }
            }
            board.undo();
        }
    }

    #[test]
    fn a_block_makes_no_new_threat_for_a_side_without_forbidden_points(
        rule in rule_strategy(),
        picks in prop::collection::vec(0usize..225, 1..80),
        q_pick in 0usize..225,
    ) {
        let threat = |shape: Shape| {
            matches!(shape, Shape::OpenFour | Shape::FourThree | Shape::DoubleFour)
        };
        let (mut board, empties, q) = board_and_empty_point(rule, &picks, q_pick);
        for color in [Color::Black, Color::White] {
            if rule.has_forbidden(color) {
                continue;
            }
            let before: Vec<Shape> = empties.iter().map(|&t| board.shape(t, color)).collect();
            board.place_stone(q, color.opponent()).unwrap();
            for (&t, &shape) in empties.iter().zip(&before) {
                if t != q && threat(board.shape(t, color)) {
                    prop_assert!(threat(shape), "{} became a threat after {}", t, q);
                }
            }
            board.undo();
        }
    }
}

/// A slow renju judge from the definitions, sharing no code with the board's tables: it reads
/// stones only, and recurses on a copy of the stone grid.
mod reference {
    use super::*;

    const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

    #[derive(Clone)]
    pub struct Stones([[Option<Color>; 15]; 15]);

    impl Stones {
        pub fn of(board: &Board) -> Stones {
            let mut grid = [[None; 15]; 15];
            for p in Pos::all() {
                grid[p.y() as usize][p.x() as usize] = board.stone(p);
            }
            Stones(grid)
        }

        fn get(&self, x: i32, y: i32) -> Option<Option<Color>> {
            if (0..15).contains(&x) && (0..15).contains(&y) {
                Some(self.0[y as usize][x as usize])
            } else {
                None
            }
        }

        fn is_black(&self, x: i32, y: i32) -> bool {
            self.get(x, y) == Some(Some(Color::Black))
        }

        fn is_empty(&self, x: i32, y: i32) -> bool {
            self.get(x, y) == Some(None)
        }

        fn set(&mut self, x: i32, y: i32, stone: Option<Color>) {
            self.0[y as usize][x as usize] = stone;
        }

        /// Length of the black run through (x, y) along (dx, dy), and its first cell.
        fn run(&self, x: i32, y: i32, dx: i32, dy: i32) -> (i32, i32, usize) {
            let (mut fx, mut fy) = (x, y);
            while self.is_black(fx - dx, fy - dy) {
                fx -= dx;
                fy -= dy;
            }
            let mut length = 0;
            while self.is_black(fx + dx * length as i32, fy + dy * length as i32) {
                length += 1;
            }
            (fx, fy, length)
        }

        /// Distinct fours through black stone (x, y) along the direction: five-points q such
        /// that black at q makes exactly five including (x, y); a straight four counts once.
        fn fours(&mut self, x: i32, y: i32, dx: i32, dy: i32) -> usize {
            let mut five_points = Vec::new();
            for k in -4..=4 {
                let (qx, qy) = (x + k * dx, y + k * dy);
                if k == 0 || !self.is_empty(qx, qy) {
                    continue;
                }
                self.set(qx, qy, Some(Color::Black));
                let (fx, fy, length) = self.run(x, y, dx, dy);
                let contains = (0..length as i32).any(|i| (fx + i * dx, fy + i * dy) == (qx, qy));
                self.set(qx, qy, None);
                if contains && length == 5 {
                    five_points.push(k);
                }
            }
            let straight = five_points.len() == 2 && five_points[1] - five_points[0] == 5;
            if straight {
                1
            } else {
                five_points.len()
            }
        }

        /// With black on (x, y): is there a real three along the direction? Per the RIF
        /// definition, the straight-four point must not make a five at the same time.
        fn real_three(&mut self, x: i32, y: i32, dx: i32, dy: i32) -> bool {
            for k in -4..=4 {
                let (qx, qy) = (x + k * dx, y + k * dy);
                if k == 0 || !self.is_empty(qx, qy) {
                    continue;
                }
                self.set(qx, qy, Some(Color::Black));
                let (fx, fy, length) = self.run(x, y, dx, dy);
                let contains = (0..length as i32).any(|i| (fx + i * dx, fy + i * dy) == (qx, qy));
                let makes_five = DIRS.iter().any(|&(ex, ey)| self.run(qx, qy, ex, ey).2 == 5);
                let straight_four = !makes_five
                    && length == 4
                    && self.is_empty(fx - dx, fy - dy)
                    && !self.is_black(fx - 2 * dx, fy - 2 * dy)
                    && self.is_empty(fx + 4 * dx, fy + 4 * dy)
                    && !self.is_black(fx + 5 * dx, fy + 5 * dy);
                self.set(qx, qy, None);
                if contains && straight_four && self.judge(qx, qy).is_none() {
                    return true;
                }
            }
            false
        }

        pub fn judge(&mut self, x: i32, y: i32) -> Option<ForbiddenKind> {
            self.set(x, y, Some(Color::Black));
            let lengths: Vec<usize> = DIRS
                .iter()
                .map(|&(dx, dy)| self.run(x, y, dx, dy).2)
                .collect();
            let verdict = if lengths.contains(&5) {
                None
            } else if lengths.iter().any(|&l| l >= 6) {
                Some(ForbiddenKind::Overline)
            } else if DIRS
                .iter()
                .map(|&(dx, dy)| self.fours(x, y, dx, dy))
                .sum::<usize>()
                >= 2
            {
                Some(ForbiddenKind::DoubleFour)
            } else if DIRS
                .iter()
                .filter(|&&(dx, dy)| self.real_three(x, y, dx, dy))
                .count()
                >= 2
            {
                Some(ForbiddenKind::DoubleThree)
            } else {
                None
            };
            self.set(x, y, None);
            verdict
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Crowded random positions in the centre (many black stones, so plenty of forbidden
    /// points and nested threes): the board's judge equals the slow judge at every empty point.
    #[test]
    fn judge_agrees_with_slow_reference(
        cells in prop::collection::vec(0u8..3, 81),
    ) {
        let mut stones = Vec::new();
        for (i, &cell) in cells.iter().enumerate() {
            let p = Pos::new(3 + (i % 9) as u8, 3 + (i / 9) as u8).unwrap();
            match cell {
                1 => stones.push((p, Color::Black)),
                2 if i % 3 == 0 => stones.push((p, Color::White)),
                _ => {}
            }
        }
        let board = Board::from_stones(Rule::Renju, &stones, Color::Black).unwrap();
        let mut slow = reference::Stones::of(&board);
        for p in Pos::all().filter(|&p| board.is_empty(p)) {
            let expected = slow.judge(p.x() as i32, p.y() as i32);
            prop_assert_eq!(board.forbidden_kind(p), expected, "at {}\n{:?}", p, board);
        }
    }
}

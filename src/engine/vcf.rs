//! VCF: victory by continuous fours. A depth-first threat-space search in which the attacker
//! only plays fours (each forcing the single block) until it makes five or has two five points.
//!
//! Renju is respected on both sides: Black never plays a forbidden four, a White four whose only
//! block is forbidden for Black wins at once, and when the defender's block makes a four of its
//! own the attacker must block it with a four or the line fails. Failed positions are remembered
//! in a table of their own (with the depth they failed at) so that transpositions of the same
//! fours are searched once. A win returns the line: attacker, defender, ..., the attacker's five.
//!
//! The quick looks inside the main search try only constructive fours ([`Fours::Constructive`]):
//! a four whose stone adds at most a two to its other lines seldom leads on (only when later fours
//! add to the same lines, as in this module's tests), and leaving such fours out cut the bench's
//! nodes by a third. The root's search, which must find every VCF it can, tries them all
//! ([`Fours::All`]).

use super::movegen::{first_five_point, four_points, is_playable};
use super::time::TimeControl;
use crate::rules::{Board, Color, LineShape, Pos, Shape};

/// Which fours the attacker tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fours {
    /// Every four: a complete search.
    All,
    /// Only fours that also make a three or better along another line, or more than a single
    /// four along their own (an open four, two fours, a five): a narrower, much cheaper search.
    Constructive,
}

/// The VCF solver with its table of failed positions.
pub struct Vcf {
    keys: Vec<u64>,
    depths: Vec<u8>,
    nodes: u64,
    budget: u64,
    aborted: bool,
    /// Attacker moves (fours and the five) in the last line found.
    attacker_moves: u32,
    /// Scratch lists of four points, one per recursion level.
    scratch: Vec<Vec<Pos>>,
    /// The fours tried by the running search.
    fours: Fours,
}

/// Table size (entries).
const TABLE_BITS: u32 = 18;

impl Default for Vcf {
    fn default() -> Vcf {
        Vcf::new()
    }
}

impl Vcf {
    pub fn new() -> Vcf {
        Vcf {
            keys: vec![0; 1 << TABLE_BITS],
            depths: vec![0; 1 << TABLE_BITS],
            nodes: 0,
            budget: 0,
            aborted: false,
            attacker_moves: 0,
            scratch: Vec::new(),
            fours: Fours::All,
        }
    }

    pub fn clear(&mut self) {
        self.keys.fill(0);
        self.depths.fill(0);
    }

    /// Nodes visited by the last [`Vcf::solve`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Plies from the position searched to the five of the last line found (the line may skip a
    /// defender move that does not matter, when Black cannot block on a forbidden point).
    pub fn win_plies(&self) -> u32 {
        (2 * self.attacker_moves).saturating_sub(1)
    }

    /// Looks for a VCF of the side to move with at most `max_fours` of the `fours`, visiting at
    /// most `budget` nodes. `clock` is checked every few hundred nodes, with `base_nodes` added to
    /// the node count it sees. Returns the winning line (attacker first, ending with its five).
    pub fn solve(
        &mut self,
        board: &mut Board,
        fours: Fours,
        max_fours: i32,
        budget: u64,
        clock: &mut TimeControl,
        base_nodes: u64,
    ) -> Option<Vec<Pos>> {
        self.nodes = 0;
        self.budget = budget;
        self.aborted = false;
        self.attacker_moves = 0;
        self.fours = fours;
        let mut line = Vec::new();
        let mut context = Context { clock, base_nodes };
        if self.attack(board, max_fours, 0, &mut line, &mut context) {
            line.reverse();
            Some(line)
        } else {
            None
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key >> (64 - TABLE_BITS)) as usize
    }

    /// The table key of `board`'s position. A narrow search's failures are kept apart: they do
    /// not prove that the complete search fails too.
    fn table_key(&self, board: &Board) -> u64 {
        match self.fours {
            Fours::All => board.hash(),
            Fours::Constructive => board.hash() ^ CONSTRUCTIVE_KEY,
        }
    }

    fn known_failure(&self, key: u64, depth: i32) -> bool {
        let slot = self.slot(key);
        self.keys[slot] == key && self.depths[slot] as i32 >= depth
    }

    fn record_failure(&mut self, key: u64, depth: i32) {
        let slot = self.slot(key);
        self.keys[slot] = key;
        self.depths[slot] = depth.clamp(0, 255) as u8;
    }

    /// The attacker (side to move) plays a four. `line` collects the winning line backwards.
    fn attack(
        &mut self,
        board: &mut Board,
        depth: i32,
        level: usize,
        line: &mut Vec<Pos>,
        context: &mut Context,
    ) -> bool {
        self.nodes += 1;
        if context.clock.poll(context.base_nodes + self.nodes) {
            self.aborted = true;
        }
        if self.aborted || self.nodes >= self.budget {
            self.aborted = true;
            return false;
        }
        let me = board.side_to_move();
        let opp = me.opponent();
        if let Some(five) = first_five_point(board, me) {
            line.push(five);
            self.attacker_moves += 1;
            return true;
        }
        if depth <= 0 {
            return false;
        }
        let key = self.table_key(board);
        if self.known_failure(key, depth) {
            return false;
        }
        if self.scratch.len() <= level {
            self.scratch.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.scratch[level]);
        match board.shape_count(opp, Shape::Five) {
            0 => {
                four_points(board, me, &mut moves);
                if self.fours == Fours::Constructive {
                    moves.retain(|&p| is_constructive_four(board, me, p));
                }
                let last = last_own_move(board);
                // A stable sort: equal keys keep the point order. (Short lists: no allocation.)
                moves.sort_by_key(|&p| {
                    let shape = board.shape(p, me);
                    let distance = last.map_or(0, |q| p.distance(q) as i32);
                    (std::cmp::Reverse(shape), distance)
                });
            }
            1 => {
                moves.clear();
                if let Some(block) = first_five_point(board, opp) {
                    if board.shape(block, me).has_four() && is_playable(board, block) {
                        moves.push(block);
                    }
                }
            }
            _ => moves.clear(),
        }
        let mut won = false;
        for &p in &moves {
            board.make_move(p);
            won = self.defend(board, depth, level, line, context);
            board.undo();
            if won {
                line.push(p);
                self.attacker_moves += 1;
                break;
            }
            if self.aborted {
                break;
            }
        }
        self.scratch[level] = moves;
        if !won && !self.aborted {
            self.record_failure(key, depth);
        }
        won
    }

    /// The defender (side to move) must block the attacker's five point.
    fn defend(
        &mut self,
        board: &mut Board,
        depth: i32,
        level: usize,
        line: &mut Vec<Pos>,
        context: &mut Context,
    ) -> bool {
        let attacker = board.side_to_move().opponent();
        match board.shape_count(attacker, Shape::Five) {
            0 => false,
            1 => {
                let Some(block) = first_five_point(board, attacker) else {
                    return false;
                };
                if !is_playable(board, block) {
                    // Black may not block on a forbidden point: White fives there.
                    line.push(block);
                    self.attacker_moves += 1;
                    return true;
                }
                board.make_move(block);
                let won = self.attack(board, depth - 1, level + 1, line, context);
                board.undo();
                if won {
                    line.push(block);
                }
                won
            }
            _ => {
                // The defender blocks one five point, the attacker takes another.
                let mut fives = Pos::all()
                    .filter(|&q| board.is_empty(q) && board.shape(q, attacker) == Shape::Five);
                match (fives.next(), fives.next()) {
                    (Some(blocked), Some(five)) => {
                        line.push(five);
                        line.push(blocked);
                        self.attacker_moves += 1;
                        true
                    }
                    _ => false,
                }
            }
        }
    }
}

struct Context<'c, 'a> {
    clock: &'c mut TimeControl<'a>,
    base_nodes: u64,
}

/// Mixed into the table key of positions searched with [`Fours::Constructive`].
const CONSTRUCTIVE_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// Whether `color`'s four on `p` also makes a three or better along another line, or more than a
/// single four along its own.
fn is_constructive_four(board: &Board, color: Color, p: Pos) -> bool {
    let pair = board.shape_pair(p, color);
    pair.strongest > LineShape::Four || pair.second >= LineShape::Three
}

/// The side to move's last stone (two plies back), to search fours near it first.
fn last_own_move(board: &Board) -> Option<Pos> {
    let history = board.history();
    history.len().checked_sub(2).and_then(|i| history[i].pos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Limits;
    use crate::rules::{Color, Rule};
    use std::sync::atomic::AtomicBool;

    fn p(text: &str) -> Pos {
        text.parse().unwrap()
    }

    fn solve(board: &Board) -> Option<Vec<Pos>> {
        let stop = AtomicBool::new(false);
        let mut clock = TimeControl::new(&Limits::default(), &stop);
        let mut board = board.clone();
        Vcf::new().solve(&mut board, Fours::All, 40, 1_000_000, &mut clock, 0)
    }

    fn at(x: u8, y: u8) -> Pos {
        Pos::new(x, y).unwrap()
    }

    #[test]
    fn only_the_complete_search_finds_a_vcf_that_starts_with_bare_fours() {
        // Black's rows x=4..6 at y=7 (closed by White on the left) and x=8..10 at y=8 (closed
        // on the right) give fours at (7,7) and (7,8), each adding a stone to column x=7 under
        // Black's (7,10): the second makes a three there, then (7,9) an open four. Every first
        // four makes only twos along its other lines.
        let mut stones = vec![
            (at(3, 7), Color::White),
            (at(11, 8), Color::White),
            (at(7, 10), Color::Black),
        ];
        for x in 4..=6 {
            stones.push((at(x, 7), Color::Black));
            stones.push((at(x + 4, 8), Color::Black));
        }
        let mut board = Board::from_stones(Rule::Freestyle, &stones, Color::Black).unwrap();
        assert!(!is_constructive_four(&board, Color::Black, at(7, 7)));
        let stop = AtomicBool::new(false);
        let mut clock = TimeControl::new(&Limits::default(), &stop);
        let mut vcf = Vcf::new();
        let narrow = vcf.solve(
            &mut board,
            Fours::Constructive,
            40,
            1_000_000,
            &mut clock,
            0,
        );
        assert!(narrow.is_none(), "{narrow:?}");
        // The narrow search's failures do not stop the complete one.
        let line = vcf
            .solve(&mut board, Fours::All, 40, 1_000_000, &mut clock, 0)
            .expect("a VCF");
        assert_eq!(line.len() % 2, 1, "attacker, defender, ..., five: {line:?}");
    }

    #[test]
    fn finds_a_simple_double_four() {
        // Black h8 i8 j8 (closed on the left by white g8) and h10 h11 h12 (closed above by h13):
        // k8 then h9 makes 4-4 is forbidden for Black, so Black wins by k8, l8 / or column fours.
        let stones = [
            (p("h8"), Color::Black),
            (p("i8"), Color::Black),
            (p("j8"), Color::Black),
            (p("g8"), Color::White),
            (p("a1"), Color::White),
        ];
        let board = Board::from_stones(Rule::Freestyle, &stones, Color::Black).unwrap();
        // A closed three: k8 makes a four, white blocks l8, no more fours.
        assert!(solve(&board).is_none());
        let mut stones = stones.to_vec();
        stones.extend([
            (p("l9"), Color::Black),
            (p("l10"), Color::Black),
            (p("l11"), Color::Black),
            (p("l12"), Color::White),
        ]);
        let board = Board::from_stones(Rule::Freestyle, &stones, Color::Black).unwrap();
        // l8 makes a double four (row and column).
        let line = solve(&board).unwrap();
        assert_eq!(line[0], p("l8"));
        assert_eq!(line.len(), 3);
        assert_eq!(Vcf::new().win_plies(), 0);
    }
}

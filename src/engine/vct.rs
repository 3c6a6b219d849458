//! Bounded VCT: victory by continuous threats, on top of the VCF solver.
//!
//! The attacker plays fours, threes, or quiet moves after which it threatens a VCF; when the
//! defender has a threat of its own (an open three), the attacker may also stop it with a move
//! that makes a three of its own, keeping the initiative. The defender answers every threat with
//! all its defences (the blocks of a three and its own fours and threes, or the points of the
//! threatened VCF line). A position where the attacker's last move left no threat fails. Iterative
//! deepening on the number of attacker moves, with three tables: attacker positions that failed
//! (and at what depth), attacker positions proven won (a proof holds at any depth, and lines that
//! reach a position by different orders of moves prove it once), and for defender positions the
//! defence that last refuted the attack, tried first when the next iteration comes back there.
//! Defences are otherwise tried best-looking first (the move generator's order score).

use super::movegen::{analyse, generate, has_four_point, is_playable, vcf_defences, Status};
use super::time::TimeControl;
use super::vcf::{Fours, Vcf};
use crate::rules::{Board, Pos, Shape};

const TABLE_BITS: u32 = 16;
/// Fours and nodes of the VCF looks inside the VCT.
const VCF_FOURS: i32 = 20;
const VCF_NODES: u64 = 400;
/// Fours and nodes of the look for a VCF threat after a quiet attacker move.
const THREAT_FOURS: i32 = 12;
const THREAT_NODES: u64 = 120;

/// An attacker position proven won: its key, the winning move and the plies to the five (at
/// least one; zero marks an empty slot, whose key may well be a position's: the empty board's
/// is zero).
#[derive(Clone, Copy)]
struct ProvenWin {
    key: u64,
    plies: u16,
    first: Pos,
}

const NO_WIN: ProvenWin = ProvenWin {
    key: 0,
    plies: 0,
    first: Pos(0),
};

/// The VCT solver with its tables.
pub struct Vct {
    /// Attacker positions that failed, and the depth they failed at.
    keys: Vec<u64>,
    depths: Vec<u8>,
    /// Attacker positions proven won.
    wins: Vec<ProvenWin>,
    /// Defender positions: the defence that last refuted the attack.
    refutation_keys: Vec<u64>,
    refutations: Vec<Pos>,
    nodes: u64,
    budget: u64,
    aborted: bool,
}

impl Default for Vct {
    fn default() -> Vct {
        Vct::new()
    }
}

struct Run<'s, 'c, 'a> {
    vcf: &'s mut Vcf,
    clock: &'c mut TimeControl<'a>,
    base_nodes: u64,
}

impl Vct {
    pub fn new() -> Vct {
        Vct {
            keys: vec![0; 1 << TABLE_BITS],
            depths: vec![0; 1 << TABLE_BITS],
            wins: vec![NO_WIN; 1 << TABLE_BITS],
            refutation_keys: vec![0; 1 << TABLE_BITS],
            refutations: vec![Pos(0); 1 << TABLE_BITS],
            nodes: 0,
            budget: 0,
            aborted: false,
        }
    }

    pub fn clear(&mut self) {
        self.keys.fill(0);
        self.depths.fill(0);
        self.wins.fill(NO_WIN);
        self.refutation_keys.fill(0);
    }

    /// Nodes (including VCF nodes) visited by the last [`Vct::solve`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Looks for a VCT of the side to move with up to `max_depth` attacker moves within `budget`
    /// nodes. Returns the first move and the plies to the five along the line found.
    pub fn solve(
        &mut self,
        board: &mut Board,
        vcf: &mut Vcf,
        max_depth: i32,
        budget: u64,
        clock: &mut TimeControl,
        base_nodes: u64,
    ) -> Option<(Pos, u32)> {
        self.nodes = 0;
        self.budget = budget;
        self.aborted = false;
        let mut run = Run {
            vcf,
            clock,
            base_nodes,
        };
        for depth in 1..=max_depth {
            let mut first = None;
            if let Some(plies) = self.attack(board, depth, &mut first, &mut run) {
                return first.map(|p| (p, plies));
            }
            if self.aborted {
                break;
            }
        }
        None
    }

    fn slot(&self, key: u64) -> usize {
        (key >> (64 - TABLE_BITS)) as usize
    }

    fn tick(&mut self, run: &mut Run) -> bool {
        self.nodes += 1;
        if run.clock.poll(run.base_nodes + self.nodes) || self.nodes >= self.budget {
            self.aborted = true;
        }
        self.aborted
    }

    /// A VCF of the side to move: its first move and plies to the five.
    fn vcf(&mut self, board: &mut Board, run: &mut Run) -> Option<(Pos, u32)> {
        let found = run.vcf.solve(
            board,
            Fours::All,
            VCF_FOURS,
            VCF_NODES,
            run.clock,
            run.base_nodes + self.nodes,
        );
        self.nodes += run.vcf.nodes();
        found.and_then(|line| line.first().map(|&p| (p, run.vcf.win_plies())))
    }

    /// The attacker (side to move) threatens; returns the plies to its five if it wins.
    fn attack(
        &mut self,
        board: &mut Board,
        depth: i32,
        first: &mut Option<Pos>,
        run: &mut Run,
    ) -> Option<u32> {
        if self.tick(run) {
            return None;
        }
        let status = analyse(board);
        match status {
            Status::Win(p) => {
                *first = Some(p);
                return Some(1);
            }
            Status::Lost => return None,
            _ => {}
        }
        let key = board.hash();
        let slot = self.slot(key);
        let win = self.wins[slot];
        if win.plies > 0 && win.key == key {
            *first = Some(win.first);
            return Some(u32::from(win.plies));
        }
        if self.keys[slot] == key && self.depths[slot] as i32 >= depth {
            return None;
        }
        let result = self.attack_moves(board, depth, status, first, run);
        match (result, *first) {
            (Some(plies), Some(p)) => {
                self.wins[slot] = ProvenWin {
                    key,
                    plies: u16::try_from(plies).unwrap_or(u16::MAX).max(1),
                    first: p,
                };
            }
            (None, _) if !self.aborted => {
                self.keys[slot] = key;
                self.depths[slot] = depth.clamp(0, 255) as u8;
            }
            _ => {}
        }
        result
    }

    fn attack_moves(
        &mut self,
        board: &mut Board,
        depth: i32,
        status: Status,
        first: &mut Option<Pos>,
        run: &mut Run,
    ) -> Option<u32> {
        let me = board.side_to_move();
        if has_four_point(board, me) {
            if let Some((p, plies)) = self.vcf(board, run) {
                *first = Some(p);
                return Some(plies);
            }
        }
        if depth <= 1 || self.aborted {
            return None;
        }
        let mut moves: Vec<Pos> = Vec::new();
        if let Status::Forced(block) = status {
            moves.push(block);
        } else {
            // In a quiet position: fours and threes, then moves that make a closed three and may
            // threaten a VCF. Against the defender's open three (or four-three point): the moves
            // that stop it and make a three of our own. Either way the defender's side decides
            // whether a threat was made.
            let mut candidates = Vec::new();
            generate(board, status, &mut candidates);
            candidates.retain(|m| board.shape(m.0, me) >= Shape::Three);
            candidates.sort_by_key(|m| std::cmp::Reverse((board.shape(m.0, me), m.1)));
            moves.extend(candidates.iter().map(|m| m.0));
        }
        for p in moves {
            board.make_move(p);
            let result = self.defend(board, depth, run);
            board.undo();
            if let Some(plies) = result {
                *first = Some(p);
                return Some(plies + 1);
            }
            if self.aborted {
                break;
            }
        }
        None
    }

    /// The defender (side to move) answers; returns the plies to the attacker's five if every
    /// defence loses.
    fn defend(&mut self, board: &mut Board, depth: i32, run: &mut Run) -> Option<u32> {
        if self.tick(run) {
            return None;
        }
        let status = analyse(board);
        let mut moves = Vec::new();
        match status {
            Status::Win(_) => return None,
            Status::Lost => return Some(2),
            Status::Forced(block) => moves.push((block, 0)),
            Status::Threatened => generate(board, status, &mut moves),
            Status::Quiet => {
                board.pass();
                let line = if has_four_point(board, board.side_to_move()) {
                    let found = run.vcf.solve(
                        board,
                        Fours::Constructive,
                        THREAT_FOURS,
                        THREAT_NODES,
                        run.clock,
                        run.base_nodes + self.nodes,
                    );
                    self.nodes += run.vcf.nodes();
                    found
                } else {
                    None
                };
                board.undo();
                match line {
                    Some(line) => vcf_defences(board, &line, &mut moves),
                    None => return None,
                }
            }
        }
        // Best-looking first (a stable sort keeps the generator's order among equals), and the
        // defence that refuted the attack here before ahead of all.
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        let key = board.hash();
        let slot = self.slot(key);
        if self.refutation_keys[slot] == key {
            let refutation = self.refutations[slot];
            if let Some(index) = moves.iter().position(|m| m.0 == refutation) {
                moves[..=index].rotate_right(1);
            }
        }
        let mut longest = 0;
        for (p, _) in moves {
            if !is_playable(board, p) {
                continue;
            }
            board.make_move(p);
            let mut ignored = None;
            let result = self.attack(board, depth - 1, &mut ignored, run);
            board.undo();
            match result {
                Some(plies) => longest = longest.max(plies + 1),
                None => {
                    if !self.aborted {
                        self.refutation_keys[slot] = key;
                        self.refutations[slot] = p;
                    }
                    return None;
                }
            }
        }
        Some(longest.max(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Limits;
    use crate::rules::{Color, Rule};
    use std::sync::atomic::AtomicBool;

    fn solve(black: &[&str], white: &[&str], depth: i32) -> Option<(Pos, u32)> {
        let mut board = Board::from_points(Rule::Freestyle, black, white, Color::Black);
        let stop = AtomicBool::new(false);
        let mut clock = TimeControl::new(&Limits::depth(20), &stop);
        Vct::new().solve(&mut board, &mut Vcf::new(), depth, 1_000_000, &mut clock, 0)
    }

    #[test]
    fn the_attacker_stops_an_open_three_with_a_double_three() {
        // White's open three d4 e4 f4 must be stopped, and Black has no four to play. g4 stops it
        // and makes two open threes (g4 g5 g6, g4 h5 i6). White can block only one of them (its
        // four c4 first only delays: Black blocks at b4), and Black makes an open four.
        let black = ["g5", "g6", "h5", "i6"];
        let white = ["d4", "e4", "f4"];
        let found = solve(&black, &white, 4);
        assert_eq!(found.map(|(p, _)| p.to_string()), Some("g4".to_string()));

        // Without i6, g4 makes only one open three: White blocks it, and Black has no VCT.
        let single = solve(&["g5", "g6", "h5"], &white, 4);
        assert_eq!(single, None);
    }

    #[test]
    fn an_empty_table_proves_nothing() {
        // The empty board's key is zero, as is an empty slot's in the tables.
        let mut board = Board::new(Rule::Renju);
        assert_eq!(board.hash(), 0);
        let stop = AtomicBool::new(false);
        let mut clock = TimeControl::new(&Limits::depth(20), &stop);
        let found = Vct::new().solve(&mut board, &mut Vcf::new(), 4, 10_000, &mut clock, 0);
        assert_eq!(found, None);
    }

    #[test]
    fn a_position_proven_won_is_answered_from_the_table() {
        let black = ["g5", "g6", "h5", "i6"];
        let white = ["d4", "e4", "f4"];
        let mut board = Board::from_points(Rule::Freestyle, &black, &white, Color::Black);
        let stop = AtomicBool::new(false);
        let mut clock = TimeControl::new(&Limits::depth(20), &stop);
        let (mut vct, mut vcf) = (Vct::new(), Vcf::new());
        let first = vct.solve(&mut board, &mut vcf, 4, 1_000_000, &mut clock, 0);
        assert!(first.is_some());
        assert!(vct.nodes() > 1, "the first look searches");
        let again = vct.solve(&mut board, &mut vcf, 4, 1_000_000, &mut clock, 0);
        assert_eq!(again, first);
        assert_eq!(
            vct.nodes(),
            1,
            "the second look reads the win from the table"
        );
        vct.clear();
        let cleared = vct.solve(&mut board, &mut vcf, 4, 1_000_000, &mut clock, 0);
        assert_eq!(cleared, first);
        assert!(vct.nodes() > 1, "a cleared table searches again");
    }
}

//! The main search: iterative deepening principal-variation alpha-beta with aspiration windows,
//! a transposition table, killer moves and a history table (a bonus for the move that cut off,
//! a malus for the quiet moves tried before it), null-move pruning, reverse futility pruning,
//! move-count pruning and late-move reductions for quiet moves (as in Rapfi: by depth and move
//! number, more where the static value is not improving and at expected cut nodes), and a VCF
//! look at the leaves.
//!
//! Forced replies (blocking the opponent's four) cost no depth, so a four and its block together
//! cost one ply: fours are extended. Scores are from the side to move's point of view; a win in
//! `n` plies is `MATE - n` counted from the root.
//!
//! Lazy SMP: helper threads ([`Searcher::run_helper`]) run the same iterative deepening over the
//! root moves the main thread kept, with their own killers, history and VCF/VCT tables, sharing
//! only the transposition table; each skips some depths (a different pattern per helper) so that
//! the threads spread over depths and fill the table with different results. Only the main
//! thread's answer is returned.

use super::book;
use super::eval::Evaluator;
use super::movegen::{
    analyse, first_five_point, generate, generate_quiet_for_search, has_four_point, is_playable,
    vcf_defences, Status,
};
use super::time::TimeControl;
use super::tt::{Bound, Table};
use super::vcf::{Fours, Vcf};
use super::vct::Vct;
use super::{Score, SearchInfo, SearchResult};
use crate::rules::{Board, Move, Pos, Shape};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

/// The score of making five at once (minus the plies it takes).
pub const MATE: i32 = 30_000;
/// Scores at least this large (in absolute value) are proven wins or losses.
pub const MATE_BOUND: i32 = 29_000;
const INFINITY: i32 = 31_000;
/// Static evaluations stay inside this range.
const EVAL_LIMIT: i32 = 20_000;
const MAX_PLY: usize = 120;

/// Fours a VCF at the root may use (the longest known puzzles need about seventy).
const ROOT_VCF_FOURS: i32 = 100;
/// Node budget of the VCF at the root.
const ROOT_VCF_NODES: u64 = 2_000_000;
/// Attacker moves and node budget (per second of the move's time, and at most) of the VCT at
/// the root.
const ROOT_VCT_DEPTH: i32 = 10;
const ROOT_VCT_NODES_PER_SECOND: f64 = 20_000.0;
const ROOT_VCT_MAX_NODES: u64 = 200_000;
/// The look for the opponent's VCT after each root move: nodes per second of the move's time
/// (shared by the root moves), bounds per root move, and the opponent's attacker moves.
const REFUTATION_NODES_PER_SECOND: f64 = 60_000.0;
const REFUTATION_MIN_NODES_PER_MOVE: u64 = 200;
const REFUTATION_MAX_NODES_PER_MOVE: u64 = 20_000;
const REFUTATION_VCT_DEPTH: i32 = 6;
/// Threatened nodes with at most this many answers search them without losing depth.
const EXTENDED_DEFENCES: usize = 4;
/// The history score is divided by 2 to this power before it is added to a move's ordering score,
/// so that it breaks near-ties of the static order rather than overruling it. (At full weight it
/// swamped the order; scaled down it scored 58% in self-play and about 62% instead of 52-56%
/// against SlowRenju: see the README's strength section.)
const HISTORY_SHIFT: u32 = 4;
/// History scores count in the move order only up to this size either way (a bonus is capped when
/// it is read, a malus when it is written).
const HISTORY_LIMIT: i32 = 1 << 18;
/// Late-move reductions, as in Rapfi and Stockfish: a late quiet move at depth `d`, the `n`-th
/// tried, is searched `round(scale * ln d * ln n)` plies shallower, one ply less at PV nodes, one
/// more where the position is not improving (its static value no better than two plies before),
/// and one more at an expected cut node; never below depth 1.
const LATE_MOVE_REDUCTION_SCALE: f64 = 0.5;
/// Depths and move numbers the reduction and move-count tables cover (larger ones use the last).
const TABLE_DEPTHS: usize = 64;
const TABLE_MOVES: usize = 256;
/// Move-count pruning, as in Rapfi: quiet non-PV nodes of depth `d` try the first
/// `3 + d^1.5` moves when improving and half as many otherwise; later quiet moves are skipped.
const MOVE_COUNT_BASE: f64 = 3.0;
/// Reverse futility pruning: a quiet non-PV node of at most this depth whose static value beats
/// beta by this margin a ply (a ply less when improving) returns that value, unless the opponent,
/// were it to move, wins by a short VCF.
const REVERSE_FUTILITY_MAX_DEPTH: i32 = 6;
const REVERSE_FUTILITY_MARGIN: i32 = 80;
/// Null-move pruning: quiet non-PV nodes at least this deep whose static value beats beta let the
/// opponent move twice, searched this many plies shallower than a normal reply. (A stone almost
/// never hurts its owner in gomoku; the rare renju exception, a Black stone that makes a point
/// forbidden, is still seen by the search below the pass.)
const NULL_MOVE_MIN_DEPTH: i32 = 2;
const NULL_MOVE_REDUCTION: i32 = 2;
/// Fours and nodes of the look for the opponent's VCF threat at inner nodes and at the root.
const THREAT_VCF_FOURS: i32 = 16;
const THREAT_VCF_NODES: u64 = 150;
const ROOT_THREAT_NODES: u64 = 20_000;
/// Fours and nodes of the VCF at the leaves of the main search.
const LEAF_VCF_FOURS: i32 = 12;
const LEAF_VCF_NODES: u64 = 80;

/// Depth skipping of the helper threads (helper `i` uses entry `(i - 1) % 20`): depth `d` is
/// skipped when `(d + PHASE) / SIZE` is odd, as in Stockfish's Lazy SMP.
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// Late-move reductions by depth and move number (see [`LATE_MOVE_REDUCTION_SCALE`]).
static REDUCTIONS: LazyLock<Box<[[i32; TABLE_MOVES]; TABLE_DEPTHS]>> = LazyLock::new(|| {
    let mut table = Box::new([[0; TABLE_MOVES]; TABLE_DEPTHS]);
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (number, reduction) in row.iter_mut().enumerate().skip(1) {
            let scaled = LATE_MOVE_REDUCTION_SCALE * (depth as f64).ln() * (number as f64).ln();
            *reduction = scaled.round() as i32;
        }
    }
    table
});

/// Move-count pruning limits by improving (index 1) or not (0) and depth (see
/// [`MOVE_COUNT_BASE`]): quiet moves from this index on are skipped.
static MOVE_COUNT_LIMITS: LazyLock<[[usize; TABLE_DEPTHS]; 2]> = LazyLock::new(|| {
    let mut limits = [[0; TABLE_DEPTHS]; 2];
    for (improving, row) in limits.iter_mut().enumerate() {
        for (depth, limit) in row.iter_mut().enumerate() {
            let moves = (MOVE_COUNT_BASE + (depth as f64).powf(1.5)) / (2 - improving) as f64;
            *limit = moves.ceil() as usize;
        }
    }
    limits
});

/// A search thread's own tables, kept by the engine between searches.
pub struct ThreadTables {
    pub vcf: Vcf,
    pub vct: Vct,
    pub history: Box<[[i32; 256]; 2]>,
}

impl Default for ThreadTables {
    fn default() -> ThreadTables {
        ThreadTables {
            vcf: Vcf::new(),
            vct: Vct::new(),
            history: Box::new([[0; 256]; 2]),
        }
    }
}

impl ThreadTables {
    pub fn clear(&mut self) {
        self.vcf.clear();
        self.vct.clear();
        self.history.iter_mut().for_each(|h| h.fill(0));
    }

    /// Old history fades at the start of every search.
    pub fn age_history(&mut self) {
        for side in self.history.iter_mut() {
            side.iter_mut().for_each(|h| *h /= 8);
        }
    }
}

/// Converts an internal score into the facade's [`Score`].
pub fn to_score(value: i32) -> Score {
    if value >= MATE_BOUND {
        Score::WinIn(((MATE - value + 1) / 2) as u32)
    } else if value <= -MATE_BOUND {
        Score::LossIn(((MATE + value) / 2) as u32)
    } else {
        Score::Eval(value)
    }
}

/// Per-search state borrowed from the engine.
pub struct Searcher<'e, 'a> {
    pub board: Board,
    pub tt: &'e Table,
    pub use_tt: bool,
    pub vcf: &'e mut Vcf,
    pub vct: &'e mut Vct,
    pub evaluator: &'e Evaluator,
    pub history: &'e mut [[i32; 256]; 2],
    pub clock: TimeControl<'a>,
    pub nodes: u64,
    /// Nodes the helper threads have searched so far (the main thread reports them).
    helper_nodes: Option<&'e AtomicU64>,
    killers: Vec<[Option<Pos>; 2]>,
    move_lists: Vec<Vec<(Pos, i32)>>,
    pv: Vec<Vec<Pos>>,
    max_depth: u32,
    /// Depth of the running iteration (bounds the extensions of answers to threats).
    iteration_depth: i32,
    /// The root's only move, when the opening book chose it.
    book_move: Option<book::BookMove>,
    /// Static values of the nodes on the current path, by ply, from each node's side to move.
    static_evals: Vec<i32>,
}

impl<'e, 'a> Searcher<'e, 'a> {
    pub fn new(
        board: Board,
        tt: &'e Table,
        use_tt: bool,
        tables: &'e mut ThreadTables,
        evaluator: &'e Evaluator,
        clock: TimeControl<'a>,
        max_depth: u32,
    ) -> Searcher<'e, 'a> {
        Searcher {
            board,
            tt,
            use_tt,
            vcf: &mut tables.vcf,
            vct: &mut tables.vct,
            evaluator,
            history: &mut tables.history,
            clock,
            nodes: 0,
            helper_nodes: None,
            killers: vec![[None; 2]; MAX_PLY + 1],
            move_lists: vec![Vec::new(); MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 1],
            max_depth,
            iteration_depth: 0,
            book_move: None,
            static_evals: vec![0; MAX_PLY + 2],
        }
    }

    /// The main thread counts the helpers' nodes (published to `counter`) in its reports.
    pub fn report_helper_nodes(&mut self, counter: &'e AtomicU64) {
        self.helper_nodes = Some(counter);
    }

    fn result(&self, best: Option<Pos>, value: i32, depth: u32, pv: Vec<Pos>) -> SearchResult {
        SearchResult {
            best_move: best,
            score: to_score(value),
            depth,
            nodes: self.nodes,
            elapsed: self.clock.elapsed(),
            pv,
            book_opening: self
                .book_move
                .filter(|book_move| best == Some(book_move.pos))
                .map(|book_move| book_move.opening),
        }
    }

    fn info(&self, depth: u32, value: i32, pv: &[Pos]) -> SearchInfo {
        let elapsed = self.clock.elapsed();
        let nodes = self.nodes + self.helper_nodes.map_or(0, |n| n.load(Ordering::Relaxed));
        SearchInfo {
            depth,
            score: to_score(value),
            nodes,
            nodes_per_second: (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
            elapsed,
            pv: pv.to_vec(),
        }
    }

    /// The root moves, best-looking first, or the answer at once (a five to make, a lost
    /// position, no move at all).
    fn root_moves(
        &mut self,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<Vec<(Pos, i32)>, SearchResult> {
        let status = analyse(&mut self.board);
        let mut root_moves = Vec::new();
        if !self.generate_defences(
            status,
            ROOT_THREAT_NODES,
            ThreatLook::NotYet,
            &mut root_moves,
        ) {
            generate(&mut self.board, status, &mut root_moves);
        }
        match status {
            Status::Win(p) => {
                let value = MATE - 1;
                on_info(&self.info(1, value, &[p]));
                return Err(self.result(Some(p), value, 1, vec![p]));
            }
            Status::Lost => {
                // Every move loses: block one five point anyway, or play the best-looking point.
                let me = self.board.side_to_move();
                let fallback = first_five_point(&self.board, me.opponent())
                    .filter(|&p| is_playable(&mut self.board, p))
                    .or_else(|| {
                        let mut moves = Vec::new();
                        generate(&mut self.board, Status::Quiet, &mut moves);
                        moves.iter().max_by_key(|m| m.1).map(|m| m.0)
                    });
                let value = -(MATE - 2);
                return Err(self.result(fallback, value, 1, fallback.into_iter().collect()));
            }
            _ => {}
        }
        if root_moves.is_empty() {
            // No defence holds (or none was found): still play the best-looking point.
            generate(&mut self.board, Status::Quiet, &mut root_moves);
        }
        if root_moves.is_empty() {
            return Err(self.result(None, 0, 0, Vec::new()));
        }
        root_moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        // Opening theory the search cannot see: its move is the only one searched, which takes
        // a short search as for any single reply.
        if let Some(book_move) = book::book_move(&self.board)
            .filter(|book_move| root_moves.iter().any(|m| m.0 == book_move.pos))
        {
            root_moves.retain(|m| m.0 == book_move.pos);
            self.book_move = Some(book_move);
        }
        Ok(root_moves)
    }

    /// The main thread's work before iterative deepening ([`Searcher::search_root`]): the root
    /// moves, a VCF and a bounded VCT at the root (either ends the search with its win), and the
    /// root moves after which the opponent wins by VCT left out. Returns the root moves to
    /// search, best-looking first, or the answer when there is nothing to search.
    pub fn prepare_root(
        &mut self,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<Vec<(Pos, i32)>, SearchResult> {
        let mut root_moves = self.root_moves(on_info)?;
        // A VCF at the root settles the game at once.
        let vcf_budget = if self.max_depth < 4 {
            0
        } else {
            ROOT_VCF_NODES
        };
        if vcf_budget > 0 {
            if let Some(line) = self.vcf.solve(
                &mut self.board,
                Fours::All,
                ROOT_VCF_FOURS,
                vcf_budget,
                &mut self.clock,
                0,
            ) {
                self.nodes += self.vcf.nodes();
                let plies = self.vcf.win_plies();
                let value = MATE - plies as i32;
                on_info(&self.info(plies, value, &line));
                return Err(self.result(Some(line[0]), value, plies, line));
            }
            self.nodes += self.vcf.nodes();
            // Then a bounded VCT, on a share of the time.
            let budget = (self.clock.hard_limit().as_secs_f64() * ROOT_VCT_NODES_PER_SECOND) as u64;
            let found = self.vct(ROOT_VCT_DEPTH, budget.min(ROOT_VCT_MAX_NODES));
            if let Some((p, plies)) = found {
                if !self.clock.stopped() {
                    let value = MATE - plies as i32;
                    on_info(&self.info(plies, value, &[p]));
                    return Err(self.result(Some(p), value, plies, vec![p]));
                }
            }
            self.drop_refuted_root_moves(&mut root_moves);
        }
        Ok(root_moves)
    }

    /// The main thread's iterative deepening over the root moves [`Searcher::prepare_root`] gave.
    pub fn search_root(
        &mut self,
        root_moves: &mut [(Pos, i32)],
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.iterate(root_moves, None, on_info)
    }

    /// Leaves out the root moves after which the opponent wins by a VCT (found within a small
    /// budget each), as long as some move survives: such losses often lie beyond the main
    /// search's horizon. A move whose VCT look runs out of budget is kept.
    fn drop_refuted_root_moves(&mut self, root_moves: &mut Vec<(Pos, i32)>) {
        if root_moves.len() < 2 {
            return;
        }
        let total = (self.clock.hard_limit().as_secs_f64() * REFUTATION_NODES_PER_SECOND) as u64;
        let per_move = (total / root_moves.len() as u64).min(REFUTATION_MAX_NODES_PER_MOVE);
        if per_move < REFUTATION_MIN_NODES_PER_MOVE {
            return;
        }
        let mut kept = Vec::with_capacity(root_moves.len());
        for &(p, order) in root_moves.iter() {
            self.board.make_move(p);
            let refuted = self.vct(REFUTATION_VCT_DEPTH, per_move).is_some();
            self.board.undo();
            if self.clock.stopped() {
                return;
            }
            if !refuted {
                kept.push((p, order));
            }
        }
        if !kept.is_empty() {
            *root_moves = kept;
        }
    }

    /// A VCT of the side to move with up to `depth` attacker moves within `budget` nodes (counted
    /// in this search's nodes): its first move and the plies to the five.
    fn vct(&mut self, depth: i32, budget: u64) -> Option<(Pos, u32)> {
        let found = self.vct.solve(
            &mut self.board,
            self.vcf,
            depth,
            budget,
            &mut self.clock,
            self.nodes,
        );
        self.nodes += self.vct.nodes();
        found
    }

    /// A helper thread's search (helper `index`, from 1) over the main thread's root moves (the
    /// ones [`Searcher::prepare_root`] kept): iterative deepening only, skipping depths by its
    /// own pattern, until the main thread is done. Its nodes go to the count its clock publishes
    /// to.
    pub fn run_helper(&mut self, index: usize, root_moves: &mut [(Pos, i32)]) {
        if !root_moves.is_empty() {
            self.iterate(root_moves, Some(index), &mut |_| {});
        }
        self.clock.publish(self.nodes);
    }

    /// Iterative deepening over `root_moves`; `helper` is the helper's index (`None` for the main
    /// thread).
    fn iterate(
        &mut self,
        root_moves: &mut [(Pos, i32)],
        helper: Option<usize>,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let mut best = root_moves[0].0;
        let mut best_value: i32 = 0;
        let mut best_pv = vec![best];
        let mut completed = 0;
        // A single reply is played at once; a short search still tells how it stands.
        let max_depth = if root_moves.len() == 1 {
            self.max_depth.min(4)
        } else {
            self.max_depth
        };
        let mut stable = 0;
        for depth in 1..=max_depth as i32 {
            if depth > 1 && !self.clock.may_start_iteration(stable) {
                break;
            }
            if let Some(index) = helper {
                let skip = (index - 1) % SKIP_SIZE.len();
                if depth > 1 && (depth + SKIP_PHASE[skip]) / SKIP_SIZE[skip] % 2 == 1 {
                    continue;
                }
            }
            self.iteration_depth = depth;
            let (mut alpha, mut beta) = (-INFINITY, INFINITY);
            let mut delta = 60;
            if depth >= 4 && best_value.abs() < MATE_BOUND {
                alpha = best_value - delta;
                beta = best_value + delta;
            }
            let outcome = loop {
                let outcome = self.root_search(root_moves, depth, alpha, beta);
                if self.clock.stopped() {
                    break outcome;
                }
                let Some((_, value)) = outcome else {
                    break outcome;
                };
                if value <= alpha {
                    alpha = (alpha - delta).max(-INFINITY);
                    if value <= -MATE_BOUND {
                        alpha = -INFINITY;
                    }
                } else if value >= beta {
                    beta = (beta + delta).min(INFINITY);
                    if value >= MATE_BOUND {
                        beta = INFINITY;
                    }
                } else {
                    break outcome;
                }
                delta *= 2;
            };
            let Some((move_found, value)) = outcome else {
                break;
            };
            if self.clock.stopped() {
                // A partial iteration only counts if its best move beat the previous one.
                if move_found != best && value > best_value {
                    best = move_found;
                    best_value = value;
                    best_pv = self.pv[0].clone();
                }
                break;
            }
            stable = if move_found == best { stable + 1 } else { 0 };
            best = move_found;
            best_value = value;
            best_pv = self.pv[0].clone();
            completed = depth as u32;
            on_info(&self.info(completed, best_value, &best_pv));
            if best_value.abs() >= MATE_BOUND {
                break;
            }
        }
        if best_pv.first() != Some(&best) {
            best_pv = vec![best];
        }
        self.result(Some(best), best_value, completed.max(1), best_pv)
    }

    /// One root iteration; moves are re-sorted by their scores. Returns the best move and value
    /// (`None` if stopped before the first move was searched).
    fn root_search(
        &mut self,
        root_moves: &mut [(Pos, i32)],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(Pos, i32)> {
        let mut best: Option<(Pos, i32)> = None;
        let original_alpha = alpha;
        self.static_evals[0] = self.evaluate();
        for (index, entry) in root_moves.iter_mut().enumerate() {
            let p = entry.0;
            self.board.make_move(p);
            let child_depth = depth - 1;
            let mut value;
            if index == 0 {
                value = -self.negamax(child_depth, 1, -beta, -alpha, false);
            } else {
                value = -self.negamax(child_depth, 1, -alpha - 1, -alpha, true);
                if value > alpha && value < beta && !self.clock.stopped() {
                    value = -self.negamax(child_depth, 1, -beta, -alpha, false);
                }
            }
            self.board.undo();
            if self.clock.stopped() {
                break;
            }
            entry.1 = if value > alpha {
                value
            } else {
                -INFINITY - index as i32
            };
            if best.is_none_or(|(_, b)| value > b) {
                best = Some((p, value));
                if value > alpha {
                    self.update_pv(0, p);
                }
            }
            if value > alpha {
                alpha = value;
                if value >= beta {
                    break;
                }
            }
        }
        if !self.clock.stopped() {
            // Best first, then the rest by how they scored.
            root_moves.sort_by_key(|m| std::cmp::Reverse(m.1));
            if let Some((p, _)) = best {
                if let Some(i) = root_moves.iter().position(|m| m.0 == p) {
                    root_moves[..=i].rotate_right(1);
                }
            }
            if let Some((p, value)) = best {
                if value <= original_alpha {
                    self.pv[0] = vec![p];
                }
            }
        }
        best
    }

    fn update_pv(&mut self, ply: usize, p: Pos) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(p);
        line.extend_from_slice(&tail[0]);
    }

    fn evaluate(&self) -> i32 {
        self.evaluator
            .evaluate(&self.board)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn negamax(
        &mut self,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        cut_node: bool,
    ) -> i32 {
        self.nodes += 1;
        if self.clock.poll(self.nodes) {
            return 0;
        }
        self.pv[ply].clear();
        let status = analyse(&mut self.board);
        match status {
            Status::Win(p) => {
                self.pv[ply].push(p);
                return MATE - (ply as i32 + 1);
            }
            Status::Lost => return -(MATE - (ply as i32 + 2)),
            _ => {}
        }
        if self.board.is_full() || ply >= MAX_PLY {
            return 0;
        }
        // Mate distance pruning.
        alpha = alpha.max(-(MATE - ply as i32));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if let Status::Forced(p) = status {
            // The block costs no depth: fours are extended.
            self.static_evals[ply] = -self.static_evals[ply - 1];
            self.board.make_move(p);
            let value = -self.negamax(depth, ply + 1, -beta, -alpha, !cut_node);
            self.board.undo();
            if value > alpha {
                self.update_pv(ply, p);
            }
            return value;
        }
        if depth <= 0 {
            return self.leaf(ply, beta);
        }
        let pv_node = beta - alpha > 1;
        let key = self.board.hash();
        let mut tt_move = None;
        if self.use_tt {
            if let Some(hit) = self.tt.probe(key, ply as i32) {
                tt_move = hit.best;
                if !pv_node && hit.depth >= depth {
                    let cut = match hit.bound {
                        Bound::Exact => true,
                        Bound::Lower => hit.score >= beta,
                        Bound::Upper => hit.score <= alpha,
                    };
                    if cut {
                        return hit.score;
                    }
                }
            }
        }
        let static_eval = self.evaluate();
        self.static_evals[ply] = static_eval;
        let improving = ply >= 2 && static_eval > self.static_evals[ply - 2];
        let mut threat = ThreatLook::NotYet;
        if !pv_node && status == Status::Quiet {
            if let Some(value) =
                self.reverse_futility_cut(depth, beta, static_eval, improving, &mut threat)
            {
                return value;
            }
        }
        if !pv_node && status == Status::Quiet && depth >= NULL_MOVE_MIN_DEPTH {
            if let Some(value) = self.null_move_cut(depth, ply, beta, static_eval, cut_node) {
                return value;
            }
        }
        let mut moves = std::mem::take(&mut self.move_lists[ply]);
        let against_vcf = self.generate_defences(status, THREAT_VCF_NODES, threat, &mut moves);
        if !against_vcf {
            if status == Status::Quiet {
                generate_quiet_for_search(&mut self.board, &mut moves);
            } else {
                generate(&mut self.board, status, &mut moves);
            }
        }
        if moves.is_empty() {
            self.move_lists[ply] = moves;
            // No defence against the opponent's threat: it makes a four or open four next, then
            // five. (Also Black with nothing but forbidden points: a loss as well.)
            return -(MATE - (ply as i32 + 4));
        }
        let me = self.board.side_to_move().index();
        let killers = self.killers[ply];
        for m in moves.iter_mut() {
            // The table's move is only trusted if generated here (verified).
            if Some(m.0) == tt_move {
                m.1 += 1 << 24;
            } else if Some(m.0) == killers[0] {
                m.1 += 1 << 20;
            } else if Some(m.0) == killers[1] {
                m.1 += 1 << 19;
            }
            m.1 += self.history[me][m.0.index()].min(HISTORY_LIMIT) >> HISTORY_SHIFT;
        }
        let original_alpha = alpha;
        let mut best_value = -INFINITY;
        let mut best_move = None;
        let quiet_node = status == Status::Quiet && !against_vcf;
        // Answers to an open three or four-three threat cost no depth, like blocks of fours, when
        // there are few of them and the extensions on this path stay within half the iteration's
        // depth.
        let move_count_limit =
            MOVE_COUNT_LIMITS[improving as usize][(depth as usize).min(TABLE_DEPTHS - 1)];
        let child_depth = if status == Status::Threatened
            && moves.len() <= EXTENDED_DEFENCES
            && ply as i32 + depth < self.iteration_depth + self.iteration_depth / 2
        {
            depth
        } else {
            depth - 1
        };
        for index in 0..moves.len() {
            select_next(&mut moves, index);
            let (p, order) = moves[index];
            let tactical = order >= 1 << 19 || self.is_tactical(p);
            // Move-count pruning: quiet nodes only try their best-ordered quiet moves.
            if quiet_node
                && !pv_node
                && !tactical
                && best_value > -MATE_BOUND
                && index >= move_count_limit
            {
                continue;
            }
            if self.use_tt && child_depth > 0 {
                // The child probes the table after placing the stone: start loading its entry now.
                self.tt.prefetch(self.board.hash_after(p));
            }
            self.board.make_move(p);
            let mut value;
            if index == 0 {
                value = -self.negamax(child_depth, ply + 1, -beta, -alpha, !pv_node && !cut_node);
            } else {
                let reduction = if quiet_node && depth >= 3 && !tactical {
                    self.late_move_reduction(depth, index, pv_node, improving, cut_node)
                        .clamp(0, (child_depth - 1).max(0))
                } else {
                    0
                };
                value = -self.negamax(
                    child_depth - reduction,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    reduction > 0 || !cut_node,
                );
                if reduction > 0 && value > alpha && !self.clock.stopped() {
                    value = -self.negamax(child_depth, ply + 1, -alpha - 1, -alpha, !cut_node);
                }
                if value > alpha && value < beta && !self.clock.stopped() {
                    value = -self.negamax(child_depth, ply + 1, -beta, -alpha, false);
                }
            }
            self.board.undo();
            if self.clock.stopped() {
                self.move_lists[ply] = moves;
                return 0;
            }
            if value > best_value {
                best_value = value;
                best_move = Some(p);
                if value > alpha {
                    alpha = value;
                    self.update_pv(ply, p);
                    if value >= beta {
                        if !tactical {
                            let slot = &mut self.killers[ply];
                            if slot[0] != Some(p) {
                                slot[1] = slot[0];
                                slot[0] = Some(p);
                            }
                        }
                        self.history[me][p.index()] += depth * depth;
                        // The quiet moves tried before the cut failed here: a malus for them.
                        for &(q, _) in &moves[..index] {
                            if !self.is_tactical(q) {
                                let history = &mut self.history[me][q.index()];
                                *history = (*history - depth * depth).max(-HISTORY_LIMIT);
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.move_lists[ply] = moves;
        if self.use_tt {
            let bound = if best_value >= beta {
                Bound::Lower
            } else if best_value > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt
                .store(key, ply as i32, best_value, depth, bound, best_move);
        }
        best_value
    }

    /// The late-move reduction of the quiet move at `index` (see [`LATE_MOVE_REDUCTION_SCALE`]),
    /// before it is bounded by the child's depth.
    fn late_move_reduction(
        &self,
        depth: i32,
        index: usize,
        pv_node: bool,
        improving: bool,
        cut_node: bool,
    ) -> i32 {
        let mut reduction =
            REDUCTIONS[(depth as usize).min(TABLE_DEPTHS - 1)][(index + 1).min(TABLE_MOVES - 1)];
        if pv_node {
            reduction -= 1;
        } else if !improving && reduction >= 1 {
            reduction += 1;
        }
        reduction + cut_node as i32
    }

    /// Reverse futility pruning at a quiet non-PV node (see [`REVERSE_FUTILITY_MARGIN`]): the
    /// static value when it beats `beta` by the margin and the opponent, were it to move, has no
    /// short VCF (a quiet node's static value does not see one). What that look found is kept in
    /// `threat` for the node's move generation.
    fn reverse_futility_cut(
        &mut self,
        depth: i32,
        beta: i32,
        static_eval: i32,
        improving: bool,
        threat: &mut ThreatLook,
    ) -> Option<i32> {
        let margin = REVERSE_FUTILITY_MARGIN * (depth - improving as i32);
        if depth > REVERSE_FUTILITY_MAX_DEPTH
            || static_eval >= MATE_BOUND
            || static_eval - margin < beta
        {
            return None;
        }
        let line = self.opponent_vcf(THREAT_VCF_NODES);
        let cut = line.is_none().then_some(static_eval);
        *threat = ThreatLook::Done(line);
        cut
    }

    /// Null-move pruning at a quiet node: when the static value already beats `beta` and the
    /// opponent, given a free move (a pass, searched [`NULL_MOVE_REDUCTION`] plies shallower),
    /// still cannot bring it below `beta`, the node fails high with that value (a mate score
    /// becomes `beta`: its distance would count the pass). No two passes in a row, and none when
    /// `beta` is a mate bound.
    fn null_move_cut(
        &mut self,
        depth: i32,
        ply: usize,
        beta: i32,
        static_eval: i32,
        cut_node: bool,
    ) -> Option<i32> {
        if beta.abs() >= MATE_BOUND
            || self.board.last_move() == Some(Move::Pass)
            || static_eval < beta
        {
            return None;
        }
        self.board.pass();
        let value = -self.negamax(
            depth - 1 - NULL_MOVE_REDUCTION,
            ply + 1,
            -beta,
            -beta + 1,
            !cut_node,
        );
        self.board.undo();
        if self.clock.stopped() {
            return Some(0);
        }
        (value >= beta).then_some(if value >= MATE_BOUND { beta } else { value })
    }

    /// The opponent's winning line if, were it to move, it would win by a VCF found within
    /// `budget` nodes.
    fn opponent_vcf(&mut self, budget: u64) -> Option<Vec<Pos>> {
        let opp = self.board.side_to_move().opponent();
        if !has_four_point(&self.board, opp) {
            return None;
        }
        self.board.pass();
        let found = self.vcf.solve(
            &mut self.board,
            Fours::Constructive,
            THREAT_VCF_FOURS,
            budget,
            &mut self.clock,
            self.nodes,
        );
        self.nodes += self.vcf.nodes();
        self.board.undo();
        found
    }

    /// In a quiet position where the opponent, were it to move, would win by VCF (looked for
    /// within `budget` nodes unless `threat` already holds the look's answer): fills `moves`
    /// with the defences against that line and returns true.
    fn generate_defences(
        &mut self,
        status: Status,
        budget: u64,
        threat: ThreatLook,
        moves: &mut Vec<(Pos, i32)>,
    ) -> bool {
        if status != Status::Quiet {
            return false;
        }
        let line = match threat {
            ThreatLook::Done(line) => line,
            ThreatLook::NotYet => self.opponent_vcf(budget),
        };
        match line {
            Some(line) => {
                vcf_defences(&mut self.board, &line, moves);
                true
            }
            None => false,
        }
    }

    /// Whether playing `p` (side to move) makes an open three or more, or stops one, where a
    /// plain four, made or stopped, does not count: a four spends its threat at once, and in
    /// crowded positions both sides have many, which kept every one of them from late-move
    /// pruning and reductions (session 47; wins by fours are the VCF's job).
    fn is_tactical(&self, p: Pos) -> bool {
        let me = self.board.side_to_move();
        let makes_threat = |shape: Shape| shape >= Shape::OpenThree && shape != Shape::Four;
        makes_threat(self.board.shape(p, me)) || makes_threat(self.board.shape(p, me.opponent()))
    }

    /// A leaf: the static evaluation, or a win when a short VCF look for the side to move finds
    /// one. The look is skipped when the evaluation already reaches `beta`: a win could only
    /// raise a value that already fails high.
    fn leaf(&mut self, ply: usize, beta: i32) -> i32 {
        let value = self.evaluate();
        if value >= beta {
            return value;
        }
        let me = self.board.side_to_move();
        if has_four_point(&self.board, me) {
            let found = self.vcf.solve(
                &mut self.board,
                Fours::Constructive,
                LEAF_VCF_FOURS,
                LEAF_VCF_NODES,
                &mut self.clock,
                self.nodes,
            );
            self.nodes += self.vcf.nodes();
            if found.is_some() {
                return MATE - (ply as u32 + self.vcf.win_plies()) as i32;
            }
        }
        value
    }
}

/// The look for the opponent's VCF threat at a quiet node, made at most once a node: reverse
/// futility pruning's guard and the move generation need the same answer.
enum ThreatLook {
    NotYet,
    /// The opponent's winning line, if the look found one.
    Done(Option<Vec<Pos>>),
}

/// Moves the best-ordered of `moves[from..]` (the first of equals) to `from`, the others keeping
/// their order: a stable sort done one step at a time, so that a node cut off after its first
/// moves does not sort the rest.
fn select_next(moves: &mut [(Pos, i32)], from: usize) {
    let mut best = from;
    for (index, m) in moves.iter().enumerate().skip(from + 1) {
        if m.1 > moves[best].1 {
            best = index;
        }
    }
    moves[from..=best].rotate_right(1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::eval::Weights;
    use crate::engine::{puzzle, Limits};
    use crate::rules::{Color, Rule};
    use std::sync::atomic::AtomicBool;

    /// A searcher over a freestyle position given as Black and White points, Black to move.
    fn freestyle_searcher<'e>(
        black: &[&str],
        white: &[&str],
        tt: &'e Table,
        tables: &'e mut ThreadTables,
        evaluator: &'e Evaluator,
        stop: &'e AtomicBool,
    ) -> Searcher<'e, 'e> {
        let board = Board::from_points(Rule::Freestyle, black, white, Color::Black);
        let clock = TimeControl::new(&Limits::depth(8), stop);
        Searcher::new(board, tt, true, tables, evaluator, clock, 8)
    }

    #[test]
    fn moves_are_selected_in_stable_sorted_order() {
        let mut state = 7u32;
        for length in 0..40 {
            let mut moves: Vec<(Pos, i32)> = (0..length)
                .map(|i| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (Pos(i as u8), (state >> 16) as i32 % 5)
                })
                .collect();
            let mut sorted = moves.clone();
            sorted.sort_by_key(|m| std::cmp::Reverse(m.1));
            for index in 0..moves.len() {
                select_next(&mut moves, index);
            }
            assert_eq!(moves, sorted);
        }
    }

    #[test]
    fn null_move_and_reverse_futility_cut_only_when_the_opponent_wins_nothing() {
        let stop = AtomicBool::new(false);
        let tt = Table::new(1 << 16);
        // Session 35's weights, a fixed file, so that the margin below does not move with the
        // defaults.
        let weights = Weights::from_text(include_str!("../../data/weights/default-s35.txt"))
            .expect("a valid weights file");
        let evaluator = Evaluator::new(&weights, Rule::Freestyle);

        // White, given a free move, wins by VCF: h9 (a four on row 9 and a closed three h7 . h9
        // h10 on column h, a constructive four, which the short looks try), Black i9, h6 makes
        // fours on row 6 and column h. Nothing of it is a threat yet (Black's g8 breaks the line
        // f9 . h7 i6, Black's h11 closes column h), so Black's position is quiet and its static
        // value is what beta is set to.
        let white = ["e9", "f9", "g9", "e6", "f6", "g6", "h7", "h10"];
        let mut tables = ThreadTables::default();
        let mut searcher = freestyle_searcher(
            &["d9", "d6", "g8", "h11"],
            &white,
            &tt,
            &mut tables,
            &evaluator,
            &stop,
        );
        assert_eq!(analyse(&mut searcher.board), Status::Quiet);
        searcher.board.pass();
        let mut clock = TimeControl::new(&Limits::depth(8), &stop);
        let white_vcf =
            searcher
                .vcf
                .solve(&mut searcher.board, Fours::All, 4, 10_000, &mut clock, 0);
        searcher.board.undo();
        assert!(white_vcf.is_some(), "White wins by VCF with a free move");
        let beta = searcher.evaluate();
        let static_eval = searcher.evaluate();
        assert_eq!(searcher.null_move_cut(4, 1, beta, static_eval, false), None);
        // Far ahead by its static value, Black is still not cut off by reverse futility, and
        // the move generation gets the defences against the line that look found without
        // looking again: the same moves as from a look of its own.
        let mut threat = ThreatLook::NotYet;
        assert_eq!(
            searcher.reverse_futility_cut(2, static_eval - 1_000, static_eval, true, &mut threat),
            None
        );
        assert!(matches!(threat, ThreatLook::Done(Some(_))));
        let (mut reused, mut looked) = (Vec::new(), Vec::new());
        let nodes = searcher.nodes;
        assert!(searcher.generate_defences(Status::Quiet, THREAT_VCF_NODES, threat, &mut reused));
        assert_eq!(searcher.nodes, nodes, "no second look");
        assert!(searcher.generate_defences(
            Status::Quiet,
            THREAT_VCF_NODES,
            ThreatLook::NotYet,
            &mut looked
        ));
        assert!(searcher.nodes > nodes);
        assert!(!reused.is_empty());
        assert_eq!(reused, looked);

        // White with two stones in the corners gains little from a free move: Black, well ahead,
        // is cut off with a value that is no mate.
        let mut tables = ThreadTables::default();
        let black = ["h8", "j8", "g10", "i10", "h12", "k11"];
        let mut searcher =
            freestyle_searcher(&black, &["a1", "o15"], &tt, &mut tables, &evaluator, &stop);
        assert_eq!(analyse(&mut searcher.board), Status::Quiet);
        // (With these weights Black's static value is about 1,630, and the best free move White's
        // depth-1 search finds costs Black some 380 of it with the shape order of moves (before
        // session 70) and some 780 with the order fitted to Rapfi's choices.)
        let beta = searcher.evaluate() - 1_000;
        assert!(beta > 0, "Black is ahead: {beta}");
        let static_eval = searcher.evaluate();
        let cut = searcher.null_move_cut(4, 1, beta, static_eval, false);
        assert!(
            cut.is_some_and(|value| value >= beta && value < MATE_BOUND),
            "{cut:?}"
        );
        // Here reverse futility cuts off with the static value when it beats beta by the margin
        // (two plies, not improving), and not when it falls short of it by one.
        let margin = 2 * REVERSE_FUTILITY_MARGIN;
        assert_eq!(
            searcher.reverse_futility_cut(
                2,
                static_eval - margin,
                static_eval,
                false,
                &mut ThreatLook::NotYet
            ),
            Some(static_eval)
        );
        assert_eq!(
            searcher.reverse_futility_cut(
                2,
                static_eval - margin + 1,
                static_eval,
                false,
                &mut ThreatLook::NotYet
            ),
            None
        );
    }

    #[test]
    fn plain_fours_are_not_tactical_but_open_threes_and_open_fours_are() {
        let stop = AtomicBool::new(false);
        let tt = Table::new(1 << 16);
        let evaluator = Evaluator::new(&Weights::default(), Rule::Freestyle);
        let mut tables = ThreadTables::default();
        // Black: h8 i8 j8 blocked by White's g8 (k8 or l8 makes a plain four), and d4 e4 open
        // (c4 or f4 makes an open three); White: c12 d12 e12 open (b12 or f12 makes an open four,
        // so Black's stone there stops one), and m2 n2 o2 against the edge (l2 makes White a
        // plain four, so Black's stone there only stops a plain four).
        let searcher = freestyle_searcher(
            &["h8", "i8", "j8", "d4", "e4"],
            &["g8", "c12", "d12", "e12", "m2", "n2", "o2"],
            &tt,
            &mut tables,
            &evaluator,
            &stop,
        );
        let shape = |p: &str, color| searcher.board.shape(Pos::from_notation(p).unwrap(), color);
        let tactical = |p: &str| searcher.is_tactical(Pos::from_notation(p).unwrap());
        assert_eq!(shape("k8", Color::Black), Shape::Four);
        assert!(!tactical("k8"), "making a plain four");
        assert_eq!(shape("l2", Color::White), Shape::Four);
        assert!(!tactical("l2"), "stopping a plain four");
        assert_eq!(shape("f4", Color::Black), Shape::OpenThree);
        assert!(tactical("f4"), "making an open three");
        assert_eq!(shape("f12", Color::White), Shape::OpenFour);
        assert!(tactical("f12"), "stopping an open four");
    }

    #[test]
    fn root_moves_that_allow_a_vct_are_left_out() {
        // Black to move wins by a VCT of four moves (quintet's test_vct_black); White to move
        // instead must find a move that stops it.
        let puzzles = puzzle::parse(include_str!("../../tests/fixtures/engine_test_puzzles.txt"))
            .expect("fixture parses");
        let vct = puzzles
            .iter()
            .find(|p| p.name == "quintet/test_vct_black")
            .expect("fixture has the puzzle");
        let board = Board::from_stones(vct.rule, &vct.stones, Color::White).expect("legal");
        let stop = AtomicBool::new(false);
        let tt = Table::new(1 << 20);
        let mut tables = ThreadTables::default();
        let evaluator = Evaluator::new(&Weights::default(), board.rule());
        let limits = Limits::depth(8);
        let clock = TimeControl::new(&limits, &stop);
        let mut searcher = Searcher::new(board, &tt, true, &mut tables, &evaluator, clock, 8);
        let Ok(mut root_moves) = searcher.root_moves(&mut |_| {}) else {
            panic!("White has moves");
        };
        let all = root_moves.clone();
        searcher.drop_refuted_root_moves(&mut root_moves);
        assert!(!root_moves.is_empty(), "some move holds");
        assert!(
            root_moves.len() < all.len(),
            "some move lets the VCT through"
        );

        // Every move left out really loses to a VCT, checked by a solver of its own.
        let mut board = searcher.board.clone();
        let mut vcf = Vcf::new();
        let mut vct = Vct::new();
        let mut clock = TimeControl::new(&limits, &stop);
        for &(p, _) in all.iter().filter(|m| !root_moves.contains(m)) {
            board.make_move(p);
            let found = vct.solve(&mut board, &mut vcf, 8, 1_000_000, &mut clock, 0);
            board.undo();
            assert!(
                found.is_some(),
                "{p} was left out but Black has no VCT after it"
            );
        }
    }
}

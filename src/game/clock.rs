//! The per-move clock: each move must be made within a fixed time (15 s by default). The clock is
//! driven by the caller's notion of "now" so that it can be tested without waiting. It can be
//! paused (the app pauses it while one of its dialogs is open).

use std::time::{Duration, Instant};

/// Default time for one move.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(15);

/// A countdown for the move being made.
#[derive(Clone, Debug)]
pub struct MoveClock {
    limit: Duration,
    enabled: bool,
    started: Option<Instant>,
    /// When the clock was paused, if it is.
    paused_at: Option<Instant>,
}

impl Default for MoveClock {
    fn default() -> MoveClock {
        MoveClock::new(DEFAULT_MOVE_TIME)
    }
}

impl MoveClock {
    pub fn new(limit: Duration) -> MoveClock {
        MoveClock {
            limit,
            enabled: true,
            started: None,
            paused_at: None,
        }
    }

    pub fn limit(&self) -> Duration {
        self.limit
    }

    pub fn set_limit(&mut self, limit: Duration) {
        self.limit = limit;
    }

    /// A disabled clock still measures time but never runs out.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Starts timing a new move at `now` (a paused clock stays paused, at the full limit).
    pub fn start(&mut self, now: Instant) {
        self.started = Some(now);
        if self.paused_at.is_some() {
            self.paused_at = Some(now);
        }
    }

    /// Pauses the clock at `now`, or lets it run on from where it was paused.
    pub fn set_paused(&mut self, paused: bool, now: Instant) {
        match (paused, self.paused_at) {
            (true, None) => self.paused_at = Some(now),
            (false, Some(paused_at)) => {
                let pause = now.saturating_duration_since(paused_at);
                self.started = self.started.map(|start| start + pause);
                self.paused_at = None;
            }
            _ => {}
        }
    }

    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Stops the clock (game over, or waiting for nobody).
    pub fn stop(&mut self) {
        self.started = None;
    }

    pub fn is_running(&self) -> bool {
        self.started.is_some()
    }

    /// Time spent on the current move so far, pauses excluded.
    pub fn elapsed(&self, now: Instant) -> Duration {
        let until = self.paused_at.unwrap_or(now);
        self.started
            .map(|start| until.saturating_duration_since(start))
            .unwrap_or_default()
    }

    /// Time left for the current move (the full limit when stopped).
    pub fn remaining(&self, now: Instant) -> Duration {
        self.limit.saturating_sub(self.elapsed(now))
    }

    /// Whether the current move has run out of time (never, when disabled or stopped).
    pub fn is_expired(&self, now: Instant) -> bool {
        self.enabled && self.is_running() && self.elapsed(now) >= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_and_expires() {
        let start = Instant::now();
        let mut clock = MoveClock::default();
        assert!(!clock.is_expired(start + Duration::from_secs(100)));
        clock.start(start);
        assert_eq!(
            clock.remaining(start + Duration::from_secs(4)),
            Duration::from_secs(11)
        );
        assert!(!clock.is_expired(start + Duration::from_millis(14_999)));
        assert!(clock.is_expired(start + Duration::from_secs(15)));
        assert_eq!(
            clock.remaining(start + Duration::from_secs(20)),
            Duration::ZERO
        );
        clock.set_enabled(false);
        assert!(!clock.is_expired(start + Duration::from_secs(20)));
        clock.set_enabled(true);
        clock.stop();
        assert!(!clock.is_expired(start + Duration::from_secs(20)));
    }

    #[test]
    fn a_pause_does_not_count() {
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let mut clock = MoveClock::default();
        clock.start(start);
        clock.set_paused(true, at(4_000));
        assert!(clock.is_paused());
        assert_eq!(clock.remaining(at(60_000)), Duration::from_secs(11));
        assert!(!clock.is_expired(at(60_000)));
        clock.set_paused(true, at(61_000));
        clock.set_paused(false, at(64_000));
        assert_eq!(clock.remaining(at(65_000)), Duration::from_secs(10));
        assert!(clock.is_expired(at(75_000)));
        // A move started while paused waits at the full limit.
        clock.set_paused(true, at(80_000));
        clock.start(at(81_000));
        assert_eq!(clock.remaining(at(90_000)), Duration::from_secs(15));
        clock.set_paused(false, at(90_000));
        assert_eq!(clock.remaining(at(92_000)), Duration::from_secs(13));
    }
}

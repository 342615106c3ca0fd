//! Timers: one table of deadlines keyed by [`Timer`].
//!
//! The driver arms a single wake-up from [`TimerTable::next`] (exposed as
//! `Connection::poll_timeout`) and calls `handle_timeout(now)`, which pops
//! every timer due at `now`.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use mcp_types::RequestId;

/// Why the core wants to wake up.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Timer {
    /// The deadline of an in-flight request (per-request timeout, reset on
    /// progress when enabled, capped by the maximum total).
    Request(RequestId),
    /// The era probe (`server/discover` on stdio) got no answer in time.
    Probe,
    /// Time to poll a task again; keyed by the call that created it.
    TaskPoll(RequestId),
    /// The earliest cache entry expires.
    CacheExpiry,
}

/// The timer table.
#[derive(Debug, Default)]
pub struct TimerTable {
    by_time: BTreeSet<(Instant, Timer)>,
    by_timer: HashMap<Timer, Instant>,
}

impl TimerTable {
    /// Arms (or re-arms) a timer.
    pub fn set(&mut self, timer: Timer, at: Instant) {
        self.cancel(&timer);
        self.by_time.insert((at, timer.clone()));
        self.by_timer.insert(timer, at);
    }

    /// Disarms a timer.
    pub fn cancel(&mut self, timer: &Timer) {
        if let Some(at) = self.by_timer.remove(timer) {
            self.by_time.remove(&(at, timer.clone()));
        }
    }

    /// When a timer fires, if armed.
    pub fn get(&self, timer: &Timer) -> Option<Instant> {
        self.by_timer.get(timer).copied()
    }

    /// The earliest armed timer.
    pub fn next(&self) -> Option<(Instant, Timer)> {
        self.by_time.first().cloned()
    }

    /// Removes and returns every timer due at `now`, earliest first.
    pub fn expired(&mut self, now: Instant) -> Vec<Timer> {
        let mut out = Vec::new();
        while let Some((at, _)) = self.by_time.first() {
            if *at > now {
                break;
            }
            if let Some((_, t)) = self.by_time.pop_first() {
                self.by_timer.remove(&t);
                out.push(t);
            }
        }
        out
    }

    /// Number of armed timers.
    pub fn len(&self) -> usize {
        self.by_timer.len()
    }

    /// Whether no timer is armed.
    pub fn is_empty(&self) -> bool {
        self.by_timer.is_empty()
    }
}

//! Timers: one table of deadlines keyed by [`Timer`].
//!
//! The driver arms a single wake-up from [`TimerTable::next`] (exposed as
//! `Connection::poll_timeout`) and calls `handle_timeout(now)`, which pops
//! every timer due at `now`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use mcp_types::RequestId;

use crate::correlation::IdMap;

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
    /// Open the 2025-11-25 GET stream again after a `409 Conflict`.
    ServerStreamRetry,
    /// The wait for the GET stream's first answer is over.
    ServerStreamWait,
    /// The earliest served callback task expires.
    ServedTaskExpiry,
}

/// The timer table.
///
/// Deadlines sit in a binary heap with lazy deletion: cancelling or
/// re-arming a timer only updates `armed`, the source of truth, and a heap
/// entry that no longer matches it is stale, dropped when it reaches the
/// top (or in a rebuild, once stale entries outnumber live ones). Requests
/// mostly end in the order they started, so the stale entry of a finished
/// request is usually the top one and goes at once: arming and disarming a
/// request costs a push, a pop and a few cheap hash lookups.
#[derive(Debug, Default)]
pub struct TimerTable {
    /// Deadlines, earliest on top; the top entry is never stale.
    queue: BinaryHeap<Reverse<(Instant, Timer)>>,
    /// The armed timers and their deadlines.
    armed: IdMap<Timer, Instant>,
}

/// Stale heap entries tolerated beyond the live ones before a rebuild
/// (the bound [`TimerTable::queued`] documents).
const STALE_SLACK: usize = 32;

impl TimerTable {
    /// Arms (or re-arms) a timer.
    pub fn set(&mut self, timer: Timer, at: Instant) {
        // Re-arming at the same instant keeps the heap entry it has.
        if self.armed.insert(timer.clone(), at) != Some(at) {
            self.queue.push(Reverse((at, timer)));
            self.settle();
        }
    }

    /// Disarms a timer.
    pub fn cancel(&mut self, timer: &Timer) {
        if self.armed.remove(timer).is_some() {
            self.settle();
        }
    }

    /// When a timer fires, if armed.
    pub fn get(&self, timer: &Timer) -> Option<Instant> {
        self.armed.get(timer).copied()
    }

    /// The earliest armed timer.
    pub fn next(&self) -> Option<(Instant, Timer)> {
        self.queue.peek().map(|Reverse(entry)| entry.clone())
    }

    /// Removes and returns every timer due at `now`, earliest first.
    pub fn expired(&mut self, now: Instant) -> Vec<Timer> {
        let mut out = Vec::new();
        while let Some(Reverse((at, _))) = self.queue.peek() {
            if *at > now {
                break;
            }
            if let Some(Reverse((_, t))) = self.queue.pop() {
                self.armed.remove(&t);
                self.drop_stale_top();
                out.push(t);
            }
        }
        out
    }

    /// Number of armed timers.
    pub fn len(&self) -> usize {
        self.armed.len()
    }

    /// Whether no timer is armed.
    pub fn is_empty(&self) -> bool {
        self.armed.is_empty()
    }

    /// Deadlines held in the queue, live and stale: never more than
    /// `2 * len() + 32`, however timers are cancelled or re-armed.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Restores the invariants after a change: no stale entry on top, and
    /// stale entries bounded by the live ones (a rebuild is linear, and
    /// follows at least as many changes as there are live timers).
    fn settle(&mut self) {
        if self.queue.len() > 2 * self.armed.len() + STALE_SLACK {
            self.queue = self
                .armed
                .iter()
                .map(|(t, at)| Reverse((*at, t.clone())))
                .collect();
        } else {
            self.drop_stale_top();
        }
    }

    fn drop_stale_top(&mut self) {
        while let Some(Reverse((at, t))) = self.queue.peek() {
            if self.armed.get(t) == Some(at) {
                break;
            }
            self.queue.pop();
        }
    }
}

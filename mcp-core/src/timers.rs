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
    /// Debounced notifications are due.
    NotificationFlush,
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
pub(crate) struct TimerTable {
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
    pub(crate) fn set(&mut self, timer: Timer, at: Instant) {
        // Re-arming at the same instant keeps the heap entry it has.
        let before = self.armed.insert(timer.clone(), at);
        if before != Some(at) {
            self.queue.push(Reverse((at, timer)));
            // Only a re-armed timer leaves a stale entry behind; a new one
            // on top of live entries changes neither invariant.
            if before.is_some() {
                self.settle();
            }
        }
    }

    /// Disarms a timer.
    pub(crate) fn cancel(&mut self, timer: &Timer) {
        if let Some(at) = self.armed.remove(timer) {
            // Usually the earliest timer goes (requests end in the order
            // they started): its entry is dropped here, without a lookup.
            if self
                .queue
                .peek()
                .is_some_and(|Reverse((top_at, top))| *top_at == at && top == timer)
            {
                self.queue.pop();
            }
            self.settle();
        }
    }

    /// When a timer fires, if armed.
    pub(crate) fn get(&self, timer: &Timer) -> Option<Instant> {
        self.armed.get(timer).copied()
    }

    /// The earliest armed timer.
    pub(crate) fn next(&self) -> Option<(Instant, Timer)> {
        self.queue.peek().map(|Reverse(entry)| entry.clone())
    }

    /// Removes and returns every timer due at `now`, earliest first.
    pub(crate) fn expired(&mut self, now: Instant) -> Vec<Timer> {
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
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.armed.len()
    }

    /// Whether no timer is armed.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.armed.is_empty()
    }

    /// Deadlines held in the queue, live and stale: never more than
    /// `2 * len() + 32`, however timers are cancelled or re-armed.
    #[cfg(test)]
    pub(crate) fn queued(&self) -> usize {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::test_clock::origin;

    #[test]
    fn earliest_first_rearm_and_expiry() {
        let t0 = origin();
        let mut t = TimerTable::default();
        t.set(Timer::Probe, t0 + Duration::from_secs(5));
        t.set(
            Timer::Request(RequestId::Number(1)),
            t0 + Duration::from_secs(2),
        );
        t.set(Timer::CacheExpiry, t0 + Duration::from_secs(9));
        assert_eq!(
            t.next(),
            Some((
                t0 + Duration::from_secs(2),
                Timer::Request(RequestId::Number(1))
            ))
        );
        t.set(
            Timer::Request(RequestId::Number(1)),
            t0 + Duration::from_secs(7),
        );
        assert_eq!(t.len(), 3);
        assert_eq!(t.next().map(|n| n.1), Some(Timer::Probe));
        assert_eq!(
            t.expired(t0 + Duration::from_secs(7)),
            vec![Timer::Probe, Timer::Request(RequestId::Number(1))]
        );
        t.cancel(&Timer::CacheExpiry);
        assert!(t.is_empty());
    }

    fn request(n: i64) -> Timer {
        Timer::Request(RequestId::Number(n))
    }

    #[test]
    fn stale_entries_are_skipped_and_bounded() {
        let t0 = origin();
        let mut t = TimerTable::default();
        // A long-lived timer on top, many short-lived ones cancelled out of
        // order underneath it.
        t.set(Timer::Probe, t0);
        for n in 0..10_000 {
            t.set(request(n), t0 + Duration::from_secs(60));
            if n % 3 == 0 {
                t.set(request(n), t0 + Duration::from_secs(30));
            }
            if n >= 5 {
                t.cancel(&request(n - 5));
            }
        }
        assert_eq!(t.len(), 6);
        assert!(t.queued() <= 2 * t.len() + 32);
        assert_eq!(t.next(), Some((t0, Timer::Probe)));
        t.cancel(&Timer::Probe);
        // 9996 and 9999 were re-armed earlier (30 s) than the rest (60 s);
        // equal deadlines fire in timer order.
        assert_eq!(
            t.next(),
            Some((t0 + Duration::from_secs(30), request(9_996)))
        );
        let due = t.expired(t0 + Duration::from_secs(60));
        let order = [9_996, 9_999, 9_995, 9_997, 9_998];
        assert_eq!(due, order.map(request));
        assert!(t.is_empty());
        assert_eq!(t.next(), None);
    }

    #[test]
    fn rearming_at_the_same_instant_fires_once() {
        let t0 = origin();
        let mut t = TimerTable::default();
        t.set(request(1), t0);
        t.set(request(1), t0 + Duration::from_secs(1));
        t.set(request(1), t0);
        t.set(request(1), t0);
        assert_eq!(t.get(&request(1)), Some(t0));
        assert_eq!(t.expired(t0 + Duration::from_secs(5)), vec![request(1)]);
        assert!(t.expired(t0 + Duration::from_secs(5)).is_empty());
        assert_eq!(t.next(), None);
    }
}

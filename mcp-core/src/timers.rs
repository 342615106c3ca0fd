//! Timers: a table of deadlines keyed by [`Timer`], for all but the calls'
//! request deadlines, which the connection keeps in the calls' records
//! (`connection/deadlines.rs`: every request arms and disarms one).
//!
//! The driver arms a single wake-up from `Connection::poll_timeout` (the
//! earlier of [`TimerTable::next`] and the first request deadline) and
//! calls `handle_timeout(now)`, which pops every timer due at `now`.

use std::time::Instant;

use mcp_types::RequestId;

use crate::correlation::IdMap;

pub(crate) mod ordered;

use ordered::Ordered;

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

/// The timer table: deadlines in an [`Ordered`] queue, the armed timers in
/// `armed`, the source of truth (see [`ordered`] for the lazy deletion).
#[derive(Debug, Default)]
pub(crate) struct TimerTable {
    queue: Ordered<Timer>,
    /// The armed timers and their deadlines.
    armed: IdMap<Timer, Instant>,
}

impl TimerTable {
    /// Arms (or re-arms) a timer.
    pub(crate) fn set(&mut self, timer: Timer, at: Instant) {
        // Re-arming at the same instant keeps the queued entry it has.
        let before = self.armed.insert(timer.clone(), at);
        if before != Some(at) {
            self.queue.push(at, timer);
            // Only a re-armed timer leaves a stale entry behind; a new one
            // behind live entries changes neither invariant.
            if before.is_some() {
                self.settle();
            }
        }
    }

    /// Disarms a timer.
    pub(crate) fn cancel(&mut self, timer: &Timer) {
        if let Some(at) = self.armed.remove(timer) {
            self.queue.remove_at_front(at, timer);
            self.settle();
        }
    }

    /// When a timer fires, if armed.
    pub(crate) fn get(&self, timer: &Timer) -> Option<Instant> {
        self.armed.get(timer).copied()
    }

    /// The earliest armed timer.
    pub(crate) fn next(&self) -> Option<(Instant, Timer)> {
        self.queue.front().map(|(at, t)| (at, t.clone()))
    }

    /// The earliest armed timer's instant.
    #[inline]
    pub(crate) fn next_at(&self) -> Option<Instant> {
        self.queue.front_at()
    }

    /// Removes and returns every timer due at `now`, earliest first.
    #[cfg(test)]
    pub(crate) fn expired(&mut self, now: Instant) -> Vec<Timer> {
        self.expired_at(now).into_iter().map(|(_, t)| t).collect()
    }

    /// Removes and returns every timer due at `now` with its deadline,
    /// earliest first.
    pub(crate) fn expired_at(&mut self, now: Instant) -> Vec<(Instant, Timer)> {
        let mut out = Vec::new();
        while self.queue.front().is_some_and(|(at, _)| at <= now) {
            if let Some((at, t)) = self.queue.pop_front() {
                self.armed.remove(&t);
                let armed = &self.armed;
                self.queue
                    .drop_stale_fronts(|at, t| armed.get(t) == Some(&at));
                out.push((at, t));
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

    fn settle(&mut self) {
        let armed = &self.armed;
        self.queue.settle(
            armed.len(),
            |at, t| armed.get(t) == Some(&at),
            || armed.iter().map(|(t, at)| (*at, t.clone())),
        );
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

    #[test]
    fn both_queues_fire_like_one_sorted_table() {
        // A fixed pseudo-random mix of in-order and out-of-order arms,
        // re-arms and cancels, checked against a sorted reference.
        let t0 = origin();
        let mut t = TimerTable::default();
        let mut reference = std::collections::BTreeMap::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for step in 0..5_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 64) as i64;
            let at = t0 + Duration::from_millis(step + x % 50);
            if x.is_multiple_of(5) {
                t.cancel(&request(n));
                reference.retain(|_, k| *k != n);
            } else {
                t.set(request(n), at);
                reference.retain(|_, k| *k != n);
                reference.insert((at, n), n);
            }
            assert!(t.queued() <= 2 * t.len() + 32);
            let first = reference.keys().next().map(|(at, n)| (*at, request(*n)));
            assert_eq!(t.next(), first);
            if step.is_multiple_of(97) {
                let now = t0 + Duration::from_millis(step);
                let due: Vec<_> = reference
                    .keys()
                    .take_while(|(at, _)| *at <= now)
                    .map(|(_, n)| request(*n))
                    .collect();
                reference.retain(|(at, _), _| *at > now);
                assert_eq!(t.expired(now), due);
            }
        }
        assert_eq!(t.len(), reference.len());
    }
}

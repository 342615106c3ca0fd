//! Request deadlines: when each call's current request times out.
//!
//! Every call arms one and disarms it when its answer arrives, so this is
//! on the path of every request. The deadline a call has armed is a field
//! of its record (`Call::armed`), the source of truth; the queue here only
//! orders them, and holds `(deadline, call)` pairs that may have gone
//! stale (the call ended, or re-armed its deadline). Arming is a push and
//! disarming a field write, where a timer table keyed by [`Timer`] hashed
//! the timer twice per request. A stale pair is dropped when it reaches
//! the front (one lookup of its call), or in a rebuild once stale pairs
//! outnumber live ones.
//!
//! Deadlines are mostly armed in order (now plus one timeout): a pair
//! later than every pair of `lane` is appended to it (a sorted deque);
//! any other goes to the binary heap. The earliest deadline is the
//! earlier front, compared as `(deadline, call)`. Together with the
//! other timers ([`TimerTable`](crate::timers::TimerTable)) they make
//! `poll_timeout`; a request deadline goes first of timers due at the
//! same instant, as [`Timer::Request`] sorts first.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use mcp_types::RequestId;

use super::Connection;
use crate::timers::Timer;

/// Stale pairs tolerated beyond the live ones before a rebuild.
const STALE_SLACK: usize = 32;

/// The queue of armed request deadlines (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Deadlines {
    /// In-order pairs, strictly increasing; the front is never stale.
    lane: VecDeque<(Instant, i64)>,
    /// Out-of-order pairs, earliest on top; the top is never stale.
    heap: BinaryHeap<Reverse<(Instant, i64)>>,
    /// Calls with a deadline armed.
    live: usize,
}

impl Deadlines {
    fn push(&mut self, at: Instant, key: i64) {
        if self.lane.back().is_none_or(|last| *last < (at, key)) {
            self.lane.push_back((at, key));
        } else {
            self.heap.push(Reverse((at, key)));
        }
    }

    /// The earliest pair, and whether it is the lane's.
    fn front_of(&self) -> Option<((Instant, i64), bool)> {
        let lane = self.lane.front().map(|p| (*p, true));
        let heap = self.heap.peek().map(|Reverse(p)| (*p, false));
        match (lane, heap) {
            (Some(l), Some(h)) => Some(if l.0 < h.0 { l } else { h }),
            (l, h) => l.or(h),
        }
    }

    /// The earliest armed deadline and its call.
    pub(super) fn front(&self) -> Option<(Instant, i64)> {
        self.front_of().map(|(p, _)| p)
    }

    fn pop_front(&mut self) {
        match self.front_of() {
            Some((_, true)) => {
                self.lane.pop_front();
            }
            Some((_, false)) => {
                self.heap.pop();
            }
            None => {}
        }
    }

    /// Pairs queued, live and stale: never more than `2 * live + 32`.
    #[cfg(test)]
    pub(super) fn queued(&self) -> usize {
        self.lane.len() + self.heap.len()
    }
}

impl Connection {
    /// Arms (or re-arms) call `key`'s request deadline.
    pub(super) fn arm_deadline(&mut self, key: i64, at: Instant) {
        let Some(c) = self.calls.get_mut(&key) else {
            return;
        };
        let before = c.armed.replace(at);
        if before == Some(at) {
            return;
        }
        self.deadlines.push(at, key);
        match before {
            None => self.deadlines.live += 1,
            // The pair of the old deadline is stale now.
            Some(_) => self.settle_deadlines(),
        }
    }

    /// Disarms call `key`'s request deadline.
    pub(super) fn disarm_deadline(&mut self, key: i64) {
        let armed = self.calls.get_mut(&key).and_then(|c| c.armed.take());
        self.forget_deadline(key, armed);
    }

    /// Drops the pair of a deadline taken out of call `key`'s record (a
    /// call being removed, or one whose record is borrowed elsewhere).
    pub(super) fn forget_deadline(&mut self, key: i64, armed: Option<Instant>) {
        let Some(at) = armed else {
            return;
        };
        self.deadlines.live -= 1;
        // Usually the earliest goes (calls end in the order they started):
        // its pair is dropped here, without a lookup.
        if self.deadlines.front() == Some((at, key)) {
            self.deadlines.pop_front();
        }
        self.settle_deadlines();
    }

    /// Restores the queue's invariants: no stale pair at either front, and
    /// stale pairs bounded by the live ones.
    fn settle_deadlines(&mut self) {
        let d = &mut self.deadlines;
        if d.lane.len() + d.heap.len() > 2 * d.live + STALE_SLACK {
            d.lane.clear();
            d.heap = self
                .calls
                .iter()
                .filter_map(|(key, c)| c.armed.map(|at| Reverse((at, *key))))
                .collect();
            return;
        }
        while let Some((at, key)) = d.front() {
            if self.calls.get(&key).and_then(|c| c.armed) == Some(at) {
                break;
            }
            d.pop_front();
        }
    }

    /// Disarms and returns, earliest first, every request deadline due at
    /// `now`, as `(deadline, call)`.
    pub(super) fn expired_deadlines(&mut self, now: Instant) -> Vec<(Instant, i64)> {
        let mut out = Vec::new();
        while let Some((at, key)) = self.deadlines.front() {
            if at > now {
                break;
            }
            self.deadlines.pop_front();
            if let Some(c) = self.calls.get_mut(&key) {
                c.armed = None;
                self.deadlines.live -= 1;
            }
            self.settle_deadlines();
            out.push((at, key));
        }
        out
    }

    /// The earliest of the request deadlines and the other timers; a
    /// request deadline first at the same instant.
    pub(super) fn next_deadline(&self) -> Option<(Instant, Timer)> {
        let request = self.deadlines.front();
        let other = self.timers.next();
        match (request, other) {
            (Some((at, key)), Some((t_at, _))) if at <= t_at => {
                Some((at, Timer::Request(RequestId::Number(key))))
            }
            (Some((at, key)), None) => Some((at, Timer::Request(RequestId::Number(key)))),
            (_, other) => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_types::Message;

    use super::*;
    use crate::test_clock::origin;
    use crate::{Config, EraPreference, RequestOptions};

    /// A 2025-11-25 connection, ready.
    fn ready(now: Instant) -> Connection {
        let config = Config::new("t", "1").with_era(EraPreference::LegacyOnly);
        let mut conn = Connection::new(config);
        conn.connect(now).unwrap();
        let Some(crate::Transmit::Message { bytes, .. }) = conn.poll_transmit() else {
            panic!("initialize")
        };
        let id = serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()["id"].clone();
        let reply = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
        );
        conn.handle_message(now, Message::from_slice(reply.as_bytes()).unwrap());
        while conn.poll_transmit().is_some() {}
        while conn.poll_event().is_some() {}
        assert_eq!(conn.state(), crate::State::Ready);
        conn
    }

    #[test]
    fn stale_pairs_stay_bounded_and_never_at_the_front() {
        let now = origin();
        let mut conn = ready(now);
        let mut keys = Vec::new();
        let mut most_queued = 0;
        // Deadlines in and out of order; three calls in four end early,
        // the newest first (its pair is rarely at the front), so stale
        // pairs pile up past the live ones and force rebuilds.
        for i in 0..600u64 {
            let timeout = Duration::from_millis(1_000 + (i * 7919) % 5_000);
            let opts = RequestOptions::default().with_timeout(Some(timeout));
            let id = conn
                .call_tool(now, "t", serde_json::json!({}), opts)
                .unwrap();
            keys.push(id.as_number().unwrap());
            if i % 4 != 0 {
                let k = keys.pop().unwrap();
                conn.cancel(now, &RequestId::Number(k)).unwrap();
            }
            while conn.poll_transmit().is_some() {}
            while conn.poll_event().is_some() {}
            let d = &conn.deadlines;
            let live = conn.calls.values().filter(|c| c.armed.is_some()).count();
            assert_eq!(d.live, live);
            assert!(
                d.queued() <= 2 * live + STALE_SLACK,
                "{} queued, {live} live",
                d.queued()
            );
            most_queued = most_queued.max(d.queued());
            let (at, key) = d.front().unwrap();
            assert_eq!(conn.calls[&key].armed, Some(at), "the front is live");
            let earliest = conn
                .calls
                .iter()
                .filter_map(|(k, c)| c.armed.map(|a| (a, *k)))
                .min();
            assert_eq!(Some((at, key)), earliest);
        }
        assert!(most_queued > 2 * 150, "stale pairs reached a rebuild");
    }
}

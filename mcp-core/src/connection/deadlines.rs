//! Request deadlines: when each call's current request times out.
//!
//! Every call arms one and disarms it when its answer arrives, so this is
//! on the path of every request. The deadline a call has armed is a field
//! of its record (`Call::armed`), the source of truth; an [`Ordered`]
//! queue of `(deadline, call)` pairs orders them, with lazy deletion: a
//! pair goes stale when its call ends or re-arms. Arming is a push and
//! disarming a field write, where a timer table keyed by [`Timer`] hashed
//! the timer twice per request; a stale pair costs one lookup of its call
//! when it reaches a front.
//!
//! Together with the other timers ([`TimerTable`](crate::timers::TimerTable))
//! they make `poll_timeout`; a request deadline goes first of timers due at
//! the same instant, as [`Timer::Request`] sorts first.

use std::time::Instant;

use mcp_types::RequestId;

use super::Connection;
use crate::timers::Timer;
use crate::timers::ordered::Ordered;

/// The calls' armed request deadlines, in order.
#[derive(Debug, Default)]
pub(super) struct Deadlines {
    queue: Ordered<i64>,
    /// Calls with a deadline armed.
    live: usize,
}

impl Deadlines {
    /// The earliest armed deadline and its call.
    pub(super) fn front(&self) -> Option<(Instant, i64)> {
        self.queue.front().map(|(at, key)| (at, *key))
    }

    /// The earliest armed deadline's instant (no call numbers compared).
    pub(super) fn front_at(&self) -> Option<Instant> {
        self.queue.front_at()
    }

    /// Pairs queued, live and stale: never more than `2 * live + 32`.
    #[cfg(test)]
    pub(super) fn queued(&self) -> usize {
        self.queue.len()
    }
}

impl Connection {
    /// Arms (or re-arms) call `key`'s request deadline.
    pub(super) fn arm_deadline(&mut self, key: i64, at: Instant) {
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let before = c.armed.replace(at);
        self.queue_deadline(key, before, at);
    }

    /// Brings the queue in line with call `key`'s armed deadline, just set
    /// in its record from `before` to `after` by the caller (which held the
    /// record already): queued when armed, forgotten when disarmed.
    pub(super) fn deadline_changed(
        &mut self,
        key: i64,
        before: Option<Instant>,
        after: Option<Instant>,
    ) {
        match after {
            Some(at) => self.queue_deadline(key, before, at),
            None => self.forget_deadline(key, before),
        }
    }

    /// Queues call `key`'s deadline `at`, set in its record in place of
    /// `before`.
    fn queue_deadline(&mut self, key: i64, before: Option<Instant>, at: Instant) {
        if before == Some(at) {
            return;
        }
        self.deadlines.queue.push(at, key);
        match before {
            None => self.deadlines.live += 1,
            // The pair of the old deadline is stale now.
            Some(_) => self.settle_deadlines(),
        }
    }

    /// Disarms call `key`'s request deadline.
    pub(super) fn disarm_deadline(&mut self, key: i64) {
        let armed = self.calls.get_mut(key).and_then(|c| c.armed.take());
        self.forget_deadline(key, armed);
    }

    /// Drops the pair of a deadline taken out of call `key`'s record (a
    /// call being removed, or one whose record is borrowed elsewhere).
    pub(super) fn forget_deadline(&mut self, key: i64, armed: Option<Instant>) {
        let Some(at) = armed else {
            return;
        };
        self.deadlines.live -= 1;
        self.deadlines.queue.remove_at_front(at, &key);
        self.settle_deadlines();
    }

    /// Restores the queue's invariants (no stale pair at a front, stale
    /// pairs bounded by live ones).
    fn settle_deadlines(&mut self) {
        let calls = &self.calls;
        self.deadlines.queue.settle(
            self.deadlines.live,
            |at, key| calls.get(*key).and_then(|c| c.armed) == Some(at),
            || {
                calls
                    .iter()
                    .filter_map(|(key, c)| c.armed.map(|at| (at, key)))
            },
        );
    }

    /// Disarms and returns, earliest first, every request deadline due at
    /// `now`, as `(deadline, call)`.
    pub(super) fn expired_deadlines(&mut self, now: Instant) -> Vec<(Instant, i64)> {
        let mut out = Vec::new();
        while self.deadlines.front().is_some_and(|(at, _)| at <= now) {
            let Some((at, key)) = self.deadlines.queue.pop_front() else {
                break;
            };
            if let Some(c) = self.calls.get_mut(key) {
                c.armed = None;
                self.deadlines.live -= 1;
            }
            self.settle_deadlines();
            out.push((at, key));
        }
        out
    }

    /// The instant of [`Connection::next_deadline`].
    pub(super) fn next_deadline_at(&self) -> Option<Instant> {
        // The quick call's deadline is the only one when it is there
        // (quick.rs: nothing else is in flight).
        let request = match self.quick_deadline() {
            Some((at, _)) => Some(at),
            None => self.deadlines.front_at(),
        };
        match (request, self.timers.next_at()) {
            (Some(at), Some(other)) => Some(at.min(other)),
            (at, other) => at.or(other),
        }
    }

    /// The earliest of the request deadlines and the other timers; a
    /// request deadline first at the same instant.
    pub(super) fn next_deadline(&self) -> Option<(Instant, Timer)> {
        // The quick call's deadline is the only one when it is there
        // (quick.rs: nothing else is in flight).
        let request = self.quick_deadline().or_else(|| self.deadlines.front());
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

/// A call's maximum total started `now`: its own (`max_total`), else the
/// connection's.
#[inline]
pub(super) fn total_deadline(
    config: &crate::Config,
    now: Instant,
    max_total: Option<std::time::Duration>,
) -> Option<Instant> {
    max_total
        .or(config.max_total)
        .and_then(|t| now.checked_add(t))
}

/// A request's deadline, sent `now`: its timeout (the call's own, else the
/// connection's; `Some(None)` is none), and never past the call's `total`.
#[inline]
pub(super) fn request_deadline(
    config: &crate::Config,
    now: Instant,
    timeout: Option<Option<std::time::Duration>>,
    total: Option<Instant>,
) -> Option<Instant> {
    let at = timeout
        .unwrap_or(config.request_timeout)
        .and_then(|t| now.checked_add(t));
    match (at, total) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_types::Message;

    use super::*;
    use crate::test_clock::origin;
    use crate::timers::ordered::STALE_SLACK;
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
            assert_eq!(
                conn.calls.get(key).and_then(|c| c.armed),
                Some(at),
                "the front is live"
            );
            let earliest = conn
                .calls
                .iter()
                .filter_map(|(k, c)| c.armed.map(|a| (a, k)))
                .min();
            assert_eq!(Some((at, key)), earliest);
        }
        assert!(most_queued > 2 * 150, "stale pairs reached a rebuild");
    }
}

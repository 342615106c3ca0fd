//! When the driver lets runnable callers queue their requests before it
//! writes the ones it has ([`Batching`]), so that a burst of requests goes
//! out in one write and one wake-up of the server.

/// Other calls in flight from which the driver lets runnable callers queue
/// their requests before writing, so that they share one write.
const CONCURRENT_BATCHING: usize = 4;

/// The most times the driver lets runnable callers go first before one
/// write.
const BATCHING_YIELDS: u32 = 4;

/// Whether the driver lets runnable callers queue their requests before it
/// writes the ones it has (by yielding to them), so that a burst goes out in
/// one write and one wake-up of the server; with little concurrency the
/// requests are written at once.
///
/// It waits while requests are waiting and either several other calls are
/// in flight or callers woken by replies delivered since the last write
/// outnumber the requests waiting (some have not sent theirs yet), and
/// while its last yield brought more. The second test matters on the
/// multi-thread runtime: a task woken by a running one is polled next
/// there, so the first caller's request wakes the driver before the other
/// callers run, with few calls in flight; written at once, 32 calls
/// answered together went out in five writes or more.
#[derive(Debug)]
pub(super) struct Batching {
    /// Requests waiting for the write.
    waiting: usize,
    /// Yields so far.
    yields: u32,
    /// The last yield brought no request: the runnable callers are done.
    settled: bool,
}

impl Batching {
    pub(super) fn new(waiting: usize) -> Self {
        Batching {
            waiting,
            yields: 0,
            settled: false,
        }
    }

    /// Whether to yield to runnable callers (once more) before writing.
    pub(super) fn waits_for_callers(&mut self, in_flight: usize, delivered: usize) -> bool {
        let more_expected = (self.yields == 0 && in_flight >= self.waiting + CONCURRENT_BATCHING)
            || delivered > self.waiting;
        let go =
            self.waiting > 0 && !self.settled && self.yields < BATCHING_YIELDS && more_expected;
        self.yields += u32::from(go);
        go
    }

    /// After a yield: `waiting` requests wait now.
    pub(super) fn queued(&mut self, waiting: usize) {
        self.settled = waiting == self.waiting;
        self.waiting = waiting;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields until the callers stop bringing requests; returns how many
    /// yields were made. `brought[i]` requests arrive during yield `i`.
    fn yields(waiting: usize, in_flight: usize, delivered: usize, brought: &[usize]) -> u32 {
        let mut b = Batching::new(waiting);
        let (mut waiting, mut in_flight) = (waiting, in_flight);
        let mut i = 0;
        while b.waits_for_callers(in_flight, delivered) {
            let n = brought.get(i).copied().unwrap_or(0);
            waiting += n;
            in_flight += n;
            b.queued(waiting);
            i += 1;
        }
        b.yields
    }

    #[test]
    fn a_lone_request_is_written_at_once() {
        // Sequential calls: the one caller woken sent its next request.
        assert_eq!(yields(1, 1, 1, &[]), 0);
        // A few calls in flight, no caller woken since the last write.
        assert_eq!(yields(1, 3, 0, &[]), 0);
        assert_eq!(yields(0, 32, 32, &[]), 0, "nothing to write");
    }

    #[test]
    fn many_calls_in_flight_let_runnable_callers_go_first_once() {
        // The current-thread case: the callers all ran before the driver.
        assert_eq!(yields(27, 32, 27, &[0]), 1);
        assert_eq!(yields(1, 20, 0, &[5, 5]), 1, "in flight alone: one yield");
    }

    #[test]
    fn callers_woken_by_replies_are_waited_for_while_they_come() {
        // The multi-thread case: 32 answered together, the first caller's
        // request woke the driver with one call in flight.
        assert_eq!(yields(1, 1, 32, &[9, 22]), 2, "all 32 queued after two");
        assert_eq!(
            yields(1, 1, 32, &[9, 0]),
            2,
            "a yield that brings none ends it"
        );
        assert_eq!(
            yields(1, 1, 32, &[1, 1, 1, 1, 1, 1]),
            BATCHING_YIELDS,
            "bounded"
        );
    }
}

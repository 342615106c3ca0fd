//! A byte stream's input read by the caller of the only call in flight
//! (`direct.rs`): the lease its start takes (`sources/lease.rs`), the
//! caller's reads under the driver's lock, and the driver's own poll of
//! the input when a caller's start took a lease back.

use std::task::{Context, Poll, Waker};
use std::time::Instant;

use super::direct::LOOK_EVERY;
use super::sources::Source;
use super::{Driver, READY_BATCH, clock, stream_wake};
use crate::transport::Link;

impl Driver {
    /// Leases a byte stream's input to the caller `waiting` for the only
    /// call in flight: the input is polled with the caller's waker (what is
    /// there already is read, as the driver's wait would read it), so that
    /// its reply wakes that caller, which reads it ([`Reader::read`]),
    /// instead of the driver. The driver looks at the lease within
    /// [`LOOK_EVERY`] (`Driver::look`).
    pub(super) fn lease_input(&mut self, now: Instant, waiting: Option<&Waker>) -> Option<u64> {
        let waker = waiting?;
        let stream = matches!(self.link, Some(Link::Stream { .. }));
        // The input is the driver's (its wait polled it to `Pending`, as it
        // does before it waits) or a lease kept from an earlier call's
        // (the input registered with that caller's waker, or read to its
        // reply and not polled since): the caller's poll takes it over.
        if !stream
            || !self.link_open
            || self.conn.in_flight() != 1
            || !self.sources.holds(Source::Inbound)
        {
            return None;
        }
        if !self.read_stream(now, Some(waker)) {
            return None;
        }
        self.next_look.get_or_insert(now + LOOK_EVERY);
        Some(self.sources.begin_lease())
    }

    /// After a caller's start took a lease back (it leases nothing itself),
    /// the input is polled with the driver's waker at once: no wait of the
    /// driver's would poll it, and its registration may still be the
    /// lessee's.
    pub(super) fn reclaim_input(&mut self, now: Instant) {
        if self.link_open {
            self.read_stream(now, None);
        }
    }

    /// Reads the input the lease of `generation` leases, and handles each
    /// message as the driver's turn would; `false` once the lease ended
    /// (taken back, or here: more input than one turn takes, or the input's
    /// end, which the driver is woken for). `lessee` is the caller's waker
    /// now. The lease outlives the lessee's call (`sources/lease.rs`).
    pub(super) fn read_input(&mut self, generation: u64, lessee: &Waker) -> bool {
        if !self.sources.lease_holds(generation) {
            return false;
        }
        let now = clock();
        let handlers = self.handler_io.len();
        let drained = self.read_stream(now, Some(lessee));
        self.settle(now, handlers);
        drained && self.sources.lease_holds(generation)
    }

    /// Reads the byte stream's input until it is pending (`true`) or one
    /// turn's worth was read or it ended (`false`: the input is given back
    /// to the driver, woken to go on with it), handling each message as the
    /// driver's turn would; polled with the `lessee`'s waker (a caller's),
    /// or the driver's own.
    fn read_stream(&mut self, now: Instant, lessee: Option<&Waker>) -> bool {
        for read in 0..READY_BATCH {
            // What the message before gave goes out first (the last turn
            // or start drained the queues before this).
            if read > 0 {
                self.drain_queues(now);
            }
            let Some(Link::Stream { receiver, .. }) = &mut self.link else {
                break;
            };
            // Its own outcome in, a caller reads no further than what was
            // read already: its call's next start, or the driver's look,
            // polls the input (and registers a waker) again.
            if lessee.is_some() && self.read_outcome.is_some() && !receiver.has_buffered_input() {
                return true;
            }
            let polled = match lessee {
                Some(w) => receiver.poll_recv(&mut Context::from_waker(w)),
                None => self.sources.poll_input(|cx| receiver.poll_recv(cx)),
            };
            let Poll::Ready(item) = polled else {
                return true;
            };
            // An input never ends the driver.
            let _ = self.on_wake(now, stream_wake(item));
            if !self.link_open {
                break;
            }
        }
        std::hint::cold_path();
        self.sources.give_back_input();
        false
    }
}

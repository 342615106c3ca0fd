//! A call started by its caller, in the caller's own poll, while the
//! driver waits: the driver's state is behind one lock ([`DriverCell`]),
//! which the driver holds for each of its turns and each poll of its wait,
//! and which a caller whose command would otherwise wake an idle driver
//! tries instead ([`DriverCell::try_take`], from the command channel's
//! send).
//!
//! A sequential call then costs the driver one turn (its reply) instead of
//! two: the caller encodes its request and writes it (a byte stream's
//! line) or polls its exchange once (HTTP: admitted, then sent), with the
//! wakers the driver's own polls use, and arms the driver's timer; no
//! command goes through the channel, the driver is not woken, and its wait
//! is not polled for it. Everything else still goes through the channel:
//! commands other than a call's start, a driver in a turn (or letting
//! callers batch their requests, `batching.rs`), a channel that holds
//! commands (a caller's commands stay in order), custom transports (whose
//! receive is a future of the wait's own).
//!
//! The channel's lock is taken first and the driver's only tried while it
//! is held (never waited for), so no two locks are ever waited for in the
//! other order; the channel's lock is released before the call runs (what
//! the call drops may send commands). A driver woken while a caller holds
//! it waits for the lock as long as one call's start takes.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::batching::Batching;
use super::sources::Source;
use super::{Command, Driver, clock};
use crate::transport::Link;

/// The driver's state, locked by the driver for each turn and each poll of
/// its wait, and by a caller that starts its call itself.
pub(super) struct DriverCell {
    driver: Mutex<Driver>,
}

impl DriverCell {
    pub(super) fn new(driver: Driver) -> Arc<Self> {
        Arc::new(DriverCell {
            driver: Mutex::new(driver),
        })
    }

    /// The driver, for one turn or one poll.
    pub(super) fn lock(&self) -> MutexGuard<'_, Driver> {
        self.driver.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The driver, when no one holds it and it can take a call's start
    /// from its caller now.
    pub(super) fn try_take(&self) -> Option<MutexGuard<'_, Driver>> {
        let d = match self.driver.try_lock() {
            Ok(d) => d,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        d.takes_direct().then_some(d)
    }
}

/// Whether `command` may be carried out by its sender.
pub(super) fn is_direct(command: &Command) -> bool {
    matches!(command, Command::Start { .. })
}

impl Driver {
    /// Whether a call's start can be carried out now by its caller: the
    /// driver waits (not in a turn, not shutting down) and would send the
    /// request at once: over a byte stream, when no batching is wanted
    /// (`batching.rs`); over HTTP, always (each request is its own POST).
    fn takes_direct(&self) -> bool {
        if self.in_turn || !self.link_open {
            return false;
        }
        match &self.link {
            Some(Link::Stream { .. }) => {
                self.line_writer.is_some()
                    && !Batching::new(self.unwritten() + 1)
                        .waits_for_callers(self.conn.in_flight() + 1, self.delivered)
            }
            #[cfg(feature = "http")]
            Some(Link::Http(_)) => true,
            _ => false,
        }
    }

    /// Carries out `command` (a call's start) for its caller, as the
    /// driver's turn would: the request is written (a byte stream's line)
    /// or its exchange polled once (HTTP: admitted and sent), with the
    /// wakers the driver's own polls use, and the timer armed (a failed
    /// write is handled as the driver's wait handles it). Wakes the driver
    /// only when its wait has to poll something anew (a timer it does not
    /// hold, a set it never polled, a handler) or after a failed write.
    pub(super) fn run_direct(&mut self, command: Command) {
        let now = clock();
        let handlers = self.handler_io.len();
        self.on_command(now, command);
        self.drain_queues(now);
        let mut wake = self.poll_exchanges(now);
        // Written as the driver's wait writes; a failure is handled as its
        // turn handles it (the writer keeps nothing to write again): the
        // calls it fails are told now.
        if let Some(failed) = self.flush_queued() {
            // A write's failure never ends the driver.
            let _ = self.on_wake(now, failed);
            self.drain_queues(now);
            wake = true;
        }
        wake |= self.handler_io.len() > handlers;
        if self.arm_timer() {
            self.wait_armed = true;
            wake |= !self.sources.holds(Source::Timer);
        }
        if wake {
            self.sources.wake_task();
        }
    }

    /// Polls the HTTP exchanges that are due (the one just started) and
    /// handles what they give, as the driver's wait would; `true` when the
    /// driver has to poll them itself (its wait never polled the set, so
    /// their wakers would wake no one).
    #[cfg(feature = "http")]
    fn poll_exchanges(&mut self, now: std::time::Instant) -> bool {
        while !self.http_io.is_empty() {
            match self.http_io.poll_due() {
                None => return true,
                Some(std::task::Poll::Ready(Some(io))) => {
                    self.on_http(now, io);
                    self.drain_queues(now);
                }
                Some(_) => return false,
            }
        }
        false
    }

    /// No HTTP in this build: no exchange to poll.
    #[cfg(not(feature = "http"))]
    fn poll_exchanges(&mut self, _: std::time::Instant) -> bool {
        false
    }
}

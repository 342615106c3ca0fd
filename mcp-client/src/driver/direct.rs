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
//! Over HTTP the caller also reads its reply. At 2026-07-28 a request's
//! POST carries nothing but its reply and notifications about it
//! (`HttpRouting::only_its_reply`: the server sends no requests on it), so
//! a caller that does not poll its call's future delays nothing but that
//! call: the POST's future is not put in the driver's set at all but given
//! to the caller (`Owned::Exchange`), polled by the caller's start with the
//! caller's waker and then by the caller alone, without the driver's lock;
//! only what it gives (the reply, a stream the driver reads on, a failure)
//! is handled under the lock, as the driver's wait would. When the lock is
//! taken then (a turn, another caller, or the caller polled inside the
//! driver's own poll, as a handler may do) or the driver is in a turn,
//! what the POST gave goes to the driver as a command
//! ([`Read::Handback`]): a caller never waits for the driver's lock.
//! Dropping the call drops its POST, which closes its stream: the
//! server's sign of a 2026-07-28 cancellation. The driver that ends such
//! a call (a deadline, a cancellation by id) cannot reach its POST; the
//! call's outcome wakes its caller, who drops the POST with its reader.
//!
//! At 2025-11-25 the POST's stream may carry the server's requests and
//! notifications before the reply: its caller holds it only from one of
//! the driver's looks to the next (below), as a byte stream's input. The
//! POST's future, left pending by the start, is *owned* by the caller
//! ([`FutureSet::own`](super::future_set::FutureSet::own)): its wakes wake
//! the caller, not the driver, and the caller's next poll polls it under
//! the driver's lock and handles what it gives as the driver's turn would
//! ([`Reader::read`]). A sequential call then wakes the driver not at all.
//! The caller hands the POST back to the driver (which is woken to poll
//! it) when the driver's lock is taken (a turn, another caller) or the
//! driver is shutting down, when its call is dropped, and once the POST is
//! done (its reply, or a stream the driver reads on). The driver may poll
//! an owned POST it finds woken, as it polls the others.
//!
//! Over a byte stream the caller of the only call in flight reads the
//! input itself: the call's start polls the input with the caller's own
//! waker and leases it to the caller (`sources/lease.rs`), so the input's
//! readiness wakes the caller's task, not the driver's; the caller polls
//! the input under the driver's lock and handles each message as the
//! driver's turn would ([`Reader::read`]), and once its own call's outcome
//! is in, reads no further than what was read already. A sequential call
//! then wakes the driver not at all here either, and no waker changes
//! hands: the lease outlives its call, and the caller's next start polls
//! the input with the same waker. The input is shared by every message of
//! the connection, so the lease is bounded: another call's start or any
//! command takes it back (a caller's start that does so polls the input
//! with the driver's waker at once, [`Driver::reclaim_input`]), so does a
//! caller that drops its call or finds the driver busy, and so does the
//! driver's next look, within [`LOOK_EVERY`] of the lease (the input's
//! wakes go to the lessee alone, so only the driver's own poll reads what
//! they announce). A caller that stops polling, or a message that comes
//! after a call's reply while no call is made, waits for the driver's
//! look at most. The same looks take back a 2025-11-25 POST its caller
//! held from one look to the next ([`Driver::look`]): the driver's wait
//! then reads it.
//!
//! The channel's lock is taken first and the driver's only tried while it
//! is held (never waited for), so no two locks are ever waited for in the
//! other order; the channel's lock is released before the call runs (what
//! the call drops may send commands). A driver woken while a caller holds
//! it waits for the lock as long as one call's start takes.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
#[cfg(feature = "http")]
use std::task::Poll;
use std::task::Waker;
use std::time::{Duration, Instant};

use super::batching::Batching;
use super::exchange::{CallResult, CallTx};
#[cfg(feature = "http")]
use super::future_set::OwnedSlot;
use super::sources::{LeaseEnd, Source};
use super::{CallSpec, Driver, clock};
use crate::transport::Link;

/// The driver's state, locked by the driver for each turn and each poll of
/// its wait, and by a caller that starts its call itself.
pub(super) struct DriverCell {
    driver: Mutex<Driver>,
    /// Ends a caller's lease of the input when its [`Reader`] is dropped,
    /// without the lock.
    lease_end: LeaseEnd,
}

impl DriverCell {
    pub(super) fn new(driver: Driver) -> Arc<Self> {
        Arc::new(DriverCell {
            lease_end: driver.sources.lease_end(),
            driver: Mutex::new(driver),
        })
    }

    /// The driver, for one turn or one poll.
    pub(super) fn lock(&self) -> MutexGuard<'_, Driver> {
        self.driver.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The driver, when no one holds it and it can take a call's start
    /// from its caller now.
    #[inline]
    pub(super) fn try_take(&self) -> Option<MutexGuard<'_, Driver>> {
        let d = match self.driver.try_lock() {
            Ok(d) => d,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        d.takes_direct().then_some(d)
    }

    /// The driver, for a caller's read of what it holds ([`Reader`]): only
    /// tried, never waited for, and `None` while the driver is in a turn
    /// or its link is closed (what the caller holds is then the driver's
    /// to read).
    #[inline]
    fn for_read(&self) -> Option<MutexGuard<'_, Driver>> {
        let d = self.driver.try_lock().ok()?;
        (!d.in_turn && d.link_open).then_some(d)
    }

    /// A caller's read (`read`, under the driver's lock, [`Self::for_read`])
    /// as the reader of `call`: that call's outcome, if the read ended it,
    /// comes out here instead of through its `OutcomeRx`; `More` when
    /// `read` says the caller reads on, `Done` when the lock was not to be
    /// had.
    #[inline]
    fn read_as(&self, call: usize, read: impl FnOnce(&mut Driver) -> bool) -> Read {
        let Some(mut d) = self.for_read() else {
            return Read::Done;
        };
        d.reader_call = call;
        let more = read(&mut d);
        d.reader_call = 0;
        match d.read_outcome.take() {
            Some(outcome) => Read::Outcome(outcome),
            None if more => Read::More,
            None => Read::Done,
        }
    }
}

/// How often the driver looks at what callers read themselves while any
/// is held (the input's lease, a 2025-11-25 POST): it takes the input's
/// lease back at the first look, and a POST at the look after the one that
/// found it (reading what woke it at each). A caller that stops polling
/// its call holds up what they bring (a server's request, a notification)
/// for one or two of these at most.
pub(super) const LOOK_EVERY: Duration = Duration::from_millis(10);

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

    /// Starts the call `call` (of `spec`, with `span` its client span) for
    /// its caller, as the driver's turn would: the request is written (a
    /// byte stream's line) or its exchange polled once (HTTP: admitted and
    /// sent), with the wakers the driver's own polls use, and the timer
    /// armed (a failed write is handled as the driver's wait handles it).
    /// Wakes the driver only when its wait has to poll something anew (a
    /// timer it does not hold, a set it never polled, a handler) or after a
    /// failed write.
    ///
    /// With the caller's waker (`waiting`: it awaits the call now), a
    /// request's POST left pending is then the caller's to read: `Some`
    /// (a 2025-11-25 one's until the driver's look after next). The call's
    /// allocation, as an address (`CallTx::addr`, never 0), names the
    /// call to its POST and to its caller's reads.
    pub(super) fn run_direct(
        &mut self,
        call: CallTx,
        spec: CallSpec,
        span: tracing::Span,
        waiting: Option<&Waker>,
    ) -> Option<Owned> {
        #[cfg(feature = "http")]
        let call_addr = call.addr();
        let now = clock();
        let handlers = self.handler_io.len();
        #[cfg(feature = "http")]
        {
            self.last_post = None;
            // Its 2026-07-28 POST is kept for it (`Driver::post`), made
            // by the settle below.
            self.direct_start = if waiting.is_some() { call_addr } else { 0 };
        }
        self.on_start(now, call, spec, span);
        let lease = self.lease_input(now, waiting);
        // A lease this start does not take over (another call's in flight,
        // or one kept from an earlier call) goes back to the driver.
        if lease.is_none() && self.sources.revoke_input() {
            self.reclaim_input(now);
        }
        self.settle(now, handlers);
        #[cfg(feature = "http")]
        {
            self.direct_start = 0;
        }
        if let Some(lease) = lease {
            return Some(Owned::Input(lease));
        }
        #[cfg(feature = "http")]
        {
            if let Some(post) = self.handoff.take() {
                return self.hand_off(now, post, waiting?);
            }
            let (id, index, looked) = self.last_post.take()?;
            let waker = waiting?;
            if self.pending.addr_of(id) == Some(call_addr) {
                let owned = self.http_io.own(index, waker)?;
                if looked {
                    let (index, generation) = owned.key();
                    self.held_posts.push(HeldPost {
                        index,
                        generation,
                        seen: false,
                    });
                    // The look that bounds its caller's hold on it.
                    if self.next_look.is_none() {
                        self.next_look = Some(now + LOOK_EVERY);
                        if self.arm_for_wait() {
                            self.sources.wake_task();
                        }
                    }
                }
                return Some(Owned::Post(owned));
            }
        }
        None
    }

    /// The first poll of a 2026-07-28 POST its caller holds from now on
    /// (`Owned::Exchange`), with the caller's `waker`: its wakes wake the
    /// caller, who polls it without the driver's lock and takes the lock
    /// only for what it gives ([`Reader::read`]). One that ends at once
    /// (a failure before the reply) is handled here.
    #[cfg(feature = "http")]
    fn hand_off(
        &mut self,
        now: Instant,
        mut post: crate::handlers::BoxFuture<'static, super::HttpIo>,
        waker: &Waker,
    ) -> Option<Owned> {
        match post
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
        {
            Poll::Pending => Some(Owned::Exchange(post)),
            Poll::Ready(io) => {
                std::hint::cold_path();
                self.on_http_settled(now, io);
                None
            }
        }
    }

    /// The driver's look (at the timer) at what callers read themselves:
    /// the input's lease, taken back at the first look (the input's wakes
    /// wake its lessee alone, who may not be polling: only the driver's
    /// wait, polling it anew, reads what they announce), and the
    /// 2025-11-25 POSTs their callers own: one that held since the last
    /// look is taken back, a newer one is looked at again within
    /// [`LOOK_EVERY`].
    pub(super) fn look(&mut self, now: Instant) {
        if self.next_look.is_none_or(|at| now < at) {
            return;
        }
        self.next_look = None;
        self.sources.revoke_input();
        #[cfg(feature = "http")]
        if self.look_at_posts() {
            self.next_look = Some(now + LOOK_EVERY);
        }
    }

    /// Takes back the 2025-11-25 POSTs their callers held since the last
    /// look (the driver's wait then polls any that was woken) and forgets
    /// the ones whose ownership ended; `true` while some are held.
    #[cfg(feature = "http")]
    fn look_at_posts(&mut self) -> bool {
        let http_io = &self.http_io;
        self.held_posts.retain_mut(|held| {
            if !http_io.owned(held.index, held.generation) {
                return false;
            }
            if held.seen {
                http_io.revoke(held.index, held.generation);
                return false;
            }
            held.seen = true;
            true
        });
        !self.held_posts.is_empty()
    }

    /// The end of a caller's work under the driver's lock (a start, or a
    /// reply it read), as the end of the driver's turn: the drain rule,
    /// the exchanges it started polled once, the queued lines written, the
    /// timer armed; the driver is woken only when its wait must poll
    /// something anew (see [`Driver::run_direct`]). `handlers`: how many
    /// handlers ran before the work.
    pub(super) fn settle(&mut self, now: Instant, handlers: usize) {
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
        wake |= self.arm_for_wait();
        if wake {
            self.sources.wake_task();
        }
    }

    /// Arms the timer for the driver's wait; `true` when the driver must be
    /// woken for it (its wait has not polled the timer: it would not hear
    /// it fire).
    fn arm_for_wait(&mut self) -> bool {
        if !self.arm_timer() {
            return false;
        }
        self.wait_armed = true;
        !self.sources.holds(Source::Timer)
    }

    /// Polls the POST its caller owns, if it was woken, and handles what it
    /// gives as the driver's turn would; `false` once the POST is done or
    /// no longer the caller's (its reply reached the call, or a stream the
    /// driver reads on).
    #[cfg(feature = "http")]
    fn read_owned(&mut self, owned: &mut OwnedSlot, owner: &Waker) -> bool {
        match self.http_io.poll_owned(owned, owner) {
            Some(std::task::Poll::Pending) => true,
            None => false,
            Some(std::task::Poll::Ready(io)) => {
                let key = owned.key();
                self.held_posts
                    .retain(|held| (held.index, held.generation) != key);
                self.on_http_settled(clock(), io);
                false
            }
        }
    }

    /// What an exchange a caller read gave, handled as the driver's wait
    /// handles it, then the end of the caller's work under the lock
    /// ([`Driver::settle`]).
    #[cfg(feature = "http")]
    #[inline]
    fn on_http_settled(&mut self, now: Instant, io: super::HttpIo) {
        let handlers = self.handler_io.len();
        self.on_http(now, io);
        self.settle(now, handlers);
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

/// A 2025-11-25 POST its caller owns: its slot, the ownership's
/// generation, and whether the driver's last look saw it (the next one
/// takes it back, `Driver::look`).
#[cfg(feature = "http")]
pub(super) struct HeldPost {
    index: usize,
    generation: u64,
    seen: bool,
}

/// What a caller owns after its start: the input's lease (a byte
/// stream), or its POST's future (HTTP).
pub(super) enum Owned {
    /// The input's lease, by its generation.
    Input(u64),
    #[cfg(feature = "http")]
    Post(OwnedSlot),
    /// A 2026-07-28 POST's future itself, out of the driver's set: only
    /// what it gives goes through the driver.
    #[cfg(feature = "http")]
    Exchange(crate::handlers::BoxFuture<'static, super::HttpIo>),
}

/// A caller's hold on what brings its reply (the input's lease, or its
/// call's POST), which it reads itself while it awaits the call
/// ([`Reader::read`]); dropping it hands that back to the driver (its own
/// drop for the lease, [`OwnedSlot`]'s for a POST).
pub(crate) struct Reader {
    cell: Arc<DriverCell>,
    owned: Owned,
    /// The call's allocation, as an address (`CallTx::addr`): the call
    /// whose outcome its reads hand it directly.
    call: usize,
    /// A read handed it its call's outcome: a lease it holds is kept.
    ended: bool,
}

/// What a caller's read of its reply gave ([`Reader::read`]).
pub(crate) enum Read {
    /// The call's outcome, handed over by the read itself: not through
    /// the call's [`OutcomeRx`](super::OutcomeRx), which is not polled
    /// again (two locks of its slot fewer, and no look at its waker).
    Outcome(CallResult),
    /// Nothing yet: it reads again when woken.
    More,
    /// It reads no more (drop the reader: the POST is done, or it goes
    /// back to the driver; the driver is busy or shutting down): the
    /// outcome comes through the call's `OutcomeRx`.
    Done,
    /// What its POST gave, which the driver could not take from it now
    /// (busy, or in a turn): to send it as [`Command::Handback`]; then as
    /// `Done`.
    #[cfg(feature = "http")]
    Handback(Handback),
}

/// What a 2026-07-28 POST its caller held gave, on its way to the driver
/// through the command channel ([`Read::Handback`]).
#[cfg(feature = "http")]
pub(crate) struct Handback(pub(super) Box<super::HttpIo>);

impl Reader {
    /// The reader of what `owned` holds, by the driver `cell`, for the
    /// call whose allocation is at `call`.
    pub(super) fn new(cell: Arc<DriverCell>, owned: Owned, call: usize) -> Self {
        Reader {
            cell,
            owned,
            call,
            ended: false,
        }
    }

    /// Reads what it holds if it was woken, handling each message as the
    /// driver would; its own call's outcome, if the read ended the call,
    /// is handed back here ([`Driver::finish`]), any other call's goes to
    /// its caller as always. `waker` is the caller's now: the wakes of
    /// what it holds wake it.
    #[inline]
    pub(crate) fn read(&mut self, waker: &Waker) -> Read {
        let (cell, call) = (&self.cell, self.call);
        match &mut self.owned {
            Owned::Input(lease) => {
                let read = cell.read_as(call, |d| d.read_input(*lease, waker));
                self.ended = matches!(read, Read::Outcome(_));
                read
            }
            #[cfg(feature = "http")]
            Owned::Post(post) => cell.read_as(call, |d| d.read_owned(post, waker)),
            // Polled without the driver's lock: only what it gives takes it
            // (handed back, through the command channel, when the lock is
            // taken or the driver in a turn).
            #[cfg(feature = "http")]
            Owned::Exchange(post) => {
                let Poll::Ready(io) = post
                    .as_mut()
                    .poll(&mut std::task::Context::from_waker(waker))
                else {
                    return Read::More;
                };
                hand_in(cell, call, io)
            }
        }
    }
}

impl Drop for Reader {
    /// A lease that still holds goes back to the driver
    /// ([`LeaseEnd::drop_lease`]) unless a read handed the caller its
    /// outcome: the lease is kept then, for the caller's next call
    /// (`sources/lease.rs`).
    #[inline]
    fn drop(&mut self) {
        if let Owned::Input(generation) = self.owned
            && !self.ended
        {
            self.cell.lease_end.drop_lease(generation);
        }
    }
}

/// What a POST its caller held gave, handled under the driver's lock as
/// the driver's wait would, the caller the reader of `call`; handed back
/// (through the command channel) when the lock is taken or the driver in a
/// turn.
#[cfg(feature = "http")]
fn hand_in(cell: &DriverCell, call: usize, io: super::HttpIo) -> Read {
    let Some(mut d) = cell.for_read() else {
        return Read::Handback(Handback(Box::new(io)));
    };
    // `DriverCell::read_as` spelled out: a closure holding the POST's
    // output (some 200 bytes) would copy it once more on every call.
    d.reader_call = call;
    d.on_http_settled(clock(), io);
    d.reader_call = 0;
    d.read_outcome.take().map_or(Read::Done, Read::Outcome)
}

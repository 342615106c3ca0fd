//! The driver: one task per connection that owns the core [`Connection`]
//! and the transport. Private to the crate; handles reach it only through
//! [`Command`]s, and a call's start, while the driver waits, is carried
//! out by its caller under the driver's lock (`direct.rs`).
//!
//! After every input or command it follows the core's drain rule: drain
//! `poll_transmit` into the transport, drain `poll_event` into the waiting
//! callers and handlers, then arm one timer from `poll_timeout`. Every
//! protocol timer is the core's; the clock it is told is read here, through
//! [`clock`] (tokio's, so a paused test clock drives it), once per wake-up
//! and once per call a caller starts, plus the wall-clock anchor of served
//! tasks' timestamps at start (the notification debounce window is the
//! core's too). The one deadline of the driver's own is when it looks at
//! what callers read themselves (`direct.rs`: the input's lease,
//! 2025-11-25 POSTs): who reads the I/O, not what it says. The one timer is a timerfd, or tokio's timer on a clock paused
//! when the connection starts (`deadline.rs`). HTTP
//! exchanges, response streams and running handlers are futures polled
//! inside the driver's wait (no task per request or handler); the
//! only other thread is the notification queue's worker. Nothing outside
//! this folder reads a clock, sleeps or spawns (`cargo xtask tidy` checks
//! it).
//!
//! * `commands.rs`: what handles ask, and how each is carried out;
//!   `command_queue.rs`: the channel they come by; `direct.rs`: a call's
//!   start carried out by its caller (`direct_input.rs`: a byte stream's
//!   input read by its caller);
//!   `exchange.rs`: a call's outcome out, one allocation.
//! * `transmit.rs`: the core's transmits to the transport, its events to
//!   `events.rs`, which routes each family (calls in `calls.rs`, requests
//!   the server makes in `serving.rs` and `callback_tasks.rs`).
//! * `receive.rs`: every server message into the core (strict checks first).
//! * `http.rs`, `get_stream.rs`: HTTP exchanges and the 2025-11-25 GET stream.
//! * `future_set.rs`: the set those futures (and handlers' replies) are
//!   polled in, each only when woken; `ownership.rs`: whom a POST's
//!   wakes go to when its caller reads it itself (`direct.rs`).
//! * `notifications.rs`, `notify_queue.rs`: the bounded queue to the
//!   notification handler and its worker thread.
//! * `server_exit.rs`: a stdio server's exit, attached to the errors.
//! * `turns.rs`: the driver's loop (a turn per wake-up, the yields that
//!   let callers batch, the shutdown), under the driver's lock.
//! * `wait.rs`: the wait for the next ready source (branches in turn, no
//!   starving) and the timer it arms; `sources.rs`: which of the
//!   driver's sources can be ready, so that a wait polls only those.

mod batching;
mod callback_tasks;
mod calls;
mod command_queue;
mod commands;
#[cfg(test)]
mod counting_waker;
mod deadline;
mod direct;
mod direct_input;
mod events;
pub(crate) mod exchange;
mod future_set;
mod get_stream;
#[cfg(feature = "http")]
mod http;
mod notifications;
mod notify_queue;
#[cfg(feature = "http")]
mod ownership;
mod receive;
mod server_exit;
mod serving;
mod sources;
mod task_waits;
mod task_waker;
mod transmit;
mod turns;
mod wait;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use mcp_core::{CloseReason, Connection};
use mcp_transport_stdio::Inbound;
use mcp_types::{Message, RequestId};
use tokio::sync::oneshot;

pub(crate) use calls::Outcome;
pub(crate) use command_queue::{CommandTx, Gone};
#[cfg(feature = "http")]
pub(crate) use commands::HttpChange;
pub(crate) use commands::{CallSpec, Command, Reply, SessionCommand, SpecKind};
#[cfg(feature = "http")]
use direct::HeldPost;
pub(crate) use direct::{Read, Reader};
pub(crate) use exchange::{CallRef, OutcomeRx, exchange};

use crate::client::Shared;
use crate::client::throughput::ThroughputConfig;
use crate::era_cache::EraCache;
use crate::error::Error;
use crate::handlers::{BoxFuture, Served};
use crate::http_parts::HttpError;
use crate::transport::Link;
use future_set::FutureSet;
#[cfg(feature = "http")]
use http::HttpIo;
/// No HTTP transport in this build: no HTTP exchange is ever in flight.
#[cfg(not(feature = "http"))]
type HttpIo = std::convert::Infallible;
use direct::DriverCell;
use serving::Target;
use sources::{Source, Sources};
use turns::{Step, run};

enum Wake {
    Command(Option<Command>),
    Inbound(Option<Result<Message, String>>),
    Skipped,
    /// A line that broke the JSON-RPC envelope (stdio).
    Broken(mcp_transport_stdio::BrokenEnvelope),
    /// A line over the stdio line limit, discarded (it may name the
    /// request it answered).
    Oversized(mcp_transport_stdio::LineTooLong),
    Wrote(Result<(), String>),
    /// A custom transport's receive failed; the error may name why the
    /// calls still waiting lost their answers (legacy_sse.rs).
    CustomFailed(std::io::Error),
    Http(HttpIo),
    Handler(Target, Served),
    Timer,
}

/// The state of one connection: its driver task's, behind the lock a
/// caller starting a call takes too (`direct.rs`).
struct Driver {
    conn: Connection,
    link: Option<Link>,
    link_open: bool,
    /// A byte stream's writer, held for the driver's life: lines are
    /// queued into its one buffer and written by the driver's own poll (no
    /// future or allocation per write).
    line_writer: Option<mcp_transport_stdio::LineWriter>,
    /// Messages handed to the transport since its last completed write.
    unwritten: usize,
    /// Outcomes handed to callers since the last completed write: each
    /// woke a caller that may be about to send its next request.
    delivered: usize,
    /// The stdio receiver handed over an item and was not found empty
    /// since: `take_ready` tries it again at once (if it holds input
    /// already read). Otherwise the read is left to `wait`, which polls the
    /// receiver before the driver sleeps anyway.
    inbound_more: bool,
    /// A custom transport's messages not sent yet, and its sends in
    /// progress.
    outbox: VecDeque<Vec<u8>>,
    writing: Option<BoxFuture<'static, Result<(), String>>>,
    http_io: FutureSet<HttpIo>,
    /// The last POST pushed into `http_io` that its caller may read itself
    /// (a request's): its call's id, its slot and whether the caller reads
    /// it only between the driver's looks (a 2025-11-25 request's, `http.rs`).
    #[cfg(feature = "http")]
    last_post: Option<(i64, usize, bool)>,
    /// The call its caller is starting itself and will await (`direct.rs`:
    /// its allocation's address; 0 when none): a 2026-07-28 POST of that
    /// call is not pushed into `http_io` but kept in `handoff`, for the
    /// caller to hold and poll.
    #[cfg(feature = "http")]
    direct_start: usize,
    /// That call's POST, made by `run_direct`'s settle, until
    /// `run_direct` gives it to the caller.
    #[cfg(feature = "http")]
    handoff: Option<BoxFuture<'static, HttpIo>>,
    /// The 2025-11-25 POSTs their callers own (`direct.rs`): each slot,
    /// the ownership's generation, and whether a look saw it already.
    #[cfg(feature = "http")]
    held_posts: Vec<HeldPost>,
    /// The POSTs in flight that are not registered for the transport's
    /// cancellation (`http.rs`): their slots in `http_io`, by request id.
    /// Cancelling one drops its future.
    #[cfg(feature = "http")]
    unregistered: mcp_core::IdTable<usize>,
    handler_io: FutureSet<(Target, Served)>,
    /// Stops the handler of each server request still being served, for
    /// `notifications/cancelled`.
    serving: HashMap<RequestId, futures::future::AbortHandle>,
    /// The calls of handles, by the ids the core gave them (`calls.rs`).
    pending: calls::PendingCalls,
    shared: Arc<Shared>,
    connect_reply: Option<oneshot::Sender<Result<(), Error>>>,
    era_cache: Option<(EraCache, String)>,
    last_transport_error: Option<String>,
    /// The typed HTTP failure behind `last_transport_error`, when it ended
    /// no pending call (the handshake's requests): attached to the connect
    /// error.
    last_http_error: Option<HttpError>,
    closed: bool,
    /// Connected with `connect_uninitialized` and not initialized yet.
    uninitialized: bool,
    /// The one timer, re-armed only when the core's next deadline comes
    /// before the armed one (see `Driver::arm_timer`).
    timer: deadline::DeadlineTimer,
    timer_at: Option<Instant>,
    /// Callback tasks served for the server (2025-11-25).
    served: callback_tasks::ServedState,
    /// The 2025-11-25 GET stream.
    get_stream: get_stream::GetStream,
    /// The bounded queue to the notification handler.
    notifier: notifications::Notifier,
    /// Which of the command channel, the stdio receiver, the line writer
    /// and the timer can be ready (`sources.rs`).
    sources: Sources,
    /// The branch of the wait polled first next time: the one after the
    /// last that was ready, so that a source that is always ready does not
    /// starve the others.
    next_branch: u8,
    /// The driver is in a turn (or shutting down): a caller's command goes
    /// through the channel, not `direct.rs`.
    in_turn: bool,
    /// The timer was armed for the current wait (by the wait, or by a
    /// caller's start, `direct.rs`): the wait polls it.
    wait_armed: bool,
    /// When the driver looks next at what callers read themselves
    /// (`direct.rs`: the input's lease, 2025-11-25 POSTs): the one deadline
    /// the timer is armed for that is not the core's, a matter of the
    /// I/O's ownership, not of the protocol.
    next_look: Option<Instant>,
    /// The call whose caller is reading its own reply now (its
    /// allocation's address, `Reader::read`; 0 when none): its outcome
    /// goes to `read_outcome`, for the caller to take when its read ends.
    reader_call: usize,
    read_outcome: Option<exchange::CallResult>,
}

/// What a new driver starts from, besides the core and the transport.
pub(crate) struct Setup {
    /// Where `connect` hears that the lifecycle is done; `None` for
    /// `connect_uninitialized` (the lifecycle waits for `initialize`).
    pub(crate) connect_reply: Option<oneshot::Sender<Result<(), Error>>>,
    /// The era cache and this server's key in it.
    pub(crate) era_cache: Option<(EraCache, String)>,
    /// The notification queue's settings.
    pub(crate) throughput: ThroughputConfig,
}

/// Starts the driver of a new connection on its own Tokio task (the
/// lifecycle begins at once when `setup` has a `connect_reply`); returns
/// the channel its handles send commands on.
///
/// # Errors
/// The core's refusal to start the lifecycle.
pub(crate) fn start(
    mut conn: Connection,
    link: Link,
    shared: Arc<Shared>,
    setup: Setup,
) -> Result<CommandTx, Error> {
    let initialize = setup.connect_reply.is_some();
    let now = clock();
    // The one wall-clock fact the core needs (served tasks' timestamps).
    conn.set_wall_clock(now, std::time::SystemTime::now());
    if initialize {
        conn.connect(now)?;
    }
    let driver = Driver {
        conn,
        link: Some(link),
        link_open: true,
        line_writer: None,
        unwritten: 0,
        delivered: 0,
        inbound_more: false,
        outbox: VecDeque::new(),
        writing: None,
        http_io: FutureSet::new(),
        #[cfg(feature = "http")]
        last_post: None,
        #[cfg(feature = "http")]
        direct_start: 0,
        #[cfg(feature = "http")]
        handoff: None,
        #[cfg(feature = "http")]
        held_posts: Vec::new(),
        #[cfg(feature = "http")]
        unregistered: mcp_core::IdTable::new(),
        handler_io: FutureSet::new(),
        serving: HashMap::new(),
        pending: calls::PendingCalls::default(),
        shared,
        connect_reply: setup.connect_reply,
        era_cache: setup.era_cache,
        last_transport_error: None,
        last_http_error: None,
        closed: false,
        uninitialized: !initialize,
        timer: deadline::DeadlineTimer::new(),
        timer_at: None,
        served: callback_tasks::ServedState::default(),
        get_stream: get_stream::GetStream::default(),
        notifier: notifications::Notifier::new(setup.throughput.capacity),
        sources: Sources::new(),
        next_branch: 0,
        in_turn: true,
        wait_armed: false,
        next_look: None,
        reader_call: 0,
        read_outcome: None,
    };
    let (tx, rx) = command_queue::channel();
    // The driver goes behind its lock before the task starts: the task's
    // future holds the lock's handle, not the driver (4 KB, with which the
    // task's polls reserved 46 KB of stack; `turns.rs` keeps the future
    // under 1 KiB).
    tokio::spawn(run(DriverCell::new(driver), rx));
    Ok(tx)
}

/// The instant the core is told: tokio's clock, which is the system's
/// monotonic clock except under a paused test clock
/// (`#[tokio::test(start_paused = true)]`), so the facade's deadlines can be
/// tested on virtual time like the core's (a clock paused before the
/// connection starts: the driver's timer follows it then, `deadline.rs`).
fn clock() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// The most ready items handled in one turn before waiting again.
const READY_BATCH: usize = 64;

impl Driver {
    /// Handles one wake-up; `Err` ends the loop (with the closer to notify).
    /// The wake-ups a call brings are handled here, the rare ones by
    /// functions out of line (so that this stays a few lines of code).
    fn on_wake(&mut self, now: Instant, wake: Wake) -> Result<(), Option<oneshot::Sender<()>>> {
        if let Wake::Inbound(Some(_)) | Wake::Skipped | Wake::Broken(_) | Wake::Oversized(_) = wake
        {
            self.inbound_more = true;
        }
        match wake {
            Wake::Command(Some(Command::Close { done })) => return Err(Some(done)),
            Wake::Command(None) => return Err(None),
            Wake::Command(Some(c)) => self.on_command(now, c),
            Wake::Inbound(Some(Ok(m))) => self.receive(now, m),
            Wake::Inbound(Some(Err(e))) => self.transport_ended(now, Some(e)),
            Wake::Inbound(None) => self.transport_ended(now, None),
            Wake::CustomFailed(e) => self.custom_failed(now, &e),
            Wake::Skipped => {}
            Wake::Broken(b) => self.broken_line(now, b),
            Wake::Oversized(l) => self.oversized_line(now, &l),
            Wake::Wrote(Ok(())) => {
                self.writing = None;
                self.written();
            }
            Wake::Wrote(Err(e)) => self.write_failed(now, e),
            Wake::Http(io) => self.on_http(now, io),
            Wake::Handler(target, served) => self.on_served(now, target, served),
            Wake::Timer => {
                self.timer_at = None;
                self.conn.handle_timeout(now);
                self.look(now);
            }
        }
        Ok(())
    }

    /// A custom transport failed: its calls keep the cause (HTTP+SSE's
    /// pending one), and the transport has ended.
    #[cold]
    fn custom_failed(&mut self, now: Instant, e: &std::io::Error) {
        #[cfg(feature = "http")]
        for p in self.pending.values_mut() {
            if p.rare().is_none_or(|r| r.cause.is_none())
                && let Some(cause) = crate::legacy_sse::pending_cause(e)
            {
                p.rare_mut().cause = Some(cause);
            }
        }
        self.transport_ended(now, Some(e.to_string()));
    }

    /// A line that breaks the JSON-RPC envelope: a broken reply fails its
    /// request at once, as the peer's protocol fault; any other broken
    /// line is reported.
    #[cold]
    fn broken_line(&mut self, now: Instant, b: mcp_transport_stdio::BrokenEnvelope) {
        self.conn
            .handle_envelope_violation(now, b.id.as_ref(), b.violations);
    }

    /// A line over the limit, discarded: a reply's fails its request.
    #[cold]
    fn oversized_line(&mut self, now: Instant, l: &mcp_transport_stdio::LineTooLong) {
        tracing::warn!(error = %l, "discarded a line over the limit");
        if let Some(id) = &l.id {
            let limit = u64::try_from(l.limit).unwrap_or(u64::MAX);
            self.conn.handle_response_too_large(now, id, l.len, limit);
        }
    }

    /// Writing to the server failed: what was queued is dropped, and the
    /// transport ends (for a server process, when its receiver says how
    /// the child ended).
    #[cold]
    fn write_failed(&mut self, now: Instant, e: String) {
        self.writing = None;
        self.written();
        self.outbox.clear();
        if self.has_server_process() {
            // The receiver reports how the child ended (exit status,
            // stderr tail), which says more than a broken pipe.
            tracing::debug!(error = %e, "writing to the server failed");
            self.last_transport_error = Some(e);
        } else {
            self.transport_ended(now, Some(e));
        }
    }

    /// Handles commands and stdio messages that are ready without waiting.
    ///
    /// The stdio receiver is tried only right after it handed over an
    /// item and while it holds input already read (a burst of lines from
    /// one read); a read that finds nothing is `wait`'s job, so a
    /// sequential call does not poll an empty pipe twice. It is polled with
    /// its own waker (`sources.rs`): a `Pending` leaves that waker
    /// registered, and `wait` then skips the receiver until it wakes.
    fn take_ready(
        &mut self,
        now: Instant,
        commands: &mut command_queue::CommandRx,
    ) -> Result<(), Option<oneshot::Sender<()>>> {
        for _ in 0..READY_BATCH {
            let mut more = false;
            if self.sources.may_hold(Source::Commands)
                && let Some(c) = commands.try_recv()
            {
                more = true;
                self.drain_queues(now);
                self.on_wake(now, Wake::Command(Some(c)))?;
            }
            if self.inbound_more
                && self.link_open
                && let Some(Link::Stream { receiver, .. }) = &mut self.link
                && receiver.has_buffered_input()
            {
                let polled = self.sources.poll_input(|cx| receiver.poll_recv(cx));
                match polled {
                    Poll::Ready(item) => {
                        more = true;
                        self.drain_queues(now);
                        self.on_wake(now, stream_wake(item))?;
                    }
                    Poll::Pending => self.inbound_more = false,
                }
            } else {
                self.inbound_more = false;
            }
            if !more {
                break;
            }
        }
        Ok(())
    }

    /// A write completed: what was waiting for it is out.
    fn written(&mut self) {
        self.unwritten = 0;
        self.delivered = 0;
    }

    /// Messages waiting for a write to start (a byte stream's queued
    /// lines, a custom transport's outbox when no send is in progress).
    fn unwritten(&self) -> usize {
        let custom = if self.writing.is_none() {
            self.outbox.len()
        } else {
            0
        };
        self.unwritten + custom
    }

    #[cold]
    fn transport_ended(&mut self, now: Instant, error: Option<String>) {
        self.link_open = false;
        let reason = match &error {
            Some(e) => CloseReason::Error(e.clone()),
            None => CloseReason::Eof,
        };
        if let Some(e) = error {
            tracing::debug!(error = %e, "transport ended");
            self.last_transport_error = Some(e);
        }
        // The calls it fails carry the server's exit (`server_exit.rs`).
        self.note_server_exit();
        self.conn.handle_transport_closed(now, reason);
    }

    /// No HTTP transport in this build: nothing to handle.
    #[cfg(not(feature = "http"))]
    fn on_http(&mut self, _: Instant, io: HttpIo) {
        match io {}
    }
}

/// What one item from a stdio receiver wakes the driver with (a message
/// here, any other line out of line).
#[inline(always)]
fn stream_wake(item: Option<Result<Inbound, mcp_transport_stdio::RecvError>>) -> Wake {
    match item {
        Some(Ok(Inbound::Message(m))) => Wake::Inbound(Some(Ok(m))),
        Some(Ok(other)) => other_line(other),
        Some(Err(e)) => Wake::Inbound(Some(Err(e.to_string()))),
        None => Wake::Inbound(None),
    }
}

/// [`stream_wake`] for a line that is not a message: broken, oversized,
/// or one the receiver skipped.
#[cold]
#[inline(never)]
fn other_line(line: Inbound) -> Wake {
    match line {
        Inbound::Broken(b) => Wake::Broken(b),
        Inbound::Oversized(l) => Wake::Oversized(l),
        other => {
            tracing::debug!(item = ?other, "skipped a line from the server");
            Wake::Skipped
        }
    }
}

//! The driver: one task per connection that owns the core [`Connection`]
//! and the transport.
//!
//! Handles talk to it through one command channel. After every input or
//! command it follows the core's drain rule: drain `poll_transmit` into the
//! transport, drain `poll_event` into the waiting callers and handlers,
//! then arm one timer from `poll_timeout`. The clock the core is told is
//! read through [`clock`] (tokio's, so a paused test clock drives it).
//! HTTP exchanges, response streams and running handlers are futures
//! polled inside the driver's `select!` (no task per request).

mod callback_tasks;
pub(crate) mod events;
pub(crate) mod http;
pub(crate) mod notify_queue;

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use mcp_core::correlation::IdMap;
use mcp_core::{CloseReason, Connection};
use mcp_transport_http::HttpError;
use mcp_transport_stdio::Inbound;
use mcp_types::{Message, RequestId};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::client::Shared;
use crate::driver::events::{Outcome, Pending, Sink};
use crate::driver::http::{HttpIo, post};
use crate::era_cache::EraCache;
use crate::error::Error;
use crate::handlers::{BoxFuture, Served};
use crate::options::CallOptions;
use crate::transport::Link;

/// What a call is, as the driver starts it.
pub(crate) struct CallSpec {
    pub(crate) method: String,
    pub(crate) params: Option<Value>,
    pub(crate) opts: CallOptions,
    pub(crate) kind: SpecKind,
}

/// How the core runs the call and where its results go.
pub(crate) enum SpecKind {
    Plain,
    ListAll,
    Listen(mpsc::UnboundedSender<crate::client::listen::ListenItem>),
    Task(crate::tasks::inputs::TaskSink),
}

/// A command from a handle.
pub(crate) enum Command {
    Start {
        token: u64,
        spec: Box<CallSpec>,
        reply: oneshot::Sender<Result<Outcome, Error>>,
    },
    Cancel {
        token: u64,
    },
    /// Cancels a call by its JSON-RPC id.
    CancelId {
        id: RequestId,
        reply: oneshot::Sender<Result<(), Error>>,
    },
    /// The id of the call a token started, while it is in flight.
    IdOf {
        token: u64,
        reply: oneshot::Sender<Option<RequestId>>,
    },
    TaskInput {
        token: u64,
        responses: serde_json::Map<String, Value>,
        reply: oneshot::Sender<Result<(), Error>>,
    },
    Notify {
        method: &'static str,
        reply: oneshot::Sender<Result<(), Error>>,
    },
    Close {
        done: oneshot::Sender<()>,
    },
    /// Initialize, the GET stream, HTTP headers and credentials.
    Session(crate::client::session::SessionCommand),
}

/// Whom a handler's answer goes to.
pub(crate) enum Target {
    ServerRequest(RequestId),
    Input {
        call: RequestId,
        key: String,
        method: String,
    },
    TaskInput {
        call: RequestId,
        key: String,
        method: String,
    },
    /// Served callback tasks and outgoing progress (served_serve.rs).
    Local(crate::driver::callback_tasks::LocalWake),
    /// A server request's handler stopped because the server cancelled the
    /// request: nothing is answered (the cancellation page: "not send a
    /// response for the cancelled request").
    Abandoned,
}

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

/// The state of one connection, owned by its driver task.
pub(crate) struct Driver {
    pub(crate) conn: Connection,
    pub(crate) link: Option<Link>,
    pub(crate) link_open: bool,
    pub(crate) outbox: VecDeque<Vec<u8>>,
    pub(crate) writing: Option<BoxFuture<Result<(), String>>>,
    pub(crate) http_io: FuturesUnordered<BoxFuture<HttpIo>>,
    pub(crate) handler_io: FuturesUnordered<BoxFuture<(Target, Served)>>,
    /// Stops the handler of each server request still being served, for
    /// `notifications/cancelled`.
    pub(crate) serving: HashMap<RequestId, futures::future::AbortHandle>,
    // Keyed by ids this client assigns: the core's foldhash `IdMap`
    // (`serving` above is keyed by the server's ids and keeps SipHash).
    pub(crate) pending: IdMap<RequestId, Pending>,
    pub(crate) tokens: IdMap<u64, RequestId>,
    pub(crate) shared: std::sync::Arc<Shared>,
    pub(crate) connect_reply: Option<oneshot::Sender<Result<(), Error>>>,
    pub(crate) era_cache: Option<(EraCache, String)>,
    pub(crate) last_transport_error: Option<String>,
    /// The typed HTTP failure behind `last_transport_error`, when it ended
    /// no pending call (the handshake's requests): attached to the connect
    /// error.
    pub(crate) last_http_error: Option<HttpError>,
    pub(crate) get_stream: bool,
    pub(crate) closed: bool,
    /// The one timer, re-armed only when the core's deadline changes.
    pub(crate) timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    pub(crate) timer_at: Option<Instant>,
    /// Callback tasks served for the server (2025-11-25).
    pub(crate) served: crate::driver::callback_tasks::ServedState,
    /// Deferred initialize and the GET stream on demand.
    pub(crate) session_ctl: crate::client::session::SessionControl,
    /// The bounded queue to the notification handler.
    pub(crate) notifier: crate::throughput::Notifier,
}

/// The instant the core is told: tokio's clock, which is the system's
/// monotonic clock except under a paused test clock
/// (`#[tokio::test(start_paused = true)]`), so the facade's deadlines can be
/// tested on virtual time like the core's.
pub(crate) fn clock() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// Other calls in flight from which the driver lets runnable callers queue
/// their requests before writing, so that they share one write.
const CONCURRENT_BATCHING: usize = 4;

/// The most ready items handled in one turn before waiting again.
const READY_BATCH: usize = 64;

impl Driver {
    /// Runs until the client is closed or every handle is gone.
    pub(crate) async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        let close_done = loop {
            self.flush();
            let wake = self.wait(&mut commands).await;
            let now = clock();
            if let Err(done) = self.on_wake(now, wake) {
                break done;
            }
            // Work that is already waiting is handled in the same turn (the
            // queues are still drained after each input), so a burst costs
            // one wake-up and one timer re-arm instead of one per message.
            if let Err(done) = self.take_ready(now, &mut commands) {
                break done;
            }
            // Requests are about to be written while several other calls
            // are in flight: first let the callers that are already runnable
            // (woken by replies just delivered) queue theirs, so a burst goes
            // out in one write and one wake-up. With little concurrency the
            // requests are written at once.
            self.drain_queues();
            if self.writing.is_none()
                && !self.outbox.is_empty()
                && self.conn.in_flight() >= self.outbox.len() + CONCURRENT_BATCHING
            {
                tokio::task::yield_now().await;
                if let Err(done) = self.take_ready(clock(), &mut commands) {
                    break done;
                }
            }
        };
        self.shut_down().await;
        if let Some(done) = close_done {
            let _ = done.send(());
        }
    }

    /// Handles one wake-up; `Err` ends the loop (with the closer to notify).
    fn on_wake(&mut self, now: Instant, wake: Wake) -> Result<(), Option<oneshot::Sender<()>>> {
        match wake {
            Wake::Command(Some(Command::Close { done })) => return Err(Some(done)),
            Wake::Command(None) => return Err(None),
            Wake::Command(Some(c)) => self.on_command(now, c),
            Wake::Inbound(Some(Ok(m))) => self.receive(now, m),
            Wake::Inbound(Some(Err(e))) => self.transport_ended(now, Some(e)),
            Wake::Inbound(None) => self.transport_ended(now, None),
            Wake::CustomFailed(e) => {
                for p in self.pending.values_mut() {
                    if p.cause.is_none() {
                        p.cause = crate::legacy_sse::pending_cause(&e);
                    }
                }
                self.transport_ended(now, Some(e.to_string()));
            }
            Wake::Skipped => {}
            // A broken reply fails its request at once, as the peer's
            // protocol fault; any other broken line is reported.
            Wake::Broken(b) => {
                self.conn
                    .handle_envelope_violation(now, b.id.as_ref(), b.violations);
            }
            Wake::Oversized(l) => {
                tracing::warn!(error = %l, "discarded a line over the limit");
                if let Some(id) = &l.id {
                    let limit = u64::try_from(l.limit).unwrap_or(u64::MAX);
                    self.conn.handle_response_too_large(now, id, l.len, limit);
                }
            }
            Wake::Wrote(Ok(())) => self.writing = None,
            Wake::Wrote(Err(e)) => {
                self.writing = None;
                self.outbox.clear();
                if matches!(
                    &self.link,
                    Some(Link::Stream {
                        process: Some(_),
                        ..
                    })
                ) {
                    // The receiver reports how the child ended (exit status,
                    // stderr tail), which says more than a broken pipe.
                    tracing::debug!(error = %e, "writing to the server failed");
                    self.last_transport_error = Some(e);
                } else {
                    self.transport_ended(now, Some(e));
                }
            }
            Wake::Http(io) => self.on_http(now, io),
            Wake::Handler(target, served) => self.on_served(now, target, served),
            Wake::Timer => {
                self.timer_at = None;
                self.conn.handle_timeout(now);
            }
        }
        Ok(())
    }

    /// Handles commands and stdio messages that are ready without waiting.
    fn take_ready(
        &mut self,
        now: Instant,
        commands: &mut mpsc::UnboundedReceiver<Command>,
    ) -> Result<(), Option<oneshot::Sender<()>>> {
        for _ in 0..READY_BATCH {
            let mut more = false;
            if let Ok(c) = commands.try_recv() {
                more = true;
                self.drain_queues();
                self.on_wake(now, Wake::Command(Some(c)))?;
            }
            if self.link_open
                && let Some(Link::Stream { receiver, .. }) = &mut self.link
                && let Some(item) = receiver.recv().now_or_never()
            {
                more = true;
                self.drain_queues();
                self.on_wake(now, stream_wake(item))?;
            }
            if !more {
                break;
            }
        }
        Ok(())
    }

    async fn wait(&mut self, commands: &mut mpsc::UnboundedReceiver<Command>) -> Wake {
        let at = self.conn.poll_timeout().map(|(at, _)| at);
        if at != self.timer_at
            && let Some(at) = at
        {
            self.timer
                .as_mut()
                .reset(tokio::time::Instant::from_std(at));
        }
        self.timer_at = at;
        let recv_open = self.link_open;
        let armed = at.is_some();
        let Driver {
            link,
            writing,
            http_io,
            handler_io,
            timer,
            ..
        } = self;
        let inbound = async {
            match link {
                Some(Link::Stream { receiver, .. }) if recv_open => {
                    stream_wake(receiver.recv().await)
                }
                Some(Link::Custom(t)) if recv_open => match t.recv().await {
                    Some(Ok(m)) => Wake::Inbound(Some(Ok(m))),
                    Some(Err(e)) => Wake::CustomFailed(e),
                    None => Wake::Inbound(None),
                },
                _ => std::future::pending().await,
            }
        };
        let write = async {
            match writing {
                Some(w) => w.await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            c = commands.recv() => Wake::Command(c),
            w = inbound => w,
            r = write => Wake::Wrote(r),
            Some(io) = http_io.next(), if !http_io.is_empty() => Wake::Http(io),
            Some((t, s)) = handler_io.next(), if !handler_io.is_empty() => Wake::Handler(t, s),
            () = timer.as_mut(), if armed => Wake::Timer,
        }
    }

    /// The drain rule, then start writing what it produced.
    fn flush(&mut self) {
        self.drain_queues();
        self.start_write();
    }

    /// The drain rule: transmits, then events, until both are empty.
    fn drain_queues(&mut self) {
        loop {
            let mut progressed = false;
            while let Some(t) = self.conn.poll_transmit() {
                progressed = true;
                self.transmit(t);
            }
            while let Some(e) = self.conn.poll_event() {
                progressed = true;
                self.on_event(e);
            }
            if !progressed {
                break;
            }
        }
    }

    fn transmit(&mut self, t: mcp_core::Transmit) {
        match (&self.link, t) {
            (
                Some(Link::Http(http)),
                mcp_core::Transmit::Message {
                    bytes,
                    routing,
                    call,
                    ..
                },
            ) => {
                // The call's extra headers go on every POST of the call:
                // retries with a fresh id, multi round-trip rounds, pages and
                // task requests.
                let headers = call
                    .as_ref()
                    .and_then(|id| self.pending.get(id))
                    .map(|p| p.headers.clone())
                    .unwrap_or_default();
                self.http_io
                    .push(post(http.clone(), bytes, routing, headers));
            }
            (Some(Link::Http(http)), mcp_core::Transmit::CloseStream { request_id }) => {
                http.cancel(&request_id);
            }
            (Some(_), mcp_core::Transmit::Message { bytes, .. }) => {
                self.outbox.push_back(bytes);
            }
            _ => {}
        }
    }

    fn start_write(&mut self) {
        if self.writing.is_some() || self.outbox.is_empty() {
            return;
        }
        let batch: Vec<Vec<u8>> = self.outbox.drain(..).collect();
        match &self.link {
            Some(Link::Stream { sender, .. }) => {
                let sender = sender.clone();
                // One write for the whole burst, not one per message.
                self.writing = Some(Box::pin(async move {
                    sender.send_batch(&batch).await.map_err(|e| e.to_string())
                }));
            }
            Some(Link::Custom(t)) => {
                let sends: Vec<_> = batch.into_iter().map(|m| t.send(m)).collect();
                self.writing = Some(Box::pin(async move {
                    for s in sends {
                        s.await.map_err(|e| e.to_string())?;
                    }
                    Ok(())
                }));
            }
            _ => {}
        }
    }

    fn on_command(&mut self, now: Instant, c: Command) {
        match c {
            Command::Start { reply, .. } if self.closed => {
                let _ = reply.send(Err(self.with_server_exit(Error::closed())));
            }
            Command::Start { reply, .. } if self.session_ctl.uninitialized => {
                let _ = reply.send(Err(Error::new(crate::error::ErrorKind::NotInitialized)));
            }
            Command::Notify { reply, .. } if self.session_ctl.uninitialized => {
                let _ = reply.send(Err(Error::new(crate::error::ErrorKind::NotInitialized)));
            }
            Command::Session(c) => self.on_session_command(now, c),
            Command::Start { token, spec, reply } => self.start(now, token, *spec, reply),
            Command::Cancel { token } => {
                if let Some(id) = self.tokens.remove(&token) {
                    if let Some(p) = self.pending.get_mut(&id) {
                        p.cancelled_by_drop = true;
                    }
                    if let Err(e) = self.conn.cancel(now, &id) {
                        tracing::debug!(error = %e, "cancel of a finished call");
                    }
                }
            }
            Command::CancelId { id, reply } => {
                let _ = reply.send(self.conn.cancel(now, &id).map_err(Error::from));
            }
            Command::IdOf { token, reply } => {
                let _ = reply.send(self.tokens.get(&token).cloned());
            }
            Command::TaskInput {
                token,
                responses,
                reply,
            } => {
                let r = match self.tokens.get(&token) {
                    Some(id) => self
                        .conn
                        .answer_task_input(now, id, responses)
                        .map_err(Error::from),
                    None => Err(Error::new(crate::error::ErrorKind::NotInProgress(
                        "the task's call is over",
                    ))),
                };
                let _ = reply.send(r);
            }
            Command::Notify { method, reply } => {
                // The core refuses notifications the negotiated era retired.
                let r = self.conn.notify(now, method, None).map_err(Error::from);
                let _ = reply.send(r);
            }
            Command::Close { .. } => {}
        }
    }

    fn start(
        &mut self,
        now: Instant,
        token: u64,
        spec: CallSpec,
        reply: oneshot::Sender<Result<Outcome, Error>>,
    ) {
        let CallSpec {
            method,
            params,
            opts,
            kind,
        } = spec;
        let crate::options::CallOptions {
            core: core_opts,
            progress,
            headers,
            ..
        } = opts;
        let started = match &kind {
            SpecKind::ListAll => self.conn.list_all(now, &method, params, core_opts),
            SpecKind::Listen(_) => {
                let filter = params
                    .and_then(|mut p| p.get_mut("notifications").map(Value::take))
                    .unwrap_or_else(|| serde_json::json!({}));
                self.conn.listen(now, filter, core_opts)
            }
            _ => self.conn.send_request(now, &method, params, core_opts),
        };
        match started {
            Ok(id) => {
                let sink = match kind {
                    SpecKind::Plain | SpecKind::ListAll => Sink::Plain,
                    SpecKind::Listen(tx) => Sink::Listen(tx),
                    SpecKind::Task(tx) => Sink::Task(tx),
                };
                self.tokens.insert(token, id.clone());
                let pending = Pending::new(token, &method, reply, progress, headers, sink);
                self.pending.insert(id, pending);
            }
            Err(e) => {
                let _ = reply.send(Err(e.into()));
            }
        }
    }

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
        // The calls it fails carry the server's exit (server_exit.rs).
        self.note_server_exit();
        self.conn.handle_transport_closed(now, reason);
    }

    /// Runs a handler inside the driver. A server request's handler stops
    /// when the server cancels the request ([`Driver::abandon`]); an input
    /// handler stops when its call ends (router.rs).
    pub(crate) fn serve(&mut self, target: Target, fut: BoxFuture<Served>) {
        let (abort, registration) = futures::future::AbortHandle::new_pair();
        match &target {
            Target::ServerRequest(id) => {
                self.serving.insert(id.clone(), abort);
            }
            Target::Input { call, .. } | Target::TaskInput { call, .. }
                if self.pending.contains_key(call) =>
            {
                if let Some(p) = self.pending.get_mut(call) {
                    p.inputs.push(abort);
                }
            }
            _ => {
                self.handler_io
                    .push(Box::pin(async move { (target, fut.await) }));
                return;
            }
        }
        let fut = futures::future::Abortable::new(fut, registration);
        self.handler_io.push(Box::pin(async move {
            match fut.await {
                Ok(served) => (target, served),
                Err(futures::future::Aborted) => (Target::Abandoned, Ok(Value::Null)),
            }
        }));
    }

    /// The server cancelled a request it sent: its handler stops (its future
    /// is dropped) and no answer goes out.
    pub(crate) fn abandon(&mut self, id: &RequestId) {
        if let Some(abort) = self.serving.remove(id) {
            abort.abort();
        }
    }

    async fn shut_down(&mut self) {
        self.conn.close(clock());
        self.flush();
        if let Some(w) = self.writing.take() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), w).await;
        }
        self.http_io.clear();
        self.handler_io.clear();
        if let Some(link) = self.link.take() {
            link.close().await;
        }
    }
}

/// What one item from a stdio receiver wakes the driver with.
fn stream_wake(item: Option<Result<Inbound, mcp_transport_stdio::RecvError>>) -> Wake {
    match item {
        Some(Ok(Inbound::Message(m))) => Wake::Inbound(Some(Ok(m))),
        Some(Ok(Inbound::Broken(b))) => Wake::Broken(b),
        Some(Ok(Inbound::Oversized(l))) => Wake::Oversized(l),
        Some(Ok(other)) => {
            tracing::debug!(item = ?other, "skipped a line from the server");
            Wake::Skipped
        }
        Some(Err(e)) => Wake::Inbound(Some(Err(e.to_string()))),
        None => Wake::Inbound(None),
    }
}

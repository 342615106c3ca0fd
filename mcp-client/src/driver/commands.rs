//! What a handle asks of the driver (the [`Command`]s) and how the driver
//! carries each out: starting, cancelling and answering calls, sending a
//! notification, and session control (initialize, the GET stream, HTTP
//! headers and credentials).

use std::borrow::Cow;
#[cfg(feature = "http")]
use std::sync::Arc;
use std::time::Instant;

#[cfg(feature = "http")]
use mcp_transport_http::auth::AuthProvider;
use mcp_types::RequestId;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::Driver;
use super::calls::{Pending, Sink};
use super::exchange::{CallRef, CallTx};
use crate::error::{Error, ErrorKind};
use crate::options::CallOptions;
use crate::tasks::inputs::InputItem;
#[cfg(feature = "http")]
use crate::transport::Link;
use mcp_core::{RequestOptions, ToolCall};

#[cfg(feature = "http")]
const HTTP_ONLY: &str = "HTTP headers and credentials apply to HTTP connections only";

/// Where the answer to a command goes.
pub(crate) type Reply<T> = oneshot::Sender<Result<T, Error>>;

/// What a call is, as the driver starts it.
pub(crate) struct CallSpec {
    /// A method marker's name is borrowed (no copy per call).
    pub(crate) method: Cow<'static, str>,
    /// Boxed: a spec moves through several frames on its way to the
    /// driver, and a `Value` inline (72 bytes) made it 160 bytes, each move
    /// a `memcpy` call; a tool call has none, and a call with params built
    /// a map for them anyway.
    pub(crate) params: Option<Box<Value>>,
    pub(crate) opts: CallOptions,
    pub(crate) kind: SpecKind,
}

/// How the core runs the call and where its results go.
pub(crate) enum SpecKind {
    Plain,
    /// A `tools/call` of the tool this names, with its arguments: the
    /// core keeps the two as they are (`call_tool_owned`), with no params
    /// map built for them.
    Tool(ToolCall),
    ListAll,
    Listen(mpsc::UnboundedSender<crate::client::listen::ListenItem>),
    Task(crate::tasks::inputs::TaskSink),
    /// The core watches a task this client did not start.
    Watch {
        sink: crate::tasks::inputs::TaskSink,
        task_id: String,
    },
}

/// A command from a handle.
pub(crate) enum Command {
    Start {
        /// Where the call's outcome goes (`exchange.rs`).
        call: CallTx,
        /// What the call is: moved here, so the driver takes it without a
        /// lock.
        spec: CallSpec,
        /// The call's client span (`crate::telemetry`), made in the caller's
        /// context; the call holds it until it ends.
        span: tracing::Span,
    },
    /// The handle is gone: cancels the call (a watch stops watching).
    Cancel {
        call: CallRef,
    },
    /// Cancels the task behind a call (`tasks/cancel`), a watched one too.
    CancelTask {
        call: CallRef,
    },
    /// Cancels a call by its JSON-RPC id.
    CancelId {
        id: RequestId,
        reply: oneshot::Sender<Result<(), Error>>,
    },
    /// The id of a call, while it is in flight.
    IdOf {
        call: CallRef,
        reply: oneshot::Sender<Option<RequestId>>,
    },
    /// A task handle waits for its task (`task_waits.rs`).
    TaskWait {
        call: CallRef,
        wait: mcp_core::TaskWait,
        reply: oneshot::Sender<mcp_core::TaskWaitEnd>,
    },
    TaskInput {
        call: CallRef,
        responses: serde_json::Map<String, Value>,
        reply: oneshot::Sender<Result<(), Error>>,
    },
    Notify {
        method: &'static str,
        reply: oneshot::Sender<Result<(), Error>>,
    },
    /// 2026-07-28: the log level every later request asks for (the core
    /// puts it in each request's `_meta`).
    SetLogLevel(String),
    Close {
        done: oneshot::Sender<()>,
    },
    /// Initialize, the GET stream, HTTP headers and credentials.
    Session(SessionCommand),
    /// Input requests of a task that its handle kept for a closure and now
    /// hands to the registered handlers (run inside the driver).
    ServeHeld(Vec<InputItem>),
    /// What a 2026-07-28 POST its caller held gave, when the driver was
    /// busy (`direct.rs`).
    #[cfg(feature = "http")]
    Handback(super::direct::Handback),
}

/// A session-control request from a handle.
pub(crate) enum SessionCommand {
    Initialize(Reply<()>),
    OpenStream(Reply<bool>),
    CloseStream(Reply<bool>),
    #[cfg(feature = "http")]
    Http {
        change: HttpChange,
        reply: Reply<bool>,
    },
}

/// A change to the HTTP transport's per-connection settings.
#[cfg(feature = "http")]
pub(crate) enum HttpChange {
    SetHeader(String, String),
    RemoveHeader(String),
    Auth(Option<Arc<dyn AuthProvider>>),
}

impl Driver {
    #[inline(always)]
    pub(super) fn on_command(&mut self, now: Instant, c: Command) {
        // A call's start, the command of every call, first; the rest out
        // of line (the common path's code stays small and together).
        // Any command takes the input back from a caller that reads it
        // (`direct.rs`): a reply to anyone else may come first. (A caller's
        // own start takes a lease over or back in `Driver::run_direct`.)
        self.sources.revoke_input();
        match c {
            Command::Start { call, spec, span } => self.on_start(now, call, spec, span),
            c => self.on_other_command(now, c),
        }
    }

    /// A call's start, from the command channel or from its caller
    /// (`direct.rs`).
    #[inline(always)]
    pub(super) fn on_start(
        &mut self,
        now: Instant,
        call: CallTx,
        spec: CallSpec,
        span: tracing::Span,
    ) {
        if self.closed || self.uninitialized {
            self.refuse_start(call);
        } else {
            self.start(now, call, spec, span);
        }
    }

    /// A call's start on a connection that is closed, or not initialized
    /// yet: the call ends at once. Out of line: the common path's code
    /// stays small.
    #[cold]
    #[inline(never)]
    fn refuse_start(&mut self, call: CallTx) {
        let e = if self.closed {
            self.with_server_exit(Error::closed())
        } else {
            Error::new(ErrorKind::NotInitialized)
        };
        call.send(Err(e));
    }

    /// [`Driver::on_command`] for every command but a call's start.
    #[inline(never)]
    fn on_other_command(&mut self, now: Instant, c: Command) {
        match c {
            Command::Notify { reply, .. } if self.uninitialized => {
                let _ = reply.send(Err(Error::new(ErrorKind::NotInitialized)));
            }
            Command::Session(c) => self.on_session_command(now, c),
            // `on_command` takes starts itself; one here would be carried
            // out all the same.
            Command::Start { call, spec, span } => self.on_start(now, call, spec, span),
            Command::Cancel { call } => {
                if let Some(id) = self.in_flight(&call) {
                    if let Some(p) = self.pending.get_mut(&id) {
                        p.cancelled = true;
                    }
                    if let Err(e) = self.stop_call(now, &id) {
                        tracing::debug!(error = %e, "cancel of a finished call");
                    }
                }
            }
            Command::CancelTask { call } => {
                if let Some(id) = self.in_flight(&call)
                    && let Err(e) = self.conn.cancel(now, &id)
                {
                    tracing::debug!(error = %e, "cancel of a finished task");
                }
            }
            Command::CancelId { id, reply } => {
                let _ = reply.send(self.conn.cancel(now, &id).map_err(Error::from));
            }
            Command::IdOf { call, reply } => {
                let _ = reply.send(self.in_flight(&call));
            }
            Command::TaskWait { call, wait, reply } => {
                self.wait_for_task(now, &call, wait, reply);
            }
            Command::TaskInput {
                call,
                responses,
                reply,
            } => {
                let r = match self.in_flight(&call) {
                    Some(id) => self
                        .conn
                        .answer_task_input(now, &id, responses)
                        .map_err(Error::from),
                    None => Err(Error::new(ErrorKind::NotInProgress(
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
            Command::ServeHeld(items) => self.serve_held(items),
            #[cfg(feature = "http")]
            Command::Handback(io) => self.on_http(now, *io.0),
            Command::SetLogLevel(level) => self.conn.set_log_level(Some(level)),
            Command::Close { .. } => {}
        }
    }

    /// The id of a handle's call while the driver tracks it (started, and
    /// not ended or cancelled since).
    pub(super) fn in_flight(&self, call: &CallRef) -> Option<RequestId> {
        call.id()
            .filter(|id| self.pending.get(id).is_some_and(|p| !p.cancelled))
    }

    #[inline]
    fn start(&mut self, now: Instant, call: CallTx, spec: CallSpec, span: tracing::Span) {
        let CallSpec {
            method,
            params,
            opts,
            kind,
        } = spec;
        let params = params.map(|p| *p);
        // The core's options are made where the core takes them, in the
        // argument itself: no default set of some 400 bytes built, and no
        // 300 bytes of options moved, when none was set.
        let mut set = opts.into_set();
        let (started, sink, watch) =
            start_in_core(&mut self.conn, now, kind, &method, params, &mut set);
        // No header map is made (and dropped) for a call without options.
        let (progress, headers) = match set {
            Some(set) => (set.progress, Some(set.headers)),
            None => (None, None),
        };
        match started {
            Ok(id @ RequestId::Number(key)) => {
                call.set_id(&id);
                crate::telemetry::record_started(&span, &id, self.link.as_ref());
                let mut pending = Pending::new(span, call, progress, headers, sink);
                pending.watch = watch;
                self.pending.insert(key, pending);
            }
            other => not_started(other, call, &span),
        }
    }

    pub(super) fn on_session_command(&mut self, now: Instant, c: SessionCommand) {
        match c {
            SessionCommand::Initialize(reply) => self.initialize(now, reply),
            SessionCommand::OpenStream(reply) => self.want_server_stream(now, reply),
            SessionCommand::CloseStream(reply) => self.unwant_server_stream(now, reply),
            #[cfg(feature = "http")]
            SessionCommand::Http { change, reply } => {
                let _ = reply.send(self.change_http(change));
            }
        }
    }

    fn initialize(&mut self, now: Instant, reply: Reply<()>) {
        if self.closed {
            let _ = reply.send(Err(Error::closed()));
            return;
        }
        match self.conn.connect(now) {
            Ok(()) => {
                self.uninitialized = false;
                self.connect_reply = Some(reply);
            }
            Err(e) => {
                let _ = reply.send(Err(e.into()));
            }
        }
    }

    #[cfg(feature = "http")]
    fn change_http(&mut self, change: HttpChange) -> Result<bool, Error> {
        let Some(Link::Http(http)) = &self.link else {
            return Err(if self.closed {
                Error::closed()
            } else {
                Error::new(ErrorKind::NotApplicable(HTTP_ONLY))
            });
        };
        let invalid = |name: &str| {
            Error::new(ErrorKind::InvalidHeader {
                name: name.to_owned(),
            })
        };
        match change {
            HttpChange::SetHeader(name, value) => http
                .set_header(&name, &value)
                .map(|()| true)
                .map_err(|_| invalid(&name)),
            HttpChange::RemoveHeader(name) => http.remove_header(&name).map_err(|_| invalid(&name)),
            HttpChange::Auth(auth) => {
                http.set_auth(auth);
                Ok(true)
            }
        }
    }
}

/// The core's options of a call: those set, taken out of the set, or the
/// defaults. Inlined, so that the options are made in the core call's
/// argument itself rather than moved there (some 300 bytes a call).
#[inline(always)]
fn core_options(set: &mut Option<Box<crate::options::Set>>) -> RequestOptions {
    set.as_deref_mut()
        .map_or_else(RequestOptions::default, |s| std::mem::take(&mut s.core))
}

/// Starts a call of `kind` in the core: the core's answer, where the
/// call's outcome goes, and whether it watches a task. Out of line (each
/// kind's start inlines the core's options): `Driver::start`, which every
/// call runs, stays a few lines of code.
#[inline(never)]
fn start_in_core(
    conn: &mut mcp_core::Connection,
    now: Instant,
    kind: SpecKind,
    method: &str,
    params: Option<Value>,
    set: &mut Option<Box<crate::options::Set>>,
) -> (Result<RequestId, mcp_core::UsageError>, Sink, bool) {
    // A tool call first: its arm is laid out next to the dispatch.
    match kind {
        SpecKind::Tool(tool) => (
            conn.call_tool_owned(now, tool, core_options(set)),
            Sink::Plain,
            false,
        ),
        SpecKind::Plain => (
            conn.send_request(now, method, params, core_options(set)),
            Sink::Plain,
            false,
        ),
        SpecKind::ListAll => (
            conn.list_all(now, method, params, core_options(set)),
            Sink::Plain,
            false,
        ),
        SpecKind::Listen(tx) => {
            let filter = params
                .and_then(|mut p| p.get_mut("notifications").map(Value::take))
                .unwrap_or_else(|| serde_json::json!({}));
            let started = conn.listen(now, filter, core_options(set));
            (started, Sink::Listen(tx), false)
        }
        SpecKind::Watch { task_id, sink } => {
            let started = conn.watch_task(now, &task_id, core_options(set));
            (started, Sink::Task(Box::new(sink)), true)
        }
        SpecKind::Task(tx) => {
            let started = conn.start_task(now, method, params, core_options(set));
            (started, Sink::Task(Box::new(tx)), false)
        }
    }
}

/// A call the core did not start: it ends here with the core's refusal.
/// Out of line: a start's common path stays a few instructions.
#[cold]
#[inline(never)]
fn not_started(
    started: Result<RequestId, mcp_core::UsageError>,
    call: CallTx,
    span: &tracing::Span,
) {
    let r = match started {
        Ok(id) => {
            // The core numbers every call: a call it named otherwise
            // could never be found again, so it ends here.
            tracing::error!(%id, "the core named a call by a string id");
            Err(mcp_core::RequestError::Closed.into())
        }
        Err(e) => Err(e.into()),
    };
    crate::telemetry::record_end(span, &r);
    call.send(r);
}

#[cfg(test)]
mod tests {
    /// A spec is moved several times on its way to the driver: up to 128
    /// bytes a move is a few register copies, past it a `memcpy` call (it
    /// was 160 bytes with its params inline).
    #[test]
    fn a_call_spec_moves_without_a_memcpy() {
        let size = std::mem::size_of::<super::CallSpec>();
        assert!(size <= 128, "a call's spec is {size} bytes");
    }
}

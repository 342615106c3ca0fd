//! What the core hands out: [`Transmit`]s for the transport and [`Event`]s
//! for the application.

use mcp_types::incoming::{ServerNotification, ServerRequest};
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::raw::RawJson;
use mcp_types::routing::HttpRouting;
use mcp_types::{Era, ProtocolVersion, RequestId, RequestMethod};
use serde_json::value::RawValue;

use crate::era::EraOutcome;
use crate::error::{ConnectError, PeerMisbehaved, RequestError};
use crate::tasks::{TaskSnapshot, TaskWaitEnd};

/// A request method's name: the method table's static text for a known
/// method (no copy per call), an owned copy for any other.
pub type MethodName = std::borrow::Cow<'static, str>;

/// One thing for the transport to do.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transmit {
    /// Send one serialized JSON-RPC message. stdio appends `'\n'`; HTTP
    /// POSTs it with headers rendered from `routing`.
    Message {
        /// The message, serialized once by the core (no trailing newline).
        bytes: Vec<u8>,
        /// Routing data for HTTP. Over other transports (`Config::transport`
        /// not `Http`) a call's request carries only its version and id
        /// here: the 2026-07-28 `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
        /// values are rendered for HTTP alone.
        routing: HttpRouting,
        /// The call this message belongs to (the id returned when the call
        /// was started), for every request of the call: the first send,
        /// resends with a fresh wire id (multi round-trip, version retry),
        /// pages and task requests. `None` for notifications and responses.
        call: Option<RequestId>,
    },
    /// HTTP: stop reading the response stream of this request and close it.
    /// In 2026-07-28 closing is the cancellation; in 2025-11-25 it
    /// follows `notifications/cancelled`, so that a stream the server keeps
    /// open does not hold a concurrent-request slot. stdio transports never
    /// see this.
    CloseStream {
        /// The wire id of the request whose stream to close.
        request_id: RequestId,
    },
    /// HTTP, 2025-11-25: open the GET stream (dropping any GET of an older
    /// generation), then report its fate with
    /// `Connection::handle_server_stream(now, generation, ..)`.
    OpenServerStream {
        /// Tags the outcome: outcomes of older generations are ignored.
        generation: u64,
    },
    /// HTTP, 2025-11-25: drop the GET stream (open, opening or waiting).
    CloseServerStream,
}

impl Transmit {
    /// The bytes of a message transmit.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Transmit::Message { bytes, .. } => Some(bytes),
            _ => None,
        }
    }

    /// The call a message transmit belongs to (see [`Transmit::Message`]).
    pub fn call(&self) -> Option<&RequestId> {
        match self {
            Transmit::Message { call, .. } => call.as_ref(),
            _ => None,
        }
    }
}

/// A final result of a call, still raw: decode it with the type the request
/// expects.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Completed {
    /// The call (the id returned when it was started).
    pub id: RequestId,
    /// The request method.
    pub method: MethodName,
    /// The result object, not parsed yet: [`Completed::decode`] parses it
    /// (once) into the type the caller wants.
    pub result: RawJson,
    /// Served from the cache; no bytes were sent.
    pub cached: bool,
}

impl Completed {
    /// Decodes the result as `T`.
    ///
    /// # Errors
    /// When the result does not have the shape of `T`.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        self.result.decode()
    }

    /// Decodes the result with the type of a method marker.
    ///
    /// # Errors
    /// When the result does not have the shape of `M::Result`.
    pub fn decode_as<M: RequestMethod>(&self) -> Result<M::Result, serde_json::Error> {
        self.decode::<M::Result>()
    }
}

/// How a subscription ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum SubscriptionEnd {
    /// The server sent the closing result.
    Completed,
    /// The server sent `notifications/cancelled` for the listen id.
    ServerCancelled,
    /// The client cancelled it.
    Cancelled,
    /// It failed (transport closed, protocol violation, remote error ...).
    Failed(RequestError),
}

/// Something the application should know about.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event {
    /// The lifecycle is ready: requests may be sent.
    Connected {
        /// The negotiated version.
        version: ProtocolVersion,
        /// Its era.
        era: Era,
    },
    /// The era was decided; cache it per server, to skip the probe next
    /// time.
    EraDecided(EraOutcome),
    /// The lifecycle failed; the connection is closed.
    ConnectFailed(ConnectError),
    /// A call finished with a result.
    Response(Completed),
    /// A call failed.
    RequestFailed {
        /// The call.
        id: RequestId,
        /// The request method.
        method: MethodName,
        /// Why.
        error: RequestError,
    },
    /// A listing (`list_all`) finished.
    ListComplete {
        /// The call.
        id: RequestId,
        /// The list method.
        method: MethodName,
        /// Every item of every page, raw.
        items: Vec<Box<RawValue>>,
        /// Pages fetched.
        pages: u32,
    },
    /// A tool was dropped from a `tools/list` result because of an invalid
    /// `x-mcp-header` annotation (HTTP only).
    ToolDropped {
        /// The tool's name.
        name: String,
        /// Why.
        reason: crate::headers::HeaderAnnotationError,
    },
    /// Progress of a call.
    Progress {
        /// The call.
        id: RequestId,
        /// Progress so far.
        progress: f64,
        /// Total, when known.
        total: Option<f64>,
        /// A message.
        message: Option<String>,
    },
    /// A call needs input (2026-07-28 multi round-trip, auto mode): answer
    /// with `Connection::answer_input`.
    InputRequested {
        /// The call.
        id: RequestId,
        /// The input request's key (the answer goes under it).
        key: String,
        /// The input request, classified by method, params raw.
        request: ServerRequest,
    },
    /// A call ended with `input_required` (manual mode).
    InputRequired {
        /// The call.
        id: RequestId,
        /// The request method.
        method: MethodName,
        /// The `InputRequiredResult`, verbatim.
        result: Box<RawValue>,
    },
    /// A call created a task; the core polls it.
    TaskCreated {
        /// The call.
        id: RequestId,
        /// The task.
        task: TaskSnapshot,
    },
    /// A task's status was observed (a poll, a push, or the state the
    /// call's end implies): the connection's record of the task, polls and
    /// pushes merged; once terminal it stays so.
    TaskStatus {
        /// The call.
        id: RequestId,
        /// The task.
        task: TaskSnapshot,
    },
    /// The wait of [`Connection::wait_task`](crate::Connection::wait_task)
    /// on this call's task is over.
    TaskWaitOver {
        /// The call.
        id: RequestId,
        /// How it ended.
        end: TaskWaitEnd,
    },
    /// A task waits for input (2026-07-28): answer with
    /// `Connection::answer_task_input`. Each key is surfaced once.
    TaskInputRequested {
        /// The call.
        id: RequestId,
        /// The input request's key (the answer goes under it).
        key: String,
        /// The input request, classified by method, params raw.
        request: ServerRequest,
    },
    /// A server-to-client request (2025-11-25): answer with
    /// `Connection::respond`.
    ServerRequest {
        /// The server's id.
        id: RequestId,
        /// The request, classified by method, params raw (`ping` and
        /// `tasks/*` for served tasks never get here: the core answers
        /// them).
        request: ServerRequest,
    },
    /// The server cancelled one of its requests; do not answer it.
    ServerRequestCancelled {
        /// The server's id.
        id: RequestId,
        /// The reason given.
        reason: Option<String>,
    },
    /// A notification not tied to a call or subscription, classified by
    /// method, params raw (progress and cancellation become
    /// [`Event::Progress`] and [`Event::ServerRequestCancelled`] instead).
    Notification(ServerNotification),
    /// A subscription was acknowledged; `granted` is the server's filter.
    SubscriptionAcknowledged {
        /// The listen call.
        id: RequestId,
        /// The acknowledgement params, raw.
        params: Option<Box<RawValue>>,
    },
    /// A notification delivered on a subscription.
    SubscriptionNotification {
        /// The listen call.
        id: RequestId,
        /// The notification, classified by method, params raw.
        notification: ServerNotification,
    },
    /// A subscription ended.
    SubscriptionEnded {
        /// The listen call.
        id: RequestId,
        /// How.
        reason: SubscriptionEnd,
    },
    /// The server broke the protocol; the connection continues.
    ProtocolViolation(PeerMisbehaved),
    /// An HTTP POST of a notification or response was rejected.
    PostRejected {
        /// The HTTP status.
        status: u16,
        /// The JSON-RPC error body, if any.
        error: Option<ErrorObject>,
    },
    /// The legacy HTTP session expired (404): the failed request was not
    /// replayed, and a fresh `initialize` is under way (`Connected` follows
    /// when the new session is ready, or `ConnectFailed`).
    SessionExpired,
    /// The server's facts (`serverInfo`, capabilities, instructions) became
    /// known after the connection was ready: the answer to the background
    /// `server/discover` of a connection whose era came from a cache
    /// ([`crate::EraPreference::Known`]).
    ServerFactsKnown,
    /// The server asked for a callback task (2025-11-25) and the core
    /// answered with its `CreateTaskResult`: run the handler for `request`
    /// and report with `Connection::finish_served_task`.
    ServedTaskStarted {
        /// The task id the client issued.
        task_id: String,
        /// `sampling/createMessage` or `elicitation/create`, params raw
        /// (`task` included).
        request: ServerRequest,
    },
    /// A served task was cancelled, expired or lost its session: stop its
    /// handler; its answer is no longer wanted.
    ServedTaskStopped {
        /// The task id.
        task_id: String,
    },
    /// Putting the old session's state (a resource subscription, the log
    /// level) back into a recovered 2025-11-25 session failed.
    SessionRestoreFailed {
        /// The request that failed (`resources/subscribe`, `logging/setLevel`).
        method: MethodName,
        /// Why.
        error: crate::connection::RestoreFailure,
    },
    /// The 2025-11-25 GET stream changed (see
    /// [`crate::connection::server_stream`]).
    ServerStream(crate::connection::ServerStreamChange),
    /// The GET stream opened when the session became ready has answered,
    /// or the wait for it is over: a `connect` held for it may return.
    ServerStreamSettled,
    /// The connection is closed; nothing more will happen.
    Closed,
}

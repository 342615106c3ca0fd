//! Errors, grouped by who is at fault.
//!
//! * [`UsageError`]: the caller misused the API; nothing was sent.
//! * [`PeerMisbehaved`]: the server broke the protocol.
//! * [`RequestError`]: one request failed (remote error, timeout,
//!   cancellation, transport closed, round limit, ...).
//! * [`ConnectError`]: the lifecycle could not reach a usable state.
//!
//! Errors raised locally never carry a JSON-RPC code, so they cannot be
//! mistaken for an error from the peer.

use std::time::Duration;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{ProtocolVersion, RequestId};
use serde_json::value::RawValue;

use crate::pagination::PaginationError;

/// The caller used the API in a way the protocol or the state forbids.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// The connection is not ready: call `connect` and wait for `Event::Connected`.
    #[error("the connection is not ready yet: connect first and wait for Event::Connected")]
    NotReady,
    /// `connect` was called twice.
    #[error("connect was already called")]
    AlreadyConnecting,
    /// The connection is closed.
    #[error("the connection is closed")]
    Closed,
    /// The method no longer exists in the negotiated revision.
    #[error("`{method}` was removed in 2026-07-28; use {replacement}")]
    RetiredMethod {
        /// The method the caller asked for.
        method: String,
        /// What to use instead.
        replacement: &'static str,
    },
    /// The server did not advertise the capability the method needs
    /// (turn strictness off with `Config::with_strict_capabilities(false)`).
    #[error("the server did not advertise `{capability}`, which `{method}` needs")]
    CapabilityNotAdvertised {
        /// The method the caller asked for.
        method: String,
        /// The capability path, e.g. `resources.subscribe`.
        capability: &'static str,
    },
    /// The method exists only in the other era.
    #[error("`{method}` is not available in the {era:?} era")]
    WrongEra {
        /// The method the caller asked for.
        method: String,
        /// The negotiated era.
        era: mcp_types::Era,
    },
    /// `params` must be a JSON object (or absent).
    #[error("params must be a JSON object")]
    ParamsNotObject,
    /// A tool call's arguments must be a JSON object (or `null`, for none).
    #[error("tool arguments must be a JSON object")]
    ArgumentsNotObject,
    /// The params or a response could not be serialized.
    #[error("could not serialize: {0}")]
    Serialize(#[from] serde_json::Error),
    /// No call with this id is in progress.
    #[error("no call {0} is in progress")]
    UnknownCall(RequestId),
    /// No server request with this id awaits an answer.
    #[error("no server request {0} awaits an answer")]
    UnknownServerRequest(RequestId),
    /// The call is not waiting for this input.
    #[error("call {call} has no pending input request {key:?}")]
    UnknownInput {
        /// The call.
        call: RequestId,
        /// The input key.
        key: String,
    },
    /// The connection has no 2025-11-25 GET stream (stdio, 2026-07-28, or
    /// a transport without one).
    #[error("the GET stream exists only on 2025-11-25 Streamable HTTP connections")]
    NoServerStream,
    /// A task id must be 1 to `max` bytes long.
    #[error("a task id must be 1 to {max} bytes long")]
    InvalidTaskId {
        /// The longest id accepted.
        max: usize,
    },
    /// `initialize` must not be cancelled (the protocol forbids it).
    #[error("initialize cannot be cancelled")]
    CannotCancelInitialize,
}

/// The server broke the protocol. Reported as `Event::ProtocolViolation`
/// or inside `RequestError::Peer`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerMisbehaved {
    /// A response for an id this client never sent or no longer tracks.
    #[error("response for unknown request id {0}")]
    UnknownResponseId(RequestId),
    /// A second response for a request that was already answered.
    #[error("duplicate response for request id {0}")]
    DuplicateResponse(RequestId),
    /// An error response without an id (the server could not read a request).
    #[error("error without a request id: {0}")]
    ErrorWithoutId(ErrorObject),
    /// A result that does not decode as the type its request expects.
    #[error("invalid result for `{method}`: {reason}")]
    InvalidResult {
        /// The request method.
        method: String,
        /// What was wrong.
        reason: String,
    },
    /// A `resultType` the client does not know or did not declare.
    #[error("unrecognized resultType {value:?} for `{method}`")]
    UnknownResultType {
        /// The request method.
        method: String,
        /// The value received.
        value: String,
    },
    /// `input_required` on a method that cannot carry it.
    #[error("input_required is not allowed on `{method}`")]
    InputRequiredNotAllowed {
        /// The request method.
        method: String,
    },
    /// A notification on a subscription before its acknowledgement (the
    /// acknowledgement must come first).
    #[error("subscription {id} sent `{method}` before its acknowledgement")]
    NotificationBeforeAck {
        /// The listen request id.
        id: RequestId,
        /// The notification method.
        method: String,
    },
    /// A 2026-07-28 server sent a JSON-RPC request (servers never do).
    #[error("a modern server sent a request (`{method}`)")]
    UnexpectedRequest {
        /// The request method.
        method: String,
    },
    /// The server chose a version the client does not support (the client
    /// must then disconnect).
    #[error("the server chose unsupported protocol version {0}")]
    UnsupportedVersion(ProtocolVersion),
    /// A notification whose params do not have the required shape.
    #[error("malformed `{method}` notification: {reason}")]
    MalformedNotification {
        /// The notification method.
        method: String,
        /// What was wrong.
        reason: String,
    },
    /// HTTP: the server answered a request's POST with `202 Accepted` and
    /// no body, which only a notification or a response may get.
    #[error("the server answered request {0} with 202 Accepted and no body")]
    AcceptedWithoutBody(RequestId),
    /// Strict mode refused a response (see [`crate::strict`]).
    #[error(transparent)]
    Strict(crate::strict::StrictViolation),
    /// A frame broke the JSON-RPC envelope and answers no request in
    /// flight (a server request, a notification, or an unknown id).
    #[error("a message broke the JSON-RPC envelope ({})", envelope_codes(.violations))]
    InvalidEnvelope {
        /// The frame's id, when readable.
        id: Option<RequestId>,
        /// What was wrong.
        violations: Vec<mcp_types::jsonrpc::EnvelopeViolation>,
    },
}

fn envelope_codes(violations: &[mcp_types::jsonrpc::EnvelopeViolation]) -> String {
    let codes: Vec<&str> = violations.iter().map(|v| v.code()).collect();
    codes.join(", ")
}

/// Why one request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The server answered with a JSON-RPC error.
    #[error("the server returned an error: {0}")]
    Remote(ErrorObject),
    /// No final response within the deadline.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The caller cancelled the request.
    #[error("cancelled")]
    Cancelled,
    /// The transport closed before the response arrived.
    #[error("the transport closed before the response arrived")]
    TransportClosed,
    /// The connection was closed locally.
    #[error("the connection was closed")]
    Closed,
    /// The response was over the transport's size limit and was discarded
    /// (for example a stdio line over `ServerCommand::max_line_length`);
    /// the connection goes on.
    #[error(
        "the server's response is {size} bytes, over the limit of {limit} bytes; it was discarded"
    )]
    ResponseTooLarge {
        /// The size of the discarded response in bytes.
        size: u64,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The multi-round-trip loop hit its round cap; the last
    /// `InputRequiredResult` is attached.
    #[error("gave up after {rounds} input_required rounds")]
    RoundLimit {
        /// Rounds completed.
        rounds: u32,
        /// The last `InputRequiredResult`, verbatim.
        last: Box<RawValue>,
    },
    /// Pagination stopped (page cap or repeated cursor).
    #[error(transparent)]
    Pagination(#[from] PaginationError),
    /// The server broke the protocol while answering.
    #[error(transparent)]
    Peer(#[from] PeerMisbehaved),
    /// The HTTP request failed with a status that carries no JSON-RPC error.
    #[error("HTTP status {0}")]
    HttpStatus(u16),
    /// HTTP 401 or 403: authorization is needed (never a reason to downgrade).
    #[error("HTTP {0}: authorization required")]
    Unauthorized(u16),
    /// The legacy session expired (HTTP 404 on a request that carried the
    /// session id). A new session is started at once; this request was not
    /// replayed (it may or may not have taken effect), so retry it if that is
    /// safe.
    #[error(
        "the server ended the session; a new session was started and the request was not replayed"
    )]
    SessionExpired,
    /// The task ended as `cancelled`.
    #[error("the task was cancelled")]
    TaskCancelled,
    /// The 2025-11-25 GET stream could not be opened (described).
    #[error("the GET stream failed: {0}")]
    ServerStream(String),
    /// The request could not be resent (serialization).
    #[error("could not build the request: {0}")]
    Build(#[from] serde_json::Error),
}

/// Why the lifecycle could not reach a usable state.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// No version both sides support.
    #[error("no mutually supported protocol version (server supports {server:?})")]
    NoMutualVersion {
        /// The versions the server named.
        server: Vec<ProtocolVersion>,
    },
    /// The server is a legacy (2025-11-25 or older) server but the client
    /// allows only the modern era.
    #[error("the server speaks only the legacy protocol; allow legacy versions to talk to it")]
    LegacyServer,
    /// The server chose a version this client does not support (the client
    /// must then disconnect).
    #[error("the server chose unsupported protocol version {0}")]
    UnsupportedVersion(ProtocolVersion),
    /// The handshake request failed.
    #[error(transparent)]
    Request(#[from] RequestError),
}

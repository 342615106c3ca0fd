//! [`ErrorKind`]: what a caller matches on when a predicate of
//! [`Error`](crate::Error) is not enough, grouped by who is at fault.

use mcp_core::{ConnectError, RequestError, UsageError};
use mcp_types::jsonrpc::ErrorObject;

/// The typed details behind an [`Error`](crate::Error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller misused the API; nothing was sent.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// One request failed.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The lifecycle (handshake or discovery) failed.
    #[error("connecting failed: {error}{}", context_suffix(.context))]
    Connect {
        /// Why.
        error: ConnectError,
        /// What the transport reported last, if anything (for example the
        /// exit status and stderr tail of a stdio server).
        context: Option<String>,
    },
    /// The stdio server could not be started.
    #[error(transparent)]
    Spawn(#[from] mcp_transport_stdio::SpawnError),
    /// The HTTP transport could not be built or failed outside any request.
    #[cfg(feature = "http")]
    #[error(transparent)]
    Http(#[from] mcp_transport_http::HttpError),
    /// A custom or stdio transport failed.
    #[error("transport failed: {0}")]
    Transport(String),
    /// A result did not have the shape the method promises.
    #[error("invalid result for `{method}`: {source}")]
    Decode {
        /// The request method.
        method: String,
        /// The decoding error.
        #[source]
        source: serde_json::Error,
    },
    /// A tool result's `structuredContent` is absent or does not decode
    /// into the requested type.
    #[error("tool `{tool}` returned no structured content of the expected shape: {reason}")]
    StructuredContent {
        /// The tool.
        tool: String,
        /// What was wrong.
        reason: String,
    },
    /// The server asked for input that was not given: no registered
    /// handler serves it, or the client is in manual input mode and a typed
    /// method got an `input_required` result (use
    /// [`Client::send_request`](crate::Client::send_request) there).
    #[error("the server asked for input (`{method}`) that no handler answered")]
    InputUnanswered {
        /// The input request's method (`elicitation/create`, ...), or the
        /// call's method in manual input mode.
        method: String,
    },
    /// A registered handler refused or failed an input request of a
    /// 2026-07-28 call; the call was cancelled.
    #[error("the `{method}` handler failed: {}", .error.message)]
    Handler {
        /// The input request's method.
        method: String,
        /// The handler's error.
        error: ErrorObject,
    },
    /// The tool reported an error (`isError: true`) and the caller asked
    /// for a typed result.
    #[error("tool `{tool}` reported an error: {message}")]
    ToolError {
        /// The tool.
        tool: String,
        /// The text of the error content.
        message: String,
    },
    /// A header given for a request is not a valid HTTP header.
    #[error("invalid HTTP header {name:?}")]
    InvalidHeader {
        /// The header name as given.
        name: String,
    },
    /// A root given to [`Client::set_roots`](crate::Client::set_roots) is
    /// not an absolute `file://` URI.
    #[error("invalid root {uri:?}: {reason}")]
    InvalidRoot {
        /// The URI as given.
        uri: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The call or task this handle refers to is no longer in progress
    /// (or the server answered without creating a task).
    #[error("{0}")]
    NotInProgress(&'static str),
    /// [`Client::call_tool_and_poll`](crate::Client::call_tool_and_poll)
    /// polled the task `max_polls` times and it was still open; the task
    /// was cancelled.
    #[error("the task was still open after {max_polls} polls")]
    TaskPollCap {
        /// The cap that was reached.
        max_polls: u32,
    },
    /// The task ended in a state outside the set the caller waited for
    /// ([`TaskHandle::wait_for`](crate::TaskHandle::wait_for)).
    #[error("the task ended as {status:?}, outside the awaited states")]
    TaskEnded {
        /// The terminal state.
        status: mcp_types::tasks::TaskStatus,
    },
    /// The call ended in a way this method cannot return (for example a
    /// listing where a single result was expected). Not expected to
    /// happen; reported rather than hidden.
    #[error("`{method}` ended with {outcome}, which this method cannot return")]
    UnexpectedOutcome {
        /// The request method.
        method: String,
        /// What it ended with.
        outcome: &'static str,
    },
    /// The client was connected without initializing
    /// ([`ClientBuilder::connect_uninitialized`](crate::ClientBuilder::connect_uninitialized))
    /// and [`Client::initialize`](crate::Client::initialize) has not been
    /// called yet; nothing was sent.
    #[error("the client is not initialized yet: call `Client::initialize` first")]
    NotInitialized,
    /// The operation does not apply to this connection (for example the
    /// GET stream on a stdio or 2026-07-28 connection); nothing was sent.
    #[error("not available on this connection: {0}")]
    NotApplicable(&'static str),
    /// The client is closed (or its driver task ended).
    #[error("the client is closed")]
    Closed,
    /// The builder was asked for a transport this build of `mcp-client`
    /// leaves out (its Cargo feature is off); nothing was started. Also
    /// [`Error::is_usage`](crate::Error::is_usage).
    #[error("{what} needs mcp-client's `{feature}` feature, which this build leaves out")]
    FeatureDisabled {
        /// The Cargo feature to turn on.
        feature: &'static str,
        /// What was asked for.
        what: &'static str,
    },
}

fn context_suffix(context: &Option<String>) -> String {
    context
        .as_deref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default()
}

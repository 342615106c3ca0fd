//! [`Error`]: the one opaque error of the facade, with predicates.
//!
//! Every fallible method of [`Client`](crate::Client) returns [`Error`]. Ask
//! it questions ([`Error::is_timeout`], [`Error::remote_error`], ...) rather
//! than matching on its structure; the typed details are reachable through
//! [`Error::kind`] when a caller needs them, grouped by who is at fault:
//!
//! * the caller misused the API ([`ErrorKind::Usage`]);
//! * one request failed ([`ErrorKind::Request`]: remote error, timeout,
//!   cancelled, transport closed, round limit, ...);
//! * the server broke the protocol ([`ErrorKind::Decode`],
//!   [`ErrorKind::Request`] with a peer fault);
//! * the connection could not be set up or was lost ([`ErrorKind::Connect`],
//!   [`ErrorKind::Spawn`], [`ErrorKind::Http`], [`ErrorKind::Transport`],
//!   [`ErrorKind::Closed`]).

mod http_facts;
#[cfg(feature = "http")]
mod setup;

use std::fmt;

use mcp_core::{ConnectError, RequestError, UsageError};
use mcp_transport_stdio::ProcessExited;

use crate::http_parts::HttpError;
use mcp_types::jsonrpc::ErrorObject;

/// The typed details behind an [`Error`].
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
        status: mcp_core::tasks::TaskStatus,
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
    /// [`Error::is_usage`].
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

/// The error of every fallible [`Client`](crate::Client) method.
///
/// ```
/// use mcp_client::Error;
/// fn report(e: &Error) -> &'static str {
///     if e.is_timeout() {
///         "took too long"
///     } else if let Some(remote) = e.remote_error() {
///         if remote.code == mcp_client::mcp_types::ErrorCode::METHOD_NOT_FOUND { "unsupported" } else { "server error" }
///     } else if e.is_transport() {
///         "connection lost"
///     } else {
///         "other"
///     }
/// }
/// ```
pub struct Error {
    kind: Box<ErrorKind>,
    /// The transport error behind `kind`, when `kind` only summarizes it
    /// (for example an authorization provider failure that closed the
    /// request's stream). Returned by [`std::error::Error::source`].
    cause: Option<Box<HttpError>>,
    /// The stdio server's exit, when the connection ended because the
    /// server process did (server_exit.rs).
    exit: Option<Box<ProcessExited>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error {
            kind: Box::new(kind),
            cause: None,
            exit: None,
        }
    }

    /// Attaches the stdio server's exit to an error the end of the
    /// connection caused (a transport error); other errors stay as they are.
    pub(crate) fn with_exit(mut self, exit: ProcessExited) -> Self {
        if self.is_transport() && self.exit.is_none() {
            self.exit = Some(Box::new(exit));
        }
        self
    }

    /// The stdio server's exit behind this error: when a call failed
    /// because the server process ended (crashed, was killed, or exited),
    /// its exit status or signal and the last lines it wrote to stderr.
    /// [`Client::server_exit`](crate::Client::server_exit) reports the same
    /// afterwards.
    pub fn server_exit(&self) -> Option<&ProcessExited> {
        self.exit.as_deref()
    }

    /// Attaches the transport error behind this one (kept when `cause` is
    /// `None` or a cause is already attached).
    pub(crate) fn with_cause(mut self, cause: Option<HttpError>) -> Self {
        if self.cause.is_none() {
            self.cause = cause.map(Box::new);
        }
        self
    }

    /// The HTTP transport error behind this error, if one is known: the
    /// error itself ([`ErrorKind::Http`]) or the failure that ended the
    /// request or the connection (the kind then only summarizes it, for
    /// example as a closed transport).
    #[cfg(feature = "http")]
    pub fn http_error(&self) -> Option<&mcp_transport_http::HttpError> {
        match &*self.kind {
            ErrorKind::Http(e) => Some(e),
            _ => self.cause.as_deref(),
        }
    }

    pub(crate) fn closed() -> Self {
        Error::new(ErrorKind::Closed)
    }

    pub(crate) fn decode(method: &str, source: serde_json::Error) -> Self {
        Error::new(ErrorKind::Decode {
            method: method.to_owned(),
            source,
        })
    }

    /// The typed details.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Consumes the error into its typed details.
    pub fn into_kind(self) -> ErrorKind {
        *self.kind
    }

    fn request(&self) -> Option<&RequestError> {
        match &*self.kind {
            ErrorKind::Request(r) => Some(r),
            ErrorKind::Connect {
                error: ConnectError::Request(r),
                ..
            } => Some(r),
            _ => None,
        }
    }

    /// The request (or a task it created) ran out of time: its timeout, its
    /// total budget, or the handshake's.
    pub fn is_timeout(&self) -> bool {
        matches!(self.request(), Some(RequestError::Timeout(_)))
    }

    /// The request was cancelled (by the caller, or by dropping its future),
    /// or the task it created ended as `cancelled`.
    pub fn is_cancelled(&self) -> bool {
        matches!(
            self.request(),
            Some(RequestError::Cancelled | RequestError::TaskCancelled)
        )
    }

    /// The JSON-RPC error the server answered with, if that is what this is.
    pub fn remote_error(&self) -> Option<&ErrorObject> {
        match self.request() {
            Some(RequestError::Remote(e)) => Some(e),
            _ => None,
        }
    }

    /// The connection failed: the transport closed or broke, the server
    /// process exited, an HTTP exchange failed, a response was over the
    /// transport's size limit, or the client was closed.
    pub fn is_transport(&self) -> bool {
        match &*self.kind {
            #[cfg(feature = "http")]
            ErrorKind::Http(mcp_transport_http::HttpError::Config(_)) => false,
            #[cfg(feature = "http")]
            ErrorKind::Http(_) => true,
            ErrorKind::Transport(_) | ErrorKind::Spawn(_) => true,
            ErrorKind::Closed => true,
            _ => matches!(
                self.request(),
                Some(
                    RequestError::TransportClosed
                        | RequestError::Closed
                        | RequestError::HttpStatus(_)
                        | RequestError::SessionExpired
                        | RequestError::ResponseTooLarge { .. }
                )
            ),
        }
    }

    /// The server ended the legacy (2025-11-25) HTTP session (404 on a
    /// request that carried the session id). The client started a new
    /// session at once; this request was NOT replayed (it may or may not
    /// have taken effect), so retry it if that is safe. Later requests use
    /// the new session. Also [`Error::is_transport`].
    pub fn is_session_recovered(&self) -> bool {
        matches!(self.request(), Some(RequestError::SessionExpired))
    }

    /// The client (or its connection) is closed.
    pub fn is_closed(&self) -> bool {
        matches!(
            &*self.kind,
            ErrorKind::Closed | ErrorKind::Usage(UsageError::Closed)
        ) || matches!(self.request(), Some(RequestError::Closed))
    }

    /// The server asked for input (2026-07-28 multi round-trip, or a
    /// 2025-11-25 server request) that no registered handler could answer.
    pub fn is_input_required(&self) -> bool {
        matches!(&*self.kind, ErrorKind::InputUnanswered { .. })
    }

    /// The multi round-trip loop hit its round cap.
    pub fn is_round_limit(&self) -> bool {
        matches!(self.request(), Some(RequestError::RoundLimit { .. }))
    }

    /// The method was removed in the negotiated (2026-07-28) revision.
    pub fn is_retired_method(&self) -> bool {
        matches!(
            &*self.kind,
            ErrorKind::Usage(UsageError::RetiredMethod { .. } | UsageError::WrongEra { .. })
        )
    }

    /// The server did not advertise the capability the method needs
    /// (strict capabilities are on by default).
    pub fn is_capability_not_offered(&self) -> bool {
        matches!(
            &*self.kind,
            ErrorKind::Usage(UsageError::CapabilityNotAdvertised { .. })
        )
    }

    /// The server broke the protocol (a malformed result, an unknown
    /// `resultType`, ...), also when the HTTP transport found it (a reply
    /// body that is no JSON-RPC message, a broken envelope, an invalid
    /// `Mcp-Session-Id`) and the request only saw its stream close.
    pub fn is_protocol_violation(&self) -> bool {
        matches!(
            &*self.kind,
            ErrorKind::Decode { .. } | ErrorKind::StructuredContent { .. }
        ) || matches!(self.request(), Some(RequestError::Peer(_)))
            || http_facts::protocol_violation(self)
    }

    /// Authorization failed: the server answered 401/403 and the
    /// authorization provider could not resolve it, or the provider itself
    /// failed (for example an OAuth check refused the server's metadata:
    /// a wrong `iss`, a `resource` or `issuer` mismatch). The provider's
    /// error stays reachable in the [`std::error::Error::source`] chain
    /// (downcast to `mcp_client::auth::AuthError`, and to
    /// `mcp_client::oauth::AuthError` for the OAuth provider).
    pub fn is_authorization_failed(&self) -> bool {
        self.is_unauthorized() || http_facts::authorization_failed(self)
    }

    /// HTTP 401/403: authorization is needed.
    pub fn is_unauthorized(&self) -> bool {
        matches!(self.request(), Some(RequestError::Unauthorized(_)))
            || http_facts::unauthorized(&self.kind)
    }

    /// The caller misused the API (nothing was sent), including an invalid
    /// transport configuration (`HttpConfig::new`, `with_header`, ...).
    pub fn is_usage(&self) -> bool {
        http_facts::config(&self.kind)
            || matches!(
                &*self.kind,
                ErrorKind::Usage(_)
                    | ErrorKind::InvalidHeader { .. }
                    | ErrorKind::InvalidRoot { .. }
                    | ErrorKind::NotInProgress(_)
                    | ErrorKind::NotInitialized
                    | ErrorKind::NotApplicable(_)
                    | ErrorKind::FeatureDisabled { .. }
            )
    }

    /// The client has not been initialized yet (see
    /// [`ClientBuilder::connect_uninitialized`](crate::ClientBuilder::connect_uninitialized)).
    /// Also [`Error::is_usage`].
    pub fn is_not_initialized(&self) -> bool {
        matches!(&*self.kind, ErrorKind::NotInitialized)
    }

    /// The tool reported an error (`isError: true`) on a typed call.
    pub fn is_tool_error(&self) -> bool {
        matches!(&*self.kind, ErrorKind::ToolError { .. })
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.kind, f)
    }
}

impl Error {
    /// What the error says after its cause when the kind only summarises
    /// an attached HTTP failure (the core saw a closed stream): `None` when
    /// the kind's own message names the cause.
    fn summary_after_cause(&self) -> Option<&'static str> {
        match &*self.kind {
            ErrorKind::Request(RequestError::TransportClosed) => {
                Some("the request got no response")
            }
            ErrorKind::Request(RequestError::Unauthorized(_)) => Some("authorization required"),
            ErrorKind::Connect {
                error:
                    ConnectError::Request(
                        RequestError::TransportClosed
                        | RequestError::Closed
                        | RequestError::Unauthorized(_),
                    ),
                ..
            }
            | ErrorKind::Transport(_) => Some("connecting failed"),
            ErrorKind::Closed => Some("the client is closed"),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    /// The kind's message, with the real cause first when the kind only
    /// summarises it:
    /// * an HTTP failure behind a closed stream: `connection refused:
    ///   nothing listens at http://127.0.0.1:9 (connecting failed)`;
    /// * the stdio server's exit: `the server process exited (exit status:
    ///   3) before the response arrived; stderr: panic: ... | ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(exit) = &self.exit else {
            return match (&self.cause, self.summary_after_cause()) {
                (Some(cause), Some(summary)) => write!(f, "{cause} ({summary})"),
                _ => fmt::Display::fmt(&self.kind, f),
            };
        };
        f.write_str("the server process exited")?;
        match exit.status {
            Some(status) => write!(f, " ({status})")?,
            None => f.write_str(" (status unknown)")?,
        }
        if matches!(self.request(), Some(RequestError::TransportClosed)) {
            f.write_str(" before the response arrived")?;
        } else {
            write!(f, ": {}", self.kind)?;
        }
        match exit.stderr_excerpt() {
            Some(stderr) => write!(f, "; stderr: {stderr}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Error {
    /// The attached HTTP transport error (so its own chain, down to an
    /// authorization provider's error, can be walked) or stdio server exit
    /// when there is one, else the source of [`ErrorKind`].
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match (&self.cause, &self.exit) {
            (Some(cause), _) => Some(&**cause),
            (None, Some(exit)) => Some(&**exit),
            (None, None) => self.kind.source(),
        }
    }
}

macro_rules! from_kind {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::new(ErrorKind::from(e))
            }
        }
    )*};
}

from_kind!(UsageError, RequestError, mcp_transport_stdio::SpawnError);
#[cfg(feature = "http")]
from_kind!(mcp_transport_http::HttpError);

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

#[cfg(all(test, feature = "oauth"))]
mod tests {
    use super::*;
    use mcp_transport_http::HttpError;
    use mcp_transport_http::auth::AuthError;

    fn oauth_failure() -> HttpError {
        let cause = mcp_auth::AuthError::NoResourceMetadata("http://127.0.0.1/".into());
        HttpError::Auth(AuthError::with_source("OAuth authorization failed", cause))
    }

    fn finds_oauth_cause(e: &Error) -> bool {
        let mut next = std::error::Error::source(e);
        while let Some(s) = next {
            if s.downcast_ref::<mcp_auth::AuthError>().is_some() {
                return true;
            }
            next = s.source();
        }
        false
    }

    #[test]
    fn unresolved_401_and_403_are_authorization_failures() {
        for status in [401, 403] {
            let e = Error::from(RequestError::Unauthorized(status));
            assert!(e.is_authorization_failed() && e.is_unauthorized());
        }
        assert!(!Error::from(RequestError::TransportClosed).is_authorization_failed());
    }

    #[test]
    fn a_provider_failure_keeps_its_type_under_a_summary() {
        let connect = ErrorKind::Connect {
            error: ConnectError::Request(RequestError::TransportClosed),
            context: Some("authorization provider failed".into()),
        };
        let e = Error::new(connect).with_cause(Some(oauth_failure()));
        assert!(e.is_authorization_failed());
        assert!(!e.is_unauthorized(), "no 401/403 was seen");
        assert!(matches!(e.http_error(), Some(HttpError::Auth(_))));
        assert!(finds_oauth_cause(&e));

        let direct = Error::from(oauth_failure());
        assert!(direct.is_authorization_failed() && finds_oauth_cause(&direct));
    }

    #[test]
    fn a_server_protocol_fault_behind_a_closed_stream_is_a_protocol_violation() {
        let broken = Error::from(RequestError::TransportClosed)
            .with_cause(Some(HttpError::InvalidSessionId));
        assert!(broken.is_protocol_violation() && broken.is_transport());
        assert_eq!(
            broken.to_string(),
            "the server sent an invalid Mcp-Session-Id (the request got no response)"
        );
        let lost = Error::from(RequestError::TransportClosed).with_cause(Some(HttpError::Closed));
        assert!(!lost.is_protocol_violation());
    }

    #[test]
    fn a_first_cause_is_kept_and_none_attaches_nothing() {
        let e = Error::from(RequestError::TransportClosed)
            .with_cause(None)
            .with_cause(Some(oauth_failure()))
            .with_cause(Some(HttpError::Closed));
        assert!(matches!(e.http_error(), Some(HttpError::Auth(_))));
        let plain = Error::from(RequestError::TransportClosed);
        assert!(plain.http_error().is_none());
        assert!(std::error::Error::source(&plain).is_none());
    }
}

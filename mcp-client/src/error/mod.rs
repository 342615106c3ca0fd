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
//!
//! Laid out by concept: `kind.rs` is what a caller matches on
//! ([`ErrorKind`]); `convert.rs` and `setup.rs` the conversions from each
//! lower layer (core, transports, transport setup); `predicates.rs` the
//! questions an error answers; `display.rs` how it reads (`Display` with
//! the real cause first, `source`); this file the [`Error`] itself and
//! what it carries besides its kind (an HTTP cause, a stdio server's exit).

mod convert;
mod display;
mod http_facts;
mod kind;
mod predicates;
#[cfg(feature = "http")]
mod setup;
#[cfg(test)]
mod tests;

use mcp_core::{ConnectError, RequestError};
use mcp_transport_stdio::ProcessExited;

use crate::http_parts::HttpError;

pub use kind::ErrorKind;

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

    /// The client or its connection is closed (cold: an error path).
    #[cold]
    pub(crate) fn closed() -> Self {
        Error::new(ErrorKind::Closed)
    }

    /// A result that did not decode (cold: only ever on an error path).
    #[cold]
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
}

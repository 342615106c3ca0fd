//! Typed errors, grouped by who is at fault.
//!
//! [`HttpError::fault`] says who has to act: the caller, the host's
//! configuration, the network, the server, or (for an authorization
//! provider's failure) whoever the provider's own error names, in the
//! [`Fault`] classification shared with `mcp_auth`. Errors that carry what
//! the server said (status, a bounded excerpt of the body, a JSON-RPC
//! message found in it, `WWW-Authenticate`) hand it over as data so the core can decide, for example, which era a
//! server speaks from a `400` body.

use std::time::Duration;

use http::StatusCode;
use mcp_types::jsonrpc::EnvelopeViolation;
use mcp_types::{Message, RequestId};

use crate::auth::AuthError;
use crate::sse::SseError;

/// Who caused an error: `mcp_types`' classification, shared with `mcp_auth`
/// so that an authorization error and an HTTP error answer the same way.
pub use mcp_types::fault::Fault;

/// A configuration error, found when the transport is built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The endpoint is not an absolute `http` or `https` URL.
    #[error("invalid endpoint URL: {0}")]
    InvalidEndpoint(String),
    /// A header name or value is not valid.
    #[error("invalid header {0}")]
    InvalidHeader(String),
    /// A PEM input held no usable item or could not be parsed.
    #[error("invalid PEM input: {0}")]
    InvalidPem(String),
    /// rustls refused the TLS configuration.
    #[error("TLS configuration rejected: {0}")]
    Tls(#[from] rustls::Error),
    /// The native root store could not be loaded.
    #[error("native root certificates unavailable: {0}")]
    NativeRoots(String),
    /// A proxy URL is not valid.
    #[error("invalid proxy URL: {0}")]
    InvalidProxy(String),
    /// A limit is zero or out of range.
    #[error("invalid limit: {0}")]
    InvalidLimit(&'static str),
}

/// An error from one HTTP exchange.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    // ----- the caller's side -----
    /// The transport configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A routing value or extra header cannot travel as an HTTP header.
    #[error("invalid header value for {name}")]
    InvalidHeader {
        /// The header name.
        name: String,
    },
    /// The request was cancelled through [`crate::HttpTransport::cancel`].
    #[error("request cancelled")]
    Cancelled,
    /// The transport was closed.
    #[error("transport closed")]
    Closed,
    /// The authorization provider failed.
    #[error("authorization provider failed: {0}")]
    Auth(#[from] AuthError),

    // ----- the network -----
    /// Connecting, the TLS handshake or the exchange failed.
    ///
    /// The message starts with the cause: `connection refused: nothing
    /// listens at http://127.0.0.1:9`, `DNS: cannot resolve ...`, `TLS:
    /// certificate not trusted (UnknownIssuer) for https://...`, `timed out
    /// after 10s connecting to ...`, `proxy: ...`; for a failure after
    /// connecting, `HTTP request failed:` and every message of the chain.
    #[error("{}", network_message(&**.0))]
    Network(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Reading the response body failed.
    #[error("reading the response body failed: {0}")]
    Body(#[source] Box<dyn std::error::Error + Send + Sync>),

    // ----- the server -----
    /// The server answered with an error status.
    ///
    /// `body` is a bounded, lossily decoded excerpt; `message` is the
    /// JSON-RPC message the body held, if it held one (era detection reads
    /// the error code of a `400` here).
    #[error("HTTP status {status}{}", excerpt(body))]
    Status {
        /// The status code.
        status: StatusCode,
        /// A bounded excerpt of the body.
        body: String,
        /// The JSON-RPC message in the body, if any.
        message: Option<Box<Message>>,
    },
    /// `401` or `403` that the authorization provider did not resolve. The
    /// message summarises the `WWW-Authenticate` challenge (scheme, `error`,
    /// `scope`, `resource_metadata`, ...).
    #[error(
        "HTTP status {status}: unauthorized{}",
        challenge_summary(www_authenticate)
    )]
    Unauthorized {
        /// `401 Unauthorized` or `403 Forbidden`.
        status: StatusCode,
        /// The `WWW-Authenticate` challenges, bounded.
        www_authenticate: Vec<String>,
        /// The JSON-RPC message in the body, if any.
        message: Option<Box<Message>>,
    },
    /// `404` on a request that carried `Mcp-Session-Id`: the server ended the
    /// session. The transport has forgotten the stale id; the caller starts a
    /// new session (a fresh `initialize`) and does not replay the request.
    #[error("the server ended the MCP session (HTTP 404); the request was not replayed")]
    SessionExpired,
    /// A 2025-11-25 request that was not sent: another request's `404` ended
    /// its session and no new session is open yet. It never reached the
    /// server, so the caller may send it again in the new session.
    #[error("not sent: the server ended the MCP session (HTTP 404) and no new one is open yet")]
    SessionLost,
    /// A `3xx` answer. Redirects are never followed (credentials must not
    /// follow them). The message shows the `Location` with its query values
    /// redacted.
    #[error(
        "HTTP redirect {status}{} not followed (redirects never are: a sign-in page or a moved endpoint?)",
        location.as_deref().map(|l| format!(" to {}", crate::config::redact_url(l))).unwrap_or_default()
    )]
    Redirect {
        /// The status code.
        status: StatusCode,
        /// The `Location` header, bounded, if present.
        location: Option<String>,
    },
    /// A successful status with a content type that is neither
    /// `application/json` nor `text/event-stream`. An HTML page (typically a
    /// sign-in page in front of the server) is named as such.
    #[error("{}", content_type_message(*status, content_type))]
    UnexpectedContentType {
        /// The status code.
        status: StatusCode,
        /// The `Content-Type` header, bounded (empty when absent).
        content_type: String,
    },
    /// A body larger than the configured limit.
    #[error("response body larger than the {limit}-byte limit")]
    BodyTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A malformed event stream.
    #[error(transparent)]
    Sse(#[from] SseError),
    /// A JSON body that is not one JSON-RPC message.
    #[error("response body is not a JSON-RPC message: {0}")]
    InvalidMessage(#[source] serde_json::Error),
    /// The reply to a request broke the JSON-RPC envelope rules (both
    /// `result` and `error`, a wrong `jsonrpc`, ...). It names the request
    /// and the rules, never the payload.
    #[error("the reply to request {} broke the JSON-RPC envelope: {violations:?}", display_id(id.as_ref()))]
    InvalidEnvelope {
        /// The request the broken reply answers.
        id: Option<RequestId>,
        /// The rules it broke.
        violations: Vec<EnvelopeViolation>,
    },
    /// The server sent an `Mcp-Session-Id` that is not visible ASCII.
    #[error("the server sent an invalid Mcp-Session-Id")]
    InvalidSessionId,
    /// The response stream ended before the reply to its request.
    #[error("the response stream ended before the reply")]
    StreamEnded,
    /// Resuming a broken stream failed after the allowed attempts.
    #[error("resuming the event stream failed after {attempts} attempts")]
    ResumeFailed {
        /// How many reconnections were tried.
        attempts: u32,
        /// The last delay waited before a reconnection.
        last_delay: Duration,
    },
}

/// Who an authorization provider's failure is down to: the fault of the
/// `mcp_auth::AuthError` in its source chain (an OAuth flow's own answer:
/// the user declined, the authorization server refused, ...), else the
/// host's configuration (its provider, or a credential that cannot travel
/// as a header).
#[cfg(feature = "oauth")]
fn provider_fault(e: &AuthError) -> Fault {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(auth) = err.downcast_ref::<mcp_auth::AuthError>() {
            return auth.fault();
        }
        next = err.source();
    }
    Fault::Configuration
}

/// Without the `oauth` feature no OAuth flow runs: a provider's failure is
/// the host's configuration.
#[cfg(not(feature = "oauth"))]
fn provider_fault(_: &AuthError) -> Fault {
    Fault::Configuration
}

fn display_id(id: Option<&RequestId>) -> String {
    id.map_or_else(|| "(none)".to_owned(), ToString::to_string)
}

/// A network failure named by its cause: the connect failure's summary when
/// connecting failed, else every message of the chain.
fn network_message(e: &(dyn std::error::Error + 'static)) -> String {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(failure) = e.downcast_ref::<crate::client::ConnectFailure>() {
            return failure.to_string();
        }
        next = e.source();
    }
    format!("HTTP request failed: {}", crate::client::chain(e))
}

/// `: Bearer (error=invalid_token, resource_metadata=https://...)` for
/// the challenges a 401 carried, or a note that it carried none.
fn challenge_summary(challenges: &[String]) -> String {
    const KEPT: [&str; 5] = [
        "realm",
        "error",
        "error_description",
        "scope",
        "resource_metadata",
    ];
    if challenges.is_empty() {
        return " (no WWW-Authenticate challenge)".to_owned();
    }
    let described: Vec<String> = challenges
        .iter()
        .map(|c| {
            let c = c.trim();
            let (scheme, params) = c.split_once(' ').unwrap_or((c, ""));
            let kept: Vec<String> = params
                .split(',')
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.trim(), v.trim().trim_matches('"')))
                .filter(|(k, _)| KEPT.iter().any(|kept| k.eq_ignore_ascii_case(kept)))
                .map(|(k, v)| format!("{k}={}", crate::headers::bounded(v, 200)))
                .collect();
            if kept.is_empty() {
                scheme.to_owned()
            } else {
                format!("{scheme} ({})", kept.join(", "))
            }
        })
        .collect();
    format!(": the server asks for {}", described.join("; "))
}

fn content_type_message(status: StatusCode, content_type: &str) -> String {
    if content_type.to_ascii_lowercase().contains("text/html") {
        format!(
            "the server answered with an HTML page (status {status}, {content_type}) where MCP \
             JSON was expected: a sign-in page, a proxy's page, or a wrong endpoint URL"
        )
    } else {
        format!("unexpected content type {content_type:?} (status {status})")
    }
}

fn excerpt(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

impl HttpError {
    /// Who caused this error: [`Fault::Configuration`] for an invalid
    /// transport configuration, [`Fault::Caller`] for a per-request header
    /// that cannot be sent or a cancelled or closed exchange, the
    /// fault of the `mcp_auth::AuthError` behind an authorization
    /// provider's failure (else [`Fault::Configuration`]), [`Fault::Network`] for connecting, reading
    /// and resuming, [`Fault::Server`] for what the server answered.
    pub fn fault(&self) -> Fault {
        match self {
            HttpError::Config(_) => Fault::Configuration,
            HttpError::InvalidHeader { .. } | HttpError::Cancelled | HttpError::Closed => {
                Fault::Caller
            }
            HttpError::Auth(e) => provider_fault(e),
            HttpError::Network(_) | HttpError::Body(_) | HttpError::ResumeFailed { .. } => {
                Fault::Network
            }
            HttpError::Status { .. }
            | HttpError::Unauthorized { .. }
            | HttpError::SessionExpired
            | HttpError::SessionLost
            | HttpError::Redirect { .. }
            | HttpError::UnexpectedContentType { .. }
            | HttpError::BodyTooLarge { .. }
            | HttpError::Sse(_)
            | HttpError::InvalidMessage(_)
            | HttpError::InvalidEnvelope { .. }
            | HttpError::InvalidSessionId
            | HttpError::StreamEnded => Fault::Server,
        }
    }

    /// The HTTP status, for errors that carry one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            HttpError::Status { status, .. }
            | HttpError::Unauthorized { status, .. }
            | HttpError::Redirect { status, .. }
            | HttpError::UnexpectedContentType { status, .. } => Some(*status),
            HttpError::SessionExpired => Some(StatusCode::NOT_FOUND),
            _ => None,
        }
    }

    /// The JSON-RPC message an error body carried, if any (for example the
    /// `UnsupportedProtocolVersionError` of a `400` era probe).
    pub fn jsonrpc_message(&self) -> Option<&Message> {
        match self {
            HttpError::Status { message, .. } | HttpError::Unauthorized { message, .. } => {
                message.as_deref()
            }
            _ => None,
        }
    }
}

#[cfg(all(test, feature = "oauth"))]
mod tests {
    use super::{ConfigError, Fault, HttpError};
    use crate::auth::AuthError;

    fn provider_failed(cause: mcp_auth::AuthError) -> HttpError {
        HttpError::Auth(AuthError::with_source("OAuth authorization failed", cause))
    }

    #[test]
    fn an_authorization_failure_has_the_fault_its_auth_error_names() {
        let declined = mcp_auth::AuthError::Handler("the user declined".into());
        assert_eq!(declined.fault(), Fault::User);
        let declined = provider_failed(declined);
        assert_eq!(declined.fault(), Fault::User);
        assert_eq!(
            declined.to_string(),
            "authorization provider failed: OAuth authorization failed"
        );
        let refused = mcp_auth::AuthError::NoResourceMetadata("http://127.0.0.1/".into());
        assert_eq!(provider_failed(refused).fault(), Fault::Server);
        let missing = mcp_auth::AuthError::MissingConfiguration("client_id");
        assert_eq!(provider_failed(missing).fault(), Fault::Configuration);
        // A provider's own failure without a typed cause: the host's setup.
        let plain = HttpError::Auth(AuthError::new("token refresh failed"));
        assert_eq!(plain.fault(), Fault::Configuration);
    }

    #[test]
    fn configuration_and_the_caller_are_told_apart() {
        let config = HttpError::from(ConfigError::InvalidEndpoint("ftp://x".into()));
        assert_eq!(config.fault(), Fault::Configuration);
        let header = HttpError::InvalidHeader {
            name: "Mcp-Param-Region".into(),
        };
        assert_eq!(header.fault(), Fault::Caller);
        assert_eq!(HttpError::Cancelled.fault(), Fault::Caller);
        assert_eq!(HttpError::InvalidSessionId.fault(), Fault::Server);
    }
}

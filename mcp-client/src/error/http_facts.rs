//! What an HTTP transport error behind an [`Error`] says for its
//! predicates. Without the `http` feature there is no such error and every
//! answer is `false`.

use super::{Error, ErrorKind};

/// The server broke the protocol as the HTTP transport saw it (a reply
/// body that is no JSON-RPC message, a broken envelope, an invalid
/// `Mcp-Session-Id`).
#[cfg(feature = "http")]
pub(super) fn protocol_violation(e: &Error) -> bool {
    use mcp_transport_http::HttpError as H;
    matches!(
        e.http_error(),
        Some(H::InvalidMessage(_) | H::InvalidEnvelope { .. } | H::InvalidSessionId)
    )
}

/// The authorization provider failed, or a 401/403 stayed unresolved.
#[cfg(feature = "http")]
pub(super) fn authorization_failed(e: &Error) -> bool {
    use mcp_transport_http::HttpError as H;
    matches!(e.http_error(), Some(H::Auth(_) | H::Unauthorized { .. }))
}

/// The kind is the HTTP transport's unresolved 401/403.
#[cfg(feature = "http")]
pub(super) fn unauthorized(kind: &ErrorKind) -> bool {
    use mcp_transport_http::HttpError as H;
    matches!(kind, ErrorKind::Http(H::Unauthorized { .. }))
}

/// The kind is an invalid HTTP transport setting.
#[cfg(feature = "http")]
pub(super) fn config(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Http(mcp_transport_http::HttpError::Config(_))
    )
}

/// Who has to act on the HTTP transport error behind `e`, if any.
#[cfg(feature = "http")]
pub(super) fn fault(e: &Error) -> Option<mcp_types::fault::Fault> {
    e.http_error().map(mcp_transport_http::HttpError::fault)
}

#[cfg(not(feature = "http"))]
pub(super) fn fault(_: &Error) -> Option<mcp_types::fault::Fault> {
    None
}

#[cfg(not(feature = "http"))]
pub(super) fn protocol_violation(_: &Error) -> bool {
    false
}

#[cfg(not(feature = "http"))]
pub(super) fn authorization_failed(_: &Error) -> bool {
    false
}

#[cfg(not(feature = "http"))]
pub(super) fn unauthorized(_: &ErrorKind) -> bool {
    false
}

#[cfg(not(feature = "http"))]
pub(super) fn config(_: &ErrorKind) -> bool {
    false
}

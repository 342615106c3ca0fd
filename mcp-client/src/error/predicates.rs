//! The questions an [`Error`] answers ([`Error::is_timeout`],
//! [`Error::remote_error`], ...), so that callers need not match its
//! structure.

use mcp_core::{RequestError, UsageError};
use mcp_types::jsonrpc::ErrorObject;

use mcp_types::fault::Fault;

use super::{Error, ErrorKind, http_facts};

impl Error {
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

    /// Who has to act, when an HTTP exchange or an authorization provider
    /// failed behind this error ([`Error::http_error`]): the server, the
    /// network, the host's configuration, the caller, or the user (who
    /// declined an OAuth authorization, say). The same classification
    /// answers for `HttpError::fault` and for the OAuth provider's
    /// `oauth::AuthError::fault`. `None` when no transport error is behind
    /// it (ask the other predicates).
    ///
    /// ```
    /// use mcp_client::{Error, Fault, HttpConfig};
    ///
    /// let e: Error = HttpConfig::new("ftp://example.com/").unwrap_err().into();
    /// assert_eq!(e.fault(), Some(Fault::Configuration));
    /// ```
    pub fn fault(&self) -> Option<Fault> {
        http_facts::fault(self)
    }
}

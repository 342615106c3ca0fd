//! The authorization hook.
//!
//! An [`AuthProvider`] supplies the credential headers of every request
//! (`Authorization`, and for DPoP-bound tokens the per-request `DPoP` proof,
//! which is why it is told the method and URL) and decides what happens on
//! `401 Unauthorized` or `403 Forbidden`: send the request again with fresh
//! credentials, or give up and surface [`crate::HttpError::Unauthorized`]
//! with the `WWW-Authenticate` challenges. An OAuth client plugs in here;
//! [`BearerToken`] is the static case.
//!
//! Every credential set carries a generation number which comes back in the
//! [`AuthChallenge`], so a provider can tell a refusal of stale credentials
//! (already refreshed by a concurrent request) from a refusal of fresh ones.
//!
//! Credentials never reach logs or `Debug` output: header values are marked
//! sensitive and `Debug` is written by hand.
//!
//! ```
//! use mcp_transport_http::auth::BearerToken;
//! let token = BearerToken::new("s3cr3t")?;
//! assert!(!format!("{token:?}").contains("s3cr3t"));
//! # Ok::<(), mcp_transport_http::auth::AuthError>(())
//! ```

use std::fmt;

use bytes::Bytes;
use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};

/// A boxed, sendable future, the return type of [`AuthProvider`] methods:
/// `futures`' own `BoxFuture`, the same type as `mcp_auth::BoxFuture` and
/// `mcp_client::BoxFuture`.
pub use futures::future::BoxFuture;

/// The provider failed (for example, a token refresh failed).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct AuthError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl AuthError {
    /// An error with this description (never put a credential in it).
    pub fn new(message: impl Into<String>) -> Self {
        AuthError {
            message: message.into(),
            source: None,
        }
    }

    /// An error with a description and the underlying cause.
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        AuthError {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }
}

/// The request credentials are wanted for.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct AuthRequest<'a> {
    /// The HTTP method (`POST`, `GET` or `DELETE`).
    pub method: &'a Method,
    /// The MCP endpoint.
    pub uri: &'a Uri,
    /// The JSON-RPC method being sent, when known (keys step-up budgets).
    pub operation: Option<&'a str>,
}

/// The credential headers for one request.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Credentials {
    /// Header pairs to set (for example `Authorization`, `DPoP`); each
    /// replaces any same-named header. Values are marked sensitive.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The generation these credentials belong to; it comes back in the
    /// [`AuthChallenge`] if the server refuses them.
    pub generation: u64,
}

impl Credentials {
    /// No credentials (the request goes out unauthenticated).
    pub fn none(generation: u64) -> Self {
        Credentials {
            headers: Vec::new(),
            generation,
        }
    }

    /// Adds one header.
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Credentials")
            .field("headers", &names)
            .field("generation", &self.generation)
            .finish()
    }
}

/// What the server said when it refused a request.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AuthChallenge {
    /// `401` or `403`.
    pub status: StatusCode,
    /// Every `WWW-Authenticate` value (bounded in count and length).
    pub www_authenticate: Vec<String>,
    /// All response headers (for example `DPoP-Nonce`).
    pub headers: HeaderMap,
    /// The start of the response body (bounded).
    pub body: Bytes,
    /// The generation of the credentials that were refused.
    pub generation: u64,
    /// The JSON-RPC method of the refused request, when known.
    pub operation: Option<String>,
}

impl AuthChallenge {
    /// A challenge with this status and these `WWW-Authenticate` values.
    pub fn new(status: StatusCode, www_authenticate: Vec<String>) -> Self {
        AuthChallenge {
            status,
            www_authenticate,
            headers: HeaderMap::new(),
            body: Bytes::new(),
            generation: 0,
            operation: None,
        }
    }
}

/// What to do after a `401` or `403`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthDecision {
    /// Send the request again with fresh credentials (at most
    /// [`MAX_AUTH_RETRIES`] times per request).
    Retry,
    /// Surface the refusal to the caller.
    Fail,
}

/// How many times one request is re-sent on [`AuthDecision::Retry`]: enough
/// for the worst OAuth sequence on a first request (authorize on `401`,
/// present a DPoP nonce on the next `401`, step up on `403`); the provider
/// bounds its own attempts beyond that.
pub const MAX_AUTH_RETRIES: u32 = 3;

/// Supplies credentials and reacts to refusals.
///
/// Implement `Debug` without printing secrets.
pub trait AuthProvider: Send + Sync + fmt::Debug {
    /// The credential headers for the next request.
    fn credentials<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Credentials, AuthError>>;

    /// Called on `401` or `403`. [`AuthDecision::Retry`] re-sends the
    /// request with new [`AuthProvider::credentials`].
    fn on_unauthorized<'a>(
        &'a self,
        challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<AuthDecision, AuthError>>;

    /// Called after a successful (`2xx`) response, with its headers (for
    /// example to record a rotated `DPoP-Nonce` or reset failure budgets).
    fn on_success(&self, operation: Option<&str>, headers: &HeaderMap) {
        let _ = (operation, headers);
    }
}

/// A static bearer token: `Authorization: Bearer <token>`, never retried.
#[derive(Clone)]
pub struct BearerToken {
    header: HeaderValue,
}

impl BearerToken {
    /// A provider sending this token.
    ///
    /// # Errors
    /// When the token cannot travel in a header (control characters).
    pub fn new(token: &str) -> Result<Self, AuthError> {
        let mut header = HeaderValue::try_from(format!("Bearer {token}"))
            .map_err(|_| AuthError::new("the bearer token is not valid header text"))?;
        header.set_sensitive(true);
        Ok(BearerToken { header })
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

impl AuthProvider for BearerToken {
    fn credentials<'a>(
        &'a self,
        _request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Credentials, AuthError>> {
        let credentials = Credentials::none(0).with_header(AUTHORIZATION, self.header.clone());
        Box::pin(async move { Ok(credentials) })
    }

    fn on_unauthorized<'a>(
        &'a self,
        _challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<AuthDecision, AuthError>> {
        Box::pin(async { Ok(AuthDecision::Fail) })
    }
}

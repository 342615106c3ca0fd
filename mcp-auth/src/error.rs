//! The crate's error type, [`AuthError`], and who is at fault ([`Fault`],
//! shared with the HTTP transport's errors).

use crate::authorize::RedirectError;
use crate::discovery::DiscoveryError;
use crate::http::HttpError;
use crate::jwt::KeyError;
use crate::metadata::OAuthErrorResponse;
use crate::oidc::IdTokenError;
use crate::registration::RegistrationError;
use crate::scope::StepUpExhausted;
use crate::security::SecurityError;
use crate::store::StoreError;
use crate::token::TokenError;

/// Who has to act to fix an error: one classification shared with the
/// HTTP transport's errors (`mcp_transport_http::HttpError::fault`).
///
/// ```
/// use mcp_auth::{AuthError, Fault};
///
/// let e = AuthError::MissingConfiguration("client_id");
/// assert_eq!(e.fault(), Fault::Configuration);
/// assert_eq!(AuthError::Handler("declined".into()).fault(), Fault::User);
/// ```
pub use mcp_types::fault::Fault;

/// Everything that can stop authorization.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The HTTP client failed.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// Discovery metadata was missing or refused.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// A URL broke a security rule.
    #[error(transparent)]
    Security(#[from] SecurityError),
    /// No registration route, or a bad registration configuration.
    #[error(transparent)]
    Registration(#[from] RegistrationError),
    /// The authorization redirect was refused.
    #[error(transparent)]
    Redirect(#[from] RedirectError),
    /// A token response was refused.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// Step-up authorization gave up.
    #[error(transparent)]
    StepUp(#[from] StepUpExhausted),
    /// The token store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A signing key failed.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// An identity provider's ID token was refused.
    #[error(transparent)]
    IdToken(#[from] IdTokenError),
    /// The random generator failed.
    #[error("random generator failure")]
    Random,
    /// An endpoint answered with an OAuth error.
    #[error("{endpoint} endpoint returned {status}: {}", .error.error)]
    OAuth {
        /// Which endpoint (`token`, `registration`).
        endpoint: &'static str,
        /// The HTTP status.
        status: u16,
        /// The error body.
        error: OAuthErrorResponse,
    },
    /// An endpoint answered with something that is not a usable response.
    #[error("unexpected response from {what}: HTTP {status}")]
    UnexpectedResponse {
        /// What was asked.
        what: &'static str,
        /// The HTTP status.
        status: u16,
    },
    /// A body was not the JSON document expected.
    #[error("invalid {what} document: {detail}")]
    InvalidDocument {
        /// Which document.
        what: &'static str,
        /// The parser's message.
        detail: String,
    },
    /// No protected resource metadata at any location.
    #[error("no protected resource metadata found for {0}")]
    NoResourceMetadata(String),
    /// No authorization server metadata at any location.
    #[error("no authorization server metadata found for issuer {0}")]
    NoAuthorizationServerMetadata(String),
    /// The host's authorization handler failed or the user declined.
    #[error("authorization handler: {0}")]
    Handler(String),
    /// The flow needs a piece of configuration that is missing.
    #[error("missing configuration: {0}")]
    MissingConfiguration(&'static str),
    /// The server keeps refusing fresh credentials.
    #[error("authorization still refused after {0} attempts")]
    TooManyAttempts(u32),
}

impl AuthError {
    /// Who is at fault: the network for the HTTP client's failures, the
    /// host's configuration for a missing or broken setting, key or store,
    /// the user for a declined authorization or a failed handler, the
    /// server (MCP or authorization server) for the rest.
    pub fn fault(&self) -> Fault {
        match self {
            Self::Http(_) => Fault::Network,
            Self::Registration(_) | Self::Store(_) | Self::Key(_) | Self::Random => {
                Fault::Configuration
            }
            Self::MissingConfiguration(_) => Fault::Configuration,
            Self::Handler(_) => Fault::User,
            Self::Redirect(RedirectError::Denied { .. }) => Fault::User,
            _ => Fault::Server,
        }
    }
}

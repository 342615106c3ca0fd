//! `?` on setup calls: the errors of building a transport configuration
//! (`HttpConfig::new`, `with_header`, `with_oauth`, `BearerToken::new`)
//! convert into [`Error`], so a function returning [`Error`] can use `?`
//! from the first line to the last.

use crate::error::{Error, ErrorKind};

/// An invalid transport setting (`HttpConfig::new`, `with_header`,
/// `with_oauth`, ...): [`ErrorKind::Http`] holding `HttpError::Config`, and
/// [`Error::is_usage`]. Lets `?` work on setup calls in a function
/// returning [`Error`]:
///
/// ```
/// use mcp_client::{HttpConfig, auth::BearerToken};
/// use std::sync::Arc;
///
/// fn client_config(url: &str, token: &str) -> Result<HttpConfig, mcp_client::Error> {
///     Ok(HttpConfig::new(url)?
///         .with_header("X-Tenant", "acme")?
///         .with_auth(Arc::new(BearerToken::new(token)?)))
/// }
///
/// assert!(client_config("https://example.com/mcp", "t0ken").is_ok());
/// let err = client_config("https://example.com:99999/mcp", "t0ken").unwrap_err();
/// assert!(err.is_usage(), "{err}");
/// ```
impl From<mcp_transport_http::ConfigError> for Error {
    fn from(e: mcp_transport_http::ConfigError) -> Self {
        Error::new(ErrorKind::Http(e.into()))
    }
}

/// A failure of an authorization provider or its setup (for example
/// `BearerToken::new` with a token that is not valid header text):
/// [`ErrorKind::Http`] holding `HttpError::Auth`.
impl From<mcp_transport_http::auth::AuthError> for Error {
    fn from(e: mcp_transport_http::auth::AuthError) -> Self {
        Error::new(ErrorKind::Http(e.into()))
    }
}

//! [`OAuthHttpClient`]: the [`mcp_auth::http::HttpClient`] over the
//! transport's own hyper/rustls stack.
//!
//! Discovery, registration, token and (in tests) authorization requests go
//! through a pool built from the same [`HttpConfig`] as MCP traffic: the same
//! TLS roots, extra CAs and client certificate, the same proxy rules and
//! connect timeout. Redirects are never followed (a `3xx` is returned as is),
//! every response body is read to its end under the request's
//! `max_body_bytes`, and the whole exchange is bounded by a timeout. The
//! transport's default headers are **not** sent: they are meant for the MCP
//! server and may carry credentials an authorization server must not see.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, Uri};
use http_body_util::Full;
use mcp_auth::http::{BoxFuture, HttpClient, HttpError, HttpRequest, HttpResponse, Method};

use crate::body::read_limited;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::client::{Connector, RequestBody};
use crate::config::HttpConfig;
use crate::error::ConfigError;

/// The default bound on one OAuth exchange (connect, send, read the body).
pub const DEFAULT_OAUTH_TIMEOUT: Duration = Duration::from_secs(30);

/// The pooled client of OAuth traffic (any host): hyper-util's, since OAuth
/// talks to several hosts; MCP traffic has its own pool (`pool.rs`).
type PooledClient = Client<Connector, RequestBody>;

/// Builds the OAuth traffic's pooled client for a configuration.
fn build_client(config: &HttpConfig) -> Result<PooledClient, ConfigError> {
    let connector = Connector::new(config)?;
    let mut builder = Client::builder(TokioExecutor::new());
    builder
        .pool_timer(TokioTimer::new())
        .timer(TokioTimer::new())
        .pool_idle_timeout(config.pool_idle_timeout);
    Ok(builder.build(connector))
}

/// An [`HttpClient`] for OAuth traffic over the transport's HTTP stack.
///
/// ```
/// use std::sync::Arc;
/// use mcp_auth::handler::HeadlessRedirectHandler;
/// use mcp_transport_http::HttpConfig;
/// use mcp_transport_http::oauth::OAuthHttpClient;
///
/// let config = HttpConfig::new("https://mcp.example.com/mcp")?;
/// let http = Arc::new(OAuthHttpClient::new(&config)?);
/// // For example, a handler for tests that approves everything:
/// let _handler = HeadlessRedirectHandler::new(http);
/// # Ok::<(), mcp_transport_http::ConfigError>(())
/// ```
#[derive(Clone)]
pub struct OAuthHttpClient {
    client: PooledClient,
    timeout: Duration,
}

impl std::fmt::Debug for OAuthHttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthHttpClient")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl OAuthHttpClient {
    /// A client with the TLS, proxy and connect settings of `config`, and
    /// [`DEFAULT_OAUTH_TIMEOUT`] per exchange.
    ///
    /// # Errors
    /// [`ConfigError`] when the TLS or proxy settings are invalid.
    pub fn new(config: &HttpConfig) -> Result<Self, ConfigError> {
        Ok(OAuthHttpClient {
            client: build_client(config)?,
            timeout: DEFAULT_OAUTH_TIMEOUT,
        })
    }

    /// Bounds every exchange (connect, send, read the whole body) by `timeout`.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn exchange(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let uri: Uri = request
            .url
            .parse()
            .map_err(|_| HttpError::InvalidUrl("not a valid URI".into()))?;
        match uri.scheme_str() {
            Some("http" | "https") if uri.host().is_some() => {}
            _ => return Err(HttpError::InvalidUrl("only absolute http(s) URLs".into())),
        }
        if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
            return Err(HttpError::InvalidUrl("credentials in the URL".into()));
        }
        let method = match request.method {
            Method::Get => http::Method::GET,
            Method::Post => http::Method::POST,
            Method::Delete => http::Method::DELETE,
        };
        let mut outgoing = Request::builder()
            .method(method)
            .uri(uri)
            .body(Full::new(Bytes::from(request.body)))
            .map_err(|e| HttpError::Transport(e.to_string()))?;
        let headers = outgoing.headers_mut();
        for (name, value) in &request.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| HttpError::Transport(format!("invalid header name {name:?}")))?;
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| HttpError::Transport(format!("invalid value for header {name}")))?;
            // Request headers may carry client secrets, assertions or proofs.
            value.set_sensitive(true);
            headers.append(name, value);
        }
        let mut response = self
            .client
            .request(outgoing)
            .await
            .map_err(|e| HttpError::Transport(e.to_string()))?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = read_limited(response.body_mut(), request.max_body_bytes)
            .await
            .map_err(|e| match e {
                crate::HttpError::BodyTooLarge { limit } => HttpError::BodyTooLarge { limit },
                other => HttpError::Transport(other.to_string()),
            })?;
        Ok(HttpResponse::new(status, headers, body.to_vec()))
    }
}

impl HttpClient for OAuthHttpClient {
    fn send(&self, request: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, HttpError>> {
        Box::pin(async move {
            match tokio::time::timeout(self.timeout, self.exchange(request)).await {
                Ok(result) => result,
                Err(_) => Err(HttpError::Timeout),
            }
        })
    }
}

//! Transport configuration: endpoint, TLS, proxy, limits, reconnection.
//!
//! Every knob has a safe default; `with_*` builders change one at a time.
//!
//! ```
//! use std::time::Duration;
//! use mcp_transport_http::{HttpConfig, ProxyConfig};
//! let config = HttpConfig::new("https://example.com/mcp")?
//!     .with_connect_timeout(Duration::from_secs(5))
//!     .with_max_concurrent_posts(8)
//!     .with_proxy(ProxyConfig::None);
//! assert_eq!(config.endpoint().path(), "/mcp");
//! # Ok::<(), mcp_transport_http::ConfigError>(())
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, Uri};

use crate::auth::AuthProvider;
use crate::error::ConfigError;

/// Which root certificates a TLS connection trusts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootStore {
    /// The Mozilla roots compiled in (`webpki-roots`).
    #[default]
    WebPki,
    /// The operating system's store (needs the `native-roots` feature).
    Native,
    /// No built-in roots: only the CAs added with
    /// [`TlsConfig::with_ca_pem`].
    Empty,
}

/// TLS settings: trusted roots, extra CAs, an optional client certificate.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct TlsConfig {
    /// The root store.
    pub roots: RootStore,
    /// Extra trusted CA certificates, as PEM documents.
    pub extra_ca_pem: Vec<Vec<u8>>,
    /// A client certificate chain and its private key, both PEM.
    pub client_cert: Option<ClientCert>,
}

/// A client certificate chain and private key, PEM-encoded.
#[derive(Clone)]
pub struct ClientCert {
    /// The certificate chain, leaf first.
    pub chain_pem: Vec<u8>,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key_pem: Vec<u8>,
}

impl fmt::Debug for ClientCert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCert")
            .field("chain_pem", &format_args!("{} bytes", self.chain_pem.len()))
            .field("key_pem", &"<redacted>")
            .finish()
    }
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("roots", &self.roots)
            .field("extra_ca_pem", &self.extra_ca_pem.len())
            .field("client_cert", &self.client_cert)
            .finish()
    }
}

impl TlsConfig {
    /// Uses `roots` as the base root store.
    #[must_use]
    pub fn with_roots(mut self, roots: RootStore) -> Self {
        self.roots = roots;
        self
    }

    /// Also trusts the CA certificates in this PEM document.
    #[must_use]
    pub fn with_ca_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.extra_ca_pem.push(pem.into());
        self
    }

    /// Presents this client certificate (mutual TLS).
    #[must_use]
    pub fn with_client_cert(
        mut self,
        chain_pem: impl Into<Vec<u8>>,
        key_pem: impl Into<Vec<u8>>,
    ) -> Self {
        self.client_cert = Some(ClientCert {
            chain_pem: chain_pem.into(),
            key_pem: key_pem.into(),
        });
        self
    }
}

/// Where connections go through an HTTP proxy (a `CONNECT` tunnel).
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum ProxyConfig {
    /// Read `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (and
    /// their lower-case forms) when the transport is built, as curl does.
    #[default]
    FromEnv,
    /// Connect directly.
    None,
    /// Use this proxy URL (`http://[user:pass@]host:port`) for every
    /// destination except those matched by `no_proxy` (curl syntax).
    Explicit {
        /// The proxy URL.
        url: String,
        /// The `NO_PROXY` list.
        no_proxy: String,
    },
}

impl fmt::Debug for ProxyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyConfig::FromEnv => f.write_str("FromEnv"),
            ProxyConfig::None => f.write_str("None"),
            ProxyConfig::Explicit { url, no_proxy } => f
                .debug_struct("Explicit")
                .field("url", &redact_url(url))
                .field("no_proxy", no_proxy)
                .finish(),
        }
    }
}

/// A URL as it may be shown, logged or stored: every query value and any
/// `user:pass@` replaced by `<redacted>` (an endpoint's query string often
/// carries an API key). Parameter names, host and path stay readable.
///
/// ```
/// assert_eq!(
///     mcp_transport_http::redact_url("https://example.com/mcp?api_key=s3cret&v=2"),
///     "https://example.com/mcp?api_key=<redacted>&v=<redacted>"
/// );
/// ```
pub fn redact_url(url: &str) -> String {
    mcp_types::redact::redact_url(url)
}

/// A URL with any `user:pass@` replaced by `<redacted>@`.
pub(crate) fn redact_userinfo(url: &str) -> String {
    mcp_types::redact::redact_userinfo(url).into_owned()
}

/// Refuses a port that is empty (`host:`), not a number, zero or over
/// 65535 (`http::Uri` accepts any digits there, and `port_u16` would then
/// quietly fall back to the scheme's default port).
fn check_port(authority: &http::uri::Authority) -> Result<(), ConfigError> {
    let text = authority.as_str();
    // After the host; an IPv6 host's colons are inside its brackets.
    let host_end = text.rfind(']').map_or(0, |i| i + 1);
    let Some(colon) = text[host_end..].rfind(':') else {
        return Ok(());
    };
    let port = &text[host_end + colon + 1..];
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(()),
        _ => Err(ConfigError::InvalidEndpoint(format!(
            "invalid port {port:?} (expected 1 to 65535)"
        ))),
    }
}

/// How a broken legacy event stream is resumed (`Last-Event-ID`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReconnectPolicy {
    /// The delay before reconnecting when the server sent no `retry:`.
    pub default_delay: Duration,
    /// The shortest delay honoured (a smaller `retry:` is raised to this).
    pub min_delay: Duration,
    /// The longest delay honoured (a larger `retry:` is lowered to this).
    pub max_delay: Duration,
    /// Consecutive reconnections that bring no event before giving up.
    pub max_attempts: u32,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy {
            default_delay: Duration::from_secs(1),
            min_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(30),
            max_attempts: 5,
        }
    }
}

impl ReconnectPolicy {
    /// A policy with these bounds.
    pub fn new(
        default_delay: Duration,
        min_delay: Duration,
        max_delay: Duration,
        max_attempts: u32,
    ) -> Self {
        ReconnectPolicy {
            default_delay,
            min_delay,
            max_delay,
            max_attempts,
        }
    }

    /// The delay to wait given the server's last `retry:` value.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_transport_http::ReconnectPolicy;
    /// let p = ReconnectPolicy::default();
    /// assert_eq!(p.delay(Some(Duration::ZERO)), p.min_delay);
    /// assert_eq!(p.delay(Some(Duration::from_secs(3600))), p.max_delay);
    /// assert_eq!(p.delay(None), p.default_delay);
    /// ```
    pub fn delay(&self, retry: Option<Duration>) -> Duration {
        let wanted = retry.unwrap_or(self.default_delay);
        wanted
            .max(self.min_delay)
            .min(self.max_delay.max(self.min_delay))
    }
}

/// Size limits on what the server may send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest `application/json` body, in bytes.
    pub max_body_bytes: usize,
    /// The largest server-sent event, in bytes.
    pub max_event_bytes: usize,
    /// The longest body excerpt kept in an error.
    pub max_error_excerpt: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 16 << 20,
            max_event_bytes: 16 << 20,
            max_error_excerpt: 1024,
        }
    }
}

/// Everything the transport needs to know.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    pub(crate) endpoint: Uri,
    pub(crate) tls: TlsConfig,
    pub(crate) proxy: ProxyConfig,
    pub(crate) connect_timeout: Duration,
    pub(crate) pool_idle_timeout: Duration,
    pub(crate) max_concurrent_posts: usize,
    pub(crate) limits: Limits,
    pub(crate) reconnect: ReconnectPolicy,
    pub(crate) default_headers: HeaderMap,
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    pub(crate) stream_buffer: usize,
    pub(crate) reply_grace: Duration,
    pub(crate) check_envelopes: bool,
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpConfig")
            .field("endpoint", &redact_url(&self.endpoint.to_string()))
            .field("tls", &self.tls)
            .field("proxy", &self.proxy)
            .field("connect_timeout", &self.connect_timeout)
            .field("pool_idle_timeout", &self.pool_idle_timeout)
            .field("max_concurrent_posts", &self.max_concurrent_posts)
            .field("limits", &self.limits)
            .field("reconnect", &self.reconnect)
            .field(
                "default_headers",
                &self.default_headers.keys().collect::<Vec<_>>(),
            )
            .field("auth", &self.auth)
            .field("reply_grace", &self.reply_grace)
            .field("check_envelopes", &self.check_envelopes)
            .finish()
    }
}

impl HttpConfig {
    /// A configuration for this MCP endpoint (`http://` or `https://`).
    ///
    /// `Debug` shows the endpoint with its query values redacted
    /// ([`redact_url`]): a token in the query string stays out of logs.
    ///
    /// # Errors
    /// [`ConfigError::InvalidEndpoint`] when the URL is not absolute http(s),
    /// has no host or an invalid port (not a number from 1 to 65535), or
    /// carries credentials (`user:pass@`), which never go in URLs. The
    /// message never repeats the URL's query string.
    pub fn new(endpoint: &str) -> Result<Self, ConfigError> {
        let uri: Uri = endpoint.parse().map_err(|e: http::uri::InvalidUri| {
            ConfigError::InvalidEndpoint(format!("{e} in {}", redact_url(endpoint)))
        })?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            _ => {
                return Err(ConfigError::InvalidEndpoint(
                    "the scheme must be http or https".into(),
                ));
            }
        }
        let authority = uri
            .authority()
            .filter(|a| !a.host().is_empty())
            .ok_or_else(|| ConfigError::InvalidEndpoint("no host".into()))?;
        if authority.as_str().contains('@') {
            return Err(ConfigError::InvalidEndpoint(
                "credentials do not belong in the URL".into(),
            ));
        }
        check_port(authority)?;
        Ok(HttpConfig {
            endpoint: uri,
            tls: TlsConfig::default(),
            proxy: ProxyConfig::default(),
            connect_timeout: Duration::from_secs(10),
            pool_idle_timeout: Duration::from_secs(90),
            max_concurrent_posts: 64,
            limits: Limits::default(),
            reconnect: ReconnectPolicy::default(),
            default_headers: HeaderMap::new(),
            auth: None,
            stream_buffer: 64,
            reply_grace: Duration::from_secs(2),
            check_envelopes: false,
        })
    }

    /// The MCP endpoint.
    pub fn endpoint(&self) -> &Uri {
        &self.endpoint
    }

    /// Sets the TLS settings.
    #[must_use]
    pub fn with_tls(mut self, tls: TlsConfig) -> Self {
        self.tls = tls;
        self
    }

    /// Sets the proxy settings (default: from the environment).
    #[must_use]
    pub fn with_proxy(mut self, proxy: ProxyConfig) -> Self {
        self.proxy = proxy;
        self
    }

    /// Bounds TCP connect plus proxy and TLS handshakes (default 10 s).
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long an idle pooled connection is kept (default 90 s).
    #[must_use]
    pub fn with_pool_idle_timeout(mut self, timeout: Duration) -> Self {
        self.pool_idle_timeout = timeout;
        self
    }

    /// The most ordinary requests in flight at once (default 64). Long-lived
    /// streams, notifications and responses do not count.
    #[must_use]
    pub fn with_max_concurrent_posts(mut self, max: usize) -> Self {
        self.max_concurrent_posts = max;
        self
    }

    /// Sets the size limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the largest accepted server-sent event.
    #[must_use]
    pub fn with_max_event_bytes(mut self, max: usize) -> Self {
        self.limits.max_event_bytes = max;
        self
    }

    /// Sets the largest accepted JSON body.
    #[must_use]
    pub fn with_max_body_bytes(mut self, max: usize) -> Self {
        self.limits.max_body_bytes = max;
        self
    }

    /// Sets the stream resumption policy (legacy era).
    #[must_use]
    pub fn with_reconnect(mut self, policy: ReconnectPolicy) -> Self {
        self.reconnect = policy;
        self
    }

    /// Adds a header sent on every request. Headers the transport renders
    /// itself (`Accept`, `Content-Type`, `Authorization` when an
    /// [`AuthProvider`] is set) take precedence.
    ///
    /// # Errors
    /// [`ConfigError::InvalidHeader`] when the name or value is invalid, or
    /// the name is reserved for the transport (`Mcp-*`, `Last-Event-ID`,
    /// `Host`, `Content-Length`).
    pub fn with_header(mut self, name: &str, value: &str) -> Result<Self, ConfigError> {
        let (header, value) = crate::runtime::checked_header(name, value)?;
        self.default_headers.append(header, value);
        Ok(self)
    }

    /// Sets the authorization provider consulted on every request.
    #[must_use]
    pub fn with_auth(mut self, auth: Arc<dyn AuthProvider>) -> Self {
        self.auth = Some(auth);
        self
    }

    /// How many messages a response stream buffers ahead of its reader
    /// (default 64).
    #[must_use]
    pub fn with_stream_buffer(mut self, messages: usize) -> Self {
        self.stream_buffer = messages;
        self
    }

    /// How long a response stream may stay open after its reply before it
    /// is closed (default 2 s). The server should end it at once; messages
    /// that arrive in the meantime are still delivered.
    #[must_use]
    pub fn with_reply_grace(mut self, grace: Duration) -> Self {
        self.reply_grace = grace;
        self
    }

    /// Reads every message with the strict envelope check
    /// (`Message::from_slice_checked`): a reply that breaks a JSON-RPC
    /// envelope rule the lenient reader forgives (a missing `jsonrpc`, say)
    /// fails its request with [`HttpError::InvalidEnvelope`](crate::HttpError::InvalidEnvelope),
    /// and other such messages are dropped with a warning. Off by default;
    /// a reply the lenient reader rejects outright fails its request either
    /// way. `mcp-client` turns it on in strict mode.
    #[must_use]
    pub fn with_envelope_checks(mut self, on: bool) -> Self {
        self.check_envelopes = on;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        if self.max_concurrent_posts == 0 {
            return Err(ConfigError::InvalidLimit(
                "max_concurrent_posts must be > 0",
            ));
        }
        if self.stream_buffer == 0 {
            return Err(ConfigError::InvalidLimit("stream_buffer must be > 0"));
        }
        if self.limits.max_body_bytes == 0 || self.limits.max_event_bytes == 0 {
            return Err(ConfigError::InvalidLimit("size limits must be > 0"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_ports_are_refused_and_valid_ones_kept() {
        for bad in [
            "http://127.0.0.1:99999/mcp",
            "http://127.0.0.1:0/mcp",
            "http://127.0.0.1:/mcp",
            "http://[::1]:65536/mcp",
        ] {
            let e = HttpConfig::new(bad).expect_err(bad);
            assert!(e.to_string().contains("invalid port"), "{bad}: {e}");
        }
        for good in [
            "http://127.0.0.1:8080/mcp",
            "https://[::1]:443/",
            "https://example.com",
        ] {
            assert!(HttpConfig::new(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn debug_hides_query_values_of_the_endpoint_and_proxy() {
        let config = HttpConfig::new("https://example.com/mcp?api_key=s3cret&tenant=t1")
            .expect("valid")
            .with_proxy(ProxyConfig::Explicit {
                url: "http://user:pw@proxy:3128/?token=p4ss".into(),
                no_proxy: String::new(),
            });
        let shown = format!("{config:?}");
        for secret in ["s3cret", "t1", "pw", "p4ss"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(
            shown.contains("https://example.com/mcp?api_key=<redacted>&tenant=<redacted>"),
            "{shown}"
        );
        let e = HttpConfig::new("https://exa mple.com/?token=s3cret").expect_err("space");
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }
}

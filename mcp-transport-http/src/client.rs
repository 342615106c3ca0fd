//! The connections of the HTTP stack: TCP, rustls and an optional
//! `CONNECT` proxy tunnel.
//!
//! One [`Connector`] builds every connection of a transport: TCP with
//! `TCP_NODELAY`, then a `CONNECT` tunnel when the proxy rules say so, then
//! TLS for `https` with ALPN offering `h2` and `http/1.1` (the pool
//! multiplexes over HTTP/2 when the server picks it). The whole sequence is
//! bounded by the connect timeout. The transport's pool (`pool.rs`) keeps
//! connections alive between calls, so there is no handshake per call.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::Uri;
use http_body_util::Full;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tower_service::Service;

use crate::config::{HttpConfig, ProxyConfig, RootStore, TlsConfig};
use crate::error::ConfigError;

pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The request body type: one serialized message.
pub(crate) type RequestBody = Full<Bytes>;

/// Makes connections: TCP, optional proxy tunnel, optional TLS.
#[derive(Clone)]
pub(crate) struct Connector {
    tcp: HttpConnector,
    tls: TlsConnector,
    proxy: Option<Arc<Matcher>>,
    timeout: Duration,
}

impl Connector {
    /// The connector for a configuration's TLS, proxy and connect settings.
    pub(crate) fn new(config: &HttpConfig) -> Result<Self, ConfigError> {
        let mut tcp = HttpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        tcp.set_connect_timeout(Some(config.connect_timeout));
        let tls = TlsConnector::from(Arc::new(tls_config(&config.tls)?));
        let proxy = match &config.proxy {
            ProxyConfig::None => None,
            ProxyConfig::FromEnv => Some(Arc::new(Matcher::from_env())),
            ProxyConfig::Explicit { url, no_proxy } => {
                let parsed: Uri = url
                    .parse()
                    .map_err(|_| ConfigError::InvalidProxy(crate::config::redact_userinfo(url)))?;
                if parsed.scheme_str() != Some("http") || parsed.host().is_none() {
                    return Err(ConfigError::InvalidProxy(
                        "the proxy URL must be http://host:port".into(),
                    ));
                }
                Some(Arc::new(
                    Matcher::builder()
                        .all(url.clone())
                        .no(no_proxy.clone())
                        .build(),
                ))
            }
        };
        Ok(Connector {
            tcp,
            tls,
            proxy,
            timeout: config.connect_timeout,
        })
    }

    /// Opens one connection to `dst`, the whole sequence bounded by the
    /// connect timeout.
    pub(crate) async fn open(&self, dst: &Uri) -> Result<Conn, BoxError> {
        match tokio::time::timeout(self.timeout, self.clone().connect(dst.clone())).await {
            Ok(result) => result,
            Err(_) => {
                let e = io::Error::new(io::ErrorKind::TimedOut, "connect timed out");
                Err(ConnectFailure::boxed(
                    Step::Timeout(self.timeout),
                    dst,
                    e.into(),
                ))
            }
        }
    }

    async fn connect(mut self, dst: Uri) -> Result<Conn, BoxError> {
        let https = dst.scheme_str() == Some("https");
        let host = dst.host().ok_or("destination without host")?.to_owned();
        let port = dst.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tcp = match self.proxy.as_ref().and_then(|m| m.intercept(&dst)) {
            Some(intercept) => {
                // Only plain-HTTP proxies speak CONNECT here; never fall back
                // to a direct connection the user did not ask for.
                if intercept.uri().scheme_str() != Some("http") {
                    return Err(
                        "unsupported proxy scheme (only http:// proxies are supported)".into(),
                    );
                }
                let target: Uri =
                    format!("{}://{host}:{port}", dst.scheme_str().unwrap_or("http")).parse()?;
                let mut tunnel = Tunnel::new(intercept.uri().clone(), self.tcp.clone());
                if let Some(auth) = intercept.basic_auth() {
                    tunnel = tunnel.with_auth(auth.clone());
                }
                tunnel
                    .call(target)
                    .await
                    .map_err(|e| ConnectFailure::boxed(Step::Proxy, &dst, e.into()))?
            }
            None => self
                .tcp
                .call(dst.clone())
                .await
                .map_err(|e| ConnectFailure::boxed(Step::Tcp, &dst, e.into()))?,
        };
        if !https {
            return Ok(Conn::Plain(tcp));
        }
        let name =
            ServerName::try_from(host.trim_start_matches('[').trim_end_matches(']'))?.to_owned();
        let tls = self
            .tls
            .connect(name, tcp.into_inner())
            .await
            .map_err(|e| ConnectFailure::boxed(Step::Tls, &dst, e.into()))?;
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
        Ok(Conn::Tls {
            io: Box::new(TokioIo::new(tls)),
            h2,
        })
    }
}

impl Service<Uri> for Connector {
    type Response = Conn;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, BoxError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { this.open(&dst).await })
    }
}

/// The step of connecting that failed.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Resolving the host and opening the TCP connection.
    Tcp,
    /// The `CONNECT` tunnel through the proxy.
    Proxy,
    /// The TLS handshake.
    Tls,
    /// The whole sequence ran past the connect timeout.
    Timeout(Duration),
}

/// Why a connection could not be made, named in the first words of its
/// message (`connection refused`, `DNS`, `TLS: certificate not trusted`,
/// ...) with the `scheme://host:port` it was for (never a path or query).
/// The underlying error stays reachable through `source()`.
#[derive(Debug)]
pub(crate) struct ConnectFailure {
    summary: String,
    source: BoxError,
}

impl ConnectFailure {
    fn boxed(step: Step, dst: &Uri, source: BoxError) -> BoxError {
        let target = format!(
            "{}://{}:{}",
            dst.scheme_str().unwrap_or("http"),
            dst.host().unwrap_or("?"),
            dst.port_u16()
                .unwrap_or(if dst.scheme_str() == Some("https") {
                    443
                } else {
                    80
                })
        );
        let summary = match step {
            Step::Timeout(after) => format!("timed out after {after:?} connecting to {target}"),
            Step::Tls => tls_summary(&*source, &target),
            Step::Proxy => format!("proxy: the tunnel to {target} failed: {}", chain(&*source)),
            Step::Tcp => tcp_summary(&*source, &target),
        };
        Box::new(ConnectFailure { summary, source })
    }
}

impl std::fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.summary)
    }
}

impl std::error::Error for ConnectFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// The first `io::Error` in a chain.
fn io_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a io::Error> {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            return Some(io);
        }
        next = e.source();
    }
    None
}

/// Every message of a chain, joined with `: ` (a message already contained
/// in an earlier one is left out).
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut next = e.source();
    while let Some(e) = next {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    parts.join(": ")
}

fn tcp_summary(e: &(dyn std::error::Error + 'static), target: &str) -> String {
    // hyper-util's connector says "dns error" before the resolver's error.
    if e.to_string().starts_with("dns error") {
        let host = target.rsplit_once(':').map_or(target, |(h, _)| h);
        let host = host.split_once("://").map_or(host, |(_, h)| h);
        let why = io_error(e).map_or_else(|| chain(e), ToString::to_string);
        return format!("DNS: cannot resolve {host} ({why})");
    }
    match io_error(e).map(io::Error::kind) {
        Some(io::ErrorKind::ConnectionRefused) => {
            format!("connection refused: nothing listens at {target}")
        }
        Some(io::ErrorKind::TimedOut) => format!("timed out connecting to {target}"),
        _ => format!("cannot connect to {target}: {}", chain(e)),
    }
}

fn tls_summary(e: &(dyn std::error::Error + 'static), target: &str) -> String {
    use rustls::CertificateError as C;
    let rustls_error = io_error(e)
        .and_then(|io| io.get_ref())
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    let what = match rustls_error {
        Some(rustls::Error::InvalidCertificate(c)) => match c {
            C::UnknownIssuer => "certificate not trusted (UnknownIssuer)".to_owned(),
            C::NotValidForName | C::NotValidForNameContext { .. } => {
                "certificate not valid for this host name (NotValidForName)".to_owned()
            }
            C::Expired | C::ExpiredContext { .. } => "certificate expired (Expired)".to_owned(),
            C::NotValidYet | C::NotValidYetContext { .. } => {
                "certificate not valid yet (NotValidYet)".to_owned()
            }
            C::Revoked => "certificate revoked (Revoked)".to_owned(),
            C::BadSignature => "certificate signature invalid (BadSignature)".to_owned(),
            other => format!("certificate rejected ({other})"),
        },
        Some(other) => format!("handshake failed ({other})"),
        None => format!("handshake failed ({})", chain(e)),
    };
    format!("TLS: {what} for {target}")
}

/// One connection, plain or TLS.
pub(crate) enum Conn {
    /// Cleartext TCP (possibly through a tunnel).
    Plain(TokioIo<TcpStream>),
    /// TLS over TCP.
    Tls {
        io: Box<TokioIo<TlsStream<TcpStream>>>,
        h2: bool,
    },
}

impl Conn {
    /// Whether TLS's ALPN picked HTTP/2.
    pub(crate) fn is_h2(&self) -> bool {
        matches!(self, Conn::Tls { h2: true, .. })
    }
}

impl Conn {
    /// Reads what has arrived into the spare room of `buf` (reserve first);
    /// `Ok(0)` is the end of the stream.
    pub(crate) fn poll_read_buf(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut bytes::BytesMut,
    ) -> Poll<io::Result<usize>> {
        match self {
            Conn::Plain(io) => tokio_util::io::poll_read_buf(Pin::new(io.inner_mut()), cx, buf),
            Conn::Tls { io, .. } => {
                tokio_util::io::poll_read_buf(Pin::new(io.inner_mut()), cx, buf)
            }
        }
    }

    /// Whether anything may have arrived (data, or the stream's end) as
    /// far as the runtime has seen, asked without reading: over plain TCP
    /// the socket's readiness, a look at a flag (a read of a socket whose
    /// readiness is not set returns at once, with no system call, all
    /// the same); over TLS always (a record may wait in the TLS buffer).
    pub(crate) fn may_have_input(&mut self) -> bool {
        match self {
            Conn::Plain(io) => io
                .inner_mut()
                .poll_read_ready(&mut Context::from_waker(std::task::Waker::noop()))
                .is_ready(),
            Conn::Tls { .. } => true,
        }
    }
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        match self {
            Conn::Tls { h2: true, .. } => Connected::new().negotiated_h2(),
            _ => Connected::new(),
        }
    }
}

impl Read for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(io) => Pin::new(io).poll_read(cx, buf),
            Conn::Tls { io, .. } => Pin::new(io.as_mut()).poll_read(cx, buf),
        }
    }
}

impl Write for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(io) => Pin::new(io).poll_write(cx, buf),
            Conn::Tls { io, .. } => Pin::new(io.as_mut()).poll_write(cx, buf),
        }
    }

    /// Vectored writes reach the socket (a request's head and body go out
    /// in one `writev`, without hyper copying the body behind the head).
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(io) => Pin::new(io).poll_write_vectored(cx, bufs),
            Conn::Tls { io, .. } => Pin::new(io.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Conn::Plain(io) => io.is_write_vectored(),
            Conn::Tls { io, .. } => io.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(io) => Pin::new(io).poll_flush(cx),
            Conn::Tls { io, .. } => Pin::new(io.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(io) => Pin::new(io).poll_shutdown(cx),
            Conn::Tls { io, .. } => Pin::new(io.as_mut()).poll_shutdown(cx),
        }
    }
}

/// The rustls client configuration (ring provider, ALPN `h2`, `http/1.1`).
pub(crate) fn tls_config(tls: &TlsConfig) -> Result<rustls::ClientConfig, ConfigError> {
    let mut roots = RootCertStore::empty();
    match tls.roots {
        RootStore::WebPki => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        RootStore::Native => add_native_roots(&mut roots)?,
        RootStore::Empty => {}
    }
    for pem in &tls.extra_ca_pem {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| ConfigError::InvalidPem(e.to_string()))?;
            roots.add(cert)?;
            added += 1;
        }
        if added == 0 {
            return Err(ConfigError::InvalidPem("no certificate in CA PEM".into()));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots);
    let mut config = match &tls.client_cert {
        None => builder.with_no_client_auth(),
        Some(cert) => {
            let chain = CertificateDer::pem_slice_iter(&cert.chain_pem)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ConfigError::InvalidPem(e.to_string()))?;
            if chain.is_empty() {
                return Err(ConfigError::InvalidPem(
                    "no certificate in client chain".into(),
                ));
            }
            let key = PrivateKeyDer::from_pem_slice(&cert.key_pem)
                .map_err(|_| ConfigError::InvalidPem("no usable private key".into()))?;
            builder.with_client_auth_cert(chain, key)?
        }
    };
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(feature = "native-roots")]
fn add_native_roots(roots: &mut RootCertStore) -> Result<(), ConfigError> {
    let loaded = rustls_native_certs::load_native_certs();
    let (added, _ignored) = roots.add_parsable_certificates(loaded.certs);
    if added == 0 {
        let detail = loaded
            .errors
            .first()
            .map_or_else(|| "no certificate found".to_owned(), ToString::to_string);
        return Err(ConfigError::NativeRoots(detail));
    }
    Ok(())
}

#[cfg(not(feature = "native-roots"))]
fn add_native_roots(_roots: &mut RootCertStore) -> Result<(), ConfigError> {
    Err(ConfigError::NativeRoots(
        "built without the `native-roots` feature".into(),
    ))
}

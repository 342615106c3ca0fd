//! The HTTP stack: a pooled hyper client over TCP, rustls and an optional
//! `CONNECT` proxy tunnel.
//!
//! One [`Connector`] builds every connection of a transport: TCP with
//! `TCP_NODELAY`, then a `CONNECT` tunnel when the proxy rules say so, then
//! TLS for `https` with ALPN offering `h2` and `http/1.1` (the pool
//! multiplexes over HTTP/2 when the server picks it). The whole sequence is
//! bounded by the connect timeout. The hyper-util pool keeps connections
//! alive between calls, so there is no handshake per call.

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
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tower_service::Service;

use crate::config::{HttpConfig, ProxyConfig, RootStore, TlsConfig};
use crate::error::ConfigError;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The request body type: one serialized message.
pub(crate) type RequestBody = Full<Bytes>;

/// The pooled client of one transport.
pub(crate) type PooledClient = Client<Connector, RequestBody>;

/// Builds the pooled client for a configuration.
pub(crate) fn build_client(config: &HttpConfig) -> Result<PooledClient, ConfigError> {
    let connector = Connector::new(config)?;
    let mut builder = Client::builder(TokioExecutor::new());
    builder
        .pool_timer(TokioTimer::new())
        .timer(TokioTimer::new())
        .pool_idle_timeout(config.pool_idle_timeout);
    Ok(builder.build(connector))
}

/// Makes connections: TCP, optional proxy tunnel, optional TLS.
#[derive(Clone)]
pub(crate) struct Connector {
    tcp: HttpConnector,
    tls: TlsConnector,
    proxy: Option<Arc<Matcher>>,
    timeout: Duration,
}

impl Connector {
    fn new(config: &HttpConfig) -> Result<Self, ConfigError> {
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
                tunnel.call(target).await?
            }
            None => self.tcp.call(dst).await?,
        };
        if !https {
            return Ok(Conn::Plain(tcp));
        }
        let name =
            ServerName::try_from(host.trim_start_matches('[').trim_end_matches(']'))?.to_owned();
        let tls = self.tls.connect(name, tcp.into_inner()).await?;
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
        let timeout = self.timeout;
        Box::pin(async move {
            match tokio::time::timeout(timeout, this.connect(dst)).await {
                Ok(result) => result,
                Err(_) => Err(
                    Box::new(io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))
                        as BoxError,
                ),
            }
        })
    }
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

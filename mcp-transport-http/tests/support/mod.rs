//! A scriptable loopback MCP test server on hyper (HTTP/1.1 and HTTP/2,
//! plain or TLS), a tiny CONNECT proxy, and a test CA.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderMap, Method, Request, Response, StatusCode, Version};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

pub mod raw;

/// The response body type of the test server.
pub type Body = UnsyncBoxBody<Bytes, io::Error>;

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: Method,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub version: Version,
    pub path: String,
    /// The query string, without `?` (empty when there is none).
    pub query: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

type Handler = dyn Fn(&Seen, usize, &Arc<State>) -> Response<Body> + Send + Sync;

/// Shared server state.
#[derive(Default)]
pub struct State {
    /// Accepted TCP connections.
    pub connections: AtomicUsize,
    /// Signalled (one permit each) when a connection ends.
    pub connection_closed: Notify,
    /// Requests in flight right now, and the most ever seen at once.
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub seen: Mutex<Vec<Seen>>,
    /// Incremented when a scripted body is dropped (the client closed it).
    pub bodies_dropped: AtomicUsize,
    pub dropped: Notify,
}

impl State {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

pub struct TestServer {
    pub addr: SocketAddr,
    pub state: Arc<State>,
    pub url: String,
}

/// Starts a plain HTTP server; `handler` gets each request and its index.
pub async fn serve<F>(handler: F) -> TestServer
where
    F: Fn(&Seen, usize) -> Response<Body> + Send + Sync + 'static,
{
    serve_inner(
        Arc::new(move |seen: &Seen, i: usize, _: &Arc<State>| handler(seen, i)),
        None,
    )
    .await
}

/// Like [`serve`], the handler also gets the server state (for drop signals).
pub async fn serve_st<F>(handler: F) -> TestServer
where
    F: Fn(&Seen, usize, &Arc<State>) -> Response<Body> + Send + Sync + 'static,
{
    serve_inner(Arc::new(handler), None).await
}

/// Like [`serve_tls`], the handler also gets the server state.
pub async fn serve_tls_st<F>(handler: F, tls: rustls::ServerConfig) -> TestServer
where
    F: Fn(&Seen, usize, &Arc<State>) -> Response<Body> + Send + Sync + 'static,
{
    serve_inner(
        Arc::new(handler),
        Some(tokio_rustls::TlsAcceptor::from(Arc::new(tls))),
    )
    .await
}

/// Starts an HTTPS server with this rustls configuration.
pub async fn serve_tls<F>(handler: F, tls: rustls::ServerConfig) -> TestServer
where
    F: Fn(&Seen, usize) -> Response<Body> + Send + Sync + 'static,
{
    serve_inner(
        Arc::new(move |seen: &Seen, i: usize, _: &Arc<State>| handler(seen, i)),
        Some(tokio_rustls::TlsAcceptor::from(Arc::new(tls))),
    )
    .await
}

async fn serve_inner(handler: Arc<Handler>, tls: Option<tokio_rustls::TlsAcceptor>) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = Arc::new(State::default());
    let scheme = if tls.is_some() { "https" } else { "http" };
    let st = state.clone();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            st.connections.fetch_add(1, Ordering::SeqCst);
            let handler = handler.clone();
            let st = st.clone();
            let st_closed = st.clone();
            let tls = tls.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<Incoming>| {
                    let handler = handler.clone();
                    let st = st.clone();
                    async move { Ok::<_, Infallible>(handle(req, &*handler, &st).await) }
                });
                let builder = auto::Builder::new(TokioExecutor::new());
                match tls {
                    Some(acceptor) => {
                        if let Ok(stream) = acceptor.accept(tcp).await {
                            let _ = builder
                                .serve_connection(TokioIo::new(stream), service)
                                .await;
                        }
                    }
                    None => {
                        let _ = builder.serve_connection(TokioIo::new(tcp), service).await;
                    }
                }
                st_closed.connection_closed.notify_one();
            });
        }
    });
    TestServer {
        addr,
        state,
        url: format!("{scheme}://{addr}/mcp"),
    }
}

async fn handle(req: Request<Incoming>, handler: &Handler, st: &Arc<State>) -> Response<Body> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let seen = Seen {
        method: parts.method,
        headers: parts.headers,
        body,
        version: parts.version,
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or_default().to_owned(),
    };
    let now = st.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    st.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let index = {
        let mut list = st.seen.lock().unwrap();
        list.push(seen.clone());
        list.len() - 1
    };
    let response = handler(&seen, index, st);
    // Counted down when the body finishes or is dropped.
    let (parts, body) = response.into_parts();
    let guard = InFlight(st.clone());
    let body = body
        .into_data_stream()
        .map(move |item| {
            let _ = &guard;
            item.map(Frame::data)
        })
        .boxed();
    Response::from_parts(parts, BodyExt::boxed_unsync(StreamBody::new(body)))
}

struct InFlight(Arc<State>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One step of a scripted streaming body.
#[derive(Clone, Debug)]
pub enum Step {
    /// Send these bytes as one chunk.
    Chunk(Vec<u8>),
    /// Wait.
    Sleep(Duration),
    /// Break the connection (the body fails).
    Abort,
    /// Keep the body open forever.
    Hang,
}

pub fn chunk(s: &str) -> Step {
    Step::Chunk(s.as_bytes().to_vec())
}

/// Every byte of `s` as its own chunk.
pub fn bytewise(s: &str) -> Vec<Step> {
    s.bytes().map(|b| Step::Chunk(vec![b])).collect()
}

struct DropSignal(Arc<State>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.bodies_dropped.fetch_add(1, Ordering::SeqCst);
        self.0.dropped.notify_waiters();
    }
}

/// A scripted body; `state` learns when the client drops it.
pub fn scripted(steps: Vec<Step>, state: Option<Arc<State>>) -> Body {
    let signal = state.map(DropSignal);
    let stream =
        futures::stream::unfold((steps.into_iter(), signal), |(mut it, signal)| async move {
            loop {
                match it.next()? {
                    Step::Chunk(bytes) => {
                        return Some((Ok(Frame::data(Bytes::from(bytes))), (it, signal)));
                    }
                    Step::Sleep(d) => tokio::time::sleep(d).await,
                    Step::Abort => {
                        return Some((Err(io::Error::other("scripted abort")), (it, signal)));
                    }
                    Step::Hang => std::future::pending::<()>().await,
                }
            }
        });
    BodyExt::boxed_unsync(StreamBody::new(stream))
}

pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

pub fn json(status: u16, body: &str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(full(body.to_owned()))
        .unwrap()
}

/// A JSON body that arrives `after` this long.
pub fn delayed_json(body: &str, after: Duration) -> Response<Body> {
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(scripted(vec![Step::Sleep(after), chunk(body)], None))
        .unwrap()
}

pub fn sse(steps: Vec<Step>, state: Option<Arc<State>>) -> Response<Body> {
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(scripted(steps, state))
        .unwrap()
}

pub fn status(code: u16) -> Response<Body> {
    Response::builder()
        .status(StatusCode::from_u16(code).unwrap())
        .body(full(Bytes::new()))
        .unwrap()
}

/// A JSON-RPC result for `id`.
pub fn result(id: i64, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// An SSE `message` event.
pub fn event(data: &str) -> String {
    format!("data: {data}\n\n")
}

pub fn progress(n: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{n}}}}}"#
    )
}

/// The id of the JSON-RPC request in a body.
pub fn request_id(seen: &Seen) -> i64 {
    seen.json()["id"].as_i64().unwrap_or(-1)
}

// ----- TLS -----

/// A client TLS configuration that trusts only the test CA.
pub fn trust_ca(ca_pem: &str) -> TlsConfig {
    TlsConfig::default()
        .with_roots(RootStore::Empty)
        .with_ca_pem(ca_pem.as_bytes())
}

pub struct TestPki {
    pub ca_pem: String,
    pub server: rustls::ServerConfig,
    /// A server configuration that requires a client certificate from the CA.
    pub server_mtls: rustls::ServerConfig,
    /// A client certificate (PEM) and key (PEM) issued by the CA.
    pub client_chain_pem: String,
    pub client_key_pem: String,
}

/// A CA and a server certificate for 127.0.0.1 and localhost.
pub fn test_pki() -> TestPki {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    server.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];

    let client_key = KeyPair::generate().unwrap();
    let client = CertificateParams::new(vec!["client.test".to_owned()])
        .unwrap()
        .signed_by(&client_key, &ca)
        .unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.der().clone()).unwrap();
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let mut server_mtls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    server_mtls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    TestPki {
        ca_pem: ca.pem(),
        server,
        server_mtls,
        client_chain_pem: client.pem(),
        client_key_pem: client_key.serialize_pem(),
    }
}

// ----- CONNECT proxy -----

pub struct TestProxy {
    pub url: String,
    /// The request heads of every CONNECT seen.
    pub connects: Arc<Mutex<Vec<String>>>,
}

/// A minimal CONNECT proxy on loopback.
pub async fn connect_proxy() -> TestProxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connects = Arc::new(Mutex::new(Vec::new()));
    let log = connects.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut client, _)) = listener.accept().await else {
                return;
            };
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read_exact(&mut byte).await.is_err() || head.len() > 8192 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                log.lock().unwrap().push(head.clone());
                let target = head.split_whitespace().nth(1).unwrap_or("").to_owned();
                let Ok(mut upstream) = TcpStream::connect(target).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                let _ = client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await;
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    TestProxy {
        url: format!("http://{addr}"),
        connects,
    }
}

// ----- client helpers -----

use mcp_transport_http::{HttpConfig, ProxyConfig, ReconnectPolicy, RootStore, TlsConfig};
use mcp_types::routing::HttpRouting;
use mcp_types::{ProtocolVersion, RequestId};

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A client configuration for a loopback server: no proxy, fast reconnects.
pub fn config(url: &str) -> HttpConfig {
    HttpConfig::new(url)
        .unwrap()
        .with_proxy(ProxyConfig::None)
        .with_reconnect(ReconnectPolicy::new(ms(20), ms(5), ms(200), 3))
}

/// A request body with this id and method.
pub fn request(id: i64, method: &str) -> Bytes {
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{}}}}"#
    ))
}

pub fn notification(method: &str) -> Bytes {
    Bytes::from(format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#))
}

/// Modern routing for a request.
pub fn modern(id: i64, method: &str) -> HttpRouting {
    HttpRouting::new(ProtocolVersion::V2026_07_28)
        .with_method(method.to_owned())
        .with_request_id(RequestId::Number(id))
}

/// Legacy routing for a request (version `None` for `initialize`).
pub fn legacy(id: i64, version: Option<ProtocolVersion>) -> HttpRouting {
    let mut routing = match version {
        Some(v) => HttpRouting::new(v),
        None => HttpRouting::default(),
    };
    routing = routing.with_request_id(RequestId::Number(id));
    routing
}

/// Bounds a future in a test.
pub async fn within<T>(limit: Duration, fut: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(limit, fut).await.expect("timed out")
}

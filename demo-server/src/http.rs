//! Streamable HTTP on hyper 1: one endpoint, `/mcp`.
//!
//! Legacy (2025-11-25): `Mcp-Session-Id` minted at `initialize` and required
//! afterwards (404 for an unknown one), a standalone GET stream, DELETE to
//! end a session, SSE responses with event ids and `retry`. Modern
//! (2026-07-28): no sessions; header/body validation; each POST answered
//! with JSON or an SSE stream; closing the stream cancels the request.
//! With [`DemoOptions::oauth`](crate::DemoOptions::oauth), the other paths
//! are the authorization server's and `/mcp` wants a bearer
//! (`oauth_http.rs`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming as HyperBody;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{Era, ErrorCode, Message, ProtocolVersion};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::ServeError;
use crate::dispatch::{
    Frame, Incoming, Route, bad_params, error_frame, final_frame, has_modern_meta, run_request,
    send_outcome,
};
use crate::http_validate;
use crate::legacy::{self, Session};
use crate::modern;
use crate::resume::{parse_event_id, pump_logged, replay};
use crate::server::{Server, lock};
use crate::sse::{Body, EventIds, pump};
use crate::support::RpcError;

/// Largest accepted request body.
const MAX_BODY: usize = 16 * 1024 * 1024;
const SESSION_HEADER: &str = "mcp-session-id";
/// A header tests put on their requests to count the POSTs of one call
/// (see `DemoServer::tagged_posts`).
const TAG_HEADER: &str = "x-demo-tag";

/// A running HTTP server.
#[derive(Debug)]
pub struct HttpHandle {
    addr: SocketAddr,
    stop: CancellationToken,
    server: Arc<Server>,
    task: tokio::task::JoinHandle<()>,
}

impl HttpHandle {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Ends listen streams gracefully, stops accepting, and closes
    /// connections (waiting at most two seconds for responses in flight).
    pub async fn shutdown(self) {
        self.server.shutdown.cancel();
        self.stop.cancel();
        let _ = self.task.await;
        self.server.close_sessions();
    }
}

pub(crate) async fn serve(server: Arc<Server>, addr: SocketAddr) -> Result<HttpHandle, ServeError> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    if let Some(auth) = &server.oauth {
        auth.set_base(addr);
    }
    let stop = CancellationToken::new();
    let task = tokio::spawn(accept_loop(Arc::clone(&server), listener, stop.clone()));
    Ok(HttpHandle {
        addr,
        stop,
        server,
        task,
    })
}

async fn accept_loop(server: Arc<Server>, listener: TcpListener, stop: CancellationToken) {
    let mut conns = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            a = listener.accept() => a,
            Some(_) = conns.join_next(), if !conns.is_empty() => continue,
        };
        let Ok((stream, _)) = accepted else {
            // Transient accept errors (e.g. too many files): back off briefly.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let server = Arc::clone(&server);
        let stop = stop.clone();
        conns.spawn(async move {
            let svc = service_fn(move |req| handle(Arc::clone(&server), req));
            let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), svc);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while conns.join_next().await.is_some() {}
    })
    .await;
    conns.abort_all();
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Body::bytes(text));
    *r.status_mut() = status;
    r
}

fn json_message(status: StatusCode, msg: &Message) -> Response<Body> {
    let body = serde_json::to_vec(msg).unwrap_or_default();
    let mut r = Response::new(Body::bytes(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn frame_response(frame: Frame) -> Response<Body> {
    match frame {
        Frame::Final(m, status) => json_message(status, &m),
        Frame::Notice(m) => json_message(StatusCode::OK, &m),
    }
}

/// An error response without a request id.
fn transport_error(status: StatusCode, code: ErrorCode, message: &str) -> Response<Body> {
    let mut e = RpcError::new(code, message);
    e.status = status;
    frame_response(error_frame(None, e))
}

fn status(code: StatusCode) -> Response<Body> {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = code;
    r
}

fn origin_ok(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let host = origin
        .split("://")
        .nth(1)
        .unwrap_or("")
        .rsplit_once(':')
        .map_or_else(|| origin.split("://").nth(1).unwrap_or(""), |(h, _)| h);
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn unknown_session() -> Response<Body> {
    transport_error(
        StatusCode::NOT_FOUND,
        ErrorCode(-32001),
        "Session not found",
    )
}

async fn handle(
    server: Arc<Server>,
    req: hyper::Request<HyperBody>,
) -> Result<Response<Body>, Infallible> {
    if let Some(auth) = &server.oauth {
        if req.uri().path() != "/mcp" {
            return Ok(crate::oauth_http::endpoint(auth, req).await);
        }
        if let Some(refusal) = crate::oauth_http::check_bearer(auth, req.headers()) {
            return Ok(refusal);
        }
    }
    if req.uri().path() != "/mcp" {
        return Ok(plain(
            StatusCode::NOT_FOUND,
            "not found; the MCP endpoint is /mcp",
        ));
    }
    if !origin_ok(req.headers()) {
        return Ok(transport_error(
            StatusCode::FORBIDDEN,
            ErrorCode::INVALID_REQUEST,
            "Forbidden: invalid Origin",
        ));
    }
    Ok(match *req.method() {
        Method::POST => post(server, req).await,
        Method::GET => get(&server, req.headers()),
        Method::DELETE => delete(&server, req.headers()),
        _ => {
            let mut r = status(StatusCode::METHOD_NOT_ALLOWED);
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    })
}

/// GET: the legacy standalone stream, or 405.
fn get(server: &Arc<Server>, headers: &HeaderMap) -> Response<Body> {
    let eras = server.opts.eras;
    let Some(sid) = session_id(headers).filter(|_| eras.legacy()) else {
        return if eras.modern() || !server.opts.get_stream {
            status(StatusCode::METHOD_NOT_ALLOWED)
        } else {
            transport_error(
                StatusCode::BAD_REQUEST,
                ErrorCode(-32000),
                "Bad Request: Mcp-Session-Id header is required",
            )
        };
    };
    let Some(session) = server.session(&sid) else {
        return unknown_session();
    };
    if !server.opts.get_stream {
        return status(StatusCode::METHOD_NOT_ALLOWED);
    }
    let accepts_sse = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"));
    if !accepts_sse {
        return status(StatusCode::NOT_ACCEPTABLE);
    }
    if let Some(last) = headers.get("last-event-id") {
        let found = last
            .to_str()
            .ok()
            .and_then(parse_event_id)
            .and_then(|(stream, n)| Some((session.logs.get(stream)?, n)));
        let Some((log, after)) = found else {
            return transport_error(
                StatusCode::BAD_REQUEST,
                ErrorCode(-32000),
                "Bad Request: unknown Last-Event-ID",
            );
        };
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        tokio::spawn(replay(log, after, out_tx));
        return sse_response(out_rx, None);
    }
    let Some(mailbox) = lock(&session.mailbox).take() else {
        return transport_error(
            StatusCode::CONFLICT,
            ErrorCode(-32000),
            "Conflict: only one GET stream per session",
        );
    };
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let ids = EventIds {
        stream: format!("g{}", session.next_stream()),
        next: 0,
        retry_ms: u64::try_from(server.opts.sse_retry.as_millis()).unwrap_or(u64::MAX),
    };
    let keep_alive = Some(server.opts.keep_alive);
    let shutdown = server.shutdown.clone();
    tokio::spawn(async move {
        let closed = session.closed.clone();
        let rx = tokio::select! {
            rx = pump(None, mailbox, out_tx, Some(ids), keep_alive) => Some(rx),
            () = closed.cancelled() => None,
            () = shutdown.cancelled() => None,
        };
        if let Some(rx) = rx {
            *lock(&session.mailbox) = Some(rx);
        }
    });
    sse_response(out_rx, None)
}

fn sse_response(
    rx: mpsc::UnboundedReceiver<Bytes>,
    guard: Option<tokio_util::sync::DropGuard>,
) -> Response<Body> {
    let mut r = Response::new(Body::Stream { rx, _guard: guard });
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// DELETE: ends a legacy session.
fn delete(server: &Server, headers: &HeaderMap) -> Response<Body> {
    if !server.opts.eras.legacy() {
        return status(StatusCode::METHOD_NOT_ALLOWED);
    }
    match session_id(headers) {
        None if server.opts.eras.modern() => status(StatusCode::METHOD_NOT_ALLOWED),
        None => transport_error(
            StatusCode::BAD_REQUEST,
            ErrorCode(-32000),
            "Bad Request: Mcp-Session-Id header is required",
        ),
        Some(sid) if server.remove_session(&sid) => status(StatusCode::OK),
        Some(_) => unknown_session(),
    }
}

async fn post(server: Arc<Server>, req: hyper::Request<HyperBody>) -> Response<Body> {
    let (parts, body) = req.into_parts();
    let bytes = match Limited::new(body, MAX_BODY).collect().await {
        Ok(c) => c.to_bytes(),
        Err(_) => {
            return transport_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::INVALID_REQUEST,
                "Request body too large or unreadable",
            );
        }
    };
    let msg = match Message::from_slice(&bytes) {
        Ok(m) => m,
        Err(e) => {
            return transport_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::PARSE_ERROR,
                &format!("Parse error: {e}"),
            );
        }
    };
    let headers = parts.headers;
    if let Some(tag) = headers.get(TAG_HEADER).and_then(|v| v.to_str().ok()) {
        server.count_tag(tag);
    }
    let eras = server.opts.eras;
    let session = match session_id(&headers).filter(|_| eras.legacy()) {
        Some(sid) => match server.session(&sid) {
            Some(s) => Some(s),
            None => return unknown_session(),
        },
        None => None,
    };
    match msg {
        Message::Request(r) => {
            let req = match Incoming::from_request(r) {
                Ok(req) => req,
                Err(id) => {
                    return frame_response(error_frame(
                        Some(id),
                        bad_params().with_status(StatusCode::BAD_REQUEST),
                    ));
                }
            };
            if has_modern_meta(&req.params) && eras.modern() {
                modern_post(server, &headers, req).await
            } else if let Some(s) = session {
                legacy_post(server, &headers, s, req).await
            } else if req.method == "initialize" {
                initialize(&server, req)
            } else if !eras.modern() {
                transport_error(
                    StatusCode::BAD_REQUEST,
                    ErrorCode(-32000),
                    "Bad Request: Server not initialized",
                )
            } else {
                modern_post(server, &headers, req).await
            }
        }
        Message::Notification(n) => {
            server.count_notification(&n.method);
            if let Some(s) = &session {
                let params = n
                    .params
                    .and_then(|p| serde_json::from_str(p.get()).ok())
                    .unwrap_or(Value::Null);
                legacy::notify(s, &n.method, &params);
            }
            status(StatusCode::ACCEPTED)
        }
        Message::Response(r) => match session {
            Some(s) => {
                let result = r.result.decode().unwrap_or(Value::Null);
                s.deliver(&r.id, Ok(result));
                status(StatusCode::ACCEPTED)
            }
            None => transport_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "Bad Request: responses need a session",
            ),
        },
        Message::Error(e) => match (session, e.id) {
            (Some(s), Some(id)) => {
                s.deliver(&id, Err::<Value, ErrorObject>(e.error));
                status(StatusCode::ACCEPTED)
            }
            _ => status(StatusCode::ACCEPTED),
        },
    }
}

fn initialize(server: &Arc<Server>, req: Incoming) -> Response<Body> {
    if !server.opts.eras.legacy() {
        let e = modern::refuse_initialize(server, &req.params);
        return frame_response(error_frame(Some(req.id), e));
    }
    match legacy::negotiate(&req.params) {
        Ok((version, caps)) => {
            let (outbound, mailbox) = mpsc::unbounded_channel();
            let session = Session::new(server.fresh_id(), caps, outbound, Some(mailbox));
            session.spawn_forwarder(server);
            server.add_session(Arc::clone(&session));
            let result = legacy::initialize_result(server, &version);
            let mut r = frame_response(final_frame(req.id, Ok(result)));
            if let Ok(v) = HeaderValue::from_str(&session.id) {
                r.headers_mut().insert(SESSION_HEADER, v);
            }
            r
        }
        Err(e) => frame_response(error_frame(Some(req.id), e)),
    }
}

async fn legacy_post(
    server: Arc<Server>,
    headers: &HeaderMap,
    session: Arc<Session>,
    req: Incoming,
) -> Response<Body> {
    if let Some(v) = headers.get("mcp-protocol-version") {
        let ok = v
            .to_str()
            .is_ok_and(|v| ProtocolVersion::parse(v).era() == Some(Era::Legacy));
        if !ok {
            return transport_error(
                StatusCode::BAD_REQUEST,
                ErrorCode(-32000),
                "Bad Request: Unsupported protocol version",
            );
        }
    }
    let cancel = CancellationToken::new();
    lock(&session.inflight).insert(req.id.clone(), cancel.clone());
    let id = req.id.clone();
    let route = Route::Legacy(Arc::clone(&session));
    let mode = Mode::Legacy(Arc::clone(&session));
    let done: Cleanup = Box::new(move || {
        lock(&session.inflight).remove(&id);
    });
    respond(server, route, req, cancel, mode, Some(done)).await
}

async fn modern_post(server: Arc<Server>, headers: &HeaderMap, req: Incoming) -> Response<Body> {
    if let Err(e) = http_validate::validate(&server, headers, &req.method, &req.params) {
        return frame_response(error_frame(Some(req.id), e));
    }
    let meta = match modern::parse_meta(&server, &req.params) {
        Ok(m) => m,
        Err(e) => return frame_response(error_frame(Some(req.id), e)),
    };
    let cancel = CancellationToken::new();
    respond(server, Route::Modern(meta), req, cancel, Mode::Modern, None).await
}

/// Work to do once a request has been handled.
type Cleanup = Box<dyn FnOnce() + Send>;

/// How a response stream behaves.
enum Mode {
    /// 2026-07-28: closing the stream cancels the request; no event ids.
    Modern,
    /// 2025-11-25: event ids, `retry`, resumable; a disconnect is no cancel.
    Legacy(Arc<Session>),
}

/// Runs a request and answers with JSON when its first frame is the final
/// response, else with an SSE stream.
async fn respond(
    server: Arc<Server>,
    route: Route,
    req: Incoming,
    cancel: CancellationToken,
    mode: Mode,
    done: Option<Cleanup>,
) -> Response<Body> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = req.id.clone();
    let keep_alive = (req.method == "subscriptions/listen").then_some(server.opts.keep_alive);
    let task_cancel = cancel.clone();
    let opts = server.opts.clone();
    tokio::spawn(async move {
        let outcome = run_request(server, route, req, tx.clone(), task_cancel).await;
        if let Some(done) = done {
            done();
        }
        send_outcome(&tx, id, outcome);
    });
    let guard = matches!(mode, Mode::Modern).then(|| cancel.drop_guard());
    match rx.recv().await {
        None => sse_response(mpsc::unbounded_channel().1, guard),
        Some(Frame::Final(m, status)) => json_message(status, &m),
        Some(first @ Frame::Notice(_)) => {
            let (out_tx, out_rx) = mpsc::unbounded_channel();
            match mode {
                Mode::Modern => {
                    tokio::spawn(pump(Some(first), rx, out_tx, None, keep_alive));
                }
                Mode::Legacy(session) => {
                    let stream = format!("p{}", session.next_stream());
                    let log = session.logs.open(&stream);
                    let retry = u64::try_from(opts.sse_retry.as_millis()).unwrap_or(u64::MAX);
                    let close_after = opts.sse_close_after;
                    tokio::spawn(pump_logged(
                        first,
                        rx,
                        out_tx,
                        stream,
                        log,
                        retry,
                        close_after,
                    ));
                }
            }
            sse_response(out_rx, guard)
        }
    }
}

//! Raw JSON-RPC test clients for the demo server: stdio framing over an
//! in-process duplex pipe, and HTTP over loopback with a tiny hyper client.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::time::Duration;

use bytes::Bytes;
use demo_server::{DemoOptions, DemoServer, HttpHandle};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

pub const TIMEOUT: Duration = Duration::from_secs(10);
pub const MODERN: &str = "2026-07-28";

/// `_meta` of a modern request with the given client capabilities.
pub fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { "name": "raw-test", "version": "0" }
    })
}

/// Modern params: `extra` plus `_meta` with `caps`.
pub fn modern(caps: Value, extra: Value) -> Value {
    let mut p = extra;
    p["_meta"] = meta(caps);
    p
}

pub struct Stdio {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    pub server: DemoServer,
    task: tokio::task::JoinHandle<()>,
}

impl Stdio {
    pub fn start(opts: DemoOptions) -> Stdio {
        let server = DemoServer::new(opts);
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (sr, sw) = tokio::io::split(server_end);
        let s2 = server.clone();
        let task = tokio::spawn(async move {
            s2.serve_io(sr, sw).await.unwrap();
        });
        let (cr, cw) = tokio::io::split(client);
        Stdio {
            reader: BufReader::new(cr),
            writer: cw,
            server,
            task,
        }
    }

    pub async fn send(&mut self, v: Value) {
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        self.writer.write_all(&line).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    pub async fn send_raw(&mut self, raw: &str) {
        self.writer.write_all(raw.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    pub async fn recv(&mut self) -> Value {
        self.recv_within(TIMEOUT)
            .await
            .expect("timed out waiting for a message")
    }

    pub async fn recv_within(&mut self, d: Duration) -> Option<Value> {
        let mut line = String::new();
        match tokio::time::timeout(d, self.reader.read_line(&mut line)).await {
            Ok(Ok(n)) if n > 0 => Some(serde_json::from_str(&line).unwrap()),
            Ok(_) => None,
            Err(_) => None,
        }
    }

    /// Adds messages to `seen` until `done(seen)` holds (bounded by [`TIMEOUT`]).
    pub async fn collect_until(&mut self, seen: &mut Vec<Value>, done: impl Fn(&[Value]) -> bool) {
        while !done(seen) {
            seen.push(self.recv().await);
        }
    }

    /// Sends a request and collects messages until its response.
    pub async fn call(&mut self, id: Value, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        self.until_response(&id).await
    }

    pub async fn until_response(&mut self, id: &Value) -> (Vec<Value>, Value) {
        let mut others = Vec::new();
        loop {
            let m = self.recv().await;
            if m.get("id") == Some(id) && m.get("method").is_none() {
                return (others, m);
            }
            others.push(m);
        }
    }

    /// The legacy handshake; returns the `InitializeResult`.
    pub async fn initialize(&mut self, caps: Value) -> Value {
        let (_, r) = self
            .call(
                json!(0),
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": caps,
                    "clientInfo": { "name": "raw-test", "version": "0" }
                }),
            )
            .await;
        self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        r["result"].clone()
    }

    pub async fn close(self) {
        drop(self.writer);
        drop(self.reader);
        tokio::time::timeout(TIMEOUT, self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

/// An HTTP response: status, headers and either the whole body or an SSE reader.
pub struct HttpResponse {
    pub status: u16,
    pub headers: http::HeaderMap,
    body: Incoming,
    buf: Vec<u8>,
}

#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: Option<String>,
    pub retry: Option<String>,
    pub data: String,
}

impl HttpResponse {
    pub fn content_type(&self) -> &str {
        self.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    pub fn is_sse(&self) -> bool {
        self.content_type().starts_with("text/event-stream")
    }

    pub async fn json(self) -> Value {
        let bytes = tokio::time::timeout(TIMEOUT, self.body.collect())
            .await
            .unwrap()
            .unwrap()
            .to_bytes();
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))
    }

    pub async fn text(self) -> String {
        let bytes = tokio::time::timeout(TIMEOUT, self.body.collect())
            .await
            .unwrap()
            .unwrap()
            .to_bytes();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The next SSE event (comments skipped); `None` at the end of the stream.
    pub async fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let raw: Vec<u8> = self.buf.drain(..pos + 2).collect();
                let text = String::from_utf8(raw).unwrap();
                let mut ev = SseEvent {
                    id: None,
                    retry: None,
                    data: String::new(),
                };
                let mut any = false;
                for line in text.lines() {
                    if line.starts_with(':') {
                        continue;
                    }
                    any = true;
                    if let Some(v) = line.strip_prefix("id: ") {
                        ev.id = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("retry: ") {
                        ev.retry = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        ev.data.push_str(v);
                    } else if let Some(v) = line.strip_prefix("data:") {
                        ev.data.push_str(v);
                    }
                }
                if any {
                    return Some(ev);
                }
                continue;
            }
            let frame = tokio::time::timeout(TIMEOUT, self.body.frame())
                .await
                .expect("timed out waiting for an SSE event")?;
            if let Ok(data) = frame.unwrap().into_data() {
                self.buf.extend_from_slice(&data);
            }
        }
    }

    /// The next SSE event that carries a JSON-RPC message.
    pub async fn next_message(&mut self) -> Option<Value> {
        loop {
            let ev = self.next_event().await?;
            if !ev.data.trim().is_empty() {
                return Some(serde_json::from_str(&ev.data).unwrap());
            }
        }
    }

    /// All JSON-RPC messages until the stream ends.
    pub async fn messages(mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(m) = self.next_message().await {
            out.push(m);
        }
        out
    }
}

/// Sends one request on a fresh loopback connection to `addr`, bounded by
/// [`TIMEOUT`].
pub async fn roundtrip(
    addr: std::net::SocketAddr,
    req: http::Request<Full<Bytes>>,
) -> http::Response<Incoming> {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    tokio::time::timeout(TIMEOUT, sender.send_request(req))
        .await
        .unwrap()
        .unwrap()
}

pub struct Http {
    pub handle: HttpHandle,
    pub server: DemoServer,
}

impl Http {
    pub async fn start(opts: DemoOptions) -> Http {
        let server = DemoServer::new(opts);
        let handle = server
            .serve_http("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        Http { handle, server }
    }

    pub async fn send(
        &self,
        method: http::Method,
        headers: &[(&str, String)],
        body: Option<Value>,
    ) -> HttpResponse {
        let mut req = http::Request::builder()
            .method(method)
            .uri(self.handle.url())
            .header("host", self.handle.local_addr().to_string())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        for (k, v) in headers {
            req = req.header(*k, v.as_str());
        }
        let bytes = body
            .map(|b| serde_json::to_vec(&b).unwrap())
            .unwrap_or_default();
        let req = req.body(Full::new(Bytes::from(bytes))).unwrap();
        let (parts, body) = roundtrip(self.handle.local_addr(), req).await.into_parts();
        HttpResponse {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body,
            buf: Vec::new(),
        }
    }

    /// A modern POST with correct `MCP-Protocol-Version`, `Mcp-Method` and
    /// (when given) `Mcp-Name` headers, plus `extra` headers.
    pub async fn modern(
        &self,
        id: Value,
        method: &str,
        params: Value,
        name: Option<&str>,
        extra: &[(&str, String)],
    ) -> HttpResponse {
        let mut headers = vec![
            ("mcp-protocol-version", MODERN.to_owned()),
            ("mcp-method", method.to_owned()),
        ];
        if let Some(n) = name {
            headers.push(("mcp-name", n.to_owned()));
        }
        headers.extend(extra.iter().cloned());
        self.send(
            http::Method::POST,
            &headers,
            Some(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })),
        )
        .await
    }

    /// A legacy POST within `session` (if any).
    pub async fn legacy(&self, session: Option<&str>, body: Value) -> HttpResponse {
        let mut headers = vec![("mcp-protocol-version", "2025-11-25".to_owned())];
        if let Some(s) = session {
            headers.push(("mcp-session-id", s.to_owned()));
        }
        self.send(http::Method::POST, &headers, Some(body)).await
    }

    /// The legacy handshake over HTTP; returns the session id.
    pub async fn initialize(&self, caps: Value) -> String {
        let r = self
            .send(
                http::Method::POST,
                &[],
                Some(json!({
                    "jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": caps,
                        "clientInfo": { "name": "raw-test", "version": "0" }
                    }
                })),
            )
            .await;
        assert_eq!(r.status, 200);
        let sid = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
        let body = r.json().await;
        assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
        let n = self
            .legacy(
                Some(&sid),
                json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            )
            .await;
        assert_eq!(n.status, 202);
        sid
    }

    pub async fn stop(self) {
        self.handle.shutdown().await;
    }
}

//! A scripted loopback HTTP/1.1 server for tests that need a server
//! misbehaving on purpose, or the exact headers a client sends: read one
//! request, write one response, with canned 2025-11-25 answers.
//!
//! These are primitives over one accepted connection; a test's server is a
//! loop over `TcpListener::accept` on `127.0.0.1:0` that reads with
//! [`read_request`] and answers with [`respond`] and the canned answers.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Headers of a request: lower-cased names, trimmed values, in order.
pub type Headers = Vec<(String, String)>;

/// Reads one request: method, headers (see [`Headers`]) and body; `None`
/// at EOF or on a malformed request.
pub async fn read_request(reader: &mut BufReader<TcpStream>) -> Option<(String, Headers, Vec<u8>)> {
    let (method, _target, headers, body) = read_request_at(reader).await?;
    Some((method, headers, body))
}

/// Like [`read_request`], with the request target (path and query) too.
pub async fn read_request_at(
    reader: &mut BufReader<TcpStream>,
) -> Option<(String, String, Headers, Vec<u8>)> {
    let mut line = String::new();
    if reader.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let mut words = line.split_whitespace();
    let method = words.next()?.to_owned();
    let target = words.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).await.ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).await.ok()?;
    Some((method, target, headers, body))
}

/// Writes one response with a `content-length`; `extra` is more header
/// lines, each ending in `\r\n`. Write errors are ignored (the client may
/// have gone, which the test checks by other means).
pub async fn respond(w: &mut BufReader<TcpStream>, status: &str, extra: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\n{extra}\r\n",
        body.len()
    );
    let _ = w.get_mut().write_all(head.as_bytes()).await;
    let _ = w.get_mut().write_all(body.as_bytes()).await;
}

/// Answers a 2025-11-25 `initialize` (a tools-only server) and starts the
/// session `s-1`.
pub async fn answer_initialize(conn: &mut BufReader<TcpStream>, request: &serde_json::Value) {
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "scripted", "version": "1"}
    }});
    let extra = "content-type: application/json\r\nmcp-session-id: s-1\r\n";
    respond(conn, "200 OK", extra, &reply.to_string()).await;
}

/// Answers what a 2025-11-25 endpoint gets besides POST: `DELETE` ends the
/// session (`200`), anything else (the GET stream) is `405`.
pub async fn answer_non_post(conn: &mut BufReader<TcpStream>, method: &str) {
    let status = if method == "DELETE" {
        "200 OK"
    } else {
        "405 Method Not Allowed"
    };
    respond(conn, status, "", "").await;
}

/// Answers a `tools/call` of an echo tool: its `text` argument as text.
pub async fn answer_echo(conn: &mut BufReader<TcpStream>, request: &serde_json::Value) {
    let text = request["params"]["arguments"]["text"].clone();
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "content": [{"type": "text", "text": text}]
    }});
    let extra = "content-type: application/json\r\n";
    respond(conn, "200 OK", extra, &reply.to_string()).await;
}

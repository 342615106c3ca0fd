//! The HTTP+SSE fallback end to end, against a scripted HTTP/1.1 server of
//! the deprecated 2024-11-05 transport on loopback: it answers POSTs to its
//! URL with `404` (no Streamable HTTP), serves `GET /sse` as an event stream
//! whose first event is `endpoint`, accepts `POST /message?sessionId=s1`
//! with `202` and sends every answer on the stream. It negotiates
//! 2024-11-05 and asks the client a `ping` once initialized.

use mcp_testkit::http as scripted;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::mcp_types::{Era, ProtocolVersion};
use mcp_client::{Client, Error};
use mcp_transport_http::HttpError;
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use scripted::{read_request_at, respond};

const WAIT: Duration = Duration::from_secs(10);
const MESSAGES: &str = "/message?sessionId=s1";

/// One request the server saw: method, target, JSON body.
type Seen = (String, String, Value);

struct OldServer {
    /// The open event stream; dropping it ends the stream.
    events: Mutex<Option<mpsc::UnboundedSender<String>>>,
    seen: mpsc::UnboundedSender<Seen>,
}

impl OldServer {
    fn push(&self, message: &Value) {
        if let Some(tx) = self.events.lock().expect("lock").as_ref() {
            let _ = tx.send(format!("event: message\ndata: {message}\n\n"));
        }
    }

    /// Answers one POSTed message on the event stream.
    fn answer(&self, m: &Value) {
        let result = match (m["method"].as_str(), m["params"]["name"].as_str()) {
            (Some("initialize"), _) => json!({
                "protocolVersion": "2024-11-05",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "old-sse", "version": "1"}
            }),
            (Some("notifications/initialized"), _) => {
                return self.push(&json!({"jsonrpc": "2.0", "id": "s1", "method": "ping"}));
            }
            (Some("tools/list"), _) => json!({"tools": [
                {"name": "echo", "inputSchema": {"type": "object"}}
            ]}),
            (Some("tools/call"), Some("echo")) => json!({"content": [
                {"type": "text", "text": m["params"]["arguments"]["message"]}
            ]}),
            _ => return, // `hang`, and the client's answers
        };
        self.push(&json!({"jsonrpc": "2.0", "id": m["id"], "result": result}));
    }
}

async fn serve_connection(stream: TcpStream, server: Arc<OldServer>) {
    let mut conn = BufReader::new(stream);
    while let Some((method, target, _headers, body)) = read_request_at(&mut conn).await {
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let _ = server
            .seen
            .send((method.clone(), target.clone(), message.clone()));
        match (method.as_str(), target.as_str()) {
            ("GET", "/sse") => return event_stream(conn, &server).await,
            ("POST", MESSAGES) => {
                respond(&mut conn, "202 Accepted", "", "Accepted").await;
                server.answer(&message);
            }
            _ => respond(&mut conn, "404 Not Found", "", "Cannot POST").await,
        }
    }
}

/// The event stream: `endpoint` first, then what is pushed, as chunks.
async fn event_stream(mut conn: BufReader<TcpStream>, server: &OldServer) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    *server.events.lock().expect("lock") = Some(tx);
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                transfer-encoding: chunked\r\n\r\n";
    let mut next = Some(format!("event: endpoint\ndata: {MESSAGES}\n\n"));
    if conn.get_mut().write_all(head.as_bytes()).await.is_err() {
        return;
    }
    while let Some(event) = next {
        let chunk = format!("{:x}\r\n{event}\r\n", event.len());
        if conn.get_mut().write_all(chunk.as_bytes()).await.is_err() {
            return;
        }
        next = rx.recv().await;
    }
    let _ = conn.get_mut().write_all(b"0\r\n\r\n").await;
}

async fn start() -> (String, Arc<OldServer>, mpsc::UnboundedReceiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/sse", listener.local_addr().expect("addr"));
    let (seen, seen_rx) = mpsc::unbounded_channel();
    let server = Arc::new(OldServer {
        events: Mutex::new(None),
        seen,
    });
    let s = server.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(stream, s.clone()));
        }
    });
    (url, server, seen_rx)
}

/// The default builder on the server's URL.
async fn connect(url: &str) -> Client {
    Client::builder()
        .request_timeout(Some(WAIT))
        .http(url)
        .connect()
        .await
        .expect("connect over the fallback")
}

/// Waits for the first request the server sees that `wanted` accepts.
async fn saw(rx: &mut mpsc::UnboundedReceiver<Seen>, wanted: impl Fn(&Seen) -> bool) -> Seen {
    tokio::time::timeout(WAIT, async {
        loop {
            let seen = rx.recv().await.expect("server alive");
            if wanted(&seen) {
                return seen;
            }
        }
    })
    .await
    .expect("the server saw it")
}

#[tokio::test]
async fn the_default_builder_speaks_the_old_transport_after_a_404() {
    let (url, _server, mut seen) = start().await;
    let client = connect(&url).await;
    assert_eq!(client.era(), Some(Era::Legacy));
    assert_eq!(
        client.protocol_version(),
        Some(ProtocolVersion::V2024_11_05)
    );
    assert_eq!(client.server_info().expect("info").name, "old-sse");

    // Streamable HTTP first (the era probe, then initialize), then the GET.
    let mut order = Vec::new();
    for _ in 0..4 {
        let (method, target, body) = saw(&mut seen, |_| true).await;
        order.push(format!("{method} {target} {}", body["method"]));
    }
    assert_eq!(
        order,
        [
            "POST /sse \"server/discover\"",
            "POST /sse \"initialize\"",
            "GET /sse null",
            "POST /message?sessionId=s1 \"initialize\"",
        ]
    );
    // The server's request on the stream is answered by POST.
    let (_, target, answer) = saw(&mut seen, |(_, _, b)| b["id"] == "s1").await;
    assert_eq!(target, MESSAGES);
    assert_eq!(answer["result"], json!({}));

    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 1);
    let echoed = client
        .call_tool("echo", json!({"message": "hello"}))
        .await
        .expect("tools/call");
    assert_eq!(echoed.content[0].as_text(), Some("hello"));
    client.close().await;
}

#[tokio::test]
async fn the_stream_ending_fails_a_waiting_call_and_names_why() {
    let (url, server, mut seen) = start().await;
    let client = connect(&url).await;
    let caller = client.clone();
    let call = tokio::spawn(async move { caller.call_tool("hang", json!({})).await });
    saw(&mut seen, |(_, _, b)| b["params"]["name"] == "hang").await;
    drop(server.events.lock().expect("lock").take());
    let err: Error = tokio::time::timeout(WAIT, call)
        .await
        .expect("the call ends with the stream")
        .expect("join")
        .expect_err("no answer can come");
    assert!(err.is_transport(), "{err}");
    assert!(
        matches!(err.http_error(), Some(HttpError::StreamEnded)),
        "{err:?}"
    );
    let source = std::error::Error::source(&err).expect("a named cause");
    assert_eq!(
        source.to_string(),
        "the response stream ended before the reply"
    );
    let later = client
        .list_all_tools()
        .await
        .expect_err("the connection is over");
    assert!(later.is_transport() || later.is_closed(), "{later}");
}

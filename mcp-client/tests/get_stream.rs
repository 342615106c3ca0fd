//! The 2025-11-25 GET stream is open before `connect` returns.
//!
//! SDK servers drop a server-initiated message when no GET stream is open
//! (the official conformance suite's elicitation scenario does exactly
//! this), so a client that lets the first call race its GET loses the
//! server's first request. A scripted HTTP/1.1 server on loopback that
//! answers the GET late, and asks something on it at once, shows the order.

use mcp_testkit::http as scripted;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_client::{ClientBuilder, EraPreference};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use scripted::{answer_initialize, read_request, respond};

/// What the scripted server saw.
struct Seen {
    get_answered: AtomicBool,
    /// JSON-RPC bodies the client POSTed after the handshake.
    posts: mpsc::UnboundedSender<Value>,
}

async fn serve_connection(stream: TcpStream, seen: Arc<Seen>) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _headers, body)) = read_request(&mut conn).await {
        if method == "GET" {
            // Late headers, then a server request on the stream at once.
            // The lateness is the behaviour under test, on a real socket:
            // a paused clock would jump past it (and past the client's own
            // wait for the stream) whenever the runtime waits on the
            // socket, and no event can show that `connect` did *not*
            // return early.
            // tidy: real clock: a slow server on a real socket (see above)
            tokio::time::sleep(Duration::from_millis(300)).await;
            seen.get_answered.store(true, Ordering::SeqCst);
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                        transfer-encoding: chunked\r\n\r\n";
            let event = "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n";
            let chunk = format!("{:x}\r\n{event}\r\n", event.len());
            let _ = conn.get_mut().write_all(head.as_bytes()).await;
            let _ = conn.get_mut().write_all(chunk.as_bytes()).await;
            // Hold the stream open until the client goes away.
            let mut sink = Vec::new();
            let _ = conn.read_to_end(&mut sink).await;
            return;
        }
        if method == "DELETE" {
            respond(&mut conn, "200 OK", "", "").await;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => answer_initialize(&mut conn, &message).await,
            Some("notifications/initialized") => respond(&mut conn, "202 Accepted", "", "").await,
            _ => {
                let _ = seen.posts.send(message);
                respond(&mut conn, "202 Accepted", "", "").await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_returns_once_the_get_stream_is_open() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let (posts, mut posted) = mpsc::unbounded_channel();
    let seen = Arc::new(Seen {
        get_answered: AtomicBool::new(false),
        posts,
    });
    let server_seen = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(stream, server_seen.clone()));
        }
    });

    let client = ClientBuilder::new()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .connect()
        .await
        .expect("connect");
    assert!(
        seen.get_answered.load(Ordering::SeqCst),
        "connect returned before the GET stream was open"
    );
    // The request the server sent on the stream at once is answered.
    let reply = tokio::time::timeout(Duration::from_secs(10), posted.recv())
        .await
        .expect("the client answers the ping")
        .expect("server alive");
    assert_eq!(reply["id"], "s1");
    assert_eq!(reply["result"], json!({}));
    client.close().await;
}

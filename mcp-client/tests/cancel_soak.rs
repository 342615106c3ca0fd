//! Soak tests of cancellation (issue 14, item 1): one session, 200
//! cancelled calls, then 100 ordinary calls that must all succeed.
//!
//! Over 2025-11-25 HTTP the server here keeps every cancelled request's
//! response stream open until the client goes away (as servers on the
//! TypeScript SDK v1 do until the session ends). Before the fix each such
//! stream held one of the transport's 64 concurrent-request slots, so the
//! 65th call was never sent. Over stdio the demo server runs as a child
//! process.

use mcp_testkit::demo as common;
use mcp_testkit::http as scripted;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_client::{Client, EraPreference, ServerCommand};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

const CANCELLED: usize = 200;
const ORDINARY: usize = 100;

/// Bounds the whole soak: a leak shows as calls that are never sent.
const SOAK_LIMIT: Duration = Duration::from_secs(30);

/// Serves one connection of the scripted legacy server. Each `hang` call
/// gets SSE headers and then nothing, until the client closes the
/// connection; `open` counts those streams.
async fn serve(stream: TcpStream, arrived: mpsc::UnboundedSender<Value>, open: Arc<AtomicUsize>) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _, body)) = scripted::read_request(&mut conn).await {
        if method != "POST" {
            scripted::answer_non_post(&mut conn, &method).await;
            continue;
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let call = request["method"].as_str().unwrap_or_default();
        let tool = request["params"]["name"].as_str().unwrap_or_default();
        if call == "initialize" {
            scripted::answer_initialize(&mut conn, &request).await;
        } else if request.get("id").is_none() {
            scripted::respond(&mut conn, "202 Accepted", "", "").await;
        } else if call == "tools/call" && tool == "hang" {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
            let _ = tokio::io::AsyncWriteExt::write_all(conn.get_mut(), head.as_bytes()).await;
            open.fetch_add(1, Ordering::SeqCst);
            let _ = arrived.send(request);
            // The stream never ends from this side: wait for the client to
            // close the connection.
            let mut sink = [0u8; 256];
            while matches!(conn.read(&mut sink).await, Ok(n) if n > 0) {}
            open.fetch_sub(1, Ordering::SeqCst);
            return;
        } else {
            scripted::answer_echo(&mut conn, &request).await;
        }
    }
}

async fn hanging_server() -> (String, mpsc::UnboundedReceiver<Value>, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let (tx, rx) = mpsc::unbounded_channel();
    let open = Arc::new(AtomicUsize::new(0));
    let counter = open.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, tx.clone(), counter.clone()));
        }
    });
    (url, rx, open)
}

async fn ordinary_calls(client: &Client) {
    for i in 0..ORDINARY {
        let text = format!("call {i}");
        let result = client
            .call_tool("echo", json!({ "text": text }))
            .await
            .unwrap_or_else(|e| panic!("ordinary call {i} failed: {e}"));
        assert_eq!(common::text(&result.content), text);
    }
}

#[tokio::test]
async fn legacy_http_200_cancellations_then_100_calls_succeed() {
    let (url, mut arrived, open) = hanging_server().await;
    let client = Client::builder()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .connect()
        .await
        .expect("connect");
    let soak = async {
        for i in 0..CANCELLED {
            let handle = client.start_request("tools/call", Some(json!({"name": "hang"})));
            let id = handle.id().await.expect("in flight");
            let request = arrived
                .recv()
                .await
                .unwrap_or_else(|| panic!("hanging call {i} never reached the server"));
            assert_eq!(request["id"], serde_json::to_value(&id).expect("id"));
            handle.cancel();
        }
        ordinary_calls(&client).await;
    };
    tokio::time::timeout(SOAK_LIMIT, soak)
        .await
        .expect("every call was sent: no cancelled stream holds a request slot");
    // Every cancelled stream was closed by the client (the server would have
    // kept them all open).
    assert!(open.load(Ordering::SeqCst) < CANCELLED);
    client.close().await;
}

#[tokio::test]
async fn stdio_200_cancellations_then_100_calls_succeed() {
    let client = Client::builder()
        .stdio(ServerCommand::new(common::demo_exe()).arg("--serve-stdio"))
        .era(EraPreference::LegacyOnly)
        .connect()
        .await
        .expect("connect");
    let soak = async {
        for _ in 0..CANCELLED {
            let args = json!({"name": "slow_count", "arguments": {"count": 1, "delay_ms": 60000}});
            let handle = client.start_request("tools/call", Some(args));
            handle.id().await.expect("in flight");
            handle.cancel();
        }
        ordinary_calls(&client).await;
    };
    tokio::time::timeout(SOAK_LIMIT, soak)
        .await
        .expect("the soak finishes");
    client.close().await;
}

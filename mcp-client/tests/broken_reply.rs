//! A broken reply (the JSON-RPC envelope rules broken: both `result` and
//! `error`) on a response stream fails its request at once with a typed
//! protocol error naming the request, instead of leaving it to its deadline,
//! in default (non-strict) mode. A scripted HTTP/1.1 server on loopback
//! sends it and keeps the stream open.

mod scripted;

use std::time::Duration;

use mcp_client::{ClientBuilder, EraPreference};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use scripted::{read_request, respond};

async fn serve_connection(stream: TcpStream) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _headers, body)) = read_request(&mut conn).await {
        if method == "GET" {
            respond(&mut conn, "405 Method Not Allowed", "", "").await;
            continue;
        }
        if method == "DELETE" {
            respond(&mut conn, "200 OK", "", "").await;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => {
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "1"}
                }});
                respond(
                    &mut conn,
                    "200 OK",
                    "content-type: application/json\r\nmcp-session-id: s-1\r\n",
                    &reply.to_string(),
                )
                .await;
            }
            Some("tools/call") => {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                            transfer-encoding: chunked\r\n\r\n";
                let broken = json!({"jsonrpc": "2.0", "id": message["id"],
                    "result": {"content": []},
                    "error": {"code": -32603, "message": "secret-payload"}});
                let event = format!("data: {broken}\n\n");
                let chunk = format!("{:x}\r\n{event}\r\n", event.len());
                let _ = conn.get_mut().write_all(head.as_bytes()).await;
                let _ = conn.get_mut().write_all(chunk.as_bytes()).await;
                // The stream stays open: only the client can end the call.
                let mut sink = Vec::new();
                let _ = conn.read_to_end(&mut sink).await;
                return;
            }
            _ => respond(&mut conn, "202 Accepted", "", "").await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_reply_fails_its_request_at_once() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(stream));
        }
    });
    let client = ClientBuilder::new()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(60)))
        .connect()
        .await
        .expect("connect");
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("anything", json!({})),
    )
    .await
    .expect("the call ends long before its 60 s deadline");
    let err = outcome.expect_err("a broken reply is not a result");
    assert!(err.is_protocol_violation(), "{err}");
    let violation = err.strict_violation().expect("typed violation");
    assert_eq!(violation.method, "tools/call", "{violation:?}");
    // The peer's payload is not kept.
    assert!(
        !format!("{err} {err:?}").contains("secret-payload"),
        "{err:?}"
    );
    client.close().await;
}

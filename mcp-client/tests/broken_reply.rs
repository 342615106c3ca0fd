//! Broken replies over HTTP. A reply that breaks the JSON-RPC envelope
//! (both `result` and `error`) fails its request at once with a typed
//! protocol error naming the request, instead of leaving it to its deadline,
//! in default mode, on an event stream kept open and as a JSON body. A reply
//! without `jsonrpc` (which the lenient reader forgives) is accepted by
//! default and refused in strict mode. A broken message on one request's
//! event stream that names another pending request fails that one at once,
//! and the stream goes on. A scripted HTTP/1.1 server on loopback sends
//! them.

use mcp_testkit::http as scripted;

use std::time::Duration;

use mcp_client::{ClientBuilder, EraPreference};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use scripted::{answer_initialize, answer_non_post, read_request, respond};

/// What the scripted server answers `tools/call` with.
#[derive(Clone, Copy, Debug)]
enum Reply {
    /// Both `result` and `error`, as an SSE event on a stream kept open.
    BothOnStream,
    /// Both `result` and `error`, as a JSON body.
    BothAsJson,
    /// A good result without `jsonrpc`, as a JSON body.
    NoVersionAsJson,
}

async fn serve_connection(stream: TcpStream, reply: Reply) {
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
            Some("initialize") => answer_initialize(&mut conn, &message).await,
            Some("tools/call") => {
                let both = json!({"jsonrpc": "2.0", "id": message["id"],
                    "result": {"content": []},
                    "error": {"code": -32603, "message": "secret-payload"}});
                let no_version = json!({"id": message["id"],
                    "result": {"content": [{"type": "text", "text": "secret-payload"}]}});
                let body = match reply {
                    Reply::BothOnStream => {
                        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                                    transfer-encoding: chunked\r\n\r\n";
                        let event = format!("data: {both}\n\n");
                        let chunk = format!("{:x}\r\n{event}\r\n", event.len());
                        let _ = conn.get_mut().write_all(head.as_bytes()).await;
                        let _ = conn.get_mut().write_all(chunk.as_bytes()).await;
                        // The stream stays open: only the client can end the call.
                        let mut sink = Vec::new();
                        let _ = conn.read_to_end(&mut sink).await;
                        return;
                    }
                    Reply::BothAsJson => both,
                    Reply::NoVersionAsJson => no_version,
                };
                let json = "content-type: application/json\r\n";
                respond(&mut conn, "200 OK", json, &body.to_string()).await;
            }
            _ => respond(&mut conn, "202 Accepted", "", "").await,
        }
    }
}

async fn call_with(reply: Reply, strict: bool) -> Result<(), mcp_client::Error> {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(stream, reply));
        }
    });
    let client = ClientBuilder::new()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(60)))
        .strict(strict)
        .connect()
        .await
        .expect("connect");
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("anything", json!({})),
    )
    .await
    .expect("the call ends long before its 60 s deadline");
    client.close().await;
    outcome.map(drop)
}

fn assert_broken(err: &mcp_client::Error, case: &str) {
    assert!(err.is_protocol_violation(), "{case}: {err}");
    let violation = err.strict_violation().expect("typed violation");
    assert_eq!(violation.method, "tools/call", "{case}: {violation:?}");
    // The peer's payload is not kept.
    assert!(
        !format!("{err} {err:?}").contains("secret-payload"),
        "{case}: {err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_reply_fails_its_request_at_once() {
    for reply in [Reply::BothOnStream, Reply::BothAsJson] {
        for strict in [false, true] {
            let case = format!("{reply:?}, strict {strict}");
            let err = call_with(reply, strict)
                .await
                .expect_err("a broken reply is not a result");
            assert_broken(&err, &case);
            // Refused in either mode: named by what broke, not as strict mode.
            assert!(!err.to_string().contains("strict mode"), "{case}: {err}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_without_jsonrpc_passes_leniently_and_fails_strictly() {
    call_with(Reply::NoVersionAsJson, false)
        .await
        .expect("the lenient reader forgives a missing jsonrpc");
    let err = call_with(Reply::NoVersionAsJson, true)
        .await
        .expect_err("strict mode refuses it");
    assert_broken(&err, "no jsonrpc, strict");
}

/// Serves `tools/call` by name: `hold` gets an event stream that stays open
/// and silent (its id is recorded), `breaker` gets an event stream that
/// first carries a broken message naming the held call, then its own good
/// reply.
async fn serve_two(
    stream: TcpStream,
    held: std::sync::Arc<tokio::sync::watch::Sender<Option<Value>>>,
) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _headers, body)) = read_request(&mut conn).await {
        if method != "POST" {
            answer_non_post(&mut conn, &method).await;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let name = message["params"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => answer_initialize(&mut conn, &message).await,
            Some("tools/call") => {
                let mut events = String::new();
                if name == "hold" {
                    held.send_replace(Some(message["id"].clone()));
                } else {
                    let victim = held.borrow().clone().unwrap_or(Value::Null);
                    let broken = json!({"jsonrpc": "2.0", "id": victim,
                        "result": {"content": []},
                        "error": {"code": -32603, "message": "secret-payload"}});
                    let good = json!({"jsonrpc": "2.0", "id": message["id"],
                        "result": {"content": [{"type": "text", "text": "fine"}]}});
                    events = format!("data: {broken}\n\ndata: {good}\n\n");
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                            transfer-encoding: chunked\r\n\r\n";
                let _ = conn.get_mut().write_all(head.as_bytes()).await;
                if !events.is_empty() {
                    let chunk = format!("{:x}\r\n{events}\r\n0\r\n\r\n", events.len());
                    let _ = conn.get_mut().write_all(chunk.as_bytes()).await;
                    continue;
                }
                let mut sink = Vec::new();
                let _ = conn.read_to_end(&mut sink).await;
                return;
            }
            _ => respond(&mut conn, "202 Accepted", "", "").await,
        }
    }
}

/// A broken message on one request's event stream that names another
/// pending request fails that request at once (it does not wait for its
/// deadline), and the stream it came on goes on to deliver its own reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_message_for_another_request_fails_that_one_and_the_stream_goes_on() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let held = std::sync::Arc::new(tokio::sync::watch::Sender::new(None));
    let server_held = held.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_two(stream, server_held.clone()));
        }
    });
    let client = ClientBuilder::new()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(60)))
        .connect()
        .await
        .expect("connect");
    let victim = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("hold", json!({})).await }
    });
    // The server holds the victim call before the breaker goes out.
    let mut held_rx = held.subscribe();
    let holding = held_rx.wait_for(Option::is_some);
    tokio::time::timeout(Duration::from_secs(10), holding)
        .await
        .expect("the server holds the call")
        .expect("server alive");
    let own = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("breaker", json!({})),
    )
    .await
    .expect("the breaker's own reply arrives")
    .expect("and it is a result");
    assert_eq!(own.content.len(), 1);
    let err = tokio::time::timeout(Duration::from_secs(10), victim)
        .await
        .expect("the held call ends long before its 60 s deadline")
        .expect("joins")
        .expect_err("a broken reply is not a result");
    assert_broken(&err, "broken message on another request's stream");
    client.close().await;
}

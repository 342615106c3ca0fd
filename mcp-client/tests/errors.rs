//! Cancellation, deadlines, and one failing case per `Error` predicate.

use mcp_testkit::demo as common;

use std::time::Duration;

use common::{ALL, Server, Via};
use demo_server::DemoOptions;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::{ErrorCode, Message, ProtocolVersion};
use mcp_client::{
    CallOptions, Client, EraCache, EraPreference, HandlerError, RawOutcome, ServerCommand,
    Transport, TransportFuture,
};
use mcp_testkit::{Delivery, Peer, ScriptedHttpServer, capabilities, scripted};
use serde_json::{Value, json};
use tokio::sync::mpsc;

async fn form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    let mut content = std::collections::BTreeMap::new();
    for (field, _) in &params.requested_schema.properties.0 {
        content.insert(field.clone(), ElicitValue::String("Ada".into()));
    }
    Ok(ElicitResult::accept(content))
}

/// A server that answers `echo` and never answers `slow`.
fn echo_or_hold(method: &str, params: &Value) -> Option<Value> {
    match (method, params["name"].as_str()) {
        ("tools/call", Some("echo")) => Some(json!({"content": [
            {"type": "text", "text": params["arguments"]["text"]}
        ]})),
        _ => None,
    }
}

/// The era to insist on.
fn era(modern: bool) -> EraPreference {
    if modern {
        EraPreference::ModernOnly
    } else {
        EraPreference::LegacyOnly
    }
}

/// A client of a scripted peer of either era that plays [`echo_or_hold`].
async fn scripted_client(modern: bool) -> (Client, Peer) {
    let (transport, peer) = scripted();
    if modern {
        peer.serve_modern(capabilities());
    } else {
        peer.serve_legacy(capabilities());
    }
    peer.on("tools/call", |req| {
        let result = echo_or_hold("tools/call", req.params());
        result
            .map(|r| Delivery::result(req, r))
            .into_iter()
            .collect()
    });
    let client = Client::builder().era(era(modern)).transport(transport);
    (client.connect().await.expect("connect"), peer)
}

/// The connection still works after a cancellation.
async fn still_alive(client: &Client) {
    let echo = client
        .call_tool("echo", json!({"text": "still alive"}))
        .await;
    assert_eq!(common::text(&echo.expect("echo").content), "still alive");
}

/// What the server sees of a cancelled call over HTTP: a
/// `notifications/cancelled` (2025-11-25), or the call's response stream
/// closed (2026-07-28).
fn http_cancel_signal(modern: bool) -> &'static str {
    if modern {
        "closed tools/call"
    } else {
        "notifications/cancelled"
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_a_call_cancels_it_on_the_server() {
    for modern in [false, true] {
        let (client, mut peer) = scripted_client(modern).await;
        let call = tokio::select! {
            _ = client.call_tool("slow", json!({})) => panic!("never answered"),
            call = peer.next_request("tools/call") => call,
        };
        // The call's future is dropped here.
        let cancel = peer.next_request("notifications/cancelled").await;
        assert_eq!(cancel.params()["requestId"], call.json["id"], "{modern}");
        assert_eq!(cancel.at, call.at, "{modern}: cancelled at once");
        still_alive(&client).await;
        client.close().await;
    }
}

#[tokio::test]
async fn over_http_dropping_a_call_cancels_it_on_the_server() {
    for modern in [false, true] {
        let mut server = ScriptedHttpServer::start(modern, echo_or_hold).await;
        let client = Client::builder().era(era(modern)).http(&server.url());
        let client = client.connect().await.expect("connect");
        let slow = client.call_tool("slow", json!({}));
        let within = Duration::from_millis(300);
        assert!(tokio::time::timeout(within, slow).await.is_err());
        let signal = http_cancel_signal(modern);
        server.saw(signal, Duration::from_secs(10)).await;
        still_alive(&client).await;
        client.close().await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_request_times_out_and_is_cancelled() {
    for modern in [false, true] {
        let (client, mut peer) = scripted_client(modern).await;
        let timeout = Duration::from_millis(200);
        let opts = CallOptions::new().with_timeout(timeout);
        let started = tokio::time::Instant::now();
        let err = client
            .call_tool_with("slow", json!({}), opts)
            .await
            .expect_err("times out");
        assert!(err.is_timeout(), "{modern}: {err}");
        assert_eq!(started.elapsed(), timeout, "{modern}: at the deadline");
        let call = peer.next_request("tools/call").await;
        let cancel = peer.next_request("notifications/cancelled").await;
        assert_eq!(cancel.params()["requestId"], call.json["id"], "{modern}");
        assert_eq!(cancel.at - call.at, timeout, "{modern}");
        still_alive(&client).await;
        client.close().await;
    }
}

/// The driver keeps its armed wake-up when the earliest call ends (the
/// next deadline is later); the later deadline still fires at its instant.
#[tokio::test(start_paused = true)]
async fn a_later_deadline_fires_on_time_after_the_earliest_call_ended() {
    for modern in [false, true] {
        let (client, _peer) = scripted_client(modern).await;
        let long = CallOptions::new().with_timeout(Duration::from_millis(500));
        let short = CallOptions::new().with_timeout(Duration::from_millis(100));
        let started = tokio::time::Instant::now();
        // `join!` polls in order: the held call starts first, the answered
        // one (an earlier deadline) second.
        let (held, answered) = tokio::join!(
            client.call_tool_with("slow", json!({}), long),
            client.call_tool_with("echo", json!({"text": "now"}), short),
        );
        assert_eq!(common::text(&answered.expect("echo").content), "now");
        assert_eq!(started.elapsed(), Duration::from_millis(500), "{modern}");
        let err = held.expect_err("times out");
        assert!(err.is_timeout(), "{modern}: {err}");
        client.close().await;
    }
}

#[tokio::test]
async fn over_http_a_request_times_out_and_is_cancelled() {
    for modern in [false, true] {
        let mut server = ScriptedHttpServer::start(modern, echo_or_hold).await;
        let client = Client::builder().era(era(modern)).http(&server.url());
        let client = client.connect().await.expect("connect");
        let opts = CallOptions::new().with_timeout(Duration::from_millis(200));
        let started = std::time::Instant::now();
        let err = client
            .call_tool_with("slow", json!({}), opts)
            .await
            .expect_err("times out");
        assert!(err.is_timeout(), "{modern}: {err}");
        assert!(started.elapsed() < Duration::from_secs(3));
        let signal = http_cancel_signal(modern);
        server.saw(signal, Duration::from_secs(10)).await;
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_errors_carry_the_json_rpc_error() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let err = client
            .get_prompt("no_such_prompt", Default::default())
            .await
            .expect_err("unknown prompt");
        let remote = err.remote_error().expect("a remote error");
        assert_eq!(remote.code, ErrorCode::INVALID_PARAMS, "{via:?}");
        assert!(!err.is_transport() && !err.is_timeout());
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_reports_cancelled() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let task = client
            .call_tool_as_task(
                "long_task",
                json!({"steps": 100, "step_ms": 50}),
                CallOptions::new(),
            )
            .await
            .expect("task");
        let err = task.cancel().await.expect_err("cancelled");
        assert!(err.is_cancelled(), "{via:?}: {err}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_clients_and_dead_servers_are_transport_errors() {
    let server = Server::start(Via::StdioLegacy).await;
    let client = server.builder().connect().await.expect("connect");
    client.close().await;
    let err = client
        .call_tool("echo", json!({"text": "x"}))
        .await
        .expect_err("closed");
    assert!(err.is_closed() && err.is_transport(), "{err}");

    let dead = ServerCommand::new("sh").args(["-c", "echo starting >&2; exit 3"]);
    let err = Client::builder()
        .stdio(dead)
        .connect()
        .await
        .expect_err("server exits");
    assert!(err.is_transport(), "{err:?}");
    assert!(err.to_string().contains("exit"), "{err}");

    let started = std::time::Instant::now();
    let err = Client::builder()
        .http("http://127.0.0.1:9/mcp")
        .connect()
        .await
        .expect_err("nothing listens there");
    assert!(err.is_transport(), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10));

    let missing = ServerCommand::new("/nonexistent/mcp-server");
    let err = Client::builder()
        .stdio(missing)
        .connect()
        .await
        .expect_err("no program");
    assert!(err.is_transport(), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_input_and_round_limits() {
    for via in [Via::StdioModern, Via::HttpModern] {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let err = client
            .call_tool("ask_name", json!({}))
            .await
            .expect_err("no capability");
        let remote = err.remote_error().expect("the server refuses");
        assert_eq!(
            remote.code,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "{via:?}"
        );
        client.close().await;

        let client = server
            .builder()
            .form_elicitation(form)
            .max_rounds(1)
            .connect()
            .await
            .expect("connect");
        let err = client
            .call_tool("interview", json!({}))
            .await
            .expect_err("two rounds");
        assert!(err.is_round_limit(), "{via:?}: {err}");
        client.close().await;

        let client = server
            .builder()
            .form_elicitation(form)
            .manual_input()
            .connect()
            .await
            .expect("connect");
        let params = json!({"name": "ask_name", "arguments": {}});
        match client
            .send_request("tools/call", Some(params), CallOptions::new())
            .await
        {
            Ok(RawOutcome::InputRequired(raw)) => assert!(raw.get().contains("inputRequests")),
            other => panic!("{via:?}: expected input_required, got {other:?}"),
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retired_methods_fail_locally_in_the_modern_era() {
    let server = Server::start(Via::HttpModern).await;
    let client = server.builder().connect().await.expect("connect");
    assert!(
        client
            .ping()
            .await
            .expect_err("retired")
            .is_retired_method()
    );
    assert!(
        client
            .list_tasks(None)
            .await
            .expect_err("retired")
            .is_retired_method()
    );
    assert!(
        client
            .notify_roots_list_changed()
            .await
            .expect_err("retired")
            .is_retired_method()
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_era_outcome_is_cached_per_server() {
    let server = Server::with_options(Via::HttpModern, DemoOptions::default()).await;
    let url = server.url().expect("http");
    let cache = EraCache::new();
    let client = Client::builder()
        .http(&url)
        .era_cache(cache.clone())
        .connect()
        .await
        .expect("connect");
    assert_eq!(
        client.protocol_version(),
        Some(ProtocolVersion::V2026_07_28)
    );
    client.close().await;
    assert_eq!(cache.export().len(), 1);
    let restored = EraCache::new();
    restored.restore(cache.export());
    let again = Client::builder()
        .http(&url)
        .era_cache(restored)
        .connect()
        .await
        .expect("connect");
    let outcome = again.era_outcome().expect("outcome");
    assert_eq!(format!("{:?}", outcome.decided_by), "Cached");
    again.close().await;
}

/// A scripted modern server behind a custom transport: it advertises no
/// capability at all, and answers every tool call with an input request
/// for sampling (which the client never offered).
struct Bare {
    replies: mpsc::UnboundedSender<Message>,
    inbox: mpsc::UnboundedReceiver<Message>,
}

impl Transport for Bare {
    fn send(&self, message: Vec<u8>) -> TransportFuture<'static, std::io::Result<()>> {
        let req: serde_json::Value = serde_json::from_slice(&message).unwrap_or_default();
        let reply = match (req.get("id"), req.get("method").and_then(|m| m.as_str())) {
            (Some(id), Some("server/discover")) => {
                Some(json!({"jsonrpc": "2.0", "id": id, "result": {
                "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bare", "version": "0"}}}}))
            }
            (Some(id), Some("tools/call")) => Some(json!({"jsonrpc": "2.0", "id": id, "result": {
                "resultType": "input_required", "inputRequests": {"s": {
                    "method": "sampling/createMessage",
                    "params": {"messages": [], "maxTokens": 10}}}}})),
            (Some(id), Some(_)) => Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "no"}})),
            _ => None,
        };
        if let Some(reply) = reply
            && let Ok(m) = Message::from_slice(reply.to_string().as_bytes())
        {
            let _ = self.replies.send(m);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn recv(&mut self) -> TransportFuture<'_, Option<std::io::Result<Message>>> {
        Box::pin(async move { self.inbox.recv().await.map(Ok) })
    }
}

#[tokio::test]
async fn capabilities_not_offered_fail_locally_over_a_custom_transport() {
    let (replies, inbox) = mpsc::unbounded_channel();
    let client = Client::builder()
        .transport(Bare { replies, inbox })
        .era(EraPreference::ModernOnly)
        .connect()
        .await
        .expect("connect");
    assert_eq!(client.server_info().map(|i| i.name), Some("bare".into()));
    let err = client
        .list_tools(None)
        .await
        .expect_err("no tools capability");
    assert!(err.is_capability_not_offered(), "{err}");
    assert!(err.is_usage());
    client.close().await;

    let (replies, inbox) = mpsc::unbounded_channel();
    let client = Client::builder()
        .transport(Bare { replies, inbox })
        .era(EraPreference::ModernOnly)
        .strict_capabilities(false)
        .connect()
        .await
        .expect("connect");
    let err = client
        .call_tool("anything", json!({}))
        .await
        .expect_err("unanswerable input");
    assert!(err.is_input_required(), "{err}");
    client.close().await;
}

/// A modern server that answers discovery, then drops the connection when
/// a tool is called.
struct Dying {
    replies: mpsc::UnboundedSender<Option<Message>>,
    inbox: mpsc::UnboundedReceiver<Option<Message>>,
}

impl Transport for Dying {
    fn send(&self, message: Vec<u8>) -> TransportFuture<'static, std::io::Result<()>> {
        let req: serde_json::Value = serde_json::from_slice(&message).unwrap_or_default();
        match (req.get("id"), req.get("method").and_then(|m| m.as_str())) {
            (Some(id), Some("server/discover")) => {
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": {
                    "resultType": "complete", "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}}}});
                let _ = self
                    .replies
                    .send(Message::from_slice(reply.to_string().as_bytes()).ok());
            }
            (Some(_), Some("tools/call")) => {
                let _ = self.replies.send(None);
            }
            _ => {}
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn recv(&mut self) -> TransportFuture<'_, Option<std::io::Result<Message>>> {
        Box::pin(async move { self.inbox.recv().await.flatten().map(Ok) })
    }
}

#[tokio::test]
async fn a_connection_lost_mid_call_fails_the_call_as_transport() {
    let (replies, inbox) = mpsc::unbounded_channel();
    let client = Client::builder()
        .transport(Dying { replies, inbox })
        .connect()
        .await
        .expect("connect");
    let err = tokio::time::timeout(Duration::from_secs(5), client.call_tool("echo", json!({})))
        .await
        .expect("no hang")
        .expect_err("connection lost");
    assert!(err.is_transport() && !err.is_timeout(), "{err:?}");
    assert!(client.is_closed());
    let again = client
        .call_tool("echo", json!({}))
        .await
        .expect_err("closed");
    assert!(again.is_closed(), "{again:?}");
}

/// Issue 14, item 9: a connection whose 2026-07-28 era is already known (a
/// warm `EraCache`) is ready at once, learns the server's facts from a
/// background `server/discover`, and checks capabilities once they are
/// known.
#[tokio::test]
async fn a_known_era_learns_the_server_facts_in_the_background() {
    let (replies, inbox) = mpsc::unbounded_channel();
    let client = Client::builder()
        .transport(Bare { replies, inbox })
        .era(EraPreference::Known(ProtocolVersion::V2026_07_28))
        .connect()
        .await
        .expect("connect");
    let outcome = client.era_outcome().expect("outcome");
    assert_eq!(format!("{:?}", outcome.decided_by), "Cached");
    // One round trip later: the server answers in order, so the background
    // discover has been answered by then.
    client
        .start_request("server/discover", None)
        .await
        .expect("discover");
    assert!(client.server_facts_known());
    assert_eq!(client.server_info().map(|i| i.name), Some("bare".into()));
    let err = client
        .list_tools(None)
        .await
        .expect_err("no tools capability");
    assert!(err.is_capability_not_offered(), "{err}");
    client.close().await;
}

/// A tool's arguments are read from a borrow or a `Serialize` struct and
/// sent as written; `null` is no arguments; anything but an object is a
/// usage error that sends nothing.
#[tokio::test(start_paused = true)]
async fn tool_arguments_are_an_object_read_from_a_borrow() {
    #[derive(serde::Serialize)]
    struct Echo<'a> {
        text: &'a str,
    }
    for modern in [false, true] {
        let (client, peer) = scripted_client(modern).await;
        let args = json!({"text": "borrowed"});
        let r = client.call_tool("echo", &args).await.expect("borrowed");
        assert_eq!(common::text(&r.content), "borrowed");
        let r = client.call_tool("echo", Echo { text: "typed" }).await;
        assert_eq!(common::text(&r.expect("typed").content), "typed");
        for bad in [json!([1]), json!("text"), json!(7)] {
            let e = client.call_tool("echo", &bad).await.unwrap_err();
            assert!(e.is_usage(), "{bad}: {e}");
            assert!(
                e.to_string()
                    .contains("tool arguments must be a JSON object"),
                "{e}"
            );
        }
        let _ = client.call_tool("other", Value::Null).await;
        let sent: Vec<Value> = peer
            .sent("tools/call")
            .iter()
            .map(|f| f.params().clone())
            .collect();
        assert_eq!(sent.len(), 3, "the refused calls sent nothing");
        assert_eq!(sent[0]["arguments"], args);
        assert_eq!(sent[1]["arguments"], json!({"text": "typed"}));
        assert_eq!(sent[2]["arguments"], json!({}));
        assert!(args.is_object(), "the caller keeps its value");
    }
}

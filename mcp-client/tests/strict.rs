//! Strict mode end to end: a scripted server that answers with results
//! that break the schema or ids that do not match, in both eras, and the
//! demo server for the happy path (over every transport and era).

use mcp_testkit::demo as common;

use std::sync::Arc;
use std::time::Duration;

use common::{ALL, Server};
use mcp_client::strict::StrictProblem;
use mcp_client::{CallOptions, Client, ClientBuilder, EraPreference, Error, NotificationHandler};
use mcp_testkit::Recorder;
use mcp_types::logging::LoggingMessageNotificationParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What the scripted server answers to one request: a raw line, or nothing.
type Script = fn(&Value) -> Option<String>;

/// Starts `script` as the server over an in-memory pipe and connects.
async fn connect(era: EraPreference, strict: bool, script: Script) -> Result<Client, Error> {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve(server_end, script));
    let (r, w) = tokio::io::split(client_end);
    builder(era, strict).io(r, w).connect().await
}

/// Runs `script` on the server end of a pipe: one answer per request.
async fn serve(server_end: tokio::io::DuplexStream, script: Script) {
    let (r, mut w) = tokio::io::split(server_end);
    let mut lines = BufReader::new(r).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if request.get("id").is_none() {
            continue;
        }
        if let Some(mut reply) = script(&request) {
            reply.push('\n');
            if w.write_all(reply.as_bytes()).await.is_err() {
                break;
            }
        }
    }
}

fn builder(era: EraPreference, strict: bool) -> ClientBuilder {
    Client::builder()
        .era(era)
        .strict(strict)
        .request_timeout(Some(Duration::from_secs(5)))
}

fn reply(request: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string()
}

/// A 2025-11-25 server whose `tools/call` result lacks `content` and
/// carries a secret elsewhere; `ping` answers correctly.
fn legacy_bad_call(request: &Value) -> Option<String> {
    Some(match request["method"].as_str()? {
        "initialize" => reply(
            request,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "scripted", "version": "1"}}),
        ),
        "tools/call" => reply(
            request,
            json!({"isError": "s3cret-value", "structuredContent": {"token": "s3cret-token"}}),
        ),
        "ping" => reply(request, json!({})),
        _ => return None,
    })
}

/// A 2026-07-28 server whose `tools/list` result lacks the cache fields
/// (`ttlMs`, `cacheScope`), whose `tools/call` result omits `resultType`
/// (which reads as "complete"), and
/// whose `prompts/list` answers with the id spelled as a string.
fn modern_bad(request: &Value) -> Option<String> {
    Some(match request["method"].as_str()? {
        "server/discover" => reply(
            request,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                   "capabilities": {"tools": {}, "prompts": {}},
                   "ttlMs": 0, "cacheScope": "private",
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}}}),
        ),
        "tools/list" => reply(
            request,
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        ),
        "prompts/list" => json!({"jsonrpc": "2.0", "id": request["id"].to_string(),
                                 "result": {"resultType": "complete", "prompts": [],
                                            "ttlMs": 0, "cacheScope": "private"}})
        .to_string(),
        "tools/call" => reply(
            request,
            json!({"content": [{"type": "text", "text": "ok"}]}),
        ),
        _ => return None,
    })
}

#[tokio::test]
async fn a_result_that_breaks_the_schema_fails_with_method_id_and_paths() {
    let client = connect(EraPreference::LegacyOnly, true, legacy_bad_call)
        .await
        .expect("connect");
    let err = client
        .send_request("tools/call", Some(json!({"name": "x"})), CallOptions::new())
        .await
        .expect_err("strict mode refuses the result");
    let v = err.strict_violation().expect("a strict violation");
    assert_eq!(v.method, "tools/call");
    let StrictProblem::Schema {
        definition,
        failures,
        ..
    } = &v.problem
    else {
        panic!("{v:?}");
    };
    assert_eq!(*definition, "CallToolResult");
    let places: Vec<(&str, &str)> = failures
        .iter()
        .map(|f| (f.instance_location.as_str(), f.keyword.as_str()))
        .collect();
    assert!(places.contains(&("/content", "required")), "{places:?}");
    assert!(places.contains(&("/isError", "type")), "{places:?}");
    let shown = format!("{err} {err:?}");
    assert!(
        shown.contains("tools/call") && shown.contains(&format!("id {}", v.id)),
        "{shown}"
    );
    assert!(!shown.contains("s3cret"), "the payload leaked: {shown}");

    // The connection goes on.
    client.ping().await.expect("ping after a violation");
    client.close().await;
}

#[tokio::test]
async fn without_strict_mode_the_same_result_is_read_leniently() {
    let client = connect(EraPreference::LegacyOnly, false, legacy_bad_call)
        .await
        .expect("connect");
    let outcome = client
        .send_request("tools/call", Some(json!({"name": "x"})), CallOptions::new())
        .await;
    if let Err(e) = &outcome {
        assert!(e.strict_violation().is_none(), "{e}");
    }
    client.close().await;
}

#[tokio::test]
async fn modern_results_are_checked_and_ids_must_match() {
    let client = connect(EraPreference::ModernOnly, true, modern_bad)
        .await
        .expect("connect: the discover result is valid");

    let err = client.list_all_tools().await.expect_err("no cache fields");
    let v = err.strict_violation().expect("a strict violation");
    assert_eq!(v.method, "tools/list");
    let paths: Vec<&str> = v.failed_paths().collect();
    assert_eq!(paths, ["/cacheScope", "/ttlMs"]);

    let err = client
        .send_request("prompts/list", None, CallOptions::new())
        .await
        .expect_err("a string id");
    let v = err.strict_violation().expect("a strict violation");
    assert_eq!(v.problem, StrictProblem::IdMismatch);
    assert_eq!(v.method, "prompts/list");

    // A valid result still goes through; an absent resultType is "complete".
    let result = client
        .call_tool("t", json!({}))
        .await
        .expect("a valid result");
    assert_eq!(result.content.len(), 1);
    client.close().await;
}

#[tokio::test]
async fn a_handshake_result_that_breaks_the_schema_fails_the_connect() {
    fn bad_initialize(request: &Value) -> Option<String> {
        (request["method"] == "initialize").then(|| {
            reply(
                request,
                json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
            )
        })
    }
    let err = connect(EraPreference::LegacyOnly, true, bad_initialize)
        .await
        .expect_err("serverInfo is required");
    let v = err.strict_violation().expect("a strict violation");
    assert_eq!(v.method, "initialize");
    assert!(v.failed_paths().any(|p| p == "/serverInfo"), "{err}");
}

/// Records the data of each log notification the client delivers.
#[derive(Clone, Default)]
struct Logs(Arc<Recorder<Value>>);

impl NotificationHandler for Logs {
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        self.0.push(params.data);
    }
}

/// A 2025-11-25 server that answers `ping` after two log notifications:
/// one whose level is not a logging level, one valid.
fn legacy_logs(request: &Value) -> Option<String> {
    Some(match request["method"].as_str()? {
        "initialize" => reply(
            request,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"logging": {}},
                   "serverInfo": {"name": "scripted", "version": "1"}}),
        ),
        "ping" => [
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "s3cret-level", "data": "bad"}})
            .to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": "good"}})
            .to_string(),
            reply(request, json!({})),
        ]
        .join("\n"),
        _ => return None,
    })
}

#[tokio::test]
async fn a_notification_that_breaks_the_schema_is_dropped() {
    let logs = Logs::default();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve(server_end, legacy_logs));
    let (r, w) = tokio::io::split(client_end);
    let client = builder(EraPreference::LegacyOnly, true)
        .notifications(logs.clone())
        .io(r, w)
        .connect()
        .await
        .expect("connect");
    client.ping().await.expect("ping");
    // The first log delivered is the valid one: the other was dropped.
    let seen = logs
        .0
        .until(Duration::from_secs(5), |s| !s.is_empty())
        .await;
    assert_eq!(seen, [json!("good")]);
    client.close().await;
}

#[tokio::test]
async fn the_demo_server_passes_strict_mode_everywhere() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let tools = client.list_all_tools().await.expect("list tools");
        assert!(!tools.is_empty(), "{via:?}");
        client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        client
            .list_all_prompts()
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        client
            .list_all_resources()
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        client.close().await;
    }
}

/// A 2025-11-25 server whose `tools/call` reply carries both `result` and
/// `error`, and whose `ping` reply has no `jsonrpc` member.
fn legacy_broken_envelopes(request: &Value) -> Option<String> {
    Some(match request["method"].as_str()? {
        "initialize" => reply(
            request,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "scripted", "version": "1"}}),
        ),
        "tools/call" => json!({"jsonrpc": "2.0", "id": request["id"],
                               "result": {"content": []},
                               "error": {"code": -32603, "message": "s3cret-value"}})
        .to_string(),
        "ping" => json!({"id": request["id"], "result": {}}).to_string(),
        _ => return None,
    })
}

#[tokio::test]
async fn a_broken_envelope_over_stdio_fails_its_request_at_once() {
    for strict in [false, true] {
        let client = connect(EraPreference::LegacyOnly, strict, legacy_broken_envelopes)
            .await
            .expect("connect");
        // The 5 s request timeout would be a timeout error, not this one.
        let err = client
            .call_tool("x", json!({}))
            .await
            .expect_err("both result and error is no reply");
        assert!(!err.is_timeout(), "strict {strict}: {err}");
        let v = err.strict_violation().expect("a typed envelope violation");
        assert_eq!(v.method, "tools/call", "strict {strict}");
        assert!(!format!("{err} {err:?}").contains("s3cret"), "{err:?}");
        // A missing `jsonrpc` is forgiven by default and refused strictly.
        let ping = client.ping().await;
        match strict {
            false => ping.expect("lenient: a missing jsonrpc is forgiven"),
            true => {
                let err = ping.expect_err("strict: a missing jsonrpc is refused");
                assert_eq!(
                    err.strict_violation().map(|v| v.method.as_str()),
                    Some("ping")
                );
            }
        }
        client.close().await;
    }
}

/// A server request whose params are not an object: the core refuses it
/// with -32602, in strict mode or not (the facade has no check of its own),
/// and the connection goes on.
#[tokio::test(start_paused = true)]
async fn a_server_request_with_non_object_params_gets_minus_32602() {
    for strict in [true, false] {
        let (transport, mut peer) = mcp_testkit::scripted();
        peer.serve_legacy(mcp_testkit::capabilities());
        let client = builder(EraPreference::LegacyOnly, strict)
            .roots(Vec::new())
            .transport(transport)
            .connect()
            .await
            .expect("connect");
        peer.push(json!({"jsonrpc": "2.0", "id": "s1", "method": "roots/list", "params": [1]}));
        let answer = loop {
            let frame = peer.next_frame().await;
            if frame.is_response() {
                break frame;
            }
        };
        let answer: Value = serde_json::from_str(&answer.text()).expect("json");
        assert_eq!(answer["id"], "s1", "strict {strict}");
        assert_eq!(answer["error"]["code"], -32602, "strict {strict}: {answer}");
        client.ping().await.expect("the connection goes on");
        client.close().await;
    }
}

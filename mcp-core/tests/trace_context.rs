//! A trace context given with a request (`RequestOptions::with_trace_context`)
//! travels on everything sent on the call's behalf: the request, its task
//! polls and task cancellation, and its `notifications/cancelled`; the
//! caller's other `_meta` members stay on the request alone.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{ClientFeatures, EraPreference, RequestOptions, TraceContext, TransportKind};
use serde_json::{Value, json};

const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

fn traced() -> RequestOptions {
    let cx = TraceContext::new(PARENT)
        .and_then(|cx| cx.with_tracestate("vendor=1"))
        .expect("a valid context");
    RequestOptions::default()
        .with_trace_context(cx)
        .with_meta("custom", json!(1))
}

fn trace_of(message: &Value) -> (Value, Value) {
    let meta = &message["params"]["_meta"];
    (meta["traceparent"].clone(), meta["tracestate"].clone())
}

fn expected() -> (Value, Value) {
    (json!(PARENT), json!("vendor=1"))
}

#[test]
fn task_polls_carry_the_calls_trace_context() {
    let mut h = modern(config().with_features(ClientFeatures::default().with_tasks()));
    h.conn
        .call_tool(h.now, "render", json!({}), traced())
        .unwrap();
    let r = h.drain().remove(0);
    assert_eq!(trace_of(&r), expected());
    assert_eq!(r["params"]["_meta"]["custom"], 1);
    h.reply(
        &r,
        json!({"resultType": "task", "taskId": "t-1", "status": "working",
               "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
               "ttlMs": 60000, "pollIntervalMs": 100}),
    );
    h.advance(Duration::from_millis(100));
    let get = h.drain().remove(0);
    assert_eq!(get["method"], "tasks/get");
    assert_eq!(trace_of(&get), expected());
    assert!(get["params"]["_meta"].get("custom").is_none());
}

#[test]
fn cancellation_carries_the_calls_trace_context() {
    let mut h = legacy(config());
    let id = h
        .conn
        .call_tool(h.now, "slow", json!({}), traced())
        .unwrap();
    let r = h.drain().remove(0);
    assert_eq!(trace_of(&r), expected());
    h.conn.cancel(h.now, &id).unwrap();
    let cancelled = h.drain().remove(0);
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], r["id"]);
    assert_eq!(trace_of(&cancelled), expected());

    // An untraced call's cancellation has no `_meta`.
    let id = h
        .conn
        .call_tool(h.now, "slow", json!({}), RequestOptions::default())
        .unwrap();
    h.drain();
    h.conn.cancel(h.now, &id).unwrap();
    let cancelled = h.drain().remove(0);
    assert!(cancelled["params"].get("_meta").is_none());
}

#[test]
fn a_legacy_task_cancel_carries_the_calls_trace_context() {
    let mut h = legacy(config());
    let id = h
        .conn
        .call_tool(h.now, "render", json!({}), traced().with_task(None))
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"task": {"taskId": "t-1", "status": "working",
               "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
               "ttl": 60000, "pollInterval": 1000}}),
    );
    h.drain();
    h.conn.cancel(h.now, &id).unwrap();
    let cancel = h.drain().remove(0);
    assert_eq!(cancel["method"], "tasks/cancel");
    assert_eq!(trace_of(&cancel), expected());
}

/// The handshake's context is the connecting caller's: the `initialize`
/// that replaces an expired session later carries none.
#[test]
fn the_handshake_trace_context_ends_with_the_handshake() {
    let config = config()
        .with_era(EraPreference::LegacyOnly)
        .with_transport(TransportKind::Http);
    let mut h = Harness::new(config);
    h.conn.set_handshake_trace(traced().trace);
    h.conn.connect(h.now).unwrap();
    let init = h.drain().remove(0);
    assert_eq!(init["method"], "initialize");
    assert_eq!(trace_of(&init), expected());
    h.reply(&init, initialize_result("2025-11-25"));
    h.drain();
    let call = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.drain();
    h.conn.handle_session_expired(h.now, Some(&call), false);
    let again = h.drain().remove(0);
    assert_eq!(again["method"], "initialize");
    assert!(again["params"].get("_meta").is_none(), "{again}");
}

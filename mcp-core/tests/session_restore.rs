//! A recovered 2025-11-25 session gets the old session's resource
//! subscriptions and log level back, sent by the core itself.

mod common;

use common::*;
use mcp_core::{Event, RequestError, RequestOptions, RestoreFailure, TransportKind, UsageError};
use serde_json::{Value, json};

fn http_legacy() -> Harness {
    legacy(config().with_transport(TransportKind::Http))
}

/// Sends a call and answers it with `result` (or an error when `None`).
fn call(h: &mut Harness, method: &str, params: Value, result: Option<Value>) {
    h.conn
        .send_request(h.now, method, Some(params), RequestOptions::default())
        .expect("sent");
    let req = h.drain().pop().expect("a request");
    match result {
        Some(r) => h.reply(&req, r),
        None => h.reply_error(&req, -32602, "no such resource", None),
    }
    h.drain();
}

/// A session subscribed to `demo://a`.
fn subscribed_to_a() -> Harness {
    let mut h = http_legacy();
    let params = json!({"uri": "demo://a"});
    call(&mut h, "resources/subscribe", params, Some(json!({})));
    h
}

/// Expires the session and answers the fresh `initialize` with `init`;
/// returns what went out after it.
fn recover(h: &mut Harness, init: Value) -> Vec<Value> {
    h.conn.handle_session_expired(h.now, None, false);
    let req = h.drain().pop().expect("initialize");
    assert_eq!(req["method"], "initialize");
    h.reply(&req, init);
    h.drain()
}

fn methods(sent: &[Value]) -> Vec<String> {
    sent.iter()
        .map(|m| format!("{} {}", m["method"].as_str().unwrap_or("?"), m["params"]))
        .collect()
}

#[test]
fn the_new_session_gets_the_level_and_live_subscriptions_back_before_parked_calls() {
    let mut h = http_legacy();
    let ok = Some(json!({}));
    let history = [
        (
            "resources/subscribe",
            json!({"uri": "demo://a"}),
            ok.clone(),
        ),
        (
            "resources/subscribe",
            json!({"uri": "demo://b"}),
            ok.clone(),
        ),
        (
            "resources/unsubscribe",
            json!({"uri": "demo://b"}),
            ok.clone(),
        ),
        ("resources/subscribe", json!({"uri": "demo://gone"}), None),
        ("logging/setLevel", json!({"level": "info"}), ok.clone()),
        ("logging/setLevel", json!({"level": "debug"}), ok),
    ];
    for (method, params, result) in history {
        call(&mut h, method, params, result);
    }
    h.take_events();
    // A call started while the session is being replaced waits for it.
    h.conn.handle_session_expired(h.now, None, false);
    let init = h.drain().pop().unwrap();
    let parked = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.reply(&init, initialize_result("2025-11-25"));
    let sent = h.drain();
    assert_eq!(
        methods(&sent),
        vec![
            "notifications/initialized null",
            r#"logging/setLevel {"level":"debug"}"#,
            r#"resources/subscribe {"uri":"demo://a"}"#,
            "tools/list null",
        ]
    );
    h.take_events();
    h.reply(&sent[1], json!({}));
    h.reply(&sent[2], json!({}));
    let events = h.take_events();
    assert!(events.is_empty(), "restores raise no event: {events:?}");
    h.reply(&sent[3], json!({"tools": []}));
    assert!(
        h.take_events()
            .iter()
            .any(|e| matches!(e, Event::Response(c) if c.id == parked))
    );
    // And again in the session after.
    let sent = recover(&mut h, initialize_result("2025-11-25"));
    assert_eq!(methods(&sent).len(), 3, "{:?}", methods(&sent));
}

#[test]
fn a_restore_the_server_fails_is_reported() {
    let mut h = subscribed_to_a();
    let sent = recover(&mut h, initialize_result("2025-11-25"));
    h.take_events();
    h.reply_error(&sent[1], -32602, "unknown resource", None);
    let events = h.take_events();
    assert!(
        matches!(
            &events[..],
            [Event::SessionRestoreFailed { method, error: RestoreFailure::Failed(RequestError::Remote(e)) }]
                if method == "resources/subscribe" && e.message == "unknown resource"
        ),
        "{events:?}"
    );
}

#[test]
fn a_restore_the_new_session_cannot_take_is_reported_not_sent() {
    let mut h = subscribed_to_a();
    let mut init = initialize_result("2025-11-25");
    init["capabilities"] = json!({"tools": {}});
    let sent = recover(&mut h, init);
    assert_eq!(methods(&sent), vec!["notifications/initialized null"]);
    let events = h.take_events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::SessionRestoreFailed {
                error: RestoreFailure::Refused(UsageError::CapabilityNotAdvertised { .. }),
                ..
            }
        )),
        "{events:?}"
    );
}

#[test]
fn nothing_is_restored_when_nothing_was_set() {
    let mut h = http_legacy();
    let sent = recover(&mut h, initialize_result("2025-11-25"));
    assert_eq!(methods(&sent), vec!["notifications/initialized null"]);
}

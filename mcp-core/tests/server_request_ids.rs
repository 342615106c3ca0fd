//! Server-issued request ids (2025-11-25): a duplicate of a live id is
//! refused without disturbing the live request, and the live set is capped.
#![allow(clippy::unwrap_used)]

mod common;

use common::{config, legacy};
use mcp_core::{ClientFeatures, Event, UsageError};
use mcp_types::incoming::ServerRequest;
use serde_json::json;

fn roots_request(id: serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"})
}

#[test]
fn a_duplicate_of_a_live_id_is_refused_and_the_live_request_survives() {
    let features = ClientFeatures::default().with_roots(false);
    let mut h = legacy(config().with_features(features));
    h.feed(roots_request(json!(5)));
    let events = h.take_events();
    assert!(matches!(
        &events[..],
        [Event::ServerRequest {
            request: ServerRequest::ListRoots(_),
            ..
        }]
    ));
    assert!(h.drain().is_empty());

    // The same id again, while the first is live: refused, no new event.
    h.feed(roots_request(json!(5)));
    let sent = h.drain();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["id"], 5);
    assert_eq!(sent[0]["error"]["code"], -32600);
    assert!(h.take_events().is_empty());

    // The live request is still answerable, exactly once.
    let id = mcp_types::RequestId::Number(5);
    h.conn
        .respond(h.now, &id, Ok(json!({"roots": []})))
        .unwrap();
    assert_eq!(h.drain()[0]["result"], json!({"roots": []}));
    assert!(matches!(
        h.conn.respond(h.now, &id, Ok(json!({}))),
        Err(UsageError::UnknownServerRequest(_))
    ));

    // Once answered, the id may be used again.
    h.feed(roots_request(json!(5)));
    assert_eq!(h.take_events().len(), 1);
}

#[test]
fn string_and_number_ids_are_distinct() {
    let mut h = legacy(config().with_features(ClientFeatures::default().with_roots(false)));
    h.feed(roots_request(json!(1)));
    h.feed(roots_request(json!("1")));
    assert_eq!(h.take_events().len(), 2);
    assert!(h.drain().is_empty());
}

#[test]
fn the_live_set_is_capped() {
    let mut h = legacy(config().with_features(ClientFeatures::default().with_roots(false)));
    for i in 0..256 {
        h.feed(roots_request(json!(i)));
    }
    assert_eq!(h.take_events().len(), 256);
    assert!(h.drain().is_empty());
    h.feed(roots_request(json!(256)));
    let sent = h.drain();
    assert_eq!(sent[0]["id"], 256);
    assert_eq!(sent[0]["error"]["code"], -32603);
    assert!(h.take_events().is_empty());

    // Answering one frees a slot.
    let id = mcp_types::RequestId::Number(0);
    h.conn
        .respond(h.now, &id, Ok(json!({"roots": []})))
        .unwrap();
    h.drain();
    h.feed(roots_request(json!(256)));
    assert_eq!(h.take_events().len(), 1);
}

#[test]
fn ids_are_remembered_per_session() {
    let features = ClientFeatures::default().with_roots(false);
    let mut h = legacy(
        config()
            .with_features(features)
            .with_transport(mcp_core::TransportKind::Http),
    );
    h.feed(roots_request(json!(1)));
    assert_eq!(h.take_events().len(), 1);
    h.conn.handle_session_expired(h.now, None, false);
    let init = h.drain().pop().unwrap();
    assert_eq!(init["method"], "initialize");
    h.reply(&init, common::initialize_result("2025-11-25"));
    h.drain();
    h.take_events();
    // The old session's request cannot be answered in the new one...
    let id = mcp_types::RequestId::Number(1);
    assert!(matches!(
        h.conn.respond(h.now, &id, Ok(json!({"roots": []}))),
        Err(UsageError::UnknownServerRequest(_))
    ));
    // ...and the new session may reuse its id.
    h.feed(roots_request(json!(1)));
    assert!(matches!(
        &h.take_events()[..],
        [Event::ServerRequest { .. }]
    ));
}

#[test]
fn task_request_capabilities_are_legacy_only() {
    let features = ClientFeatures::default()
        .with_sampling(false)
        .with_task_requests(true, false);
    let legacy_caps = features.capabilities(false, &serde_json::Map::new());
    assert_eq!(
        legacy_caps["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}}})
    );
    let modern_caps = features.capabilities(true, &serde_json::Map::new());
    assert!(modern_caps.get("tasks").is_none());
    let none = ClientFeatures::default().with_sampling(false);
    assert!(
        none.capabilities(false, &serde_json::Map::new())
            .get("tasks")
            .is_none()
    );
}

#[test]
fn params_that_are_not_an_object_are_refused_and_ping_is_answered_by_the_core() {
    let mut h = legacy(config().with_features(ClientFeatures::default().with_roots(false)));
    for (id, params) in [(1, json!([1])), (2, json!("x")), (3, json!(7))] {
        h.feed(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list", "params": params}));
        let sent = h.drain();
        assert_eq!(sent.len(), 1, "{params}");
        assert_eq!(sent[0]["id"], id);
        assert_eq!(sent[0]["error"]["code"], -32602, "{params}");
        assert!(
            sent[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("must be a JSON object")
        );
    }
    assert!(
        h.take_events().is_empty(),
        "refused requests reach no handler"
    );
    h.feed(json!({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": [1]}));
    assert_eq!(h.drain()[0]["error"]["code"], -32602, "ping too");
    h.feed(json!({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": null}));
    h.feed(json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}));
    let sent = h.drain();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["result"], json!({}), "null params count as absent");
    assert_eq!(sent[1]["result"], json!({}));
    assert!(h.take_events().is_empty(), "the driver never sees ping");
    h.feed(json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list", "params": {}}));
    assert_eq!(h.take_events().len(), 1, "an object is admitted");
}

#[test]
fn server_requests_arrive_classified_once_and_unknown_ones_keep_their_params() {
    let features = ClientFeatures::default()
        .with_roots(false)
        .with_elicitation(true, true);
    let mut h = legacy(config().with_features(features));
    h.feed(json!({"jsonrpc": "2.0", "id": 1, "method": "x/custom", "params": {"a": [1]}}));
    h.feed(
        json!({"jsonrpc": "2.0", "id": 2, "method": "elicitation/create",
        "params": {"mode": "url", "message": "m", "url": "https://e.x", "elicitationId": "e1"}}),
    );
    let events = h.take_events();
    let [
        Event::ServerRequest {
            request: unknown, ..
        },
        Event::ServerRequest {
            request: ServerRequest::Elicit(elicit),
            ..
        },
    ] = &events[..]
    else {
        panic!("{events:?}")
    };
    assert_eq!((unknown.kind(), unknown.method()), (None, "x/custom"));
    assert_eq!(unknown.raw().map(|p| p.get()), Some(r#"{"a":[1]}"#));
    assert_eq!(elicit.mode, mcp_types::elicitation::ElicitationMode::Url);
}

//! Strict mode in the core: envelope violations and refused responses fail
//! the request they answer with a typed violation; a string spelling of a
//! numeric id is refused only in strict mode.
#![allow(clippy::unwrap_used)]

mod common;

use common::{config, legacy, modern};
use mcp_core::strict::{SchemaFailure, StrictProblem};
use mcp_core::{Event, PeerMisbehaved, RequestError, RequestOptions};
use mcp_types::RequestId;
use mcp_types::jsonrpc::{EnvelopeViolation, Message};
use serde_json::json;

fn failed(events: Vec<Event>) -> (String, RequestError) {
    match events.into_iter().next() {
        Some(Event::RequestFailed { method, error, .. }) => (method.into_owned(), error),
        other => panic!("expected a failed request, got {other:?}"),
    }
}

#[test]
fn a_string_id_fails_the_request_only_in_strict_mode() {
    for strict in [false, true] {
        let mut h = modern(config().with_strict(strict));
        h.conn
            .send_request(h.now, "tools/list", None, RequestOptions::default())
            .unwrap();
        let sent = h.drain();
        let id = sent[0]["id"].as_i64().unwrap();
        h.feed(json!({"jsonrpc": "2.0", "id": id.to_string(),
                      "result": {"resultType": "complete", "tools": []}}));
        let events = h.take_events();
        if strict {
            let (method, error) = failed(events);
            assert_eq!(method, "tools/list");
            let RequestError::Peer(PeerMisbehaved::Strict(v)) = error else {
                panic!("{error:?}");
            };
            assert_eq!(v.problem, StrictProblem::IdMismatch);
            assert_eq!(v.id, RequestId::String(id.to_string()));
        } else {
            assert!(matches!(&events[..], [Event::Response(_)]), "{events:?}");
        }
        assert_eq!(h.conn.in_flight(), 0);
    }
}

#[test]
fn an_envelope_violation_with_an_id_in_flight_fails_that_request() {
    let mut h = legacy(config().with_strict(true));
    h.conn
        .send_request(h.now, "ping", None, RequestOptions::default())
        .unwrap();
    let sent = h.drain();
    let id = sent[0]["id"].as_i64().unwrap();
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"secret":1}},"error":{{"code":1,"message":"secret"}}}}"#
    );
    let check = Message::from_slice_checked(frame.as_bytes()).unwrap();
    assert!(check.message.is_none());
    h.conn
        .handle_envelope_violation(h.now, check.id.as_ref(), check.violations);
    let (method, error) = failed(h.take_events());
    assert_eq!(method, "ping");
    let shown = error.to_string();
    assert!(
        shown.contains("`ping`") && shown.contains(&format!("id {id}")),
        "{shown}"
    );
    assert!(shown.contains("both `result` and `error`"), "{shown}");
    assert!(!shown.contains("secret"), "{shown}");
    assert_eq!(h.conn.in_flight(), 0);
}

#[test]
fn an_envelope_violation_without_a_request_is_reported_and_the_connection_goes_on() {
    let mut h = modern(config().with_strict(true));
    h.conn.handle_envelope_violation(
        h.now,
        Some(&RequestId::Number(999)),
        vec![EnvelopeViolation::MissingVersion],
    );
    let events = h.take_events();
    assert!(
        matches!(
            &events[..],
            [Event::ProtocolViolation(PeerMisbehaved::InvalidEnvelope { id: Some(RequestId::Number(999)), violations })]
                if violations == &[EnvelopeViolation::MissingVersion]
        ),
        "{events:?}"
    );
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 1);
}

#[test]
fn response_target_names_the_wire_method_and_reject_response_fails_the_call() {
    let mut h = modern(config().with_strict(true));
    h.conn
        .call_tool(h.now, "echo", json!({}), RequestOptions::default())
        .unwrap();
    let sent = h.drain();
    let id = RequestId::Number(sent[0]["id"].as_i64().unwrap());
    let target = h.conn.response_target(&id).unwrap();
    assert_eq!(
        (target.method, target.call_method),
        ("tools/call", "tools/call")
    );
    assert_eq!(
        target.revision,
        Some(&mcp_types::ProtocolVersion::V2026_07_28)
    );
    assert!(h.conn.response_target(&RequestId::Number(12345)).is_none());

    let problem = StrictProblem::Schema {
        revision: mcp_types::ProtocolVersion::V2026_07_28,
        definition: "CallToolResult",
        failures: vec![SchemaFailure::new(
            "/content",
            "type",
            "/$defs/CallToolResult/properties/content/type",
        )],
        truncated: false,
    };
    h.conn.reject_response(h.now, &id, problem.clone());
    let (method, error) = failed(h.take_events());
    assert_eq!(method, "tools/call");
    let RequestError::Peer(PeerMisbehaved::Strict(v)) = error else {
        panic!("{error:?}");
    };
    assert_eq!(v.problem, problem);
    assert_eq!(v.failed_paths().collect::<Vec<_>>(), ["/content"]);
    // The request is answered: a second response for its id is a duplicate.
    h.feed(json!({"jsonrpc": "2.0", "id": id.as_number(), "result": {"content": []}}));
    let events = h.take_events();
    assert!(
        matches!(
            &events[..],
            [Event::ProtocolViolation(PeerMisbehaved::DuplicateResponse(
                _
            ))]
        ),
        "{events:?}"
    );
}

#[test]
fn strict_mode_reports_non_object_params_answers_a_request_and_drops_a_notification() {
    let mut h = legacy(config().with_strict(true));
    h.feed(json!({"jsonrpc": "2.0", "id": "s1", "method": "roots/list", "params": [1]}));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": "x"}));
    let sent = h.drain();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["id"], "s1");
    assert_eq!(sent[0]["error"]["code"], -32602);
    let events = h.take_events();
    let violations = events
        .iter()
        .filter(|e| {
            matches!(e, Event::ProtocolViolation(PeerMisbehaved::InvalidEnvelope { id: None, violations })
                if violations == &[EnvelopeViolation::ParamsNotObject])
        })
        .count();
    assert_eq!(violations, 2, "{events:?}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Notification(_) | Event::ServerRequest { .. })),
        "{events:?}"
    );

    // Without strict mode the request still gets -32602, and nothing is
    // reported.
    let mut lenient = legacy(config());
    lenient.feed(json!({"jsonrpc": "2.0", "id": "s2", "method": "roots/list", "params": [1]}));
    let sent = lenient.drain();
    assert_eq!(sent[0]["error"]["code"], -32602);
    assert!(lenient.take_events().is_empty());
}

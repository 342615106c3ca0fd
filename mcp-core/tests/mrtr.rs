//! Multi round-trip requests (2026-07-28) with a scripted server.

mod common;

use common::*;
use mcp_core::{Event, InputMode, RequestError, RequestOptions};
use mcp_types::incoming::ServerRequest;
use proptest::prelude::*;
use serde_json::json;

#[test]
fn input_required_round_trip_with_request_state_byte_for_byte() {
    let mut h = modern(config());
    let id = h
        .conn
        .call_tool(
            h.now,
            "book",
            json!({"city": "Paris"}),
            RequestOptions::default(),
        )
        .unwrap();
    let r1 = h.drain().remove(0);
    // requestState with escapes that a re-encode would change.
    h.feed_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","requestState":"caf\u00e9\/\u0041","inputRequests":{{"a":{{"method":"elicitation/create","params":{{"message":"Seat?"}}}},"b":{{"method":"roots/list"}}}}}}}}"#,
        r1["id"]
    ));
    let events = h.take_events();
    assert_eq!(events.len(), 2);
    let Event::InputRequested { key, request, .. } = &events[0] else {
        panic!()
    };
    assert_eq!(
        (key.as_str(), request.method()),
        ("a", "elicitation/create")
    );
    assert!(matches!(request, ServerRequest::Elicit(_)));
    h.conn
        .answer_input(
            h.now,
            &id,
            "a",
            json!({"action": "accept", "content": {"seat": "12A"}}),
        )
        .unwrap();
    assert!(h.drain().is_empty(), "waits for every answer");
    assert!(h.conn.answer_input(h.now, &id, "zzz", json!({})).is_err());
    h.conn
        .answer_input(h.now, &id, "b", json!({"roots": []}))
        .unwrap();
    let text = h.transcript.last().unwrap().clone();
    assert!(
        text.contains(r#""requestState":"caf\u00e9\/\u0041""#),
        "{text}"
    );
    let r2 = h.drain().remove(0);
    assert_ne!(r2["id"], r1["id"]);
    assert_eq!(r2["params"]["name"], "book");
    assert_eq!(r2["params"]["arguments"]["city"], "Paris");
    assert_eq!(
        r2["params"]["inputResponses"]["a"]["content"]["seat"],
        "12A"
    );
    assert!(r2["params"]["_meta"].is_object());
    h.reply(&r2, json!({"resultType": "complete", "content": []}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::Response(c) if c.id == id));
    insta::assert_snapshot!("mrtr_round_trip", h.transcript());
}

#[test]
fn state_only_retry_carries_no_stale_responses() {
    let mut h = modern(config());
    let id = h
        .conn
        .send_request(
            h.now,
            "prompts/get",
            Some(json!({"name": "p"})),
            RequestOptions::default(),
        )
        .unwrap();
    let r1 = h.drain().remove(0);
    h.reply(&r1, json!({"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list"}}, "requestState": "s1"}));
    h.conn
        .answer_input(h.now, &id, "k", json!({"roots": []}))
        .unwrap();
    let r2 = h.drain().remove(0);
    h.reply(
        &r2,
        json!({"resultType": "input_required", "requestState": "s2"}),
    );
    let r3 = h.drain().remove(0);
    assert_eq!(r3["params"]["requestState"], "s2");
    assert!(
        r3["params"].get("inputResponses").is_none(),
        "no answers from an earlier round"
    );
    h.reply(
        &r3,
        json!({"resultType": "input_required", "inputRequests": {"j": {"method": "roots/list"}}}),
    );
    h.conn
        .answer_input(h.now, &id, "j", json!({"roots": []}))
        .unwrap();
    let r4 = h.drain().remove(0);
    assert!(
        r4["params"].get("requestState").is_none(),
        "absent state is never sent"
    );
    assert_eq!(r4["params"]["inputResponses"], json!({"j": {"roots": []}}));
}

#[test]
fn round_cap_gives_a_typed_error_with_the_last_result() {
    let mut h = modern(config().with_max_rounds(2));
    h.conn
        .call_tool(h.now, "loop", json!({}), RequestOptions::default())
        .unwrap();
    for n in 0..3 {
        let r = h.drain().remove(0);
        h.reply(
            &r,
            json!({"resultType": "input_required", "requestState": format!("s{n}")}),
        );
    }
    assert!(h.drain().is_empty());
    let events = h.take_events();
    let Event::RequestFailed {
        error: RequestError::RoundLimit { rounds, last },
        ..
    } = &events[0]
    else {
        panic!("{events:?}")
    };
    assert_eq!(*rounds, 2);
    assert!(last.get().contains("s2"));
}

#[test]
fn manual_mode_hands_out_the_result() {
    let mut h = modern(config().with_input_mode(InputMode::Manual));
    let id = h
        .conn
        .call_tool(h.now, "x", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, json!({"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}, "requestState": "z"}));
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::InputRequired { id: i, result, .. } if *i == id && result.get().contains("\"z\""))
    );
    assert_eq!(h.conn.calls_in_progress(), 0);
}

#[test]
fn input_required_on_a_method_that_cannot_carry_it_is_a_violation() {
    let mut h = modern(config());
    h.conn
        .send_request(
            h.now,
            "tools/list",
            None,
            RequestOptions::default().without_cache(),
        )
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"resultType": "input_required", "requestState": "z"}),
    );
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::RequestFailed {
            error: RequestError::Peer(_),
            ..
        }
    ));
    h.conn
        .call_tool(h.now, "x", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, json!({"resultType": "surprise"}));
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::RequestFailed {
            error: RequestError::Peer(mcp_core::PeerMisbehaved::UnknownResultType { .. }),
            ..
        }
    ));
    h.conn
        .call_tool(h.now, "x", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, json!({"content": []}));
    assert!(
        matches!(&h.take_events()[0], Event::Response(_)),
        "missing resultType means complete"
    );
}

proptest! {
    /// For any script of rounds, the loop ends with Response within the cap
    /// or RoundLimit past it; every retry has a fresh id and echoes the state.
    #[test]
    fn multi_round_loop(rounds in 0u32..12, keys in 0usize..3, cap in 1u32..9) {
        let mut h = modern(config().with_max_rounds(cap));
        let id = h.conn.call_tool(h.now, "t", json!({}), RequestOptions::default()).unwrap();
        let mut ids = std::collections::HashSet::new();
        let mut req = h.drain().remove(0);
        for n in 0..rounds {
            prop_assert!(ids.insert(req["id"].as_i64().unwrap()));
            let inputs: serde_json::Map<String, serde_json::Value> = (0..keys)
                .map(|k| (format!("k{k}"), json!({"method": "roots/list"}))).collect();
            h.reply(&req, json!({"resultType": "input_required", "inputRequests": inputs, "requestState": format!("st{n}")}));
            if n >= cap { break; }
            for k in 0..keys {
                h.conn.answer_input(h.now, &id, &format!("k{k}"), json!({"roots": []})).unwrap();
            }
            req = h.drain().remove(0);
            prop_assert_eq!(&req["params"]["requestState"], &json!(format!("st{n}")));
            prop_assert_eq!(req["params"].get("inputResponses").map_or(0, |m| m.as_object().unwrap().len()), keys);
        }
        if rounds <= cap {
            h.reply(&req, json!({"resultType": "complete", "content": []}));
            let events = h.take_events();
            let done = events.iter().any(|e| matches!(e, Event::Response(c) if c.id == id));
            prop_assert!(done, "no response: {:?}", events);
        } else {
            let events = h.take_events();
            let capped = events.iter().any(|e| matches!(e, Event::RequestFailed { error: RequestError::RoundLimit { .. }, .. }));
            prop_assert!(capped, "no round limit: {:?}", events);
        }
        prop_assert_eq!(h.conn.calls_in_progress(), 0);
    }
}

#[test]
fn manual_retry_echoes_the_state_verbatim() {
    let mut h = modern(config().with_input_mode(InputMode::Manual));
    h.conn
        .call_tool(h.now, "x", json!({"a": 1}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.feed_raw(&format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","requestState":"\u0041b","inputRequests":{{"k":{{"method":"roots/list"}}}}}}}}"#, r["id"]));
    let events = h.take_events();
    let Event::InputRequired { result, .. } = &events[0] else {
        panic!()
    };
    let mut answers = serde_json::Map::new();
    answers.insert("k".into(), json!({"roots": []}));
    let retry = mcp_core::RetryExtras::from_input_required(result, answers).unwrap();
    let id = h
        .conn
        .call_tool(
            h.now,
            "x",
            json!({"a": 1}),
            RequestOptions::default().with_retry(retry),
        )
        .unwrap();
    assert!(
        h.transcript
            .last()
            .unwrap()
            .contains(r#""requestState":"\u0041b""#)
    );
    let r2 = h.drain().remove(0);
    assert_eq!(r2["params"]["inputResponses"]["k"], json!({"roots": []}));
    h.reply(
        &r2,
        json!({"resultType": "complete", "content": [], "ttlMs": 999}),
    );
    assert!(matches!(&h.take_events()[0], Event::Response(c) if c.id == id));
}

/// Every wire request of a call names the call it belongs to, so a
/// transport can apply per-call settings (extra headers) to each of them.
#[test]
fn every_round_of_a_call_names_its_call() {
    use mcp_core::Transmit;
    let mut h = modern(config());
    let id = h
        .conn
        .send_request(
            h.now,
            "prompts/get",
            Some(json!({"name": "p"})),
            RequestOptions::default(),
        )
        .unwrap();
    let t = h.conn.poll_transmit().unwrap();
    assert_eq!(t.call(), Some(&id), "first send");
    let Transmit::Message { bytes, .. } = t else {
        panic!("a message")
    };
    let r1: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    h.reply(
        &r1,
        json!({"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list"}}, "requestState": "s1"}),
    );
    while h.conn.poll_event().is_some() {}
    h.conn
        .answer_input(h.now, &id, "k", json!({"roots": []}))
        .unwrap();
    let t = h.conn.poll_transmit().unwrap();
    let Transmit::Message { bytes, call, .. } = &t else {
        panic!("a message")
    };
    let r2: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_ne!(r2["id"], r1["id"], "a fresh wire id");
    assert_eq!(call.as_ref(), Some(&id), "the retry names the same call");
    // Notifications belong to no call.
    h.conn.cancel(h.now, &id).unwrap();
    while let Some(t) = h.conn.poll_transmit() {
        if let Transmit::Message { call, bytes, .. } = &t
            && bytes.starts_with(br#"{"jsonrpc":"2.0","method""#)
        {
            assert!(call.is_none());
        }
    }
}

fn timed_out(events: &[Event], id: &mcp_types::RequestId) -> Option<std::time::Duration> {
    events.iter().find_map(|e| match e {
        Event::RequestFailed {
            id: failed,
            error: RequestError::Timeout(d),
            ..
        } if failed == id => Some(*d),
        _ => None,
    })
}

/// Issue 14, item 2: the call's deadline covers the whole call, the time
/// the client's input handler takes included, as in 2025-11-25.
#[test]
fn the_deadline_covers_time_spent_answering_input() {
    let secs = std::time::Duration::from_secs;
    let mut h = modern(config().with_request_timeout(Some(secs(10))));
    let id = h
        .conn
        .call_tool(h.now, "book", json!({}), RequestOptions::default())
        .unwrap();
    let r1 = h.drain().remove(0);
    h.advance(secs(2));
    h.reply(
        &r1,
        json!({"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}}),
    );
    h.take_events();
    // A handler that never answers: the call still ends at its deadline.
    h.advance(secs(7));
    assert_eq!(timed_out(&h.take_events(), &id), None);
    h.advance(secs(1));
    assert_eq!(timed_out(&h.take_events(), &id), Some(secs(10)));
    assert!(
        h.conn
            .answer_input(h.now, &id, "a", json!({"roots": []}))
            .is_err()
    );

    // A round answered in time: the resend keeps the call's deadline.
    let id = h
        .conn
        .call_tool(h.now, "book", json!({}), RequestOptions::default())
        .unwrap();
    let r1 = h.drain().remove(0);
    h.reply(
        &r1,
        json!({"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}}),
    );
    h.advance(secs(6));
    h.conn
        .answer_input(h.now, &id, "a", json!({"roots": []}))
        .unwrap();
    assert_eq!(h.drain().len(), 1, "the round is resent");
    h.advance(secs(3));
    assert_eq!(timed_out(&h.take_events(), &id), None);
    h.advance(secs(1));
    assert_eq!(timed_out(&h.take_events(), &id), Some(secs(10)));
}

/// The per-call opt-out: the deadline stops while the client answers and
/// restarts in full when the answers go out; the maximum total still holds.
#[test]
fn a_call_may_pause_its_deadline_for_input() {
    let secs = std::time::Duration::from_secs;
    let mut h = modern(config().with_request_timeout(Some(secs(10))));
    let opts = RequestOptions::default()
        .with_deadline_paused_for_input()
        .with_max_total(secs(100));
    let id = h.conn.call_tool(h.now, "book", json!({}), opts).unwrap();
    let r1 = h.drain().remove(0);
    h.reply(
        &r1,
        json!({"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}}),
    );
    h.advance(secs(30));
    assert_eq!(timed_out(&h.take_events(), &id), None);
    h.conn
        .answer_input(h.now, &id, "a", json!({"roots": []}))
        .unwrap();
    h.drain();
    h.advance(secs(9));
    assert_eq!(timed_out(&h.take_events(), &id), None);
    h.advance(secs(1));
    assert_eq!(timed_out(&h.take_events(), &id), Some(secs(40)));

    let id = h
        .conn
        .call_tool(
            h.now,
            "book",
            json!({}),
            RequestOptions::default()
                .with_deadline_paused_for_input()
                .with_max_total(secs(50)),
        )
        .unwrap();
    let r1 = h.drain().remove(0);
    h.reply(
        &r1,
        json!({"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}}),
    );
    h.advance(secs(49));
    assert_eq!(timed_out(&h.take_events(), &id), None);
    h.advance(secs(1));
    assert_eq!(timed_out(&h.take_events(), &id), Some(secs(50)));
}

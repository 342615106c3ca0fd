//! Correlation, cancellation, deadlines and progress in both eras.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{Event, PeerMisbehaved, RequestError, RequestOptions, Timer, TransportKind};
use mcp_types::RequestId;
use serde_json::json;

#[test]
fn string_id_equal_to_numeric_id_is_accepted() {
    let mut h = modern(config());
    let id = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    let n = req["id"].as_i64().unwrap();
    h.feed(json!({"jsonrpc": "2.0", "id": n.to_string(), "result": {"tools": []}}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::Response(c) if c.id == id && !c.cached));
    assert_eq!(h.conn.in_flight(), 0);
}

#[test]
fn unknown_and_duplicate_ids_become_events() {
    let mut h = legacy(config());
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    h.feed(json!({"jsonrpc": "2.0", "id": 999, "result": {}}));
    h.feed(json!({"jsonrpc": "2.0", "id": "abc", "result": {}}));
    h.reply(&req, json!({"tools": []}));
    h.reply(&req, json!({"tools": []}));
    h.feed(
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}}),
    );
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::ProtocolViolation(PeerMisbehaved::UnknownResponseId(RequestId::Number(999)))
    ));
    assert!(matches!(
        &events[1],
        Event::ProtocolViolation(PeerMisbehaved::UnknownResponseId(RequestId::String(_)))
    ));
    assert!(matches!(&events[2], Event::Response(_)));
    assert!(matches!(
        &events[3],
        Event::ProtocolViolation(PeerMisbehaved::DuplicateResponse(_))
    ));
    assert!(matches!(
        &events[4],
        Event::ProtocolViolation(PeerMisbehaved::ErrorWithoutId(_))
    ));
}

#[test]
fn cancel_sends_notification_and_absorbs_the_late_reply_legacy() {
    let mut h = legacy(config());
    let id = h
        .conn
        .call_tool(h.now, "slow", json!({}), RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    h.conn.cancel(h.now, &id).unwrap();
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], req["id"]);
    h.reply(&req, json!({"content": []}));
    let events = h.take_events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(matches!(
        &events[0],
        Event::RequestFailed {
            error: RequestError::Cancelled,
            ..
        }
    ));
    assert!(h.conn.cancel(h.now, &id).is_err());
    insta::assert_snapshot!("cancel_legacy", h.transcript());
}

#[test]
fn cancel_in_modern_http_closes_the_stream() {
    let mut h = modern(config().with_transport(TransportKind::Http));
    let id = h
        .conn
        .call_tool(h.now, "slow", json!({}), RequestOptions::default())
        .unwrap();
    h.drain();
    h.conn.cancel(h.now, &id).unwrap();
    let sent = h.drain();
    assert_eq!(sent, vec![json!({"closeStream": id.to_string()})]);
}

/// Issue 14, item 1: a legacy HTTP call that is cancelled or times out is
/// announced with `notifications/cancelled` and its response stream is
/// closed, so a server that keeps the stream open holds no request slot.
#[test]
fn legacy_http_cancel_and_timeout_notify_and_close_the_stream() {
    let cfg = config()
        .with_transport(TransportKind::Http)
        .with_request_timeout(Some(Duration::from_secs(10)));
    let mut h = legacy(cfg);
    let id = h
        .conn
        .call_tool(h.now, "slow", json!({}), RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    h.conn.cancel(h.now, &id).unwrap();
    let sent = h.drain();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], req["id"]);
    assert_eq!(sent[1], json!({"closeStream": req["id"].to_string()}));

    let timed = h
        .conn
        .call_tool(h.now, "slow", json!({}), RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    h.advance(Duration::from_secs(10));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[1], json!({"closeStream": req["id"].to_string()}));
    let events = h.take_events();
    assert!(
        events.iter().any(|e| matches!(e, Event::RequestFailed { id, error: RequestError::Timeout(_), .. } if *id == timed)),
        "{events:?}"
    );
}

#[test]
fn timeout_fails_the_request_and_cancels_on_the_wire() {
    for (modern_era, transport) in [
        (false, TransportKind::Stdio),
        (true, TransportKind::Stdio),
        (true, TransportKind::Http),
    ] {
        let cfg = config()
            .with_transport(transport)
            .with_request_timeout(Some(Duration::from_secs(10)));
        let mut h = if modern_era { modern(cfg) } else { legacy(cfg) };
        let id = h
            .conn
            .call_tool(h.now, "slow", json!({}), RequestOptions::default())
            .unwrap();
        let req = h.drain().remove(0);
        assert_eq!(h.conn.poll_timeout().unwrap().1, Timer::Request(id.clone()));
        h.advance(Duration::from_secs(9));
        assert!(h.take_events().is_empty());
        h.advance(Duration::from_secs(1));
        let sent = h.drain();
        if modern_era && transport == TransportKind::Http {
            assert!(sent[0].get("closeStream").is_some());
        } else {
            assert_eq!(sent[0]["method"], "notifications/cancelled");
        }
        h.reply(&req, json!({"content": []}));
        let events = h.take_events();
        assert_eq!(events.len(), 1);
        assert!(
            matches!(&events[0], Event::RequestFailed { error: RequestError::Timeout(d), .. } if *d == Duration::from_secs(10))
        );
    }
}

#[test]
fn per_request_timeout_overrides_and_can_be_disabled() {
    let mut h = modern(config());
    h.conn
        .call_tool(
            h.now,
            "x",
            json!({}),
            RequestOptions::default().with_timeout(None),
        )
        .unwrap();
    h.drain();
    assert!(h.conn.poll_timeout().map(|t| t.1) != Some(Timer::Request(RequestId::Number(2))));
    let id = h
        .conn
        .call_tool(
            h.now,
            "y",
            json!({}),
            RequestOptions::default().with_timeout(Some(Duration::from_millis(5))),
        )
        .unwrap();
    h.drain();
    assert_eq!(
        h.conn.poll_timeout().unwrap(),
        (h.now + Duration::from_millis(5), Timer::Request(id))
    );
}

#[test]
fn progress_is_routed_and_can_reset_the_deadline_up_to_the_maximum() {
    let cfg = config()
        .with_request_timeout(Some(Duration::from_secs(10)))
        .with_reset_on_progress(true)
        .with_max_total(Some(Duration::from_secs(25)));
    let mut h = legacy(cfg);
    let id = h
        .conn
        .call_tool(
            h.now,
            "slow",
            json!({}),
            RequestOptions::default().with_progress(),
        )
        .unwrap();
    let req = h.drain().remove(0);
    let token = req["params"]["_meta"]["progressToken"].clone();
    assert!(!token.is_null());
    for step in 1..=3 {
        h.advance(Duration::from_secs(8));
        h.feed(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": step, "total": 10, "message": "working"}}));
    }
    // 24 s elapsed; progress kept it alive, the 25 s maximum still applies.
    let events = h.take_events();
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Progress { id: i, .. } if *i == id))
            .count(),
        3
    );
    h.advance(Duration::from_secs(1));
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::RequestFailed { error: RequestError::Timeout(d), .. } if *d == Duration::from_secs(25))
    );
    // Progress for a finished request is dropped.
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 9}}));
    assert!(h.take_events().is_empty());
}

#[test]
fn without_reset_progress_does_not_extend_the_deadline() {
    let mut h = modern(config().with_request_timeout(Some(Duration::from_secs(10))));
    h.conn
        .call_tool(
            h.now,
            "slow",
            json!({}),
            RequestOptions::default().with_progress(),
        )
        .unwrap();
    let req = h.drain().remove(0);
    let token = req["params"]["_meta"]["progressToken"].clone();
    h.advance(Duration::from_secs(9));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}));
    h.advance(Duration::from_secs(1));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::Progress { .. }));
    assert!(matches!(
        &events[1],
        Event::RequestFailed {
            error: RequestError::Timeout(_),
            ..
        }
    ));
}

#[test]
fn typed_request_and_decode() {
    use mcp_types::methods::v2026_07_28::CallTool;
    let mut h = modern(config());
    let params: <CallTool as mcp_types::RequestMethod>::Params =
        serde_json::from_value(json!({"name": "echo", "arguments": {"text": "hi"}})).unwrap();
    let id = h
        .conn
        .request::<CallTool>(h.now, &params, RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    assert_eq!(req["params"]["name"], "echo");
    assert!(req["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].is_string());
    h.reply(
        &req,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "hi"}]}),
    );
    let events = h.take_events();
    let Event::Response(c) = &events[0] else {
        panic!()
    };
    assert_eq!(c.id, id);
    let result = c.decode_as::<CallTool>().unwrap();
    let back = serde_json::to_value(&result).unwrap();
    assert_eq!(back["content"][0]["text"], "hi");
}

#[test]
fn close_fails_calls_and_emits_closed() {
    let mut h = modern(config());
    let id = h
        .conn
        .call_tool(h.now, "x", json!({}), RequestOptions::default())
        .unwrap();
    h.drain();
    h.conn.close(h.now);
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::RequestFailed { id: i, error: RequestError::Closed, .. } if *i == id)
    );
    assert!(matches!(&events[1], Event::Closed));
    assert!(h.conn.poll_timeout().is_none());
}

/// Issue 14, item 3: with send reports, time a request waits in the
/// transport's queue does not count against its deadline; the maximum total
/// still counts from the call's start.
#[test]
fn the_deadline_starts_when_the_transport_sends_the_request() {
    let cfg = config()
        .with_transport(TransportKind::Http)
        .with_request_timeout(Some(Duration::from_secs(10)))
        .with_send_reports(true);
    let mut h = modern(cfg);
    let id = h
        .conn
        .call_tool(h.now, "slow", json!({}), RequestOptions::default())
        .unwrap();
    let req = h.drain().remove(0);
    h.advance(Duration::from_secs(30));
    assert!(h.take_events().is_empty(), "queued, not timed out");
    h.conn.handle_request_sent(h.now, &id);
    h.advance(Duration::from_secs(9));
    assert!(h.take_events().is_empty());
    h.advance(Duration::from_secs(1));
    let events = h.take_events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::RequestFailed {
                error: RequestError::Timeout(_),
                ..
            }
        )),
        "{events:?}"
    );
    let _ = req;

    // The maximum total bounds the queue too.
    let opts = RequestOptions::default().with_max_total(Duration::from_secs(20));
    h.conn.call_tool(h.now, "slow", json!({}), opts).unwrap();
    h.drain();
    h.advance(Duration::from_secs(20));
    assert!(h.take_events().iter().any(|e| matches!(e, Event::RequestFailed { error: RequestError::Timeout(d), .. } if *d == Duration::from_secs(20))));
}

/// Many calls with deadlines out of order, answered, cancelled and timed
/// out in a random mix: `poll_timeout` is always the earliest deadline of
/// a call still waiting, and exactly the calls past their deadline time
/// out, each at its own deadline.
#[test]
fn deadlines_stay_ordered_whatever_ends_the_calls() {
    use std::collections::BTreeMap;
    for seed in 1..=8u64 {
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut h = legacy(config());
        // id -> (deadline, request sent)
        let mut waiting: BTreeMap<i64, (std::time::Instant, serde_json::Value)> = BTreeMap::new();
        for _ in 0..400 {
            match next(10) {
                0..=3 => {
                    let timeout = Duration::from_millis(1 + next(3_000));
                    let opts = RequestOptions::default().with_timeout(Some(timeout));
                    let id = h.conn.call_tool(h.now, "t", json!({}), opts).unwrap();
                    let req = h.drain().remove(0);
                    waiting.insert(id.as_number().unwrap(), (h.now + timeout, req));
                }
                4..=5 if !waiting.is_empty() => {
                    let k = *waiting
                        .keys()
                        .nth(next(waiting.len() as u64) as usize)
                        .unwrap();
                    let (_, req) = waiting.remove(&k).unwrap();
                    h.reply(&req, json!({"content": []}));
                    let events = h.take_events();
                    assert!(
                        matches!(&events[..], [Event::Response(c)] if c.id == RequestId::Number(k))
                    );
                }
                6 if !waiting.is_empty() => {
                    let k = *waiting
                        .keys()
                        .nth(next(waiting.len() as u64) as usize)
                        .unwrap();
                    waiting.remove(&k);
                    h.conn.cancel(h.now, &RequestId::Number(k)).unwrap();
                    h.drain();
                    h.take_events();
                }
                _ => {
                    let to = h.now + Duration::from_millis(next(400));
                    // Step from deadline to deadline, as a driver would.
                    while let Some((at, _)) = h.conn.poll_timeout().filter(|(at, _)| *at <= to) {
                        h.now = at;
                        h.conn.handle_timeout(at);
                        let mut due: Vec<i64> = waiting
                            .iter()
                            .filter(|(_, (d, _))| *d <= at)
                            .map(|(k, _)| *k)
                            .collect();
                        due.sort_by_key(|k| (waiting[k].0, *k));
                        let timed_out: Vec<i64> = h
                            .take_events()
                            .iter()
                            .filter_map(|e| match e {
                                Event::RequestFailed {
                                    id,
                                    error: RequestError::Timeout(_),
                                    ..
                                } => id.as_number(),
                                _ => None,
                            })
                            .collect();
                        assert_eq!(timed_out, due, "seed {seed}");
                        for k in due {
                            waiting.remove(&k);
                        }
                    }
                    h.now = to;
                }
            }
            h.drain();
            let earliest = waiting.iter().map(|(k, (d, _))| (*d, *k)).min();
            let polled = h.conn.poll_timeout().map(|(at, t)| match t {
                Timer::Request(id) => (at, id.as_number().unwrap()),
                other => panic!("only request deadlines here: {other:?}"),
            });
            assert_eq!(polled, earliest, "seed {seed}");
        }
    }
}

//! Lifecycle and era selection in both eras, on a virtual clock.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::EraDecision;
use mcp_core::{
    ClientFeatures, ConnectError, EraPreference, Event, RequestError, RequestOptions, State,
    TransportKind, UsageError,
};
use mcp_types::incoming::ServerRequestKind;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{Era, ErrorCode, ProtocolVersion};
use serde_json::json;

#[test]
fn modern_connect_probes_with_discover() {
    let mut h = Harness::new(config());
    h.conn.connect(h.now).unwrap();
    let sent = h.drain();
    assert_eq!(sent.len(), 1);
    h.reply(&sent[0], discover_result());
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::EraDecided(o) if o.era == Era::Modern && o.decided_by == EraDecision::Discover)
    );
    assert!(matches!(
        &events[1],
        Event::Connected {
            era: Era::Modern,
            ..
        }
    ));
    assert_eq!(
        h.conn.protocol_version(),
        Some(&ProtocolVersion::V2026_07_28)
    );
    assert_eq!(h.conn.server_info().unwrap().name, "demo");
    assert!(h.conn.server_capabilities().unwrap().tools.is_some());
    assert_eq!(h.conn.instructions(), Some("be nice"));
    assert!(h.conn.discover_result().is_some());
    insta::assert_snapshot!("modern_connect", h.transcript());
}

#[test]
fn stdio_probe_falls_back_to_initialize_on_non_modern_error() {
    let mut h = Harness::new(config());
    h.conn.connect(h.now).unwrap();
    let sent = h.drain();
    h.reply_error(&sent[0], -32601, "Method not found", None);
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "initialize");
    assert_eq!(sent[0]["params"]["protocolVersion"], "2025-11-25");
    h.reply(&sent[0], initialize_result("2025-11-25"));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert!(sent[0].get("id").is_none());
    let o = h.conn.era_outcome().unwrap();
    assert_eq!(
        (o.era, o.decided_by),
        (Era::Legacy, EraDecision::FallbackOnError)
    );
    assert_eq!(h.conn.state(), State::Ready);
    insta::assert_snapshot!("legacy_fallback_on_error", h.transcript());
}

#[test]
fn stdio_probe_falls_back_on_silence_and_absorbs_the_late_answer() {
    let mut h = Harness::new(config().with_probe_timeout(Duration::from_secs(2)));
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    let (_, why) = h.conn.poll_timeout().unwrap();
    assert_eq!(why, mcp_core::Timer::Probe);
    h.advance(Duration::from_millis(1999));
    assert!(h.drain().is_empty());
    h.advance(Duration::from_millis(1));
    let init = h.drain().remove(0);
    assert_eq!(init["method"], "initialize");
    // The late discover answer is absorbed, not reported.
    h.reply_error(&probe, -32601, "nope", None);
    h.reply(&init, initialize_result("2025-06-18"));
    let events = h.take_events();
    assert!(
        events
            .iter()
            .all(|e| !matches!(e, Event::ProtocolViolation(_)))
    );
    assert_eq!(
        h.conn.era_outcome().unwrap().decided_by,
        EraDecision::FallbackOnSilence
    );
    assert_eq!(
        h.conn.protocol_version(),
        Some(&ProtocolVersion::V2025_06_18)
    );
}

#[test]
fn recognized_modern_error_on_probe_never_falls_back() {
    let mut h = Harness::new(config());
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    h.reply_error(
        &probe,
        -32022,
        "Unsupported protocol version",
        Some(json!({"supported": ["2026-07-28"], "requested": "2026-07-28"})),
    );
    let retry = h.drain().remove(0);
    assert_eq!(retry["method"], "server/discover");
    assert_ne!(retry["id"], probe["id"], "a retry uses a fresh id");
    h.reply(&retry, discover_result());
    h.drain();
    assert_eq!(h.conn.era(), Some(Era::Modern));
}

#[test]
fn unsupported_version_naming_only_legacy_switches_to_initialize() {
    let mut h = Harness::new(config());
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    h.reply_error(
        &probe,
        -32022,
        "x",
        Some(json!({"supported": ["2025-03-26"], "requested": "2026-07-28"})),
    );
    let init = h.drain().remove(0);
    assert_eq!(init["params"]["protocolVersion"], "2025-03-26");
}

#[test]
fn modern_only_client_reports_a_legacy_server() {
    let mut h = Harness::new(config().with_era(EraPreference::ModernOnly));
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    h.reply_error(&probe, -32601, "Method not found", None);
    assert!(
        h.drain().is_empty(),
        "no initialize from a modern-only client"
    );
    let events = h.take_events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ConnectFailed(ConnectError::LegacyServer)))
    );
    assert_eq!(h.conn.state(), State::Closed);
}

#[test]
fn http_probe_decides_from_a_400_body() {
    // Empty 400 body: legacy.
    let mut h = Harness::new(config().with_transport(TransportKind::Http));
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    let id = mcp_types::RequestId::Number(probe["id"].as_i64().unwrap());
    assert!(h.conn.poll_timeout().is_some());
    h.conn.handle_http_error(h.now, Some(&id), 400, None);
    assert_eq!(h.drain()[0]["method"], "initialize");

    // A modern error body: stay modern.
    let mut h = Harness::new(config().with_transport(TransportKind::Http));
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    let id = mcp_types::RequestId::Number(probe["id"].as_i64().unwrap());
    let err = ErrorObject::new(ErrorCode::HEADER_MISMATCH, "bad header");
    h.conn.handle_http_error(h.now, Some(&id), 400, Some(err));
    h.drain();
    assert_eq!(h.conn.era(), Some(Era::Modern));
    assert_eq!(
        h.conn.era_outcome().unwrap().decided_by,
        EraDecision::ModernError
    );
}

#[test]
fn http_auth_errors_never_downgrade() {
    for status in [401, 403] {
        let mut h = Harness::new(config().with_transport(TransportKind::Http));
        h.conn.connect(h.now).unwrap();
        let probe = h.drain().remove(0);
        let id = mcp_types::RequestId::Number(probe["id"].as_i64().unwrap());
        h.conn.handle_http_error(h.now, Some(&id), status, None);
        assert!(h.drain().is_empty(), "no initialize after {status}");
        let events = h.take_events();
        assert!(events.iter().any(|e| matches!(
            e,
            Event::ConnectFailed(ConnectError::Request(RequestError::Unauthorized(s))) if *s == status
        )));
    }
}

#[test]
fn http_probe_timeout_does_not_downgrade() {
    let mut h = Harness::new(
        config()
            .with_transport(TransportKind::Http)
            .with_request_timeout(Some(Duration::from_secs(3))),
    );
    h.conn.connect(h.now).unwrap();
    h.drain();
    h.advance(Duration::from_secs(3));
    assert!(h.drain().is_empty());
    assert!(h.take_events().iter().any(|e| matches!(
        e,
        Event::ConnectFailed(ConnectError::Request(RequestError::Timeout(_)))
    )));
}

/// Issue 14, item 9: a cached outcome makes the connection ready at once,
/// and the server's facts are fetched in the background instead of staying
/// `None` (read as "none") for the whole connection.
#[test]
fn cached_outcome_skips_the_probe_and_learns_the_facts_in_the_background() {
    let mut h = Harness::new(config().with_era(EraPreference::Known(ProtocolVersion::V2026_07_28)));
    h.conn.connect(h.now).unwrap();
    assert_eq!(h.conn.state(), State::Ready, "ready before any answer");
    assert_eq!(
        h.conn.era_outcome().unwrap().decided_by,
        EraDecision::Cached
    );
    let sent = h.drain();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["method"], "server/discover");
    assert!(!h.conn.server_facts_known());
    assert!(h.conn.server_capabilities().is_none());
    // Calls go out meanwhile.
    let call = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain()[0]["method"], "tools/list");
    h.reply(&sent[0], discover_result());
    let events = h.take_events();
    assert!(
        events.iter().any(|e| matches!(e, Event::ServerFactsKnown)),
        "{events:?}"
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::Response(_))),
        "{events:?}"
    );
    assert!(h.conn.server_facts_known());
    assert_eq!(h.conn.server_info().unwrap().name, "demo");
    assert_eq!(h.conn.instructions(), Some("be nice"));
    assert_eq!(
        h.conn.era_outcome().unwrap().decided_by,
        EraDecision::Cached
    );
    assert_eq!(h.conn.calls_in_progress(), 1, "only {call} is left");
}

#[test]
fn legacy_rejects_a_version_it_does_not_support() {
    let mut h = Harness::new(config().with_era(EraPreference::LegacyOnly));
    h.conn.connect(h.now).unwrap();
    let init = h.drain().remove(0);
    h.reply(&init, initialize_result("2099-01-01"));
    let sent = h.drain();
    assert!(
        sent.is_empty(),
        "no initialized notification for an unsupported version"
    );
    let events = h.take_events();
    assert!(events.iter().any(|e| matches!(e, Event::ConnectFailed(ConnectError::UnsupportedVersion(v)) if v.as_str() == "2099-01-01")));
    assert_eq!(h.conn.state(), State::Closed);
}

#[test]
fn legacy_version_error_retries_with_a_mutual_version() {
    let mut h = Harness::new(config().with_era(EraPreference::LegacyOnly));
    h.conn.connect(h.now).unwrap();
    let init = h.drain().remove(0);
    h.reply_error(
        &init,
        -32602,
        "Unsupported protocol version",
        Some(json!({"supported": ["2025-06-18"], "requested": "2025-11-25"})),
    );
    let retry = h.drain().remove(0);
    assert_eq!(retry["params"]["protocolVersion"], "2025-06-18");
    assert_ne!(retry["id"], init["id"]);
}

#[test]
fn legacy_capability_gating_and_strictness_switch() {
    let mut h = legacy(config());
    let err = h
        .conn
        .send_request(h.now, "prompts/list", None, RequestOptions::default())
        .unwrap_err();
    assert!(matches!(
        err,
        UsageError::CapabilityNotAdvertised {
            capability: "prompts",
            ..
        }
    ));
    assert!(h.drain().is_empty());
    h.conn
        .send_request(
            h.now,
            "resources/subscribe",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default(),
        )
        .unwrap();
    assert_eq!(h.drain()[0]["method"], "resources/subscribe");

    let mut h = legacy(config().with_strict_capabilities(false));
    h.conn
        .send_request(h.now, "prompts/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain()[0]["method"], "prompts/list");
}

#[test]
fn legacy_answers_ping_and_surfaces_server_requests() {
    let features = ClientFeatures::default()
        .with_roots(true)
        .with_elicitation(true, false);
    let mut h = legacy(config().with_features(features));
    h.feed(json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}));
    let sent = h.drain();
    assert_eq!(
        sent[0],
        json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    );

    h.feed(json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"}));
    let events = h.take_events();
    let Event::ServerRequest { id, request } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(request.kind(), Some(ServerRequestKind::ListRoots));
    h.conn.respond(h.now, id, Ok(json!({"roots": []}))).unwrap();
    assert_eq!(
        h.drain()[0],
        json!({"jsonrpc": "2.0", "id": 9, "result": {"roots": []}})
    );
    assert!(matches!(
        h.conn.respond(h.now, id, Ok(json!({}))),
        Err(UsageError::UnknownServerRequest(_))
    ));

    // Undeclared features are refused automatically.
    h.feed(json!({"jsonrpc": "2.0", "id": 10, "method": "sampling/createMessage", "params": {}}));
    assert_eq!(h.drain()[0]["error"]["code"], -32601);
    h.feed(json!({"jsonrpc": "2.0", "id": 11, "method": "elicitation/create", "params": {"mode": "url", "url": "https://x"}}));
    assert_eq!(h.drain()[0]["error"]["code"], -32602);

    // The server cancels one of its requests.
    h.feed(json!({"jsonrpc": "2.0", "id": 12, "method": "elicitation/create", "params": {"message": "hi", "requestedSchema": {}}}));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12, "reason": "bored"}}));
    let events = h.take_events();
    assert!(
        matches!(&events[1], Event::ServerRequestCancelled { reason: Some(r), .. } if r == "bored")
    );
    insta::assert_snapshot!("legacy_server_requests", h.transcript());
}

#[test]
fn honest_capabilities_in_both_eras() {
    let h = legacy(config());
    let init = &h.sent[0];
    assert_eq!(init["params"]["capabilities"], json!({}));
    let features = ClientFeatures::default()
        .with_sampling(false)
        .with_roots(true)
        .with_elicitation(true, true)
        .with_tasks();
    let h = legacy(config().with_features(features.clone()));
    assert_eq!(
        h.sent[0]["params"]["capabilities"],
        json!({"sampling": {}, "roots": {"listChanged": true}, "elicitation": {"form": {}, "url": {}}})
    );
    let h = modern(config().with_features(features));
    assert_eq!(
        h.sent[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"sampling": {}, "roots": {}, "elicitation": {"form": {}, "url": {}},
               "extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
}

#[test]
fn the_log_level_is_set_for_later_requests_and_a_requests_own_wins() {
    let mut h = modern(config());
    let level_of = |h: &mut Harness, opts: RequestOptions| {
        h.conn
            .send_request(h.now, "tools/list", None, opts)
            .unwrap();
        let sent = h.drain().remove(0);
        sent["params"]["_meta"]["io.modelcontextprotocol/logLevel"].clone()
    };
    assert_eq!(
        level_of(&mut h, RequestOptions::default()),
        serde_json::Value::Null
    );
    h.conn.set_log_level(Some("info".into()));
    assert_eq!(level_of(&mut h, RequestOptions::default()), "info");
    let own =
        RequestOptions::default().with_meta("io.modelcontextprotocol/logLevel", json!("debug"));
    assert_eq!(level_of(&mut h, own), "debug");
    h.conn.set_log_level(None);
    assert_eq!(
        level_of(&mut h, RequestOptions::default()),
        serde_json::Value::Null
    );
}

#[test]
fn modern_meta_on_every_request_and_retired_methods_fail_locally() {
    let mut h = modern(config().with_log_level("info"));
    let opts = RequestOptions::default().with_meta(
        "traceparent",
        json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
    );
    h.conn
        .send_request(h.now, "tools/list", None, opts)
        .unwrap();
    let sent = h.drain().remove(0);
    let meta = &sent["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "test-client"
    );
    assert_eq!(meta["io.modelcontextprotocol/logLevel"], "info");
    assert!(meta["traceparent"].is_string());
    for m in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
    ] {
        let err = h
            .conn
            .send_request(h.now, m, None, RequestOptions::default())
            .unwrap_err();
        assert!(matches!(err, UsageError::RetiredMethod { .. }), "{m}");
        assert!(err.to_string().contains("use"), "{err}");
    }
    assert!(h.drain().is_empty(), "retired methods send no bytes");
    insta::assert_snapshot!("modern_meta", h.transcript());
}

#[test]
fn modern_call_switches_to_legacy_on_unsupported_version() {
    let mut h = modern(config());
    let id = h
        .conn
        .send_request(
            h.now,
            "tools/list",
            None,
            RequestOptions::default().without_cache(),
        )
        .unwrap();
    let req = h.drain().remove(0);
    h.reply_error(
        &req,
        -32022,
        "x",
        Some(json!({"supported": ["2025-11-25"], "requested": "2026-07-28"})),
    );
    let init = h.drain().remove(0);
    assert_eq!(init["method"], "initialize");
    h.reply(&init, initialize_result("2025-11-25"));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert_eq!(sent[1]["method"], "tools/list");
    assert!(
        sent[1].get("params").is_none(),
        "legacy requests carry no _meta"
    );
    h.reply(&sent[1], json!({"tools": []}));
    let events = h.take_events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Response(c) if c.id == id))
    );
}

#[test]
fn transport_closed_fails_everything() {
    let mut h = modern(config());
    let id = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.drain();
    h.conn
        .handle_transport_closed(h.now, mcp_core::CloseReason::Eof);
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::RequestFailed { id: i, error: RequestError::TransportClosed, .. } if *i == id)
    );
    assert!(matches!(events.last(), Some(Event::Closed)));
    assert!(matches!(
        h.conn
            .send_request(h.now, "tools/list", None, RequestOptions::default()),
        Err(UsageError::Closed)
    ));
}

#[test]
fn requests_before_ready_are_refused() {
    let mut h = Harness::new(config());
    assert!(matches!(
        h.conn
            .send_request(h.now, "tools/list", None, RequestOptions::default()),
        Err(UsageError::NotReady)
    ));
    h.conn.connect(h.now).unwrap();
    assert!(matches!(
        h.conn.connect(h.now),
        Err(UsageError::AlreadyConnecting)
    ));
}

#[test]
fn client_notifications_respect_the_era() {
    let mut h = legacy(config().with_features(ClientFeatures::default().with_roots(true)));
    h.conn
        .notify(h.now, "notifications/roots/list_changed", None)
        .unwrap();
    assert_eq!(
        h.drain()[0],
        json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    );
    let mut h = modern(config());
    assert!(matches!(
        h.conn
            .notify(h.now, "notifications/roots/list_changed", None),
        Err(UsageError::RetiredMethod { .. })
    ));
    assert!(h.drain().is_empty());
}

#[test]
fn http_server_errors_on_the_probe_do_not_downgrade() {
    let mut h = Harness::new(config().with_transport(TransportKind::Http));
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    let id = mcp_types::RequestId::Number(probe["id"].as_i64().unwrap());
    let err = ErrorObject::new(ErrorCode::INTERNAL_ERROR, "gateway");
    h.conn.handle_http_error(h.now, Some(&id), 502, Some(err));
    assert!(h.drain().is_empty(), "no initialize after a 502");
    assert!(h.take_events().iter().any(|e| matches!(
        e,
        Event::ConnectFailed(ConnectError::Request(RequestError::HttpStatus(502)))
    )));
}

#[test]
fn legacy_http_session_expiry_starts_one_fresh_session() {
    let mut h = legacy(config().with_transport(TransportKind::Http));
    let first = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let second = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 2);
    h.conn.handle_session_expired(h.now, Some(&first), false);
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::RequestFailed {
            error: RequestError::SessionExpired,
            ..
        }
    ));
    assert!(matches!(&events[1], Event::SessionExpired));
    assert!(h.conn.is_recovering_session());
    let sent = h.sent.clone();
    let init = sent.last().unwrap().clone();
    assert_eq!(init["method"], "initialize", "one fresh initialize");
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    // The other request of the old session expires too: no second initialize.
    h.conn.handle_session_expired(h.now, Some(&second), false);
    assert!(h.drain().is_empty(), "exactly one initialize");
    assert!(h.take_events().iter().any(|e| matches!(
        e,
        Event::RequestFailed { id, error: RequestError::SessionExpired, .. } if *id == second
    )));
    // A call started during the recovery waits for the new session.
    let third = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert!(h.drain().is_empty(), "parked until the session is ready");
    h.reply(&init, initialize_result("2025-11-25"));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert_eq!(sent[1]["method"], "tools/list");
    assert_eq!(sent[1]["id"], json!(third.as_number().unwrap()));
    assert!(h.take_events().iter().any(|e| matches!(
        e,
        Event::Connected {
            era: Era::Legacy,
            ..
        }
    )));
    assert_eq!(h.conn.state(), State::Ready);
    assert!(!h.conn.is_recovering_session());
}

/// Issue 14, item 4: a request the transport never sent (its session was
/// already gone) is not failed as "not replayed": it goes out in the new
/// session, after `notifications/initialized`, with a fresh id.
#[test]
fn a_request_never_sent_goes_out_in_the_new_session() {
    let mut h = legacy(
        config()
            .with_transport(TransportKind::Http)
            .with_request_timeout(Some(Duration::from_secs(10))),
    );
    let reached = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let unsent = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let first = h.drain();
    assert_eq!(first.len(), 2);
    // The unsent one is reported first: it starts the recovery itself.
    h.advance(Duration::from_secs(6));
    h.conn.handle_request_unsent(h.now, &unsent);
    h.conn.handle_session_expired(h.now, Some(&reached), false);
    let events = h.take_events();
    let failed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::RequestFailed { id, error, .. } => Some((id.clone(), error.to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(
        failed.len(),
        1,
        "only the request that reached the old session: {failed:?}"
    );
    assert_eq!(failed[0].0, reached);
    let init = h.sent.last().unwrap().clone();
    assert_eq!(init["method"], "initialize", "one fresh initialize");
    h.reply(&init, initialize_result("2025-11-25"));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert_eq!(sent[1]["method"], "tools/list");
    assert_ne!(sent[1]["id"], first[1]["id"], "a fresh id");
    assert!(
        h.take_events()
            .iter()
            .any(|e| matches!(e, Event::Connected { .. }))
    );
    // Its deadline starts when it is sent: not at 10 s from the first try.
    h.advance(Duration::from_secs(9));
    assert!(
        !h.take_events()
            .iter()
            .any(|e| matches!(e, Event::RequestFailed { .. })),
        "not timed out"
    );
    h.reply(&sent[1], json!({"tools": []}));
    assert!(
        h.take_events()
            .iter()
            .any(|e| matches!(e, Event::Response(c) if c.id == unsent))
    );
}

#[test]
fn a_late_expiry_from_a_replaced_session_starts_no_initialize() {
    let mut h = legacy(config().with_transport(TransportKind::Http));
    let call = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 1);
    h.conn.handle_session_expired(h.now, Some(&call), true);
    assert!(h.drain().is_empty(), "no initialize for a replaced session");
    assert!(h.take_events().iter().any(|e| matches!(
        e,
        Event::RequestFailed { id, error: RequestError::SessionExpired, .. } if *id == call
    )));
    assert_eq!(h.conn.state(), State::Ready);
    assert!(!h.conn.is_recovering_session());
}

/// Issue 14, item 8: a server that answers a stale 2025-11-25 session with
/// `400` naming the session (server-everything does) gets the same
/// treatment as a `404`; another `400` stays a plain failure.
#[test]
fn a_400_that_names_the_session_is_an_ended_session() {
    let mut h = legacy(config().with_transport(TransportKind::Http));
    let plain = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.drain();
    let bad = ErrorObject::new(ErrorCode::INVALID_PARAMS, "Bad Request: missing name");
    h.conn
        .handle_http_error(h.now, Some(&plain), 400, Some(bad));
    assert!(!h.conn.is_recovering_session());
    assert!(h.take_events().iter().any(|e| matches!(
        e,
        Event::RequestFailed { id, error: RequestError::Remote(_), .. } if *id == plain
    )));

    let call = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.drain();
    let stale = ErrorObject::new(
        ErrorCode(-32000),
        "Bad Request: No valid session ID provided",
    );
    h.conn
        .handle_http_error(h.now, Some(&call), 400, Some(stale));
    let events = h.take_events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::RequestFailed { id, error: RequestError::SessionExpired, .. } if *id == call
        )),
        "{events:?}"
    );
    assert!(events.iter().any(|e| matches!(e, Event::SessionExpired)));
    assert!(h.conn.is_recovering_session());
    assert_eq!(h.sent.last().unwrap()["method"], "initialize");
}

#[test]
fn a_plain_404_is_not_an_expired_session() {
    let mut h = legacy(config().with_transport(TransportKind::Http));
    let call = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.drain();
    // The transport saw no session id on the request: only a status.
    h.conn.handle_http_error(h.now, Some(&call), 404, None);
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::RequestFailed {
            error: RequestError::HttpStatus(404),
            ..
        }
    ));
    assert!(!events.iter().any(|e| matches!(e, Event::SessionExpired)));
    assert!(h.drain().is_empty(), "no initialize");
    assert_eq!(h.conn.state(), State::Ready);
}

/// With no acceptable legacy version, silence after the stdio probe timeout
/// decides nothing: the client keeps waiting for the probe's answer until
/// the request timeout, then fails with a timeout.
#[test]
fn stdio_silence_never_decides_legacy_for_a_modern_only_client() {
    for era in [
        EraPreference::ModernOnly,
        EraPreference::Versions(vec![ProtocolVersion::V2026_07_28]),
    ] {
        let mut h = Harness::new(
            config()
                .with_era(era.clone())
                .with_probe_timeout(Duration::from_secs(2))
                .with_request_timeout(Some(Duration::from_secs(10))),
        );
        h.conn.connect(h.now).unwrap();
        h.drain();
        h.advance(Duration::from_secs(2));
        assert!(h.drain().is_empty(), "{era:?}: no initialize");
        assert!(h.take_events().is_empty(), "{era:?}: nothing decided");
        assert_eq!(h.conn.state(), State::Probing);
        h.advance(Duration::from_secs(8) - Duration::from_millis(1));
        assert!(h.take_events().is_empty(), "{era:?}: still waiting");
        h.advance(Duration::from_millis(1));
        assert!(h.drain().is_empty(), "{era:?}: no initialize");
        let events = h.take_events();
        assert!(
            events.iter().any(|e| matches!(
                e,
                Event::ConnectFailed(ConnectError::Request(RequestError::Timeout(_)))
            )),
            "{era:?}: {events:?}"
        );
        assert_eq!(h.conn.state(), State::Closed);
    }
}

/// ... and a late answer within the request timeout still connects.
#[test]
fn stdio_modern_only_probe_answered_after_the_probe_timeout_connects() {
    let mut h = Harness::new(
        config()
            .with_era(EraPreference::ModernOnly)
            .with_probe_timeout(Duration::from_secs(2))
            .with_request_timeout(Some(Duration::from_secs(10))),
    );
    h.conn.connect(h.now).unwrap();
    let probe = h.drain().remove(0);
    h.advance(Duration::from_secs(5));
    h.reply(&probe, discover_result());
    assert_eq!(h.conn.state(), State::Ready);
    assert_eq!(h.conn.era(), Some(Era::Modern));
    assert_eq!(
        h.conn.era_outcome().unwrap().decided_by,
        EraDecision::Discover
    );
}

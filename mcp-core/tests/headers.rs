//! HTTP routing data: Mcp-Method, Mcp-Name, Mcp-Param-*, header validation
//! and the HeaderMismatch retry.

mod common;

use common::*;
use mcp_core::{Event, RequestOptions, Transmit, TransportKind};
use mcp_types::ProtocolVersion;
use serde_json::json;

#[test]
fn routing_data_per_message() {
    let mut h = modern(config().with_transport(TransportKind::Http));
    h.conn
        .list_all(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, json!({"tools": [weather_tool(), {"name": "bad", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}}]}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::ToolDropped { name, .. } if name == "bad"));
    assert!(matches!(&events[1], Event::ListComplete { items, .. } if items.len() == 1));

    let id = h
        .conn
        .call_tool(
            h.now,
            "get_weather",
            json!({"region": "Zürich", "days": 2}),
            RequestOptions::default(),
        )
        .unwrap();
    let t = h.conn.poll_transmit().unwrap();
    let Transmit::Message { routing, .. } = t else {
        panic!()
    };
    assert_eq!(routing.protocol_version, Some(ProtocolVersion::V2026_07_28));
    assert_eq!(routing.method.as_deref(), Some("tools/call"));
    assert_eq!(routing.name.as_deref(), Some("get_weather"));
    assert_eq!(routing.request_id, Some(id));
    assert!(
        routing
            .params
            .contains(&("Region".into(), "=?base64?WsO8cmljaA==?=".into()))
    );
    assert!(routing.params.contains(&("Days".into(), "2".into())));
    assert!(!routing.long_lived);

    // Legacy: version only, no Mcp-* headers; initialize carries no version.
    let mut h = legacy(config().with_transport(TransportKind::Http));
    h.conn
        .call_tool(h.now, "get_weather", json!({}), RequestOptions::default())
        .unwrap();
    let Transmit::Message { routing, .. } = h.conn.poll_transmit().unwrap() else {
        panic!()
    };
    assert_eq!(routing.protocol_version, Some(ProtocolVersion::V2025_11_25));
    assert!(routing.method.is_none() && routing.name.is_none());
}

#[test]
fn stdio_keeps_tools_with_invalid_annotations() {
    let mut h = modern(config());
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, json!({"tools": [{"name": "bad", "inputSchema": {"properties": {"n": {"type": "number", "x-mcp-header": "N"}}}}]}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::Response(c) if c.result.to_str().unwrap().contains("bad")));
}

#[test]
fn header_mismatch_refreshes_tools_and_retries_once() {
    let mut h = modern(config().with_transport(TransportKind::Http));
    let id = h
        .conn
        .call_tool(
            h.now,
            "get_weather",
            json!({"region": "eu"}),
            RequestOptions::default(),
        )
        .unwrap();
    let c1 = h.drain().remove(0);
    h.reply_error(&c1, -32020, "Header mismatch", None);
    let list = h.drain().remove(0);
    assert_eq!(list["method"], "tools/list");
    h.reply(
        &list,
        json!({"tools": [weather_tool()], "ttlMs": 0, "cacheScope": "public"}),
    );
    let c2 = h.drain().remove(0);
    assert_eq!(c2["method"], "tools/call");
    assert_ne!(c2["id"], c1["id"]);
    assert!(h.transcript().contains(r#"("Region", "eu")"#));
    h.reply_error(&c2, -32020, "Header mismatch", None);
    assert!(h.drain().is_empty(), "retried once only");
    let events = h.take_events();
    assert!(matches!(events.last(), Some(Event::RequestFailed { id: i, .. }) if *i == id));
    insta::assert_snapshot!("header_mismatch", h.transcript());
}

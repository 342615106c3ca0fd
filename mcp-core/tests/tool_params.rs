//! A tool call started by name and arguments (`call_tool`, which builds no
//! params map) goes out exactly as the same call with the params as a map
//! (`send_request`): the same bytes, the same HTTP routing, with any
//! options, in both eras.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use mcp_core::{RequestOptions, Transmit, TransportKind};
use serde_json::{Value, json};

/// The next message's text with its id taken out, and its routing.
fn next(h: &mut Harness) -> (String, String) {
    let Some(Transmit::Message { bytes, routing, .. }) = h.conn.poll_transmit() else {
        panic!("expected a message");
    };
    let text = String::from_utf8(bytes).unwrap();
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"].to_string();
    // The progress token is the call's id too.
    let text = text
        .replacen(&format!(r#""id":{id},"#), r#""id":_,"#, 1)
        .replace(&format!(r#""progressToken":{id}"#), r#""progressToken":_"#);
    let mut routing = routing;
    routing.request_id = None;
    (text, format!("{routing:?}"))
}

fn options() -> Vec<RequestOptions> {
    vec![
        RequestOptions::default(),
        RequestOptions::default().with_progress(),
        RequestOptions::default().with_meta("k", json!({"a": [1, 2]})),
        RequestOptions::default().with_task(Some(5000)),
        RequestOptions::default().with_task(None).with_progress(),
    ]
}

#[test]
fn a_tool_call_is_sent_as_its_params_map_would_be() {
    let args = json!({"region": "Zürich", "days": 2, "nested": {"z": 1, "a": "\"q\""}});
    let mut checked = Vec::new();
    for http in [false, true] {
        let transport = if http {
            TransportKind::Http
        } else {
            TransportKind::Stdio
        };
        for mut h in [
            legacy(config().with_transport(transport)),
            modern(config().with_transport(transport)),
        ] {
            // Header bindings for the tool, so its Mcp-Param-* headers are
            // derived from the arguments (2026-07-28 over HTTP).
            h.conn
                .list_all(h.now, "tools/list", None, RequestOptions::default())
                .unwrap();
            let r = h.drain().remove(0);
            h.reply(&r, json!({"tools": [weather_tool()]}));
            h.take_events();
            for opts in options() {
                let now = h.now;
                let by_name = h
                    .conn
                    .call_tool(now, "get_weather", args.clone(), opts.clone());
                let params = json!({"name": "get_weather", "arguments": args.clone()});
                let by_map = h
                    .conn
                    .send_request(now, "tools/call", Some(params), opts.clone());
                assert_eq!(by_name.is_ok(), by_map.is_ok());
                if by_name.is_err() {
                    continue;
                }
                let (a, b) = (next(&mut h), next(&mut h));
                assert_eq!(a, b, "http={http} opts={opts:?}");
                assert!(a.0.contains(r#""params":{"name":"get_weather","arguments":{"#));
                checked.push((a.0.contains(r#""task":{"#), a.1.contains("Region")));
            }
        }
    }
    // Both rare paths were taken: a task member added (2025-11-25), and
    // parameter headers derived (2026-07-28 over HTTP).
    assert!(checked.contains(&(true, false)) && checked.contains(&(false, true)));
}

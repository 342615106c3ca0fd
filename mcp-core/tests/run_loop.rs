//! The run loop shown in the crate docs, run for real: drain transmits,
//! drain events, then feed input or wait for the timer.

mod common;

use common::origin;
use mcp_core::{Config, Connection, Event, Transmit};
use mcp_types::Message;
use std::time::Duration;

// A stand-in for a real transport: answers the probe like a modern server.
fn server(bytes: &[u8]) -> Option<Message> {
    let req: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let id = req.get("id")?;
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"}});
    Message::from_slice(reply.to_string().as_bytes()).ok()
}

#[test]
fn the_documented_run_loop_connects_and_calls() {
    let mut conn = Connection::new(Config::new("example", "1.0"));
    let mut now = origin();
    conn.connect(now).unwrap();
    let mut connected = false;
    for _ in 0..10 {
        // 1. drain transmits
        let mut inbox = Vec::new();
        while let Some(t) = conn.poll_transmit() {
            if let Transmit::Message { bytes, .. } = t {
                inbox.extend(server(&bytes));
            }
        }
        // 2. drain events
        while let Some(e) = conn.poll_event() {
            if let Event::Connected { .. } = e {
                connected = true;
            }
        }
        // 3. feed input, or wait for the timer
        if let Some(m) = inbox.pop() {
            conn.handle_message(now, m);
        } else if let Some((at, _why)) = conn.poll_timeout() {
            now = at;
            conn.handle_timeout(now);
        } else {
            break;
        }
    }
    assert!(connected);
    now += Duration::from_millis(1);
    let id = conn
        .call_tool(
            now,
            "echo",
            serde_json::json!({"text": "hi"}),
            Default::default(),
        )
        .unwrap();
    assert_eq!(conn.in_flight(), 1);
    let _ = id;
}

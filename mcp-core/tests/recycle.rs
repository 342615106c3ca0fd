//! `Connection::recycle`: a sent request's buffer, handed back, carries the
//! next request (cleared first); a large one is not kept.
#![allow(clippy::unwrap_used)]

mod common;

use common::{config, legacy, modern};
use mcp_core::Transmit;
use serde_json::{Value, json};

/// The one message the connection transmits next, with its buffer.
fn next_bytes(h: &mut common::Harness) -> Vec<u8> {
    match h.conn.poll_transmit() {
        Some(Transmit::Message { bytes, .. }) => bytes,
        other => panic!("expected a message, got {other:?}"),
    }
}

fn call(h: &mut common::Harness, tool: &str) {
    let now = h.now;
    h.conn
        .call_tool(now, tool, json!({"text": "hi"}), Default::default())
        .unwrap();
}

#[test]
fn a_recycled_buffer_carries_the_next_request_cleared() {
    for mut h in [legacy(config()), modern(config())] {
        // A buffer with a capacity the core never picks itself, still
        // holding bytes: the next request must be written into it, alone.
        let mut used = Vec::with_capacity(3000);
        used.extend_from_slice(br#"{"stale":true}"#);
        let (capacity, ptr) = (used.capacity(), used.as_ptr());
        h.conn.recycle(used);
        call(&mut h, "echo");
        let bytes = next_bytes(&mut h);
        assert_eq!((bytes.capacity(), bytes.as_ptr()), (capacity, ptr));
        let sent: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(sent["method"], "tools/call");
        assert_eq!(sent["params"]["name"], "echo");
        assert!(sent.get("stale").is_none());
        // Handed back again, it carries the request after that one.
        h.conn.recycle(bytes);
        call(&mut h, "add");
        let again = next_bytes(&mut h);
        assert_eq!(again.as_ptr(), ptr);
        let sent: Value = serde_json::from_slice(&again).unwrap();
        assert_eq!(sent["params"]["name"], "add");
    }
}

#[test]
fn a_large_buffer_is_not_kept() {
    let mut h = legacy(config());
    let big = Vec::with_capacity(1 << 20);
    h.conn.recycle(big);
    call(&mut h, "echo");
    let bytes = next_bytes(&mut h);
    assert!(bytes.capacity() < 1 << 20, "{}", bytes.capacity());
    let sent: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(sent["params"]["name"], "echo");
}

//! The 2026-07-28 result cache, with expiry by the virtual clock.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{Event, RequestOptions};
use serde_json::json;

fn list(ttl: i64, scope: &str) -> serde_json::Value {
    json!({"resultType": "complete", "tools": [{"name": "a", "inputSchema": {"type": "object"}}], "ttlMs": ttl, "cacheScope": scope})
}

#[test]
fn fresh_results_are_served_without_bytes_until_expiry() {
    let mut h = modern(config());
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, list(1000, "public"));
    h.take_events();
    h.advance(Duration::from_millis(999));
    let id = h
        .conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert!(h.drain().is_empty(), "served from the cache");
    let events = h.take_events();
    assert!(matches!(&events[0], Event::Response(c) if c.cached && c.id == id));
    h.advance(Duration::from_millis(1));
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 1, "expired by the clock");
}

#[test]
fn zero_ttl_params_and_bypass() {
    let mut h = modern(config());
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default(),
        )
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"contents": [], "ttlMs": 0, "cacheScope": "public"}),
    );
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default(),
        )
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"contents": [], "ttlMs": 5000, "cacheScope": "public"}),
    );
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///b"})),
            RequestOptions::default(),
        )
        .unwrap();
    assert_eq!(h.drain().len(), 1, "other params miss");
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default().without_cache(),
        )
        .unwrap();
    assert_eq!(h.drain().len(), 1, "bypass");
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default(),
        )
        .unwrap();
    assert!(h.drain().is_empty());
}

#[test]
fn notifications_invalidate_matching_entries() {
    let mut h = modern(config());
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, list(60_000, "public"));
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default(),
        )
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"contents": [], "ttlMs": 60000, "cacheScope": "public"}),
    );
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///a"}}));
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "file:///a"})),
            RequestOptions::default(),
        )
        .unwrap();
    assert_eq!(h.drain().len(), 2);
}

#[test]
fn private_entries_are_partitioned_by_principal() {
    let mut h = modern(config());
    h.conn.set_principal("alice");
    h.conn
        .send_request(h.now, "prompts/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"prompts": [], "ttlMs": 60000, "cacheScope": "private"}),
    );
    h.conn
        .send_request(h.now, "prompts/list", None, RequestOptions::default())
        .unwrap();
    assert!(h.drain().is_empty());
    h.conn.set_principal("bob");
    h.conn
        .send_request(h.now, "prompts/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 1, "another principal misses");
}

#[test]
fn retries_are_never_cached_and_legacy_never_caches() {
    let mut h = modern(config());
    let id = h
        .conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "u"})),
            RequestOptions::default(),
        )
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"resultType": "input_required", "requestState": "s"}),
    );
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"contents": [], "ttlMs": 60000, "cacheScope": "public"}),
    );
    assert!(matches!(&h.take_events()[0], Event::Response(c) if c.id == id));
    h.conn
        .send_request(
            h.now,
            "resources/read",
            Some(json!({"uri": "u"})),
            RequestOptions::default(),
        )
        .unwrap();
    assert_eq!(h.drain().len(), 1);

    let mut h = legacy(config());
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(&r, list(60_000, "public"));
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 1);
    assert_eq!(h.conn.cache_len(), 0);
}

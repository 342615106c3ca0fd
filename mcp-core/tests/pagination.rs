//! Pagination through the connection and as a pure machine (with proptest).

mod common;

use common::*;
use mcp_core::PaginationError;
use mcp_core::{Event, RequestError, RequestOptions};
use serde_json::json;

#[test]
fn list_all_follows_cursors_including_the_empty_string() {
    let mut h = legacy(config());
    let id = h
        .conn
        .list_all(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let p1 = h.drain().remove(0);
    assert!(p1.get("params").is_none());
    h.reply(
        &p1,
        json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": ""}),
    );
    let p2 = h.drain().remove(0);
    assert_eq!(p2["params"]["cursor"], "");
    assert_ne!(p2["id"], p1["id"]);
    h.reply(
        &p2,
        json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}], "nextCursor": "c3"}),
    );
    let p3 = h.drain().remove(0);
    assert_eq!(p3["params"]["cursor"], "c3");
    h.reply(&p3, json!({"tools": []}));
    let events = h.take_events();
    let Event::ListComplete {
        id: got,
        items,
        pages,
        ..
    } = &events[0]
    else {
        panic!("{events:?}")
    };
    assert_eq!((got, items.len(), *pages), (&id, 2, 3));
    insta::assert_snapshot!("pagination_legacy", h.transcript());
}

#[test]
fn repeated_cursor_and_page_cap_end_with_typed_errors() {
    let mut h = modern(config());
    h.conn
        .list_all(
            h.now,
            "prompts/list",
            None,
            RequestOptions::default().without_cache(),
        )
        .unwrap();
    let p1 = h.drain().remove(0);
    h.reply(&p1, json!({"resultType": "complete", "prompts": [], "nextCursor": "x", "ttlMs": 0, "cacheScope": "public"}));
    let p2 = h.drain().remove(0);
    h.reply(&p2, json!({"resultType": "complete", "prompts": [], "nextCursor": "x", "ttlMs": 0, "cacheScope": "public"}));
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::RequestFailed { error: RequestError::Pagination(PaginationError::RepeatedCursor { cursor }), .. } if cursor == "x")
    );

    let mut h = modern(config().with_max_pages(3));
    h.conn
        .list_all(h.now, "resources/list", None, RequestOptions::default())
        .unwrap();
    for n in 0..3 {
        let p = h.drain().remove(0);
        h.reply(&p, json!({"resources": [], "nextCursor": format!("c{n}")}));
    }
    assert!(h.drain().is_empty());
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::RequestFailed {
            error: RequestError::Pagination(PaginationError::PageCap { max: 3 }),
            ..
        }
    ));
}

#[test]
fn invalid_cursor_error_fails_the_listing() {
    let mut h = modern(config());
    h.conn
        .list_all(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let p1 = h.drain().remove(0);
    h.reply(
        &p1,
        json!({"tools": [], "nextCursor": "a", "ttlMs": 1000, "cacheScope": "public"}),
    );
    assert_eq!(
        h.conn.cache_len(),
        2,
        "discover and the first page are cached"
    );
    let p2 = h.drain().remove(0);
    h.reply_error(&p2, -32602, "Invalid cursor", None);
    assert_eq!(
        h.conn.cache_len(),
        1,
        "every cached page of the list is dropped"
    );
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::RequestFailed { error: RequestError::Remote(e), .. } if e.code.get() == -32602)
    );
}

//! The skills extension's methods (SEP-2640) in the core: gating on the
//! declared extension and `directoryRead`, pagination, the cache and
//! `Mcp-Name`, in both eras.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use mcp_core::PaginationError;
use mcp_core::TransportKind;
use mcp_core::{Event, RequestError, RequestOptions, UsageError};
use serde_json::{Value, json};

const SKILLS: &str = "io.modelcontextprotocol/skills";

fn legacy_with(capabilities: Value) -> Harness {
    let mut h = Harness::new(config().with_era(mcp_core::EraPreference::LegacyOnly));
    h.conn.connect(h.now).unwrap();
    let init = h.drain().remove(0);
    h.reply(
        &init,
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
               "serverInfo": {"name": "s", "version": "1"}}),
    );
    h.drain();
    h.events.clear();
    h
}

fn modern_with(capabilities: Value) -> Harness {
    let mut h = Harness::new(config().with_transport(TransportKind::Http));
    h.conn.connect(h.now).unwrap();
    let discover = h.drain().remove(0);
    h.reply(
        &discover,
        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
               "capabilities": capabilities,
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}}),
    );
    h.drain();
    h.events.clear();
    h
}

fn refused(h: &mut Harness, method: &str, params: Option<Value>) -> &'static str {
    let err = h
        .conn
        .send_request(h.now, method, params, RequestOptions::default())
        .unwrap_err();
    assert!(h.drain().is_empty(), "nothing is sent for {method}");
    match err {
        UsageError::CapabilityNotAdvertised { capability, .. } => capability,
        other => panic!("{method}: {other:?}"),
    }
}

#[test]
fn undeclared_extension_refuses_every_skills_method_in_both_eras() {
    let uri = Some(json!({"uri": "skill://a/SKILL.md"}));
    for mut h in [
        legacy_with(json!({"resources": {}})),
        modern_with(json!({"resources": {}})),
    ] {
        let cap = refused(&mut h, "skills/list", None);
        assert_eq!(cap, "extensions.io.modelcontextprotocol/skills");
        refused(&mut h, "skills/get", uri.clone());
        let cap = refused(&mut h, "resources/directory/read", uri.clone());
        assert_eq!(
            cap,
            "extensions.io.modelcontextprotocol/skills.directoryRead"
        );
    }
}

#[test]
fn directory_read_needs_directory_read_true() {
    let dir = Some(json!({"uri": "skill://a"}));
    for setting in [
        json!({}),
        json!({"directoryRead": false}),
        json!({"directoryRead": "yes"}),
    ] {
        let mut h = legacy_with(json!({"extensions": {SKILLS: setting}}));
        refused(&mut h, "resources/directory/read", dir.clone());
        // The extension itself is declared: skills/list goes out.
        h.conn
            .send_request(h.now, "skills/list", None, RequestOptions::default())
            .unwrap();
        assert_eq!(h.drain()[0]["method"], "skills/list");
    }
    let mut h = modern_with(json!({"extensions": {SKILLS: {"directoryRead": true}}}));
    h.conn
        .send_request(
            h.now,
            "resources/directory/read",
            dir,
            RequestOptions::default(),
        )
        .unwrap();
    assert_eq!(h.drain()[0]["method"], "resources/directory/read");
}

#[test]
fn skills_list_and_directory_read_paginate_with_the_repeated_cursor_guard() {
    let mut h = legacy_with(json!({"extensions": {SKILLS: {"directoryRead": true}}}));
    h.conn
        .list_all(h.now, "skills/list", None, RequestOptions::default())
        .unwrap();
    let p1 = h.drain().remove(0);
    let entry =
        |n: &str| json!({"uri": format!("skill://{n}/SKILL.md"), "frontmatter": {"name": n}});
    h.reply(&p1, json!({"skills": [entry("a")], "nextCursor": "c1"}));
    let p2 = h.drain().remove(0);
    assert_eq!(p2["params"]["cursor"], "c1");
    h.reply(&p2, json!({"skills": [entry("b")]}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::ListComplete { items, pages: 2, .. } if items.len() == 2));

    h.conn
        .list_all(
            h.now,
            "resources/directory/read",
            Some(json!({"uri": "skill://a"})),
            RequestOptions::default(),
        )
        .unwrap();
    let d1 = h.drain().remove(0);
    h.reply(&d1, json!({"resources": [], "nextCursor": "x"}));
    let d2 = h.drain().remove(0);
    assert_eq!(d2["params"], json!({"uri": "skill://a", "cursor": "x"}));
    h.reply(&d2, json!({"resources": [], "nextCursor": "x"}));
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::RequestFailed { error: RequestError::Pagination(PaginationError::RepeatedCursor { cursor }), .. } if cursor == "x"),
        "{events:?}"
    );
}

/// Starts `skills/get` for `uri`.
fn get_skill(h: &mut Harness, uri: &str, opts: RequestOptions) -> mcp_types::RequestId {
    let params = Some(json!({ "uri": uri }));
    h.conn
        .send_request(h.now, "skills/get", params, opts)
        .unwrap()
}

#[test]
fn modern_skills_get_carries_mcp_name_and_is_cached_per_uri() {
    let mut h = modern_with(json!({"extensions": {SKILLS: {}}}));
    get_skill(&mut h, "skill://a/SKILL.md", RequestOptions::default());
    let Some(mcp_core::Transmit::Message { bytes, routing, .. }) = h.conn.poll_transmit() else {
        panic!("skills/get was not sent")
    };
    assert_eq!(routing.method.as_deref(), Some("skills/get"));
    assert_eq!(routing.name.as_deref(), Some("skill://a/SKILL.md"));
    let sent: Value = serde_json::from_slice(&bytes).unwrap();
    let skill = json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}});
    h.reply(
        &sent,
        json!({"resultType": "complete", "skill": skill, "ttlMs": 5000, "cacheScope": "private"}),
    );
    h.take_events();
    let again = get_skill(&mut h, "skill://a/SKILL.md", RequestOptions::default());
    assert!(h.drain().is_empty(), "served from the cache");
    assert!(matches!(&h.take_events()[0], Event::Response(c) if c.cached && c.id == again));
    // Another uri is another key; bypassing the cache sends.
    get_skill(&mut h, "skill://b/SKILL.md", RequestOptions::default());
    assert_eq!(h.drain().len(), 1);
    let fresh = RequestOptions::default().without_cache();
    get_skill(&mut h, "skill://a/SKILL.md", fresh);
    assert_eq!(h.drain().len(), 1, "no_cache goes to the server");
}

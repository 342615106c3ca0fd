//! Snapshots of a few exchanges, so changes to the wire shape are reviewed.
#![allow(clippy::unwrap_used)]

mod common;

use common::{Stdio, modern};
use demo_server::DemoOptions;
use serde_json::{Value, json};

/// Replaces values that differ between runs.
fn stable(mut v: Value) -> Value {
    if let Some(s) = v.pointer_mut("/result/requestState") {
        *s = json!("[requestState]");
    }
    v
}

#[tokio::test]
async fn legacy_handshake_transcript() {
    let mut c = Stdio::start(DemoOptions::default());
    let init = c
        .call(
            json!(0),
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "snap", "version": "0" } }),
        )
        .await
        .1;
    insta::assert_json_snapshot!("legacy_initialize", init);
    c.close().await;
}

#[tokio::test]
async fn modern_discover_and_mrtr_transcript() {
    let mut c = Stdio::start(DemoOptions::default());
    let (_, discover) = c
        .call(json!(1), "server/discover", modern(json!({}), json!({})))
        .await;
    insta::assert_json_snapshot!("modern_discover", discover);
    let (_, page) = c
        .call(json!(2), "tools/list", modern(json!({}), json!({})))
        .await;
    insta::assert_json_snapshot!("modern_tools_page_1", page);
    let (_, ask) = c
        .call(
            json!(3),
            "tools/call",
            modern(json!({ "elicitation": {} }), json!({ "name": "ask_name" })),
        )
        .await;
    insta::assert_json_snapshot!("modern_input_required", stable(ask));
    c.close().await;
}

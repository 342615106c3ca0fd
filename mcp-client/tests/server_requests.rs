//! What the client answers to 2025-11-25 server requests, each decoded once
//! into its typed view: a wrong-shaped known method gets -32602 naming the
//! problem, an unknown method -32601, and a handler sees the progress
//! token of the request's `_meta`.

use std::time::Duration;

use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::{Client, EraPreference, HandlerError, ProgressReporter};
use mcp_testkit::Peer;
use serde_json::{Value, json};

/// The next answer or progress notification the client writes.
async fn next_answer_or_notification(peer: &mut Peer) -> Value {
    loop {
        let frame = peer.next_frame().await;
        let progress = frame.is_notification() && frame.method() == Some("notifications/progress");
        if frame.is_response() || progress {
            return serde_json::from_str(&frame.text()).expect("json");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn server_requests_are_answered_from_their_typed_view() {
    let (transport, mut peer) = mcp_testkit::scripted();
    peer.serve_legacy(mcp_testkit::capabilities());
    let client = Client::builder()
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(5)))
        .sampling(|_p: CreateMessageRequestParams| async move {
            if let Some(progress) = ProgressReporter::current() {
                let _ = progress.report(0.5, None, None);
            }
            Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("ok"), "m"))
        })
        .transport(transport)
        .connect()
        .await
        .expect("connect");

    peer.push(
        json!({"jsonrpc": "2.0", "id": "bad", "method": "sampling/createMessage",
        "params": {"messages": 3, "maxTokens": 5}}),
    );
    let answer = next_answer_or_notification(&mut peer).await;
    assert_eq!(answer["id"], "bad");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("sampling/createMessage") && message.contains("invalid type"),
        "{message}"
    );

    peer.push(json!({"jsonrpc": "2.0", "id": "odd", "method": "custom/thing", "params": {}}));
    let answer = next_answer_or_notification(&mut peer).await;
    assert_eq!(answer["id"], "odd");
    assert_eq!(answer["error"]["code"], -32601, "{answer}");

    peer.push(
        json!({"jsonrpc": "2.0", "id": "good", "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 5, "_meta": {"progressToken": "tok"}}}),
    );
    let progress = next_answer_or_notification(&mut peer).await;
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "tok");
    let answer = next_answer_or_notification(&mut peer).await;
    assert_eq!(answer["id"], "good");
    assert_eq!(answer["result"]["model"], "m", "{answer}");
    client.close().await;
}

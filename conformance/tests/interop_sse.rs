//! Interop: the HTTP+SSE fallback (2024-11-05 transport) against
//! `@modelcontextprotocol/server-everything sse`, which serves the old
//! transport only (`GET /sse` for the event stream, `POST /message`).
//!
//! The client is given the plain URL with the default builder: its
//! Streamable HTTP `initialize` POST meets `404`, it falls back to `GET`,
//! and everything the server offers then works over the old transport.
//!
//! Built only with the `interop` feature; `cargo xtask interop` runs it with
//! `MCP_INTEROP_NODE` and `MCP_INTEROP_EVERYTHING` set. Without them every
//! test fails (it never passes silently). The peer listens on a 127.0.0.1
//! port chosen here.

mod common;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;

use common::{HttpPeer, REQUEST_TIMEOUT, answer_sampling, call, env_path, free_port};
use mcp_client::mcp_types::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::{Era, ProtocolVersion};
use mcp_client::{Client, NotificationHandler};
use serde_json::json;
use tokio::sync::Notify;

/// `server-everything sse` on a free 127.0.0.1 port (the old transport's
/// event stream is `GET /sse`).
fn everything_sse() -> HttpPeer {
    let port = free_port();
    let mut command = Command::new(env_path("MCP_INTEROP_NODE"));
    command
        .arg(env_path("MCP_INTEROP_EVERYTHING"))
        .arg("sse")
        .env("PORT", port.to_string());
    HttpPeer::start(command, port)
}

/// Wakes the test when the server logs that it received the client's roots
/// (it asks for them with `roots/list` on the event stream; the answer goes
/// back by POST).
#[derive(Default)]
struct RootsLogged(Notify);

impl NotificationHandler for RootsLogged {
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        if params.data.to_string().contains("root(s) received") {
            self.0.notify_one();
        }
    }
}

#[tokio::test]
async fn the_default_builder_falls_back_to_http_sse() {
    let peer = everything_sse();
    let roots_logged = Arc::new(RootsLogged::default());
    let client = Client::builder()
        .request_timeout(Some(REQUEST_TIMEOUT))
        .roots(vec![Root::new("file:///interop/sse")])
        .sampling(answer_sampling)
        .notifications(roots_logged.clone())
        .http(&peer.at("/sse"))
        .connect()
        .await
        .expect("connect over the HTTP+SSE fallback");
    assert_eq!(client.era(), Some(Era::Legacy));
    let version = client.protocol_version().expect("negotiated");
    assert!(
        version.era() == Some(Era::Legacy) && version != ProtocolVersion::V2026_07_28,
        "{version:?}"
    );
    eprintln!(
        "server-everything over HTTP+SSE: {:?} at {version:?}",
        client.server_info().map(|i| (i.name, i.version)),
    );

    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "echo"), "echo is listed");
    let echoed = call(&client, "echo", json!({"message": "over sse"})).await;
    assert!(echoed.contains("over sse"), "{echoed}");

    let resources = client.list_all_resources().await.expect("resources/list");
    let first = resources.first().expect("at least one resource");
    let read = client
        .read_resource(&first.uri)
        .await
        .expect("resources/read");
    assert!(!read.contents.is_empty());

    let prompt = client
        .get_prompt("simple-prompt", BTreeMap::new())
        .await
        .expect("prompts/get");
    assert!(!prompt.messages.is_empty());

    client
        .set_log_level(LoggingLevel::Debug)
        .await
        .expect("logging/setLevel");

    // Server-to-client requests arrive on the event stream and are answered
    // by POST: `roots/list` after the handshake, sampling inside a call.
    tokio::time::timeout(REQUEST_TIMEOUT, roots_logged.0.notified())
        .await
        .expect("the server received the roots");
    let sampled = call(&client, "trigger-sampling-request", json!({"prompt": "hi"})).await;
    assert!(sampled.contains("a short summary"), "{sampled}");

    client.close().await;
    let after = client.call_tool("echo", json!({"message": "x"})).await;
    assert!(after.expect_err("closed").is_closed());
}

#[tokio::test]
async fn without_the_fallback_the_post_status_is_the_error() {
    let peer = everything_sse();
    let err = Client::builder()
        .request_timeout(Some(REQUEST_TIMEOUT))
        .http(&peer.at("/sse"))
        .http_sse_fallback(false)
        .connect()
        .await
        .expect_err("no Streamable HTTP there");
    assert!(err.to_string().contains("HTTP status 404"), "{err}");
    assert!(!err.to_string().contains("HTTP+SSE"), "{err}");
}

#[tokio::test]
async fn a_failed_fallback_names_both_attempts() {
    let peer = everything_sse();
    let err = Client::builder()
        .request_timeout(Some(REQUEST_TIMEOUT))
        .http(&peer.at("/nothing-here"))
        .connect()
        .await
        .expect_err("nothing at that path");
    assert!(
        err.to_string()
            .contains("Streamable HTTP POST answered 404; HTTP+SSE fallback: GET answered 404"),
        "{err}"
    );
}

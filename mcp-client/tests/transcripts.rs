//! Wire transcripts of the facade, snapshotted with insta: what the client
//! sends in a typical session (connect, a paginated tools list, a prompts
//! list, a tool call with an `x-mcp-header` argument, a resource read, a
//! prompt, a call cancelled by its timeout, close), in each era, over the
//! scripted in-memory transport (on the paused clock, with virtual times)
//! and over Streamable HTTP against a scripted loopback server (with the
//! headers: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `Mcp-Session-Id`,
//! `MCP-Protocol-Version`). Only the loopback port is normalised.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_client::{CallOptions, Client, ClientBuilder, EraPreference};
use mcp_testkit::{Delivery, Peer, ScriptedHttpServer, capabilities, scripted};
use serde_json::{Value, json};

/// The tool that never answers: its call is cancelled by its timeout.
const SLOW: &str = "slow";

/// What the scripted server answers, the same on every transport; `None`
/// for a request it never answers (the slow tool).
fn answer(method: &str, params: &Value) -> Option<Value> {
    let result = match method {
        "tools/list" if params.get("cursor").is_none() => json!({
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}],
            "nextCursor": "page-2"
        }),
        "tools/list" => json!({"tools": [
            {"name": "forecast", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "days": {"type": "integer"}
            }}},
            {"name": SLOW, "inputSchema": {"type": "object"}}
        ]}),
        "prompts/list" => json!({"prompts": [{"name": "greet"}]}),
        "tools/call" if params["name"] == SLOW => return None,
        "tools/call" => json!({"content": [{"type": "text", "text": "sunny"}]}),
        "resources/read" => json!({"contents": [
            {"uri": params["uri"], "mimeType": "text/plain", "text": "hello"}
        ]}),
        "prompts/get" => json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Hello, Ada"}}
        ]}),
        "ping" => json!({}),
        _ => return None,
    };
    Some(result)
}

/// Where the test learns that the server saw something (a notification,
/// a cancellation), so the transcript's order is the client's, not a race.
enum Watch<'a> {
    Peer(&'a mut Peer),
    Http(&'a mut ScriptedHttpServer),
}

impl Watch<'_> {
    async fn saw(&mut self, what: &str) {
        match self {
            Watch::Peer(peer) => {
                peer.next_request(what).await;
            }
            Watch::Http(server) => server.saw(what, Duration::from_secs(10)).await,
        }
    }
}

/// The typical session. `cancelled` is what the server sees of the
/// cancelled call; `timeout` the slow call's.
async fn session(builder: ClientBuilder, mut watch: Watch<'_>, cancelled: &str, timeout: Duration) {
    let client = builder.connect().await.expect("connect");
    if client.era() == Some(mcp_client::mcp_types::Era::Legacy) {
        watch.saw("notifications/initialized").await;
    }
    let tools = client.list_all_tools().await.expect("tools");
    assert_eq!(tools.len(), 3, "both pages");
    client.list_prompts(None).await.expect("prompts");
    let forecast = client.call_tool("forecast", json!({"region": "eu-west", "days": 3}));
    assert_eq!(forecast.await.expect("call").content.len(), 1);
    let read = client
        .read_resource("file:///notes.txt")
        .await
        .expect("read");
    assert_eq!(read.contents.len(), 1);
    let args = BTreeMap::from([("name".to_owned(), "Ada".to_owned())]);
    client.get_prompt("greet", args).await.expect("prompt");
    let opts = CallOptions::new().with_timeout(timeout);
    let slow = client.call_tool_with(SLOW, json!({}), opts).await;
    assert!(slow.expect_err("no answer").is_timeout());
    watch.saw(cancelled).await;
    close(client).await;
}

async fn close(client: Client) {
    client.close().await;
}

/// A peer that plays a server of `era` with [`answer`].
fn peer_for(peer: &Peer, modern: bool) {
    if modern {
        peer.serve_modern(capabilities());
    } else {
        peer.serve_legacy(capabilities());
    }
    for method in [
        "tools/list",
        "prompts/list",
        "tools/call",
        "resources/read",
        "prompts/get",
    ] {
        peer.on(method, |req| {
            let result = answer(req.method().unwrap_or_default(), req.params());
            result
                .map(|r| Delivery::result(req, r))
                .into_iter()
                .collect()
        });
    }
}

async fn scripted_transcript(era: EraPreference) -> String {
    let (transport, mut peer) = scripted();
    peer_for(&peer, era == EraPreference::ModernOnly);
    let builder = Client::builder().era(era).transport(transport);
    let timeout = Duration::from_secs(5);
    session(
        builder,
        Watch::Peer(&mut peer),
        "notifications/cancelled",
        timeout,
    )
    .await;
    peer.closed().await;
    peer.transcript()
}

#[tokio::test(start_paused = true)]
async fn scripted_2025_11_25() {
    insta::assert_snapshot!(scripted_transcript(EraPreference::LegacyOnly).await);
}

#[tokio::test(start_paused = true)]
async fn scripted_2026_07_28() {
    insta::assert_snapshot!(scripted_transcript(EraPreference::ModernOnly).await);
}

async fn http_transcript(era: EraPreference) -> String {
    let modern = era == EraPreference::ModernOnly;
    let mut server = ScriptedHttpServer::start(modern, answer).await;
    let builder = Client::builder().era(era).http(&server.url());
    let cancelled = if modern {
        "closed tools/call"
    } else {
        "notifications/cancelled"
    };
    let timeout = Duration::from_millis(300);
    session(builder, Watch::Http(&mut server), cancelled, timeout).await;
    server.transcript()
}

#[tokio::test]
async fn http_2025_11_25() {
    insta::assert_snapshot!(http_transcript(EraPreference::LegacyOnly).await);
}

#[tokio::test]
async fn http_2026_07_28() {
    insta::assert_snapshot!(http_transcript(EraPreference::ModernOnly).await);
}

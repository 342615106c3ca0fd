//! Wire transcripts of the facade, snapshotted with insta: what the client
//! sends in a typical session (connect, a paginated tools list, a prompts
//! list, a tool call with an `x-mcp-header` argument, a resource read, a
//! prompt, a call cancelled by its timeout, close), in each era, over the
//! scripted in-memory transport (on the paused clock, with virtual times)
//! and over Streamable HTTP against a scripted loopback server (with the
//! headers: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `Mcp-Session-Id`,
//! `MCP-Protocol-Version`). Only the loopback port is normalised.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_client::{CallOptions, Client, ClientBuilder, EraPreference};
use mcp_testkit::http::{read_request_at, respond};
use mcp_testkit::{Delivery, Peer, capabilities, discover_result, initialize_result, scripted};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

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
    Http(&'a mut mpsc::UnboundedReceiver<String>),
}

impl Watch<'_> {
    async fn saw(&mut self, what: &str) {
        match self {
            Watch::Peer(peer) => {
                peer.next_request(what).await;
            }
            Watch::Http(seen) => loop {
                let next = tokio::time::timeout(Duration::from_secs(10), seen.recv()).await;
                match next.expect("the server saw it in time") {
                    Some(s) if s == what => return,
                    Some(_) => {}
                    None => panic!("the server stopped before it saw {what}"),
                }
            },
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

/// The scripted loopback server: one task per connection, every request
/// logged (request line, headers, body) in the order read. GET requests
/// (the 2025-11-25 stream, opened beside the first POSTs on a connection
/// of its own) go to a log of their own, so their race with those POSTs
/// does not reorder the transcript.
#[derive(Clone)]
struct Wire {
    modern: bool,
    log: Arc<Mutex<Vec<String>>>,
    streams: Arc<Mutex<Vec<String>>>,
    seen: mpsc::UnboundedSender<String>,
}

impl Wire {
    fn record(&self, entry: String, get: bool) {
        let log = if get { &self.streams } else { &self.log };
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry);
    }

    fn transcript(&self) -> String {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        format!(
            "{}\n-- GET streams --\n{}",
            log.join("\n"),
            streams.join("\n")
        )
    }

    async fn serve(self, stream: TcpStream) {
        let mut conn = BufReader::new(stream);
        while let Some((method, target, headers, body)) = read_request_at(&mut conn).await {
            let mut entry = format!("{method} {target}\n");
            for (name, value) in &headers {
                let value = if name == "host" {
                    "127.0.0.1:PORT"
                } else {
                    value
                };
                entry.push_str(&format!("  {name}: {value}\n"));
            }
            entry.push_str(&format!("  {}", String::from_utf8_lossy(&body)));
            self.record(entry, method == "GET");
            if method != "POST" {
                let status = if method == "DELETE" {
                    "200 OK"
                } else {
                    "405 Method Not Allowed"
                };
                respond(&mut conn, status, "", "").await;
                continue;
            }
            let Ok(request) = serde_json::from_slice::<Value>(&body) else {
                respond(&mut conn, "400 Bad Request", "", "").await;
                continue;
            };
            let rpc_method = request["method"].as_str().unwrap_or_default().to_owned();
            if request.get("id").is_none() || request.get("method").is_none() {
                respond(&mut conn, "202 Accepted", "", "").await;
                let _ = self.seen.send(rpc_method);
                continue;
            }
            let (result, extra) = match (rpc_method.as_str(), self.modern) {
                ("initialize", false) => (
                    Some(initialize_result(capabilities())),
                    "mcp-session-id: s-1\r\n",
                ),
                ("server/discover", true) => (Some(discover_result(capabilities())), ""),
                (m, _) => (answer(m, &request["params"]), ""),
            };
            let Some(result) = result else {
                // Held: the client gives up on it by closing the connection
                // (2026-07-28) or by a `notifications/cancelled` (2025-11-25).
                while read_request_at(&mut conn).await.is_some() {}
                if self.modern {
                    let id = &request["id"];
                    self.record(
                        format!("-- connection closed: {rpc_method} {id} unanswered"),
                        false,
                    );
                }
                let _ = self.seen.send(format!("closed {rpc_method}"));
                return;
            };
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
            let extra = format!("content-type: application/json\r\n{extra}");
            respond(&mut conn, "200 OK", &extra, &reply.to_string()).await;
        }
    }
}

async fn http_transcript(era: EraPreference) -> String {
    let modern = era == EraPreference::ModernOnly;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let (seen, mut seen_rx) = mpsc::unbounded_channel();
    let wire = Wire {
        modern,
        log: Arc::default(),
        streams: Arc::default(),
        seen,
    };
    let server = wire.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(server.clone().serve(stream));
        }
    });
    let builder = Client::builder().era(era).http(&url);
    let cancelled = if modern {
        "closed tools/call"
    } else {
        "notifications/cancelled"
    };
    let timeout = Duration::from_millis(300);
    session(builder, Watch::Http(&mut seen_rx), cancelled, timeout).await;
    wire.transcript()
}

#[tokio::test]
async fn http_2025_11_25() {
    insta::assert_snapshot!(http_transcript(EraPreference::LegacyOnly).await);
}

#[tokio::test]
async fn http_2026_07_28() {
    insta::assert_snapshot!(http_transcript(EraPreference::ModernOnly).await);
}

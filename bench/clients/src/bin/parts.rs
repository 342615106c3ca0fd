//! This SDK's per-call parts without its engine, for `cargo xtask bench
//! --table --parts`: one caller on its own task (as the SDK's bench
//! client's) that does a `tools/call`'s work with the SDK's own pieces and
//! nothing else:
//!
//! - the arguments serialized by `mcp_core::ToolCall` (as `call_tool`
//!   does) and the request written with `mcp_types`' string writer, with
//!   the `_meta` the SDK sends;
//! - over stdio, the line queued and written by `mcp_transport_stdio`'s
//!   `LineWriter`, the reply read, framed and its envelope walked by its
//!   `Receiver`; over HTTP, the request POSTed by `mcp_transport_http`'s
//!   `HttpTransport` as the SDK's driver POSTs it (a slot of its own, the
//!   body read in place, the routing the core gives a call), its reply
//!   read by it (a JSON body, or a 2025-11-25 event stream to the reply);
//! - the result decoded by `CallToolResult::from_raw`.
//!
//! What it leaves out is the engine: the core's call records, wire ids,
//! deadlines and events, the driver's pending calls, its lease of the
//! input (or its hold of the POST) and its settling, and the facade's
//! exchange and command. So the column reads as the parts' cost (over
//! stdio against the floor on tokio: the runtime's) and the engine's
//! (against the SDK's own column).
//!
//! One call at a time only (one caller owns the pipes or the POSTs); the
//! command line and output are `bench/common/measure.rs`'s.
//!
//! With `MCP_BENCH_ENGINE_STAND_IN=1` in its environment it also does, for
//! each call, a stand-in for the least an engine must do ([`StandIn`]): the
//! yardstick PERFORMANCE.md's stop 61 measures the engine against. Not run by
//! `cargo xtask bench`.

#[path = "../../../common/measure.rs"]
mod measure;

#[path = "../../../common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

/// The server started as the floors start it (its stdout pipe grown, as
/// the SDK grows it for a large reply).
#[path = "../../../common/spawn.rs"]
mod spawn;

use std::collections::VecDeque;
use std::future::poll_fn;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::HeaderMap;

use mcp_core::ToolCall;
use mcp_transport_http::{HttpConfig, HttpTransport, Reply};
use mcp_transport_stdio::{Inbound, LineWriter, Receiver, Sender};
use mcp_types::jsonrpc::Message;
use mcp_types::raw::{RawJson, write_string};
use mcp_types::routing::HttpRouting;
use mcp_types::tools::CallToolResult;
use mcp_types::{ProtocolVersion, RequestId};
use measure::{Args, Caller, fail};
use serde_json::Value;
use tokio::process::{ChildStdin, ChildStdout};

/// The `_meta` the SDK's client sends on every 2026-07-28 request (its
/// rendering is the engine's, kept from call to call: written as text
/// here).
const MODERN_META: &[u8] = br#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcp-client","version":"0.1.0"}}"#;

/// The 2025-11-25 handshake's request and notification.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-client","version":"0.1.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// How the caller reaches the server.
enum Link {
    /// The child's pipes.
    Stdio { rx: Receiver, tx: LineWriter },
    /// The endpoint, and what each message's routing is made from.
    Http {
        transport: HttpTransport,
        /// The negotiated revision: none before `initialize`'s reply at
        /// 2025-11-25, as the core has it.
        version: Option<ProtocolVersion>,
        /// The tool's name as the `Mcp-Name` header's text: shared from
        /// call to call, as the core shares it.
        name: Arc<str>,
        /// No extra headers (the SDK's driver passes none for a call
        /// without options).
        headers: HeaderMap,
    },
}

impl Link {
    /// Sends `message`; when it is request `id`, the result of its
    /// response (`None` for a notification).
    async fn exchange(
        &mut self,
        message: &[u8],
        id: Option<i64>,
    ) -> Result<Option<RawJson>, String> {
        match self {
            Link::Stdio { rx, tx } => {
                tx.queue(message).map_err(|e| e.to_string())?;
                poll_fn(|cx| tx.poll_flush(cx))
                    .await
                    .map_err(|e| format!("write: {e}"))?;
                match id {
                    Some(id) => result_on_pipes(rx, id).await.map(Some),
                    None => Ok(None),
                }
            }
            Link::Http {
                transport,
                version,
                name,
                headers,
            } => {
                // The routing the core gives a call: the 2026-07-28
                // headers at 2026-07-28 only (the only method sent then is
                // `tools/call`).
                let mut routing = version.clone().map(HttpRouting::new).unwrap_or_default();
                routing.request_id = id.map(RequestId::Number);
                if *version == Some(ProtocolVersion::V2026_07_28) {
                    routing = routing
                        .with_method("tools/call")
                        .with_name(Arc::clone(name));
                }
                // As the driver reserves a POST that ends with its reply:
                // not registered for the transport's cancellation.
                let slot = match transport.try_reserve_unregistered(&routing) {
                    Some(Ok(slot)) => slot,
                    Some(Err(e)) => return Err(format!("reserve: {e}")),
                    None => return Err("no free POST slot".into()),
                };
                let reply = transport
                    .send_in(slot, message, &routing, headers)
                    .await
                    .map_err(|e| format!("POST: {e}"))?;
                match id {
                    Some(id) => result_in_reply(reply, id).await.map(Some),
                    None => match reply {
                        Reply::Accepted => Ok(None),
                        other => Err(format!("unexpected reply: {other:?}")),
                    },
                }
            }
        }
    }
}

/// The result of the response to request `id` on the pipes (anything
/// before it is read past).
async fn result_on_pipes(rx: &mut Receiver, id: i64) -> Result<RawJson, String> {
    loop {
        match poll_fn(|cx| rx.poll_recv(cx)).await {
            Some(Ok(Inbound::Message(Message::Response(r)))) if r.id == RequestId::Number(id) => {
                return Ok(r.result);
            }
            Some(Ok(Inbound::Message(Message::Error(e)))) => {
                return Err(format!("error response: {}", e.error.message));
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(format!("read: {e}")),
            None => return Err("the server closed its stdout".into()),
        }
    }
}

/// The result of the response to request `id` in a POST's reply: its JSON
/// body, or read from its event stream (anything before it read past).
async fn result_in_reply(reply: Reply, id: i64) -> Result<RawJson, String> {
    let mut stream = match reply {
        Reply::Message(Message::Response(r)) if r.id == RequestId::Number(id) => {
            return Ok(r.result);
        }
        Reply::Stream(stream) => stream,
        other => return Err(format!("unexpected reply: {other:?}")),
    };
    loop {
        match stream.next().await {
            Some(Ok(Message::Response(r))) if r.id == RequestId::Number(id) => return Ok(r.result),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(format!("stream: {e}")),
            None => return Err("the stream ended without the reply".into()),
        }
    }
}

/// A stand-in for the least work an engine with deadlines, cancellation and
/// outcomes handed between tasks must do for a call, as plain code (no
/// protocol decision in it): the outcome's shared slot (an `Arc` of a
/// `Mutex`, as the SDK's exchange), the command channel's lock and the
/// driver's tried at the start and the driver's again at the reply, a clock
/// read at each, a call record of the size of the core's allocated and
/// freed, and a record table and a deadline queue, each pushed to and
/// removed from.
struct StandIn {
    channel: Mutex<()>,
    driver: Mutex<()>,
    records: VecDeque<(i64, Box<[u64; 48]>)>,
    deadlines: VecDeque<(Instant, i64)>,
    /// The call in flight and its outcome's slot.
    call: Option<(i64, Arc<Mutex<Option<i64>>>)>,
}

impl StandIn {
    /// The stand-in, when `MCP_BENCH_ENGINE_STAND_IN` is set.
    fn from_env() -> Option<StandIn> {
        std::env::var_os("MCP_BENCH_ENGINE_STAND_IN").map(|_| StandIn {
            channel: Mutex::new(()),
            driver: Mutex::new(()),
            records: VecDeque::new(),
            deadlines: VecDeque::new(),
            call: None,
        })
    }

    /// A call's start: its slot, record and deadline, under the two locks.
    #[inline(never)]
    fn start(&mut self, id: i64) {
        let slot = Arc::new(Mutex::new(None));
        let now = tokio::time::Instant::now().into_std();
        let _channel = self.channel.lock().unwrap_or_else(|e| e.into_inner());
        let _driver = self.driver.try_lock();
        self.records
            .push_back((id, std::hint::black_box(Box::new([0; 48]))));
        self.deadlines
            .push_back((now + Duration::from_secs(60), id));
        self.call = Some((id, slot));
    }

    /// A call's reply: its record and deadline gone, its outcome in its
    /// slot, under the driver's lock.
    #[inline(never)]
    fn reply(&mut self) {
        let Some((id, slot)) = self.call.take() else {
            return;
        };
        let now = tokio::time::Instant::now().into_std();
        let _driver = self.driver.try_lock();
        if let Some(at) = self.records.iter().position(|r| r.0 == id) {
            std::hint::black_box(self.records.remove(at));
        }
        self.deadlines.retain(|d| d.1 != id && d.0 > now);
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
    }
}

/// The one caller: its link and what a call reuses.
struct Parts {
    link: Link,
    next_id: i64,
    tool: &'static str,
    arguments: Value,
    expected: usize,
    modern: bool,
    /// The request, written anew for each call (its room reused).
    line: Vec<u8>,
    /// `MCP_BENCH_ENGINE_STAND_IN`'s stand-in for an engine, if set.
    stand_in: Option<StandIn>,
}

impl Parts {
    /// Writes the `tools/call` request with id `id` into `self.line`.
    fn write_request(&mut self, id: i64, call: &ToolCall) {
        let line = &mut self.line;
        line.clear();
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        // Written in place, as the SDK writes it (no string made).
        let _ = write!(line, "{id}");
        line.extend_from_slice(br#","method":"#);
        write_string(line, "tools/call");
        line.extend_from_slice(br#","params":{"name":"#);
        write_string(line, call.name());
        line.extend_from_slice(br#","arguments":"#);
        line.extend_from_slice(call.arguments().as_bytes());
        if self.modern {
            line.extend_from_slice(MODERN_META);
        }
        line.extend_from_slice(b"}}");
    }

    /// The 2025-11-25 handshake: `initialize`, then (the revision known
    /// from here on) `initialized`.
    async fn initialize(&mut self) -> Result<(), String> {
        self.link.exchange(INITIALIZE.as_bytes(), Some(0)).await?;
        if let Link::Http { version, .. } = &mut self.link {
            *version = Some(ProtocolVersion::V2025_11_25);
        }
        self.link.exchange(INITIALIZED.as_bytes(), None).await?;
        Ok(())
    }
}

impl Caller for Parts {
    async fn call(&mut self, _i: usize) -> Result<(), String> {
        let call = ToolCall::new(self.tool, &self.arguments).map_err(|e| e.to_string())?;
        let id = self.next_id;
        self.next_id += 1;
        self.write_request(id, &call);
        if let Some(e) = &mut self.stand_in {
            e.start(id);
        }
        let raw = self.link.exchange(&self.line, Some(id)).await?;
        if let Some(e) = &mut self.stand_in {
            e.reply();
        }
        let raw = raw.ok_or("no result")?;
        let result = CallToolResult::from_raw(&raw).map_err(|e| format!("decode: {e}"))?;
        let text = result.content.first().and_then(|c| c.as_text());
        measure::check_text_len(text.map(str::len), self.expected)
    }
}

fn main() {
    let args = Args::parse();
    if args.workers != 1 {
        fail("the parts client runs one call at a time only");
    }
    let arguments: Value = serde_json::from_str(&args.arguments_json())
        .unwrap_or_else(|e| fail(&format!("arguments: {e}")));
    let modern = args.era == "modern";
    let (child, pipes) = match args.via.as_str() {
        "stdio" => {
            let (child, stdin, stdout) = spawn::spawn(&args);
            (Some(child), Some((stdin, stdout)))
        }
        _ => (None, None),
    };
    args.runtime().block_on(async {
        let link = match pipes {
            Some((stdin, stdout)) => {
                let (Ok(stdin), Ok(stdout)) =
                    (ChildStdin::from_std(stdin), ChildStdout::from_std(stdout))
                else {
                    fail("the pipes on tokio")
                };
                Link::Stdio {
                    rx: Receiver::new(stdout),
                    tx: Sender::new(stdin).exclusive().await,
                }
            }
            None => Link::Http {
                transport: HttpConfig::new(&args.url)
                    .map_err(|e| e.to_string())
                    .and_then(|c| HttpTransport::new(c).map_err(|e| e.to_string()))
                    .unwrap_or_else(|e| fail(&format!("HTTP: {e}"))),
                version: modern.then_some(ProtocolVersion::V2026_07_28),
                name: Arc::from(args.tool()),
                headers: HeaderMap::new(),
            },
        };
        let mut parts = Parts {
            link,
            next_id: 1,
            tool: args.tool(),
            arguments,
            expected: args.expected_len(),
            modern,
            line: Vec::new(),
            stand_in: StandIn::from_env(),
        };
        if !modern {
            parts.initialize().await.unwrap_or_else(|e| fail(&e));
        }
        measure::bench(&args, vec![parts]).await;
    });
    if let Some(mut child) = child {
        let _ = child.kill();
        let _ = child.wait();
    }
}

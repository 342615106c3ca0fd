//! This SDK's per-call parts without its engine, for `cargo xtask bench
//! --table --parts`: one caller on its own task (as the SDK's bench
//! client's) that does a stdio `tools/call`'s work with the SDK's own
//! pieces and nothing else:
//!
//! - the arguments serialized by `mcp_core::ToolCall` (as `call_tool`
//!   does) and the request written with `mcp_types`' string writer;
//! - the line queued and written by `mcp_transport_stdio`'s `LineWriter`,
//!   the reply read, framed and its envelope walked by its `Receiver`;
//! - the result decoded by `CallToolResult::from_raw`.
//!
//! What it leaves out is the engine: the core's call records, wire ids,
//! deadlines and events, the driver's pending calls, its lease of the
//! input and its settling, and the facade's exchange and command. So the
//! column reads as the parts' cost (against the floor on tokio: the
//! runtime's) and the engine's (against the SDK's own column).
//!
//! Over stdio, one call at a time only (one caller owns the pipes); the
//! command line and output are `bench/common/measure.rs`'s.

#[path = "../../../common/measure.rs"]
mod measure;

#[path = "../../../common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

/// The server started as the floors start it (its stdout pipe grown, as
/// the SDK grows it for a large reply); the floors' handshake helpers are
/// not used here.
#[allow(dead_code)]
#[path = "floor/start.rs"]
mod start;

use std::future::poll_fn;
use std::io::Write;

use mcp_core::ToolCall;
use mcp_transport_stdio::{Inbound, LineWriter, Receiver, Sender};
use mcp_types::RequestId;
use mcp_types::jsonrpc::Message;
use mcp_types::raw::{RawJson, write_string};
use mcp_types::tools::CallToolResult;
use measure::{Args, Caller, fail};
use serde_json::Value;
use tokio::process::{ChildStdin, ChildStdout};

/// The `_meta` the SDK's client sends on every 2026-07-28 request (its
/// rendering is the engine's, kept from call to call: written as text
/// here).
const MODERN_META: &[u8] = br#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcp-client","version":"0.1.0"}}"#;

/// The 2025-11-25 handshake's request and notification (named as
/// `start.rs` names them).
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-client","version":"0.1.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The one caller: the pipes' two ends and what a call reuses.
struct Parts {
    rx: Receiver,
    tx: LineWriter,
    next_id: i64,
    tool: &'static str,
    arguments: Value,
    expected: usize,
    modern: bool,
    /// The request line, written anew for each call (its room reused).
    line: Vec<u8>,
}

impl Parts {
    /// Writes the line in `self.line`.
    async fn send(&mut self) -> Result<(), String> {
        self.tx.queue(&self.line).map_err(|e| e.to_string())?;
        poll_fn(|cx| self.tx.poll_flush(cx))
            .await
            .map_err(|e| format!("write: {e}"))
    }

    /// The result of the response to request `id` (anything before it is
    /// read past).
    async fn result_of(&mut self, id: i64) -> Result<RawJson, String> {
        loop {
            match poll_fn(|cx| self.rx.poll_recv(cx)).await {
                Some(Ok(Inbound::Message(Message::Response(r))))
                    if r.id == RequestId::Number(id) =>
                {
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
}

impl Caller for Parts {
    async fn call(&mut self, _i: usize) -> Result<(), String> {
        let call = ToolCall::new(self.tool, &self.arguments).map_err(|e| e.to_string())?;
        let id = self.next_id;
        self.next_id += 1;
        self.write_request(id, &call);
        self.send().await?;
        let raw = self.result_of(id).await?;
        let result = CallToolResult::from_raw(&raw).map_err(|e| format!("decode: {e}"))?;
        let text = result.content.first().and_then(|c| c.as_text());
        measure::check_text_len(text.map(str::len), self.expected)
    }
}

fn main() {
    let args = Args::parse();
    if args.via != "stdio" || args.workers != 1 {
        fail("the parts client runs over stdio with one caller only");
    }
    let arguments: Value = serde_json::from_str(&args.arguments_json())
        .unwrap_or_else(|e| fail(&format!("arguments: {e}")));
    let (mut child, stdin, stdout) = start::spawn(&args);
    args.runtime().block_on(async {
        let (Ok(stdin), Ok(stdout)) = (ChildStdin::from_std(stdin), ChildStdout::from_std(stdout))
        else {
            fail("the pipes on tokio")
        };
        let sender = Sender::new(stdin);
        let mut parts = Parts {
            rx: Receiver::new(stdout),
            tx: sender.exclusive().await,
            next_id: 1,
            tool: args.tool(),
            arguments,
            expected: args.expected_len(),
            modern: args.era == "modern",
            line: Vec::new(),
        };
        if !parts.modern {
            parts.line = INITIALIZE.as_bytes().to_vec();
            parts.send().await.unwrap_or_else(|e| fail(&e));
            parts.result_of(0).await.unwrap_or_else(|e| fail(&e));
            parts.line = INITIALIZED.as_bytes().to_vec();
            parts.send().await.unwrap_or_else(|e| fail(&e));
        }
        measure::bench(&args, vec![parts]).await;
    });
    let _ = child.kill();
    let _ = child.wait();
}

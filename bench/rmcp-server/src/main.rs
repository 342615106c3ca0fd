//! The server of `cargo xtask bench --table` (issue 18: "one rmcp-based
//! server for every client"): tools `echo` and `big` on rmcp's crates.io
//! release, over stdio (`--stdio`) or Streamable HTTP (`--http ADDR`), at
//! 2025-11-25 (`initialize`) and 2026-07-28 (`server/discover`, per-request
//! `_meta`) alike.
//!
//! - `echo` with `{"text": T}` returns one text block of `T`;
//! - `big` with `{"bytes": N}` returns one text block of exactly `N` bytes
//!   (the demo server's pattern, `abc...xyz0123456789` repeated).
//!
//! Over stdio the server is rmcp's `serve` on its non-blocking pipe
//! transport (`stdio_pipes`); the lifecycle follows what the client sends
//! first. Over HTTP it is rmcp's `StreamableHttpService` with its default
//! in-memory session manager, served by a bare hyper HTTP/1.1 server
//! (keep-alive, `TCP_NODELAY`) at `/mcp`; the first line on stdout is
//! `listening http://ADDR/mcp` with the bound address. The service's
//! configuration is rmcp's default but for `json_response`: a 2026-07-28
//! request (stateless) is answered with `application/json`. A 2025-11-25
//! request belongs to an `Mcp-Session-Id` session, and rmcp 3.11 answers
//! every request of a session with an SSE stream (a priming event, then
//! the response); it has no JSON option for them.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::Write;
use std::sync::Arc;

use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// `big`'s text: this pattern repeated and cut at the size asked for.
const PATTERN: &str = "abcdefghijklmnopqrstuvwxyz0123456789";

/// The largest result `big` returns (as the demo server: 64 MiB).
const MAX_BIG: u64 = 64 * 1024 * 1024;

/// The server: its two tools' definitions, shared by every session.
#[derive(Clone)]
struct Bench {
    tools: Arc<[Tool; 2]>,
}

fn schema(value: serde_json::Value) -> Arc<JsonObject> {
    match value {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => unreachable!("a schema is an object"),
    }
}

impl Bench {
    fn new() -> Bench {
        let echo = Tool::new(
            "echo",
            "Returns `text` as a text result.",
            schema(json!({
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            })),
        );
        let big = Tool::new(
            "big",
            "Returns a text result of exactly `bytes` bytes (at most 64 MiB).",
            schema(json!({
                "type": "object",
                "properties": {
                    "bytes": { "type": "integer", "minimum": 0, "maximum": MAX_BIG }
                },
                "required": ["bytes"]
            })),
        );
        Bench {
            tools: Arc::new([echo, big]),
        }
    }
}

fn invalid(message: &'static str) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-bench-server", "0.0.0"))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.as_ref();
        let text = match request.name.as_ref() {
            "echo" => args
                .and_then(|a| a.get("text"))
                .and_then(|t| t.as_str())
                .ok_or_else(|| invalid("echo needs a string `text`"))?
                .to_owned(),
            "big" => {
                let n = args
                    .and_then(|a| a.get("bytes"))
                    .and_then(|b| b.as_u64())
                    .filter(|n| *n <= MAX_BIG)
                    .ok_or_else(|| invalid("big needs an integer `bytes` up to 64 MiB"))?;
                let n = usize::try_from(n).map_err(|_| invalid("too big"))?;
                let mut text = PATTERN.repeat(n / PATTERN.len() + 1);
                text.truncate(n);
                text
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    format!("no tool {:?}", request.name),
                    None,
                ));
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [rmcp::model::ProtocolVersion]> {
        // rmcp's default: every revision it knows, 2025-11-25 and
        // 2026-07-28 among them.
        Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
    }
}

/// Serves one client over stdin/stdout until it closes them.
async fn serve_stdio() -> Result<(), String> {
    let service = Bench::new()
        .serve(rmcp::transport::io::stdio_pipes())
        .await
        .map_err(|e| format!("serve: {e}"))?;
    service.waiting().await.map_err(|e| format!("serve: {e}"))?;
    Ok(())
}

type Body = BoxBody<Bytes, Infallible>;

fn not_found() -> Response<Body> {
    let mut response =
        Response::new(http_body_util::Full::new(Bytes::from_static(b"Not Found")).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Serves Streamable HTTP at `http://ADDR/mcp` until killed.
async fn serve_http(addr: &str) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("bind {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("local address: {e}"))?;
    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let service: StreamableHttpService<Bench, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(Bench::new()), Default::default(), config);
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening http://{local}/mcp")
            .and_then(|()| out.flush())
            .map_err(|e| format!("stdout: {e}"))?;
    }
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("rmcp-bench-server: accept: {e}");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                async move {
                    if request.uri().path() == "/mcp" {
                        Ok::<_, Infallible>(service.handle(request).await)
                    } else {
                        Ok(not_found())
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => None,
        ["--http", addr] => Some(addr.to_owned()),
        _ => {
            eprintln!("usage: rmcp-bench-server --stdio | --http ADDR");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| {
            eprintln!("rmcp-bench-server: runtime: {e}");
            std::process::exit(1);
        });
    let result = runtime.block_on(async {
        match mode {
            None => serve_stdio().await,
            Some(addr) => serve_http(&addr).await,
        }
    });
    if let Err(e) = result {
        eprintln!("rmcp-bench-server: {e}");
        std::process::exit(1);
    }
}

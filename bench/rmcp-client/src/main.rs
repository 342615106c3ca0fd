//! The rmcp bench client of `cargo xtask bench`: `tools/call` through
//! rmcp's client (its crates.io release), over stdio (rmcp's child-process
//! transport) or Streamable HTTP (rmcp's reqwest transport), at 2025-11-25
//! (`initialize`) or 2026-07-28 (`server/discover`).
//!
//! Over HTTP, by default rmcp's own client (which keeps no idle connection:
//! a TCP connection per POST); `--pooled` passes one reused
//! `reqwest::Client` instead. `max_concurrent_requests` is raised to the
//! number of callers so 32 calls can be in flight (rmcp's default is 16).
//! The command line and output are `bench/common/measure.rs`'s.

#[path = "../../common/measure.rs"]
mod measure;

#[path = "../../common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

use measure::{Args, Caller, fail};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

/// One caller: a clone of the connection's peer.
struct RmcpCaller {
    peer: Peer<RoleClient>,
    tool: &'static str,
    arguments: serde_json::Map<String, serde_json::Value>,
    expected: usize,
}

impl Caller for RmcpCaller {
    async fn call(&mut self, _i: usize) -> Result<(), String> {
        let params = CallToolRequestParams::new(self.tool).with_arguments(self.arguments.clone());
        let result = self
            .peer
            .call_tool(params)
            .await
            .map_err(|e| e.to_string())?;
        let text = result.content.first().and_then(|c| c.as_text());
        measure::check_text_len(text.map(|t| t.text.len()), self.expected)
    }
}

fn lifecycle(args: &Args) -> ClientLifecycleMode {
    if args.era == "modern" {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    }
}

async fn connect(args: &Args) -> RunningService<RoleClient, ()> {
    let result = if args.via == "http" {
        let mut config = StreamableHttpClientTransportConfig::default();
        config.uri = args.url.as_str().into();
        config.max_concurrent_requests = args.workers.max(16);
        let transport = if args.pooled {
            StreamableHttpClientTransport::with_client(reqwest::Client::new(), config)
        } else {
            StreamableHttpClientTransport::from_config(config)
        };
        ().serve_with_lifecycle(transport, lifecycle(args)).await
    } else {
        let mut cmd = tokio::process::Command::new(&args.server[0]);
        cmd.args(&args.server[1..]);
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| fail(&format!("spawn the server: {e}")));
        ().serve_with_lifecycle(transport, lifecycle(args)).await
    };
    result.unwrap_or_else(|e| fail(&format!("connect: {e}")))
}

fn main() {
    let args = Args::parse();
    let arguments = match serde_json::from_str(&args.arguments_json()) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => fail("arguments are not an object"),
    };
    args.runtime().block_on(async {
        let service = connect(&args).await;
        let callers = (0..args.workers)
            .map(|_| RmcpCaller {
                peer: service.peer().clone(),
                tool: args.tool(),
                arguments: arguments.clone(),
                expected: args.expected_len(),
            })
            .collect();
        measure::bench(&args, callers).await;
        let _ = service.cancel().await;
    });
}

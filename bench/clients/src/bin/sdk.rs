//! This SDK's bench client for `cargo xtask bench`: `tools/call` through
//! `mcp_client::Client` (one connection, cloned per caller) over stdio or
//! Streamable HTTP, at 2025-11-25 or 2026-07-28, on tokio's current-thread
//! (`--runtime ct`) or multi-thread (`--runtime mt`) runtime. The command
//! line and output are `bench/common/measure.rs`'s.

#[path = "../../../common/measure.rs"]
mod measure;

#[path = "../../../common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

use mcp_client::{Client, EraPreference, ServerCommand, StderrMode};
use measure::{Args, Caller, fail};
use serde_json::Value;

/// One caller: a clone of the client.
struct SdkCaller {
    client: Client,
    tool: &'static str,
    arguments: Value,
    expected: usize,
}

impl Caller for SdkCaller {
    async fn call(&mut self, _i: usize) -> Result<(), String> {
        let result = self
            .client
            .call_tool(self.tool, &self.arguments)
            .await
            .map_err(|e| e.to_string())?;
        let text = result.content.first().and_then(|c| c.as_text());
        measure::check_text_len(text.map(str::len), self.expected)
    }
}

async fn connect(args: &Args) -> Client {
    let era = if args.era == "modern" {
        EraPreference::ModernOnly
    } else {
        EraPreference::LegacyOnly
    };
    let builder = Client::builder().era(era);
    let builder = if args.via == "http" {
        builder.http(&args.url)
    } else {
        builder.stdio(
            ServerCommand::new(&args.server[0])
                .args(&args.server[1..])
                .stderr(StderrMode::Discard),
        )
    };
    builder
        .connect()
        .await
        .unwrap_or_else(|e| fail(&format!("connect: {e}")))
}

fn main() {
    let args = Args::parse();
    let arguments: Value = serde_json::from_str(&args.arguments_json())
        .unwrap_or_else(|e| fail(&format!("arguments: {e}")));
    args.runtime().block_on(async {
        let client = connect(&args).await;
        let callers = (0..args.workers)
            .map(|_| SdkCaller {
                client: client.clone(),
                tool: args.tool(),
                arguments: arguments.clone(),
                expected: args.expected_len(),
            })
            .collect();
        measure::bench(&args, callers).await;
        client.close().await;
    });
}

//! Read tool results as Rust types: `structuredContent` decoded with serde,
//! and text content blocks.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example typed_results
//! ```

mod support;

use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::{Client, ServerCommand};
use serde_json::json;
use support::{Failure, demo_server, expect};

/// The shape of the demo `add` tool's `structuredContent`. Any type that
/// implements `serde::Deserialize` works (derive it with serde's `derive`
/// feature in your crate); this example decodes into `serde_json::Value`
/// and a map to stay within `mcp_client`, `serde_json` and `tokio`.
type Sum = std::collections::BTreeMap<String, f64>;

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let client = Client::builder()
        .stdio(ServerCommand::new(demo_server()?).arg("--stdio"))
        .connect()
        .await?;

    // 1. The whole result, then its parts.
    let result = client.call_tool("add", json!({ "a": 2, "b": 3 })).await?;
    expect(!result.is_error(), "add succeeds")?;
    // `structured_as` decodes `structuredContent` (Ok(None) when absent).
    let sum: Option<Sum> = result.structured_as()?;
    println!("structured: {sum:?}");
    expect(
        sum.and_then(|s| s.get("sum").copied()) == Some(5.0),
        "sum is 5",
    )?;
    // Content blocks are an enum; `as_text` picks the text ones.
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect();
    println!("text: {texts:?}");
    expect(texts == [r#"{"sum":5.0}"#], "one text block")?;

    // 2. One step: serialize the arguments, decode `structuredContent`.
    let sum: Sum = client
        .call_tool_typed("add", &json!({ "a": 40, "b": 2 }))
        .await?;
    expect(
        sum.get("sum") == Some(&42.0),
        "call_tool_typed decodes the sum",
    )?;

    // 3. A tool without structured content: decoding says so, typed.
    let err = client
        .call_tool_typed::<_, Sum>("echo", &json!({ "text": "hi" }))
        .await
        .err()
        .ok_or("echo has no structured content")?;
    println!("as expected: {err}");
    expect(
        err.is_protocol_violation(),
        "missing structuredContent is a typed error",
    )?;

    client.close().await;
    Ok(())
}

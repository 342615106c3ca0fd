//! Connect to a server over stdio, list its tools, call one, and close.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example stdio
//! ```
//!
//! The client starts the server as a child process and speaks
//! newline-delimited JSON-RPC over its stdin and stdout. The protocol era
//! (2025-11-25 or 2026-07-28) is negotiated for you.

mod support;

use mcp_client::{Client, ServerCommand, StderrMode};
use support::{Failure, demo_server, expect};

#[tokio::main]
async fn main() -> Result<(), Failure> {
    // What to run: a program and its arguments. The server's stderr goes to
    // ours here; the default captures its tail for error messages instead.
    let command = ServerCommand::new(demo_server()?)
        .arg("--stdio")
        .stderr(StderrMode::Inherit);

    // `connect` starts the process and does the handshake.
    let client = Client::builder()
        .stdio(command)
        .client_info("stdio-example", "1.0.0")
        .connect()
        .await?;
    let info = client.server_info().ok_or("no server info after connect")?;
    println!(
        "connected to {} {} ({:?})",
        info.name,
        info.version,
        client.era()
    );

    // Listing follows pagination cursors until the last page.
    let tools = client.list_all_tools().await?;
    println!("{} tools", tools.len());
    expect(tools.iter().any(|t| t.name == "echo"), "an `echo` tool")?;

    // Arguments are any JSON object.
    let result = client
        .call_tool("echo", serde_json::json!({ "text": "hello" }))
        .await?;
    let text = result.content.first().and_then(|block| block.as_text());
    println!("echo said {text:?}");
    expect(text == Some("hello"), "echo returns its text")?;

    // Ends the session and waits for the child to exit.
    client.close().await;
    Ok(())
}

//! Tell failures apart with the `Error` predicates instead of matching on
//! message text.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example errors
//! ```
//!
//! Every fallible call returns the one opaque `mcp_client::Error`; ask it
//! what happened (`is_timeout`, `is_cancelled`, `remote_error`,
//! `is_tool_error`, `is_usage`, `is_transport`, `server_exit`, ...).

mod support;

use mcp_client::mcp_types::ErrorCode;
use mcp_client::{Client, Error, HttpConfig, ServerCommand};
use serde_json::json;
use support::{Failure, demo_server, expect};

/// What a host might do with each kind of failure.
fn describe(err: &Error) -> String {
    if let Some(remote) = err.remote_error() {
        // The server answered with a JSON-RPC error.
        format!("server error {}: {}", remote.code.0, remote.message)
    } else if err.is_tool_error() {
        // The tool ran and reported `isError: true` (typed calls only; a
        // plain `call_tool` returns it as a result with `is_error()`).
        format!("tool failed: {err}")
    } else if err.is_timeout() || err.is_cancelled() {
        format!("gave up: {err}")
    } else if err.is_usage() {
        // Our own mistake: nothing was sent.
        format!("bad call: {err}")
    } else if err.is_closed() {
        // `close` was called, or the connection ended earlier.
        format!("closed: {err}")
    } else if let Some(exit) = err.server_exit() {
        // A stdio server process ended; its exit status and stderr tail.
        format!("server exited: {exit}")
    } else if err.is_transport() {
        format!("connection problem: {err}")
    } else {
        format!("other: {err}")
    }
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let client = Client::builder()
        .stdio(ServerCommand::new(demo_server()?).arg("--stdio"))
        .connect()
        .await?;

    // An unknown tool: the server answers -32602 (invalid params).
    let err = client
        .call_tool("no_such_tool", json!({}))
        .await
        .err()
        .ok_or("unknown tool")?;
    println!("{}", describe(&err));
    let code = err.remote_error().map(|e| e.code);
    expect(
        code == Some(ErrorCode::INVALID_PARAMS),
        "remote_error with -32602",
    )?;

    // A tool that reports failure: a result with `is_error()`, or with a
    // typed call an error for which `is_tool_error` holds.
    let result = client
        .call_tool("fail", json!({ "message": "disk full" }))
        .await?;
    expect(result.is_error(), "CallToolResult::is_error")?;
    let err = client
        .call_tool_typed::<_, serde_json::Value>("fail", &json!({ "message": "disk full" }))
        .await
        .err()
        .ok_or("a failing tool is an error on a typed call")?;
    println!("{}", describe(&err));
    expect(err.is_tool_error(), "Error::is_tool_error")?;
    client.close().await;

    // Calls after `close` fail without touching the network.
    let err = client
        .list_all_tools()
        .await
        .err()
        .ok_or("a call after close")?;
    println!("{}", describe(&err));
    expect(err.is_closed(), "Error::is_closed")?;

    // Setup mistakes are typed too and convert with `?` into `Error`.
    let err = Error::from(HttpConfig::new("not a url").err().ok_or("bad URL")?);
    println!("{}", describe(&err));
    expect(err.is_usage(), "a bad URL is a usage error")?;

    // A server that cannot start (or dies) is a transport failure.
    let err = Client::builder()
        .stdio(ServerCommand::new("/nonexistent/mcp-server"))
        .connect()
        .await
        .err()
        .ok_or("a missing server binary")?;
    println!("{}", describe(&err));
    expect(err.is_transport(), "Error::is_transport")?;
    Ok(())
}

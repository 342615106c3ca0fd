//! Follow a long call's progress, bound it with a timeout, and cancel a
//! call you no longer want.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example progress_cancel
//! ```
//!
//! The demo server's `slow_count` tool counts to `count`, waiting
//! `delay_ms` between steps and reporting progress after each.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{CallOptions, Client, ServerCommand};
use serde_json::json;
use support::{Failure, demo_server, expect};

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let client = Client::builder()
        .stdio(ServerCommand::new(demo_server()?).arg("--stdio"))
        .connect()
        .await?;

    // 1. Progress: the callback runs for each `notifications/progress` of
    //    this call (the client adds the progress token for you).
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions::new().on_progress(move |p| {
        println!("progress {}/{:?} {:?}", p.progress, p.total, p.message);
        sink.lock().expect("progress list").push(p.progress);
    });
    let args = json!({ "count": 3, "delay_ms": 20 });
    client.call_tool_with("slow_count", args, options).await?;
    let seen = seen.lock().expect("progress list").clone();
    expect(seen == [1.0, 2.0, 3.0], "three progress reports, in order")?;

    // 2. Timeout: every request has a deadline (the builder's
    //    `request_timeout`, or per call). When it passes, the call fails and
    //    the server is told to stop.
    let options = CallOptions::new().with_timeout(Duration::from_millis(100));
    let args = json!({ "count": 5, "delay_ms": 1000 });
    let err = client
        .call_tool_with("slow_count", args, options)
        .await
        .err()
        .ok_or("the slow call should have timed out")?;
    println!("timed out: {err}");
    expect(err.is_timeout(), "Error::is_timeout")?;

    // 3. Cancellation: start a call without waiting, then cancel it by id
    //    (dropping the handle, or the future of any call, cancels it too).
    let slow = client.start_request(
        "tools/call",
        Some(json!({ "name": "slow_count", "arguments": { "count": 5, "delay_ms": 1000 } })),
    );
    let id = slow.id().await.ok_or("the request was never sent")?;
    client.cancel_request(&id).await?;
    let err = slow.await.err().ok_or("a cancelled call has no result")?;
    println!("cancelled: {err}");
    expect(err.is_cancelled(), "Error::is_cancelled")?;

    // The connection is still fine afterwards.
    let result = client
        .call_tool("echo", json!({ "text": "still here" }))
        .await?;
    expect(!result.is_error(), "the connection survives a cancellation")?;
    client.close().await;
    Ok(())
}

//! Drive the sans-I/O engine (`mcp-core`) yourself, with a transport of
//! your own: here a child process and tokio pipes, written by hand.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example raw_core
//! ```
//!
//! `mcp_client::Client` does all of this for you; write this loop only when
//! you need the engine inside another event loop (a game loop, an embedded
//! runtime, a simulator). Your crate then depends on `mcp-core` directly:
//! `mcp_client` does not re-export it. The engine never does I/O and never
//! reads a clock: you hand it bytes and the current time, and after every
//! call you follow the **drain rule**: take every transmit, then every
//! event, then arm one timer at `poll_timeout`.

mod support;

use std::process::Stdio;
use std::time::Duration;

use mcp_client::mcp_types::Message;
use mcp_client::mcp_types::tools::CallToolResult;
use mcp_core::{Config, Connection, Event, Transmit};
use support::{Failure, demo_server, expect};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::time::Instant;

#[tokio::main]
async fn main() -> Result<(), Failure> {
    // The transport: newline-delimited JSON over the child's stdin/stdout.
    let mut child = Command::new(demo_server()?)
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut to_server = child.stdin.take().ok_or("no stdin")?;
    let mut from_server = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();

    let mut conn = Connection::new(Config::new("raw-core-example", "1.0.0"));
    conn.connect(Instant::now().into_std())?;
    let mut echo_call = None;
    let mut answer = None;
    while answer.is_none() {
        // 1. Drain transmits: write each message, one per line.
        while let Some(transmit) = conn.poll_transmit() {
            if let Transmit::Message { bytes, .. } = transmit {
                to_server.write_all(&bytes).await?;
                to_server.write_all(b"\n").await?;
            }
        }
        to_server.flush().await?;
        // 2. Drain events. A command issued here (the call below) queues
        //    new transmits, so the loop goes back to step 1 before waiting.
        let mut commanded = false;
        while let Some(event) = conn.poll_event() {
            match event {
                Event::Connected { version, .. } => {
                    println!("connected, protocol {version}");
                    let args = serde_json::json!({ "text": "from the raw loop" });
                    let now = Instant::now().into_std();
                    echo_call = Some(conn.call_tool(now, "echo", args, Default::default())?);
                    commanded = true;
                }
                Event::Response(done) if Some(&done.id) == echo_call.as_ref() => {
                    answer = Some(done.decode::<CallToolResult>()?);
                }
                Event::ConnectFailed(e) => return Err(e.into()),
                Event::RequestFailed { error, .. } => return Err(error.into()),
                other => println!("event: {other:?}"),
            }
        }
        if answer.is_some() {
            break;
        }
        if commanded {
            continue;
        }
        // 3. Wait for a line from the server or the engine's next deadline.
        let deadline = conn.poll_timeout().map(|(at, _why)| Instant::from_std(at));
        let far = Instant::now() + Duration::from_secs(3600);
        tokio::select! {
            line = from_server.next_line() => {
                let line = line?.ok_or("the server closed its stdout")?;
                conn.handle_message(Instant::now().into_std(), Message::from_slice(line.as_bytes())?);
            }
            () = tokio::time::sleep_until(deadline.unwrap_or(far)) => {
                conn.handle_timeout(Instant::now().into_std());
            }
        }
    }

    let result = answer.ok_or("no answer")?;
    let text = result.content.first().and_then(|b| b.as_text());
    println!("echo said {text:?}");
    expect(
        text == Some("from the raw loop"),
        "the echo came back through the engine",
    )?;
    // Closing stdin ends a stdio server.
    conn.close(Instant::now().into_std());
    drop(to_server);
    let status = child.wait().await?;
    println!("server exited: {status}");
    Ok(())
}

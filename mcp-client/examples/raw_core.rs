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
//!
//! The loop calls `echo`, then `list_roots`, whose server asks the client
//! for its roots: a 2026-07-28 server inside the call
//! (`Event::InputRequested`, answered with `answer_input_with`), a
//! 2025-11-25 server as a request of its own (`Event::ServerRequest`,
//! answered with `respond_to::<ListRoots>`). Both typed answers take the
//! `mcp_types` result and serialize it for you.

mod support;

use std::process::Stdio;
use std::time::Duration;

use mcp_client::mcp_types::Message;
use mcp_client::mcp_types::incoming::ServerRequest;
use mcp_client::mcp_types::methods::v2025_11_25::ListRoots;
use mcp_client::mcp_types::roots::{ListRootsResult, Root};
use mcp_client::mcp_types::tools::CallToolResult;
use mcp_core::{ClientFeatures, Config, Connection, Event, Transmit};
use support::{Failure, demo_server, expect};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::time::Instant;

/// The roots this client shows the server.
fn roots() -> ListRootsResult {
    ListRootsResult::new(vec![Root::new("file:///work/raw-core")])
}

/// What the loop is doing.
#[derive(Default)]
struct Calls {
    echo: Option<mcp_client::mcp_types::RequestId>,
    roots_call: Option<mcp_client::mcp_types::RequestId>,
    echoed: Option<CallToolResult>,
    listed: Option<CallToolResult>,
}

/// Handles one event; `Ok(true)` when it issued a command (new transmits
/// wait, so the loop drains again before it waits).
fn on_event(conn: &mut Connection, state: &mut Calls, event: Event) -> Result<bool, Failure> {
    let now = Instant::now().into_std();
    match event {
        Event::Connected { version, .. } => {
            println!("connected, protocol {version}");
            let args = serde_json::json!({ "text": "from the raw loop" });
            state.echo = Some(conn.call_tool(now, "echo", args, Default::default())?);
        }
        Event::Response(done) if Some(&done.id) == state.echo.as_ref() => {
            state.echoed = Some(done.decode::<CallToolResult>()?);
            let args = serde_json::json!({});
            state.roots_call = Some(conn.call_tool(now, "list_roots", args, Default::default())?);
        }
        Event::Response(done) if Some(&done.id) == state.roots_call.as_ref() => {
            state.listed = Some(done.decode::<CallToolResult>()?);
            return Ok(false);
        }
        // 2026-07-28: the call itself needs the roots.
        Event::InputRequested {
            id,
            key,
            request: ServerRequest::ListRoots(_),
        } => {
            conn.answer_input_with(now, &id, &key, &roots())?;
        }
        // 2025-11-25: the server asks with a request of its own.
        Event::ServerRequest {
            id,
            request: ServerRequest::ListRoots(_),
        } => {
            conn.respond_to::<ListRoots>(now, &id, Ok(roots()))?;
        }
        Event::ConnectFailed(e) => return Err(e.into()),
        Event::RequestFailed { error, .. } => return Err(error.into()),
        other => {
            println!("event: {other:?}");
            return Ok(false);
        }
    }
    Ok(true)
}

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

    // Declaring roots lets the server ask for them.
    let features = ClientFeatures::default().with_roots(false);
    let config = Config::new("raw-core-example", "1.0.0").with_features(features);
    let mut conn = Connection::new(config);
    conn.connect(Instant::now().into_std())?;
    let mut state = Calls::default();
    while state.listed.is_none() {
        // 1. Drain transmits: write each message, one per line.
        while let Some(transmit) = conn.poll_transmit() {
            if let Transmit::Message { bytes, .. } = transmit {
                to_server.write_all(&bytes).await?;
                to_server.write_all(b"\n").await?;
            }
        }
        to_server.flush().await?;
        // 2. Drain events. A command issued here queues new transmits, so
        //    the loop goes back to step 1 before waiting.
        let mut commanded = false;
        while let Some(event) = conn.poll_event() {
            commanded |= on_event(&mut conn, &mut state, event)?;
        }
        if commanded || state.listed.is_some() {
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

    let text = |r: &Option<CallToolResult>| {
        let block = r.as_ref().and_then(|r| r.content.first());
        block.and_then(|b| b.as_text()).map(str::to_owned)
    };
    let (echoed, listed) = (text(&state.echoed), text(&state.listed));
    println!("echo said {echoed:?}; list_roots said {listed:?}");
    expect(
        echoed.as_deref() == Some("from the raw loop"),
        "the echo came back through the engine",
    )?;
    expect(
        listed.as_deref() == Some("1 roots: file:///work/raw-core"),
        "the server read the typed roots answer",
    )?;
    // Closing stdin ends a stdio server.
    conn.close(Instant::now().into_std());
    drop(to_server);
    let status = child.wait().await?;
    println!("server exited: {status}");
    Ok(())
}

//! Bring your own transport: implement `mcp_client::Transport` (send one
//! JSON-RPC message, receive the next) and hand it to the builder.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example custom_transport
//! ```
//!
//! This one runs the demo server as a child process and frames messages as
//! lines, and it counts the messages each way, so you can see where a
//! WebSocket, an in-process channel or a logging layer would go. (For any
//! plain byte stream, `ClientBuilder::io` does the framing for you.)

mod support;

use std::io;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_client::mcp_types::Message;
use mcp_client::{Client, Transport, TransportFuture};
use support::{Failure, demo_server, expect};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use tokio::sync::mpsc;

/// Messages counted each way.
#[derive(Default)]
struct Counters {
    sent: AtomicUsize,
    received: AtomicUsize,
}

/// A line-framed transport over a child process.
struct ChildTransport {
    /// Outgoing messages, written to the child's stdin by a writer task
    /// (`send` must not borrow `self`, so it hands off to the task).
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    /// The child's stdout, one message per line (`next_line` is
    /// cancel-safe, as `recv` must be).
    lines: Lines<BufReader<ChildStdout>>,
    counters: Arc<Counters>,
    _child: Child,
}

impl ChildTransport {
    fn spawn(mut command: Command, counters: Arc<Counters>) -> io::Result<Self> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut stdin = child.stdin.take().ok_or(io::ErrorKind::BrokenPipe)?;
        let stdout = child.stdout.take().ok_or(io::ErrorKind::BrokenPipe)?;
        let (outgoing, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(mut line) = queue.recv().await {
                line.push(b'\n');
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin here tells the server to exit.
        });
        Ok(Self {
            outgoing,
            lines: BufReader::new(stdout).lines(),
            counters,
            _child: child,
        })
    }
}

impl Transport for ChildTransport {
    fn send(&self, message: Vec<u8>) -> TransportFuture<'static, io::Result<()>> {
        self.counters.sent.fetch_add(1, Ordering::Relaxed);
        let queued = self
            .outgoing
            .send(message)
            .map_err(|_| io::ErrorKind::BrokenPipe.into());
        Box::pin(std::future::ready(queued))
    }

    fn recv(&mut self) -> TransportFuture<'_, Option<io::Result<Message>>> {
        Box::pin(async move {
            let line = match self.lines.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => return None, // the server closed its stdout
                Err(e) => return Some(Err(e)),
            };
            self.counters.received.fetch_add(1, Ordering::Relaxed);
            // A line that is no JSON-RPC message is an error the client reports.
            Some(Message::from_slice(line.as_bytes()).map_err(io::Error::other))
        })
    }

    fn close(&mut self) -> TransportFuture<'_, ()> {
        // Closing our sender ends the writer task, which closes stdin.
        let (closed, _) = mpsc::unbounded_channel();
        self.outgoing = closed;
        Box::pin(std::future::ready(()))
    }
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let counters = Arc::new(Counters::default());
    let mut command = Command::new(demo_server()?);
    command.arg("--stdio");
    let transport = ChildTransport::spawn(command, Arc::clone(&counters))?;

    // The client runs the same lifecycle over it as over stdio.
    let client = Client::builder().transport(transport).connect().await?;
    let result = client
        .call_tool("echo", serde_json::json!({ "text": "hi" }))
        .await?;
    expect(
        result.content.first().and_then(|b| b.as_text()) == Some("hi"),
        "echo through the custom transport",
    )?;
    client.close().await;

    let (sent, received) = (
        counters.sent.load(Ordering::Relaxed),
        counters.received.load(Ordering::Relaxed),
    );
    println!("{sent} messages sent, {received} received");
    expect(
        sent >= 2 && received >= 2,
        "the handshake and the call went through us",
    )?;
    Ok(())
}

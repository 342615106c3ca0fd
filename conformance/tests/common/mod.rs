//! What the interop test binaries share: the peers' locations from the
//! environment, a peer process listening on loopback, and small call
//! helpers.
#![allow(dead_code, unreachable_pub, reason = "each test binary uses a subset")]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::mcp_types::tools::CallToolResult;
use mcp_client::{Client, HandlerError};
use serde_json::Value;

/// How long a peer may take to start listening.
pub const STARTUP: Duration = Duration::from_secs(30);
/// Every request's deadline.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// The path in this environment variable; panics when it is not set.
pub fn env_path(name: &str) -> PathBuf {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => panic!("{name} is not set: run the interop tests with `cargo xtask interop`"),
    }
}

/// A peer server process listening on 127.0.0.1, killed on drop.
pub struct HttpPeer {
    child: Child,
    /// The peer's URL with the path `/mcp`.
    pub url: String,
}

impl HttpPeer {
    /// Starts `command` (already told to listen on `port`) and waits until
    /// the port accepts connections.
    pub fn start(mut command: Command, port: u16) -> HttpPeer {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the peer starts");
        let mut peer = HttpPeer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            if let Ok(Some(status)) = peer.child.try_wait() {
                panic!("the peer on port {port} exited before listening: {status}");
            }
            assert!(
                started.elapsed() < STARTUP,
                "the peer did not listen on {addr} within {STARTUP:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        peer
    }

    /// The peer's URL with this path instead of `/mcp`.
    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url.trim_end_matches("/mcp"))
    }
}

impl Drop for HttpPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (released just before the peer binds it).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

/// Answers a sampling request with a fixed text.
pub async fn answer_sampling(
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, HandlerError> {
    assert!(!params.messages.is_empty(), "sampling carries messages");
    Ok(CreateMessageResult::new(
        ContentBlock::text("a short summary"),
        "interop-model",
    ))
}

/// The text blocks of a tool result, one per line.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls a tool that must succeed; returns its text.
pub async fn call(client: &Client, tool: &str, arguments: Value) -> String {
    let result = client
        .call_tool(tool, arguments)
        .await
        .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"));
    assert_ne!(result.is_error, Some(true), "{tool}: {}", text(&result));
    text(&result)
}

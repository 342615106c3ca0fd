//! What the interop test binaries share: the peers' locations from the
//! environment, a peer process listening on loopback, and small call
//! helpers.
#![allow(dead_code, unreachable_pub, reason = "each test binary uses a subset")]

use std::collections::BTreeSet;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
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
    /// the port accepts connections, and (where `/proc` tells) until it is
    /// this child that listens there, not another process that took the
    /// port first.
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
        loop {
            let accepts = TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok();
            if accepts && listens_there(peer.child.id(), port).unwrap_or(true) {
                return peer;
            }
            if let Ok(Some(status)) = peer.child.try_wait() {
                panic!("the peer on port {port} exited before listening: {status}");
            }
            assert!(
                started.elapsed() < STARTUP,
                "the peer did not listen on {addr} within {STARTUP:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
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

/// Whether process `pid` holds a socket listening on TCP `port`: `None`
/// where `/proc` does not say (not Linux).
fn listens_there(pid: u32, port: u16) -> Option<bool> {
    let suffix = format!(":{port:04X}");
    let mut inodes = Vec::new();
    let tables = ["/proc/net/tcp", "/proc/net/tcp6"].map(std::fs::read_to_string);
    if tables.iter().all(Result::is_err) {
        return None;
    }
    for text in tables.iter().flatten() {
        for line in text.lines().skip(1) {
            // sl local_address rem_address st ... uid timeout inode
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() > 9 && fields[1].ends_with(&suffix) && fields[3] == "0A" {
                inodes.push(format!("socket:[{}]", fields[9]));
            }
        }
    }
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    Some(fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|link| {
            inodes
                .iter()
                .any(|inode| link.as_os_str() == inode.as_str())
        })
    }))
}

/// A free loopback port that no other peer of this test binary was given.
///
/// The port is released just before the peer binds it, and the system may
/// hand a released port out again: two tests running at once could then
/// start their peers on one port, one peer failing to bind while its test
/// talks to the other's (and meets a refused connection when that test ends
/// and kills it). Each port is therefore given out once a process.
pub fn free_port() -> u16 {
    static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        if GIVEN.lock().expect("the ports given").insert(port) {
            return port;
        }
    }
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

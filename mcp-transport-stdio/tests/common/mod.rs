//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use mcp_transport_stdio::{Inbound, RecvError, ServerCommand, ShutdownTimeouts, StdioTransport};
use mcp_types::Message;

pub const TIMEOUT: Duration = Duration::from_secs(10);

pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The python test server with `args`.
pub fn server(args: &[&str]) -> ServerCommand {
    ServerCommand::new("python3")
        .arg(fixture("server.py"))
        .args(args)
        .shutdown_timeouts(fast_shutdown())
}

pub fn fast_shutdown() -> ShutdownTimeouts {
    ShutdownTimeouts::default()
        .with_after_stdin_close(Duration::from_millis(1500))
        .with_after_terminate(Duration::from_millis(300))
        .with_after_kill(Duration::from_secs(2))
}

pub fn request(id: i64, method: &str, params: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": method, "params": params
    }))
    .expect("serializable")
}

/// Every item until the first message (inclusive), with a time bound.
pub async fn until_message(t: &mut StdioTransport) -> (Vec<Inbound>, Message) {
    let mut others = Vec::new();
    loop {
        let item = tokio::time::timeout(TIMEOUT, t.recv())
            .await
            .expect("no message within the time bound")
            .expect("stream ended");
        match item.expect("connection failed") {
            Inbound::Message(m) => return (others, m),
            other => others.push(other),
        }
    }
}

/// The error that ends the stream, skipping everything before it.
pub async fn end_error(t: &mut StdioTransport) -> RecvError {
    loop {
        let item = tokio::time::timeout(TIMEOUT, t.recv())
            .await
            .expect("stream did not end within the time bound")
            .expect("stream ended without an error");
        if let Err(e) = item {
            return e;
        }
    }
}

/// `kill -0 pid` succeeds and the process is not a zombie.
pub fn pid_alive(pid: u32) -> bool {
    let ok = std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return false;
    }
    // Under an init that does not reap, killed orphans stay zombies.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.trim_start().chars().next());
            state != Some('Z')
        }
        Err(_) => false,
    }
}

/// Polls until `pid` is gone, up to `limit`.
pub async fn wait_dead(pid: u32, limit: Duration) -> bool {
    let end = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < end {
        if !pid_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !pid_alive(pid)
}

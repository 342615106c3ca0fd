//! `cargo xtask interop`: our client against servers nobody here wrote.
//!
//! Installs the peers (see [`crate::install`]), prints their versions, checks
//! that each one starts and answers `initialize` over stdio and reports
//! whether it also answers the modern `server/discover` (so a broken peer
//! install is reported as such, not as a client bug), lints the interop
//! target with clippy (the workspace-wide clippy of `cargo xtask ci` does
//! not enable its feature), then runs
//!
//! ```text
//! cargo test -p conformance --features interop --test interop --test interop_sse
//! ```
//!
//! with the peers' locations in the environment:
//!
//! | variable | value |
//! | --- | --- |
//! | `MCP_INTEROP_NODE` | the Node 22 executable |
//! | `MCP_INTEROP_EVERYTHING` | server-everything's `dist/index.js` (run as `node <it> stdio`, or `node <it> streamableHttp` or `node <it> sse` with `PORT`) |
//! | `MCP_INTEROP_PYTHON` | the virtualenv's `python` (has the `mcp` SDK) |
//! | `MCP_INTEROP_PYTHON_SERVER` | `interop/python/server.py` (run as `python <it> stdio` or `python <it> http --port P`) |
//!
//! The tests live in `conformance/tests/interop.rs` and (the HTTP+SSE
//! fallback) `conformance/tests/interop_sse.rs`, built only with the
//! `interop` feature (so a plain `cargo test` never builds them without the
//! peers). The step fails when the tests fail **or when none ran**: the
//! test harness's `test result:` line is read and must count at least one
//! passed test.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::install::{self, Peers};
use crate::util;

/// How long a peer may take to answer `initialize`.
const STARTUP: Duration = Duration::from_secs(30);

/// Runs the interop step (see the module docs).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("unknown interop option {a:?}"));
    }
    let peers = install::ensure()?;
    peers.print_versions()?;
    smoke(
        "server-everything (stdio)",
        Command::new(&peers.node)
            .arg(&peers.everything)
            .arg("stdio"),
    )?;
    smoke(
        "python mcp server (stdio)",
        Command::new(&peers.python)
            .arg(&peers.python_server)
            .arg("stdio"),
    )?;
    // `cargo xtask ci`'s workspace clippy does not enable the feature, so
    // the feature-gated target is linted here.
    util::run(
        "interop clippy",
        util::cargo().args([
            "clippy",
            "-p",
            "conformance",
            "--features",
            "interop",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    let mut cmd = util::cargo();
    cmd.args([
        "test",
        "-p",
        "conformance",
        "--features",
        "interop",
        "--test",
        "interop",
        "--test",
        "interop_sse",
    ])
    .envs(env(&peers)?);
    let passed = run_counting("interop tests", &mut cmd)?;
    if passed == 0 {
        return Err("interop tests: no test ran".into());
    }
    println!("interop: {passed} tests passed");
    Ok(())
}

/// Runs a `cargo test` command, echoing its standard output, and returns
/// how many tests passed according to its `test result:` lines. Fails when
/// the command fails.
fn run_counting(step: &str, cmd: &mut Command) -> Result<usize, String> {
    println!("==> {step}: {cmd:?}");
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{step}: cannot start: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut passed = 0;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{line}");
        passed += passed_count(&line);
    }
    let status = child
        .wait()
        .map_err(|e| format!("{step}: cannot wait: {e}"))?;
    if status.success() {
        Ok(passed)
    } else {
        Err(format!("{step} failed ({status})"))
    }
}

/// The `N passed` of a libtest `test result: ok. N passed; ...` line; 0 for
/// any other line.
fn passed_count(line: &str) -> usize {
    line.strip_prefix("test result: ")
        .and_then(|rest| rest.split_once(". "))
        .and_then(|(_, counts)| counts.split(" passed").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// The environment the interop tests read.
pub(crate) fn env(peers: &Peers) -> Result<Vec<(&'static str, std::ffi::OsString)>, String> {
    Ok(vec![
        ("MCP_INTEROP_NODE", peers.node.clone().into_os_string()),
        (
            "MCP_INTEROP_EVERYTHING",
            peers.everything.clone().into_os_string(),
        ),
        ("MCP_INTEROP_PYTHON", peers.python.clone().into_os_string()),
        (
            "MCP_INTEROP_PYTHON_SERVER",
            peers.python_server.clone().into_os_string(),
        ),
        ("PATH", peers.path_env()?),
    ])
}

/// The legacy probe: an `initialize` request at 2025-11-25.
const LEGACY_PROBE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"xtask-smoke","version":"0"}}}"#;

/// The modern probe: a `server/discover` request at 2026-07-28.
const MODERN_PROBE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"xtask-smoke","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// Probes a stdio server in both eras and prints what it speaks. The legacy
/// handshake must succeed (every peer speaks 2025-11-25); the modern probe
/// only reports.
fn smoke(label: &str, cmd: &mut Command) -> Result<(), String> {
    let legacy = probe(label, cmd, LEGACY_PROBE)?;
    let result = &legacy["result"];
    if !result.is_object() {
        return Err(format!("{label}: initialize failed: {legacy}"));
    }
    let modern = probe(label, cmd, MODERN_PROBE)?;
    let modern = match modern["result"]["supportedVersions"].as_array() {
        Some(versions) => {
            let list: Vec<&str> = versions.iter().filter_map(|v| v.as_str()).collect();
            format!("server/discover -> {}", list.join(", "))
        }
        None => format!(
            "no modern era (server/discover: {})",
            modern["error"]["message"].as_str().unwrap_or("no result")
        ),
    };
    println!(
        "smoke: {label}: {} {}: initialize -> {}; {modern}",
        result["serverInfo"]["name"].as_str().unwrap_or("?"),
        result["serverInfo"]["version"].as_str().unwrap_or("?"),
        result["protocolVersion"].as_str().unwrap_or("?"),
    );
    Ok(())
}

/// Starts the server, writes one request line, and returns the reply to id 1.
fn probe(label: &str, cmd: &mut Command, request: &str) -> Result<serde_json::Value, String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{label}: cannot start: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if msg["id"] == 1 {
                let _ = tx.send(msg);
                return;
            }
        }
    });
    let sent = writeln!(stdin, "{request}").and_then(|()| stdin.flush());
    let reply = rx.recv_timeout(STARTUP);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    sent.map_err(|e| format!("{label}: cannot write to the server: {e}"))?;
    reply.map_err(|_| format!("{label}: no reply within {STARTUP:?}"))
}

#[cfg(test)]
mod tests {
    use super::passed_count;

    #[test]
    fn reads_the_passed_count_of_a_test_result_line() {
        assert_eq!(
            passed_count("test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured"),
            7
        );
        assert_eq!(
            passed_count("test result: FAILED. 2 passed; 1 failed; 0 ignored"),
            2
        );
        assert_eq!(passed_count("test result: ok. 0 passed; 0 failed"), 0);
        assert_eq!(passed_count("running 7 tests"), 0);
        assert_eq!(passed_count("test foo ... ok"), 0);
    }
}

//! Shared helpers: the server binaries, in-process HTTP demo servers, and
//! waiting on host events (never on a sleep).

#![allow(dead_code, unreachable_pub, reason = "each test binary uses a subset")]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use demo_server::{DemoOptions, DemoServer, Eras, HttpHandle};
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::tools::CallToolResult;
use mcp_host::config::{Config, Vars};
use mcp_host::{Host, HostEvent, ListKind};
use tokio::sync::broadcast::{Receiver, error::RecvError};

/// A binary of the `demo-server` package (`demo-server`, `crash-server`),
/// built once per test process (a dev-dependency's binaries are not built
/// by `cargo test`; a no-op when they are fresh, so never a stale copy).
pub fn bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        let me = std::env::current_exe().expect("test executable path");
        let dir = me
            .parent()
            .and_then(|d| d.parent())
            .expect("target dir")
            .to_path_buf();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "-q", "-p", "demo-server", "--bins"])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the demo-server binaries failed");
        dir
    });
    dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The path of a binary as a JSON string literal.
pub fn json_path(name: &str) -> String {
    serde_json::to_string(&bin(name).display().to_string()).expect("path to JSON")
}

/// An in-process HTTP demo server speaking `eras`.
pub async fn http_demo(eras: Eras) -> HttpHandle {
    DemoServer::new(DemoOptions::default().with_eras(eras))
        .serve_http("127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("serve http")
}

/// Receives events until `done(host)` holds; panics after 30 s with the
/// states (a bound for a broken build, not a timing assumption).
pub async fn until(
    host: &Host,
    events: &mut Receiver<HostEvent>,
    what: &str,
    done: impl Fn(&Host) -> bool,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !done(host) {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(_) | Err(RecvError::Lagged(_))) => {}
            Ok(Err(RecvError::Closed)) => panic!("event stream closed waiting for {what}"),
            Err(_) => panic!("timed out waiting for {what}: {:?}", host.states()),
        }
    }
}

/// Receives events until one matches `pick`, returning it.
pub async fn next_matching<T>(
    events: &mut Receiver<HostEvent>,
    what: &str,
    pick: impl Fn(&HostEvent) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(e)) => {
                if let Some(t) = pick(&e) {
                    return t;
                }
            }
            Ok(Err(RecvError::Lagged(n))) => panic!("lagged {n} events waiting for {what}"),
            Ok(Err(RecvError::Closed)) => panic!("event stream closed waiting for {what}"),
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }
}

/// A config of the demo server over stdio twice: `legacy` pinned to
/// 2025-11-25 and `modern` to 2026-07-28.
pub fn two_eras() -> Config {
    let demo = json_path("demo-server");
    parse(&format!(
        r#"{{"mcpServers": {{
        "legacy": {{"command": {demo}, "mcpHost": {{"era": "legacy"}}}},
        "modern": {{"command": {demo}, "mcpHost": {{"era": "modern"}}}}
    }}}}"#
    ))
}

/// Has the demo server `label` send the `event` notification (its
/// `trigger` tool) and waits for the catalogue change of `kind` it causes,
/// asserting that it is `label`'s.
pub async fn trigger_change(
    host: &Host,
    events: &mut Receiver<HostEvent>,
    label: &str,
    event: &str,
    kind: ListKind,
) {
    host.call_tool(
        &format!("{label}__trigger"),
        serde_json::json!({ "event": event }),
    )
    .await
    .expect("the trigger tool runs");
    let server = next_matching(events, "catalogue change", |e| match e {
        HostEvent::CatalogueChanged { server, kind: k } if *k == kind => Some(server.clone()),
        _ => None,
    })
    .await;
    assert_eq!(server, label);
}

/// The text blocks of a tool result, joined by spaces.
pub fn text(result: &CallToolResult) -> String {
    let blocks = result.content.iter().filter_map(ContentBlock::as_text);
    blocks.collect::<Vec<_>>().join(" ")
}

/// Parses a config whose entries must all be valid (`${ERA}` is `legacy`).
pub fn parse(text: &str) -> Config {
    let vars = Vars::from_map([("ERA", "legacy")]);
    let config = Config::parse_with(text, &vars).expect("valid config");
    assert!(config.errors.is_empty(), "{:?}", config.errors);
    config
}

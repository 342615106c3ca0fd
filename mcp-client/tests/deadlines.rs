//! Deadlines cover the whole call (issue 14, item 2): a call whose server
//! asks the client for input, answered by a handler that never returns,
//! fails at its deadline in both eras. In 2026-07-28 the input belongs to
//! the call, and its handler is cancelled (its future dropped) with it; in
//! 2025-11-25 the request is the server's, and its handler runs until the
//! server cancels it.

use mcp_testkit::demo as common;

use std::sync::Arc;
use std::time::Duration;

use common::{Server, Via};
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use mcp_client::{CallOptions, ClientBuilder, HandlerError};
use serde_json::json;
use tokio::sync::{Notify, oneshot};

/// Tells the test when the handler started and when its future was dropped.
struct Probe {
    started: Arc<Notify>,
    dropped: std::sync::Mutex<Option<oneshot::Receiver<()>>>,
    dropped_tx: std::sync::Mutex<Option<oneshot::Sender<()>>>,
}

impl Probe {
    fn new() -> Arc<Probe> {
        let (tx, rx) = oneshot::channel();
        Arc::new(Probe {
            started: Arc::new(Notify::new()),
            dropped: std::sync::Mutex::new(Some(rx)),
            dropped_tx: std::sync::Mutex::new(Some(tx)),
        })
    }

    /// Installs a form handler that never answers.
    fn install(self: &Arc<Probe>, builder: ClientBuilder) -> ClientBuilder {
        let probe = self.clone();
        builder.form_elicitation(move |_: ElicitRequestFormParams| {
            let guard = probe.dropped_tx.lock().expect("lock").take().map(Guard);
            let started = probe.started.clone();
            async move {
                let _guard = guard;
                started.notify_one();
                std::future::pending::<Result<ElicitResult, HandlerError>>().await
            }
        })
    }

    async fn wait_started(&self) {
        tokio::time::timeout(Duration::from_secs(1), self.started.notified())
            .await
            .expect("the server asked and the handler started");
    }

    async fn wait_dropped(&self) {
        let rx = self.dropped.lock().expect("lock").take().expect("once");
        // The sender goes away (never sends) when the guard is dropped.
        let dropped = tokio::time::timeout(Duration::from_secs(5), rx).await;
        assert!(
            matches!(dropped, Ok(Err(_))),
            "the handler's future was dropped"
        );
    }
}

/// Dropped with the handler's future.
struct Guard(#[allow(dead_code, reason = "held for its drop")] oneshot::Sender<()>);

async fn never_answered(via: Via, timeout: Duration) {
    let server = Server::start(via).await;
    let probe = Probe::new();
    let client = probe
        .install(server.observable_builder())
        .request_timeout(Some(timeout))
        .connect()
        .await
        .expect("connect");
    let started = tokio::time::Instant::now();
    let call = client.call_tool("ask_name", json!({}));
    let error = tokio::time::timeout(timeout * 10, call)
        .await
        .expect("the call ends at its deadline, not later")
        .expect_err("the handler never answers");
    probe.wait_started().await;
    assert!(error.is_timeout(), "{via:?}: {error}");
    assert!(
        started.elapsed() >= timeout,
        "{via:?}: not before the deadline"
    );
    if via.modern() {
        probe.wait_dropped().await;
    }
    client.close().await;
}

#[tokio::test(start_paused = true)]
async fn a_call_waiting_on_a_handler_ends_at_its_deadline_in_both_eras() {
    for via in [Via::StdioLegacy, Via::StdioModern] {
        never_answered(via, Duration::from_secs(10)).await;
    }
}

/// The same over Streamable HTTP on loopback, on the real clock (a socket
/// wait would let a paused clock jump to the deadline).
#[tokio::test]
async fn over_modern_http_a_waiting_handler_is_cancelled_at_the_deadline() {
    never_answered(Via::HttpModern, Duration::from_millis(1500)).await;
}

/// A call that opts out pauses its timeout while the handler runs: it is
/// still waiting after many timeouts' worth of handler time, and the
/// maximum total ends it.
#[tokio::test(start_paused = true)]
async fn a_call_can_pause_its_timeout_for_input() {
    let server = Server::start(Via::StdioModern).await;
    let probe = Probe::new();
    let client = probe
        .install(server.observable_builder())
        .request_timeout(Some(Duration::from_secs(10)))
        .connect()
        .await
        .expect("connect");
    let started = tokio::time::Instant::now();
    let opts = CallOptions::new()
        .pause_timeout_for_input()
        .with_max_total(Duration::from_secs(100));
    let call = client.call_tool_with("ask_name", json!({}), opts);
    let error = call.await.expect_err("the maximum total ends it");
    probe.wait_started().await;
    assert!(error.is_timeout(), "{error}");
    assert!(started.elapsed() >= Duration::from_secs(100), "{error}");
    probe.wait_dropped().await;
    client.close().await;
}

//! Throughput options end to end, over stdio and HTTP in both eras: a
//! blocked notification handler delays no response and no server request,
//! the queue to it stays bounded (drops counted), and debounced methods
//! coalesce to the latest per key: held by the core on the driver's clock
//! (tested on the paused clock against a scripted peer), merges counted.

use mcp_testkit::demo as common;

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use common::{ALL, Server};
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::{CallOptions, Client, HandlerError, NotificationHandler};
use mcp_testkit::{Delivery, Recorder, capabilities, scripted};
use serde_json::json;

/// Holds the first log message until released; records every log's data.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    logs: Recorder<String>,
}

impl Gate {
    fn release(&self) {
        *self.open.lock().expect("lock") = true;
        self.opened.notify_all();
    }

    fn logs(&self) -> Vec<String> {
        self.logs.items()
    }

    /// Waits (bounded) until the delivered logs satisfy `holds`.
    async fn logs_until(&self, holds: impl FnMut(&[String]) -> bool) -> bool {
        self.logs.wait_for(WITHIN, holds).await.is_ok()
    }
}

impl NotificationHandler for Gate {
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        let text = params.data.as_str().unwrap_or_default().to_owned();
        self.logs.push(text);
        // A slow handler: blocks (bounded) until the test releases it.
        let open = self.open.lock().expect("lock");
        let _ = self
            .opened
            .wait_timeout_while(open, Duration::from_secs(20), |o| !*o);
    }
}

/// How long a wait for a delivery may take.
const WITHIN: Duration = Duration::from_secs(5);

const FLOOD: u64 = 50;

/// `slow_count` logs `counted 1` .. `counted 50` at info level, at once.
async fn flood_logs(client: &Client) {
    let args = json!({"count": FLOOD, "delay_ms": 0});
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("slow_count", args),
    )
    .await
    .expect("the response is not held back by the blocked handler");
    r.expect("slow_count");
}

fn sampler()
-> impl Fn(CreateMessageRequestParams) -> std::future::Ready<Result<CreateMessageResult, HandlerError>>
+ Send
+ Sync
+ 'static {
    |_| {
        std::future::ready(Ok(CreateMessageResult::new(
            ContentBlock::text("short"),
            "test-model",
        )))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_handler_delays_no_reply_and_the_queue_stays_bounded() {
    for via in ALL {
        let server = Server::start(via).await;
        let gate = Arc::new(Gate::default());
        let client = server
            .builder()
            .notification_queue(4)
            .notifications(gate.clone())
            .sampling(sampler())
            .connect()
            .await
            .expect("connect");
        client
            .set_log_level(LoggingLevel::Info)
            .await
            .expect("level");
        flood_logs(&client).await;
        let dropped = client.dropped_notifications();
        // One log is in the blocked handler (or it is still starting), four
        // wait in the queue, the rest were dropped oldest first.
        assert!((45..=46).contains(&dropped), "{via:?}: {dropped} dropped");

        // Responses and server requests go on while the handler is blocked.
        let echo = client.call_tool("echo", json!({"text": "still here"}));
        tokio::time::timeout(Duration::from_secs(5), echo)
            .await
            .expect("echo in time")
            .expect("echo");
        let summary = client.call_tool("summarize", json!({"text": "long text"}));
        let summary = tokio::time::timeout(Duration::from_secs(5), summary)
            .await
            .expect("sampling served in time")
            .expect("summarize");
        assert_ne!(summary.is_error, Some(true), "{via:?}");
        assert!(
            gate.logs().len() <= 1,
            "{via:?}: the handler is still blocked"
        );

        gate.release();
        let expected = usize::try_from(FLOOD - dropped).expect("small");
        assert!(
            gate.logs_until(|l| l.len() >= expected).await,
            "{via:?}: {:?}",
            gate.logs()
        );
        let logs = gate.logs();
        assert!(
            logs.iter().any(|l| l == &format!("counted {FLOOD}")),
            "{via:?}: the newest survive: {logs:?}"
        );
        assert_eq!(client.coalesced_notifications(), 0, "{via:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debounced_logs_coalesce_to_the_latest() {
    for via in ALL {
        let server = Server::start(via).await;
        let gate = Arc::new(Gate::default());
        let client = server
            .builder()
            .debounce_notifications(["notifications/message"], Duration::from_secs(1))
            .notifications(gate.clone())
            .connect()
            .await
            .expect("connect");
        client
            .set_log_level(LoggingLevel::Info)
            .await
            .expect("level");
        flood_logs(&client).await;
        gate.release();
        assert!(
            gate.logs_until(|l| l.last().map(String::as_str) == Some("counted 50"))
                .await,
            "{via:?}: {:?}",
            gate.logs()
        );
        let delivered = u64::try_from(gate.logs().len()).expect("small");
        let coalesced = client.coalesced_notifications();
        // The flood arrives within the window: the core merges it.
        assert!(delivered <= 2, "{via:?}: {:?}", gate.logs());
        assert_eq!(delivered + coalesced, FLOOD, "{via:?}");
        assert_eq!(client.dropped_notifications(), 0, "{via:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debounced_progress_reaches_the_callback_coalesced() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .builder()
            .debounce_notifications(["notifications/progress"], Duration::from_millis(500))
            .connect()
            .await
            .expect("connect");
        let seen = Arc::new(Recorder::new());
        let sink = seen.clone();
        let opts = CallOptions::new().on_progress(move |p| sink.push(p.progress));
        client
            .call_tool_with("slow_count", json!({"count": 20, "delay_ms": 0}), opts)
            .await
            .expect("slow_count");
        let done = seen.wait_for(WITHIN, |s| s.last() == Some(&20.0)).await;
        assert!(done.is_ok(), "{via:?}: {done:?}");
        let calls = seen.items();
        assert!(calls.len() < 20, "{via:?}: coalesced, {calls:?}");
        assert!(client.coalesced_notifications() >= 1, "{via:?}");
        client.close().await;
    }
}

/// A progress notification for the call with this token, `ms` after the
/// request.
fn progress_at(token: &serde_json::Value, n: u64, ms: u64) -> Delivery {
    let params = json!({"progressToken": token, "progress": n});
    let note = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params});
    Delivery::message(note).after(Duration::from_millis(ms))
}

#[tokio::test(start_paused = true)]
async fn debounce_windows_run_on_the_driver_clock_and_merges_are_counted() {
    let (transport, peer) = scripted();
    peer.serve_modern(capabilities());
    // Progress 1..=10 every 30 ms from 30 ms, the result at 400 ms.
    peer.on("tools/call", |req| {
        let token = req.params()["_meta"]["progressToken"].clone();
        let mut out: Vec<Delivery> = (1..=10).map(|n| progress_at(&token, n, n * 30)).collect();
        out.push(Delivery::result(req, json!({"content": []})).after(Duration::from_millis(400)));
        out
    });
    let client = Client::builder()
        .era(mcp_client::EraPreference::ModernOnly)
        .transport(transport)
        .debounce_notifications(["notifications/progress"], Duration::from_millis(100))
        .connect()
        .await
        .expect("connect");
    let seen = Arc::new(Recorder::new());
    let sink = seen.clone();
    let start = tokio::time::Instant::now();
    let opts = CallOptions::new()
        .on_progress(move |p| sink.push((p.progress, start.elapsed().as_millis())));
    client
        .call_tool_with("slow", json!({}), opts)
        .await
        .expect("call");
    // Windows of 100 ms from the first of each: 30..130 ms merges 1..=4,
    // 150..250 ms merges 5..=8, 270..370 ms merges 9 and 10.
    assert_eq!(seen.items(), vec![(4.0, 130), (8.0, 250), (10.0, 370)]);
    assert_eq!(client.coalesced_notifications(), 7);
    assert_eq!(client.dropped_notifications(), 0);
    client.close().await;
}

//! A server request the server cancels (`notifications/cancelled`,
//! 2025-11-25): the client stops the handler (its future is dropped) and
//! sends no answer, over stdio and HTTP.

use mcp_testkit::demo as common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Server, Via};
use mcp_client::HandlerError;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use serde_json::json;
use tokio::sync::oneshot;

/// Waits until the handler's future is dropped: the sender it held goes
/// away without sending.
async fn dropped(rx: oneshot::Receiver<()>) -> bool {
    matches!(
        tokio::time::timeout(Duration::from_secs(5), rx).await,
        Ok(Err(_))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_server_request_stops_its_handler_and_gets_no_answer() {
    for via in [Via::StdioLegacy, Via::HttpLegacy] {
        let server = Server::start(via).await;
        let started = Arc::new(AtomicBool::new(false));
        let (guard_tx, guard_rx) = oneshot::channel::<()>();
        let guard_tx = Arc::new(Mutex::new(Some(guard_tx)));
        let s = started.clone();
        let handler = move |_params: ElicitRequestFormParams| {
            let guard = guard_tx.lock().expect("lock").take();
            s.store(true, Ordering::SeqCst);
            async move {
                // A user who never answers: only the cancellation ends it.
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok::<ElicitResult, HandlerError>(ElicitResult::decline())
            }
        };
        let client = server
            .builder()
            .form_elicitation(handler)
            .connect()
            .await
            .expect("connect");
        let args = json!({ "kind": "elicitation", "task": false, "abandon_after_ms": 200 });
        let result = client.call_tool("callback_task", args).await.expect("call");
        let report = result.structured_content.expect("report");
        assert!(started.load(Ordering::SeqCst), "{via:?}: handler ran");
        assert_eq!(report["cancelled"], json!(true), "{via:?}: {report}");
        assert_eq!(
            report["answered_after_cancel"],
            json!(false),
            "{via:?}: the client answered a cancelled request"
        );
        assert!(dropped(guard_rx).await, "{via:?}: the handler kept running");
        client.close().await;
    }
}

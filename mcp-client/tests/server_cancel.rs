//! A server request the server cancels (`notifications/cancelled`,
//! 2025-11-25): the client stops the handler (its future is dropped) and
//! sends no answer, over stdio and HTTP.

use mcp_testkit::demo as common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{Server, Via};
use mcp_client::HandlerError;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use serde_json::json;

/// Sets its flag when dropped: the handler's future was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

async fn wait_for(flag: &AtomicBool) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !flag.load(Ordering::SeqCst) {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_server_request_stops_its_handler_and_gets_no_answer() {
    for via in [Via::StdioLegacy, Via::HttpLegacy] {
        let server = Server::start(via).await;
        let started = Arc::new(AtomicBool::new(false));
        let dropped = Arc::new(AtomicBool::new(false));
        let (s, d) = (started.clone(), dropped.clone());
        let handler = move |_params: ElicitRequestFormParams| {
            let guard = DropFlag(d.clone());
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
        assert!(
            wait_for(&dropped).await,
            "{via:?}: the handler kept running"
        );
        client.close().await;
    }
}

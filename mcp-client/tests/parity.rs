//! End-to-end tests for the issue-9 parity surface: typed prompt
//! arguments, runtime roots, request handles.

use mcp_testkit::demo as common;

use std::sync::Arc;
use std::time::Duration;

use common::{ALL, Server};
use mcp_client::mcp_types::common::PaginatedRequestParams;
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use mcp_client::mcp_types::methods::v2026_07_28::ListTools;
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::mcp_types::tools::{CallToolResult, ListToolsResult};
use mcp_client::{CallOptions, HandlerError, NotificationHandler, SamplingHandler, UrlElicitation};
use mcp_testkit::Recorder;
use serde_json::json;

#[derive(serde::Serialize)]
struct Greeting<'a> {
    name: &'a str,
    style: Option<&'a str>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_prompt_typed_in_every_mode() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let prompt = client
            .get_prompt_typed(
                "greeting",
                &Greeting {
                    name: "Ada",
                    style: Some("formal"),
                },
            )
            .await
            .expect("prompt");
        let text = prompt.messages[0].content.as_text().unwrap_or_default();
        assert!(text.contains("formal greeting to Ada"), "{via:?}: {text}");
        // `style: None` is omitted, so the server's default (casual) applies.
        let prompt = client
            .get_prompt_typed(
                "greeting",
                &Greeting {
                    name: "Bo",
                    style: None,
                },
            )
            .await
            .expect("prompt");
        let text = prompt.messages[0].content.as_text().unwrap_or_default();
        assert!(text.contains("relaxed"), "{via:?}: {text}");
        let err = client
            .get_prompt_typed("greeting", &42)
            .await
            .expect_err("a number is not an argument map");
        assert!(err.is_usage(), "{via:?}: {err}");
        client.close().await;
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join(" ")
}

const ROOTS_CHANGED: &str = "notifications/roots/list_changed";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_roots_serves_the_new_list_and_notifies_once_per_change() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .observable_builder()
            .roots(vec![Root::new("file:///work")])
            .connect()
            .await
            .expect("connect");
        // The builder's list, set again: no change, nothing sent.
        let same = client.set_roots(vec![Root::new("file:///work")]).await;
        assert!(!same.expect("valid"), "{via:?}");

        let new = vec![Root::new("file:///b"), Root::new("file:///a")];
        assert!(client.set_roots(new).await.expect("valid"), "{via:?}");
        let listed = client.call_tool("list_roots", json!({})).await;
        let listed = text(&listed.expect("list_roots"));
        assert_eq!(listed, "2 roots: file:///a, file:///b", "{via:?}");

        // The same list again (other order, a duplicate): no change.
        let again = vec![
            Root::new("file:///a"),
            Root::new("file:///b"),
            Root::new("file:///a"),
        ];
        assert!(!client.set_roots(again).await.expect("valid"), "{via:?}");

        // A relative or non-file URI is a usage error and changes nothing.
        for bad in ["work/x", "https://example.com/", "file://host"] {
            let err = client
                .set_roots(vec![Root::new(bad)])
                .await
                .expect_err("invalid root");
            assert!(err.is_usage(), "{via:?} {bad}: {err}");
        }
        let listed = client.call_tool("list_roots", json!({})).await;
        assert_eq!(
            text(&listed.expect("list_roots")),
            "2 roots: file:///a, file:///b"
        );

        let expected = u64::from(!via.modern());
        server
            .until(ROOTS_CHANGED, |d| {
                d.notifications_received(ROOTS_CHANGED) >= expected
            })
            .await;
        // Exactly one was sent: a notification for an unchanged list would
        // have been queued before the last `list_roots` call, whose answer
        // needs a `roots/list` round trip through the client after it
        // (stdio keeps the order on its one stream; over HTTP the
        // notification's POST left before the call's).
        assert_eq!(
            server.demo.notifications_received(ROOTS_CHANGED),
            expected,
            "{via:?}"
        );
        client.close().await;
    }
}

fn sampler(model: &'static str) -> impl SamplingHandler {
    move |_: CreateMessageRequestParams| async move {
        Ok::<_, HandlerError>(CreateMessageResult::new(
            ContentBlock::text(model),
            "test-model",
        ))
    }
}

/// The list-changed notifications a handler saw.
#[derive(Default)]
struct Changes(Recorder<String>);

impl NotificationHandler for Changes {
    fn on_list_changed(&self, method: &str) {
        self.0.push(method.to_owned());
    }
}

/// A guard against a hang while waiting for a handler (real time: the demo
/// server runs on real sockets and processes).
const WITHIN: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_are_replaced_at_runtime() {
    for via in ALL {
        let server = Server::start(via).await;
        let first = Arc::new(Changes::default());
        let client = server
            .builder()
            .sampling(sampler("first"))
            .notifications(first.clone())
            .connect()
            .await
            .expect("connect");
        let args = json!({"text": "long text"});
        let summary = client.call_tool("summarize", args.clone()).await;
        assert_eq!(
            text(&summary.expect("sampling")),
            "Summary: first",
            "{via:?}"
        );

        assert!(client.set_sampling_handler(sampler("second")), "{via:?}");
        let summary = client.call_tool("summarize", args).await;
        assert_eq!(
            text(&summary.expect("sampling")),
            "Summary: second",
            "{via:?}"
        );

        // Not advertised at connect: stored, reported as not live, and the
        // server still cannot ask for it.
        let form =
            |_: ElicitRequestFormParams| async { Ok::<_, HandlerError>(ElicitResult::decline()) };
        assert!(!client.set_form_elicitation_handler(form), "{via:?}");
        let url = |_: UrlElicitation| async { Ok::<_, HandlerError>(ElicitResult::decline()) };
        assert!(!client.set_url_elicitation_handler(url), "{via:?}");
        let asked = client.call_tool("ask_name", json!({})).await;
        assert!(
            asked.map_or(true, |r| r.is_error == Some(true)),
            "{via:?}: elicitation was never advertised"
        );

        if !via.modern() {
            let second = Arc::new(Changes::default());
            client.set_notification_handler(second.clone());
            let trigger = json!({"event": "tools_list_changed"});
            client.call_tool("trigger", trigger).await.expect("trigger");
            let seen = second.0.until(WITHIN, |c| !c.is_empty()).await;
            assert_eq!(seen.len(), 1, "{via:?}");
            assert!(first.0.is_empty(), "{via:?}");
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_handles_await_time_out_cancel_and_drop() {
    let slow = || Some(json!({"name": "slow_count", "arguments": {"count": 1000, "delay_ms": 50}}));
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .observable_builder()
            .connect()
            .await
            .expect("connect");
        let demo = server.demo.clone();

        // Started now, awaited later, while other calls go on.
        let echo = client.start_request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"text": "later"}})),
        );
        assert_eq!(echo.method(), "tools/call");
        let typed = client.start_request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"text": "typed"}})),
        );
        client.ping().await.ok();
        let value = echo.await.expect("echo");
        assert_eq!(value["content"][0]["text"], "later", "{via:?}");
        let result: CallToolResult = typed.result_as().await.expect("typed");
        assert_eq!(text(&result), "typed", "{via:?}");
        let page: ListToolsResult = client
            .start_request_typed::<ListTools>(&PaginatedRequestParams::new())
            .expect("params serialize")
            .await
            .expect("tools/list");
        assert!(page.tools.iter().any(|t| t.name == "echo"), "{via:?}");
        // A typed, cancellable tool call: awaiting gives the CallToolResult.
        let call = client.start_call_tool("echo", json!({"text": "started"}), CallOptions::new());
        assert_eq!(call.method(), "tools/call");
        let result: CallToolResult = call.await.expect("start_call_tool");
        assert_eq!(result.text(), "started", "{via:?}");

        // A timeout cancels the request on the server.
        let started = std::time::Instant::now();
        let err = client
            .start_request("tools/call", slow())
            .with_timeout(Duration::from_millis(200))
            .await
            .expect_err("times out");
        assert!(err.is_timeout(), "{via:?}: {err}");
        assert!(started.elapsed() < Duration::from_secs(3), "{via:?}");
        server
            .until("the timeout's cancellation", |d| {
                d.cancelled_requests() >= 1
            })
            .await;

        // Explicit cancel, then drop, each once the server is running the
        // call: each is one more cancellation.
        let handle = client.start_request("tools/call", slow());
        server.until("the call", |d| d.in_flight() == 1).await;
        handle.cancel();
        server
            .until("cancel()'s cancellation", |d| d.cancelled_requests() >= 2)
            .await;
        {
            let _dropped = client.start_request("tools/call", slow());
            server.until("the call", |d| d.in_flight() == 1).await;
        }
        server
            .until("the drop's cancellation", |d| d.cancelled_requests() >= 3)
            .await;
        server.until("no call", |d| d.in_flight() == 0).await;
        assert_eq!(demo.cancelled_requests(), 3, "{via:?}");

        // The connection is fine afterwards.
        let echo = client.call_tool("echo", json!({"text": "alive"})).await;
        assert_eq!(text(&echo.expect("echo")), "alive", "{via:?}");
        client.close().await;

        // A handle started on a closed client resolves to a closed error.
        let err = client
            .start_request("ping", None)
            .await
            .expect_err("closed");
        assert!(err.is_closed(), "{via:?}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_request_by_id() {
    let slow = Some(json!({"name": "slow_count", "arguments": {"count": 1000, "delay_ms": 50}}));
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .observable_builder()
            .connect()
            .await
            .expect("connect");
        let demo = server.demo.clone();
        let handle = client.start_request("tools/call", slow.clone());
        let id = handle.id().await.expect("in flight");
        server.until("the call", |d| d.in_flight() == 1).await;
        // Any clone may cancel it.
        client.clone().cancel_request(&id).await.expect("cancel");
        let err = handle.await.expect_err("cancelled");
        assert!(err.is_cancelled(), "{via:?}: {err}");
        server
            .until("the cancellation", |d| d.cancelled_requests() >= 1)
            .await;
        assert_eq!(demo.cancelled_requests(), 1, "{via:?}");
        // The call is over: its id is unknown now.
        let again = client.cancel_request(&id).await.expect_err("ended");
        assert!(again.is_usage(), "{via:?}: {again}");

        let tools = client.start_request("tools/list", None);
        assert!(
            tools.await.expect("tools/list")["tools"].is_array(),
            "{via:?}"
        );
        let echo = client.call_tool("echo", json!({"text": "alive"})).await;
        assert_eq!(text(&echo.expect("echo")), "alive", "{via:?}");
        client.close().await;
    }
}

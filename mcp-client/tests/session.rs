//! Session recovery, per-call headers on every POST, and client
//! notifications routed through the core, end to end against the demo
//! server.

use mcp_testkit::demo as common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::{ALL, Server, Via, text};
use demo_server::DemoServer;
use futures::StreamExt;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::subscriptions::SubscriptionFilter;
use mcp_client::{CallOptions, Client, HandlerError, NotificationHandler};
use mcp_testkit::Recorder;
use serde_json::json;

async fn form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    let mut content = BTreeMap::new();
    for (field, _) in &params.requested_schema.properties.0 {
        let value = if field == "confirm" {
            ElicitValue::Bool(true)
        } else {
            ElicitValue::String("Ada".into())
        };
        content.insert(field.clone(), value);
    }
    Ok(ElicitResult::accept(content))
}

async fn connect(server: &Server) -> Client {
    server
        .observable_builder()
        .form_elicitation(form)
        .roots(vec![Root::new("file:///work")])
        .connect()
        .await
        .expect("connect")
}

const INITIALIZED: &str = "notifications/initialized";

/// The `notifications/initialized` count, once it reaches `at_least` (it
/// travels on its own POST, which may land after a later request's).
async fn initialized(server: &Server, at_least: u64) -> u64 {
    let reached = |d: &DemoServer| d.notifications_received(INITIALIZED) >= at_least;
    server.until(INITIALIZED, reached).await;
    server.demo.notifications_received(INITIALIZED)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_legacy_session_is_replaced_once_and_the_request_not_replayed() {
    let server = Server::start(Via::HttpLegacy).await;
    let client = connect(&server).await;
    let echo = |t: &str| json!({ "text": t });
    let r = client.call_tool("echo", echo("one")).await.expect("echo");
    assert_eq!(text(&r.content), "one");
    assert_eq!(initialized(&server, 1).await, 1);
    let first = client.session_id().expect("a legacy HTTP session");
    assert_eq!(format!("{first:?}"), "SessionId(<redacted>)");

    assert_eq!(server.demo.expire_sessions(), 1, "one session to expire");
    // The server also ends the GET stream, whose reconnection may meet the
    // `404` first: then this call was never sent to the old session and goes
    // out in the new one. If it reached the old session, it fails and is
    // not replayed.
    match client.call_tool("echo", echo("lost")).await {
        Ok(r) => assert_eq!(text(&r.content), "lost"),
        Err(e) => {
            assert!(e.is_session_recovered(), "{e}");
            assert!(e.is_transport(), "{e}");
            assert!(e.to_string().contains("not replayed"), "{e}");
        }
    }

    // Later requests use the new session (they wait for it if needed).
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("echo", echo("two")),
    )
    .await
    .expect("no hang")
    .expect("echo in the new session");
    assert_eq!(text(&r.content), "two");
    let r = client.call_tool("echo", echo("three")).await.expect("echo");
    assert_eq!(text(&r.content), "three");
    let second = client.session_id().expect("the new session");
    assert_ne!(
        first.as_str(),
        second.as_str(),
        "a recovered session has a new id"
    );
    assert_eq!(
        initialized(&server, 2).await,
        2,
        "exactly one fresh initialize (+ initialized)"
    );
    assert!(!client.is_closed());

    // A second expiry is recovered the same way.
    assert_eq!(server.demo.expire_sessions(), 1);
    if let Err(e) = client.list_tools(None).await {
        assert!(e.is_session_recovered(), "{e}");
    }
    client.list_tools(None).await.expect("third session");
    assert_eq!(initialized(&server, 3).await, 3);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_http_is_untouched_by_session_expiry() {
    let server = Server::start(Via::HttpModern).await;
    let client = connect(&server).await;
    assert_eq!(
        server.demo.expire_sessions(),
        0,
        "no sessions in 2026-07-28"
    );
    client
        .call_tool("echo", json!({ "text": "x" }))
        .await
        .expect("echo");
    assert!(client.session_id().is_none(), "stateless: no session id");
    client.close().await;
}

fn tagged(tag: &str) -> CallOptions {
    CallOptions::new()
        .with_poll_interval(Duration::from_millis(50))
        .with_header("X-Demo-Tag", tag)
        .expect("valid header")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extra_headers_go_on_every_post_of_a_call() {
    for via in [Via::HttpLegacy, Via::HttpModern] {
        let server = Server::start(via).await;
        let client = connect(&server).await;

        // One plain call: one POST.
        client
            .call_tool_with("echo", json!({ "text": "x" }), tagged("plain"))
            .await
            .expect("echo");
        assert_eq!(server.demo.tagged_posts("plain"), 1, "{via:?}");

        // A task: the call, then tasks/get polls (and, legacy, tasks/result).
        let mut task = client
            .call_tool_as_task(
                "long_task",
                json!({ "steps": 3, "step_ms": 30 }),
                tagged("task"),
            )
            .await
            .expect("task");
        task.wait_timeout(Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert!(
            server.demo.tagged_posts("task") >= 2,
            "{via:?}: every task request carries the header ({} POSTs)",
            server.demo.tagged_posts("task")
        );

        if via.modern() {
            // Two input_required rounds: three POSTs of one call.
            let r = client
                .call_tool_with("interview", json!({}), tagged("rounds"))
                .await
                .expect("interview");
            assert_eq!(r.is_error, None, "{}", text(&r.content));
            assert_eq!(server.demo.tagged_posts("rounds"), 3);
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_list_changed_goes_through_the_core() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let method = "notifications/roots/list_changed";
        if via.modern() {
            let e = client
                .notify_roots_list_changed()
                .await
                .expect_err("retired in 2026-07-28");
            assert!(e.is_retired_method(), "{via:?}: {e}");
            assert!(
                e.to_string().contains("input_required"),
                "{via:?}: the error names the replacement: {e}"
            );
        } else {
            client.notify_roots_list_changed().await.expect("sent");
            // A request after it: the notification was written before.
            client.list_tools(None).await.expect("tools");
            let sent = |d: &DemoServer| d.notifications_received(method) >= 1;
            server.until(method, sent).await;
            assert_eq!(server.demo.notifications_received(method), 1, "{via:?}");
        }
        assert_eq!(
            server.demo.notifications_received(method),
            u64::from(!via.modern())
        );
        client.close().await;
    }
}

/// A 2026-07-28 subscription whose stream ends yields its end and then
/// `None`, never hanging: when the server ends it, and when the client is
/// closed under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_ends_and_never_hangs() {
    let within = Duration::from_secs(5);
    for via in [Via::StdioModern, Via::HttpModern] {
        // The server ends every subscription.
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let filter = SubscriptionFilter::new().with_tools_list_changed();
        let mut sub = client.listen(filter.clone()).await.expect("listen");
        server.demo.shutdown();
        let end = tokio::time::timeout(within, sub.next())
            .await
            .unwrap_or_else(|_| panic!("{via:?}: the end arrives in time"));
        assert!(
            end.as_ref().is_none_or(Result::is_err),
            "{via:?}: an end item, not an event: {end:?}"
        );
        let after = tokio::time::timeout(within, sub.next())
            .await
            .expect("no hang after the end");
        assert!(after.is_none(), "{via:?}: None after the end");
        client.close().await;

        // The client is closed under an open subscription.
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let mut sub = client.listen(filter).await.expect("listen");
        client.close().await;
        let end = tokio::time::timeout(within, sub.next())
            .await
            .expect("the end arrives in time");
        match end {
            Some(Err(e)) => assert!(e.is_closed() || e.is_transport(), "{via:?}: {e}"),
            None => {}
            Some(Ok(ev)) => panic!("{via:?}: unexpected event {}", ev.method),
        }
        let after = tokio::time::timeout(within, sub.next())
            .await
            .expect("no hang after the end");
        assert!(after.is_none(), "{via:?}");
    }
}

#[derive(Default)]
struct Updates(Recorder<String>);

impl NotificationHandler for Updates {
    fn on_resource_updated(&self, uri: &str) {
        self.0.push(uri.to_owned());
    }
}

/// A recovered 2025-11-25 session gets the old session's resource
/// subscriptions back (the server forgot them with the session).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recovered_session_resubscribes_its_resources() {
    let server = Server::start(Via::HttpLegacy).await;
    let updates = Arc::new(Updates::default());
    let client = server
        .builder()
        .notifications(updates.clone())
        .connect()
        .await
        .expect("connect");
    let uri = "demo://item/2";
    client.subscribe(uri).await.expect("subscribe");
    assert_eq!(server.demo.expire_sessions(), 1);
    // Fails (not replayed) only if it reached the old session.
    if let Err(e) = client.list_tools(None).await {
        assert!(e.is_session_recovered(), "{e}");
    }
    client.list_tools(None).await.expect("new session");

    // The re-subscription travels on its own POST: once the server has
    // answered it (the first subscribe, then this one), one trigger is
    // enough.
    let subscribe = "resources/subscribe";
    let resubscribed = |d: &DemoServer| d.requests_answered(subscribe) >= 2;
    server.until("the re-subscription", resubscribed).await;
    let args = json!({ "event": "resource_updated", "uri": uri, "value": "v1" });
    client.call_tool("trigger", args).await.expect("trigger");
    let seen = updates.0.until(Duration::from_secs(10), |u| !u.is_empty());
    assert_eq!(seen.await, [uri], "resources/updated in the new session");
    client.close().await;
}

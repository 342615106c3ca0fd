//! Calls whose callers read their own replies (the driver's `direct.rs`):
//! over HTTP at 2026-07-28 a call's POST, left pending by the caller's
//! start, is polled by the caller itself when it is woken. What that must
//! not change: a call whose future moves to another task still ends, a
//! caller that stops polling holds up only its own call, a dropped call's
//! POST is still read to its end (its place among the transport's POSTs
//! comes back), and a deadline still ends a call.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use mcp_client::{CallOptions, Client, HttpConfig};
use mcp_testkit::demo::{Server, Via, text};
use serde_json::json;

/// Bounds every wait: a hang fails the test instead of stalling it.
const PATIENCE: Duration = Duration::from_secs(10);

/// `future`'s output, which must come within [`PATIENCE`] (`what` names
/// it when it does not).
async fn within<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(PATIENCE, future).await {
        Ok(out) => out,
        Err(_) => panic!("{what}: not within {PATIENCE:?}"),
    }
}

/// The demo server over HTTP at 2026-07-28, and a client connected to it
/// that sends at most `posts` POSTs at once.
async fn connect(posts: usize) -> (Server, Client) {
    let server = Server::start(Via::HttpModern).await;
    let url = server.url().expect("an HTTP server");
    let config = HttpConfig::new(&url)
        .expect("config")
        .with_max_concurrent_posts(posts);
    let client = server
        .builder()
        .http_config(config)
        .connect()
        .await
        .expect("connect");
    (server, client)
}

/// A call of the demo's `slow_count` that answers after `delay_ms`.
fn slow(
    client: &Client,
    delay_ms: u64,
) -> Pin<Box<dyn Future<Output = Result<String, mcp_client::Error>> + Send + 'static>> {
    let client = client.clone();
    Box::pin(async move {
        let args = json!({"count": 1, "delay_ms": delay_ms});
        let r = client.call_tool("slow_count", args).await?;
        Ok(text(&r.content))
    })
}

/// Polls `call` once, in this task; it must not have ended.
async fn start<F: Future + Unpin>(call: &mut F) {
    let first = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *call).poll(cx).is_pending()));
    assert!(first.await, "the call ended in its first poll");
}

async fn echo(client: &Client, text_in: &str) {
    let echoed = client.call_tool("echo", json!({"text": text_in}));
    let r = within("an echo", echoed).await.expect("echo");
    assert_eq!(text(&r.content), text_in);
}

#[tokio::test]
async fn a_call_moved_to_another_task_after_it_started_still_ends() {
    let (_server, client) = connect(64).await;
    let mut call = slow(&client, 300);
    // Started here, awaited in another task: the reply must wake that one.
    start(&mut call).await;
    let moved = tokio::spawn(call);
    let r = within("the moved call's end", moved)
        .await
        .expect("the task");
    assert_eq!(r.expect("slow_count"), "counted to 1");
    client.close().await;
}

#[tokio::test]
async fn a_caller_that_stops_polling_holds_up_only_its_own_call() {
    let (server, client) = connect(64).await;
    let mut held = slow(&client, 200);
    start(&mut held).await;
    server.until("the held call", |d| d.in_flight() == 1).await;
    for i in 0..5 {
        echo(&client, &format!("before {i}")).await;
    }
    // Its reply is sent, unread: the others go on.
    server
        .until("the held call answered", |d| d.in_flight() == 0)
        .await;
    for i in 0..5 {
        echo(&client, &format!("after {i}")).await;
    }
    let r = within("the held call's end once polled again", held).await;
    assert_eq!(r.expect("slow_count"), "counted to 1");
    client.close().await;
}

#[tokio::test]
async fn a_dropped_call_gives_its_post_back() {
    // One POST at a time: a dropped call's POST that were never read to its
    // end would keep every later call waiting.
    let (server, client) = connect(1).await;
    for i in 0..3 {
        let mut call = slow(&client, 60_000);
        start(&mut call).await;
        server.until("the call", |d| d.in_flight() == 1).await;
        drop(call);
        server
            .until("its cancellation", |d| d.cancelled_requests() == i + 1)
            .await;
        echo(&client, &format!("after drop {i}")).await;
    }
    client.close().await;
}

#[tokio::test]
async fn a_deadline_ends_a_call_its_caller_reads() {
    let (_server, client) = connect(64).await;
    let began = Instant::now();
    let opts = CallOptions::new().with_timeout(Duration::from_millis(300));
    let args = json!({"count": 1, "delay_ms": 60_000});
    let call = client.call_tool_with("slow_count", args, opts);
    let r = within("the deadline's end of the call", call).await;
    let e = r.expect_err("timed out");
    assert!(e.is_timeout(), "{e}");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    echo(&client, "after the deadline").await;
    client.close().await;
}

#[tokio::test]
async fn a_closed_client_ends_a_call_no_one_polls() {
    let (_server, client) = connect(64).await;
    let mut held = slow(&client, 60_000);
    start(&mut held).await;
    within("the close", client.close()).await;
    let r = within("the held call's end with the client", held).await;
    assert!(r.is_err(), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_callers_on_many_threads_some_dropping_their_calls() {
    let (server, client) = connect(64).await;
    let tasks: Vec<_> = (0..8)
        .map(|t| {
            let client = client.clone();
            tokio::spawn(async move {
                for i in 0..200 {
                    let text_in = format!("{t}-{i}");
                    let mut call = Box::pin(client.call_tool("echo", json!({"text": text_in})));
                    if i % 5 == 0 {
                        // Started, then dropped: its POST goes back to the
                        // driver, which reads it to its end.
                        start(&mut call).await;
                        drop(call);
                        continue;
                    }
                    let r = within("an answer", call).await.expect("echo");
                    assert_eq!(text(&r.content), text_in);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("caller");
    }
    server
        .until("every request ended", |d| d.in_flight() == 0)
        .await;
    echo(&client, "after").await;
    client.close().await;
}

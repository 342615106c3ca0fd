//! Calls whose callers read their own replies (the driver's `direct.rs`):
//! over HTTP a call's POST, left pending by the caller's start, is polled
//! by the caller itself when it is woken; over a byte
//! stream, at either revision, the caller of the only call in flight reads
//! the input itself (its lease). What that must not change: a call whose
//! future moves to another task still ends, a caller that stops polling
//! holds up only its own call, a dropped call's POST gives its place among
//! the transport's POSTs back (dropped with it at 2026-07-28, read to its
//! end at 2025-11-25) and a dropped call's lease goes back to the driver,
//! a deadline still ends a call, a reply read where the driver's lock is
//! taken still ends its call, and many callers on many threads each get
//! their answer. Over a byte stream the input carries the server's own
//! requests too, and so may a 2025-11-25 POST's stream: a caller that
//! stops polling holds them up until the driver's next look (10 ms) at
//! most, and so does a caller's lease kept after its call's reply, for
//! the server's request that follows it while no call is made; a call
//! started without its caller's waker takes such a lease back at once.

use std::collections::BTreeMap;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use mcp_client::mcp_types::elicitation::{ElicitResult, ElicitValue};
use mcp_client::{CallOptions, Client, HttpConfig};
use mcp_testkit::demo::{Server, Via, text};
use serde_json::json;

/// Where callers read their replies: a POST at both revisions, a byte
/// stream (the demo server in this process, so that its counters can be
/// looked at) at both revisions.
const READERS: [Via; 4] = [
    Via::HttpModern,
    Via::HttpLegacy,
    Via::StdioLegacy,
    Via::StdioModern,
];

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

/// The demo server reached by `via`, and a client connected to it that
/// sends at most `posts` POSTs at once over HTTP.
async fn connect(via: Via, posts: usize) -> (Server, Client) {
    let server = Server::start(via).await;
    let client = builder(&server, posts).connect().await.expect("connect");
    (server, client)
}

/// A client's builder for `server`, which sends at most `posts` POSTs at
/// once over HTTP.
fn builder(server: &Server, posts: usize) -> mcp_client::ClientBuilder {
    match server.url() {
        Some(url) => {
            let config = HttpConfig::new(&url)
                .expect("config")
                .with_max_concurrent_posts(posts);
            server.builder().http_config(config)
        }
        None => server.observable_builder(),
    }
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

/// The demo's `ask_name` elicitation answered: the name "Ada".
fn named_ada() -> ElicitResult {
    let name = ElicitValue::String("Ada".into());
    ElicitResult::accept(BTreeMap::from([("name".into(), name)]))
}

async fn echo(client: &Client, text_in: &str) {
    let echoed = client.call_tool("echo", json!({"text": text_in}));
    let r = within("an echo", echoed).await.expect("echo");
    assert_eq!(text(&r.content), text_in);
}

#[tokio::test]
async fn a_call_moved_to_another_task_after_it_started_still_ends() {
    for via in READERS {
        let (_server, client) = connect(via, 64).await;
        let mut call = slow(&client, 300);
        // Started here, awaited in another task: the reply must wake that one.
        start(&mut call).await;
        let moved = tokio::spawn(call);
        let r = within("the moved call's end", moved)
            .await
            .expect("the task");
        assert_eq!(r.expect("slow_count"), "counted to 1", "{via:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_caller_that_stops_polling_holds_up_only_its_own_call() {
    for via in READERS {
        let (server, client) = connect(via, 64).await;
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
        assert_eq!(r.expect("slow_count"), "counted to 1", "{via:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_caller_that_stops_polling_holds_up_no_request_of_the_servers() {
    // Over a byte stream the held call is the only one in flight: its
    // caller holds the input's lease, and the server's elicitation (at
    // 2026-07-28, the reply that asks for it) comes while it does not
    // poll. The driver takes the input back at its look and serves the
    // request. At 2025-11-25 over HTTP the caller holds its call's POST,
    // on whose stream the elicitation comes: the same.
    for via in [Via::StdioLegacy, Via::StdioModern, Via::HttpLegacy] {
        let server = Server::start(via).await;
        let asked = std::sync::Arc::new(tokio::sync::Notify::new());
        let notify = asked.clone();
        let client = builder(&server, 64)
            .form_elicitation(move |_| {
                let notify = notify.clone();
                async move {
                    notify.notify_one();
                    Ok(named_ada())
                }
            })
            .connect()
            .await
            .expect("connect");
        let mut held = Box::pin(client.call_tool("ask_name", json!({})));
        let began = Instant::now();
        start(&mut held).await;
        within("the server's request served", asked.notified()).await;
        // A look is 10 ms away; nothing else of the driver's is due within
        // a second (without the look, a timer of the core's at 2 s served
        // it over HTTP).
        assert!(
            began.elapsed() < Duration::from_secs(1),
            "{via:?}: served after {:?}",
            began.elapsed()
        );
        let r = within("the held call's end once polled again", held).await;
        assert_eq!(
            text(&r.expect("ask_name").content),
            "Hello, Ada!",
            "{via:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_dropped_call_gives_its_post_or_its_lease_back() {
    for via in READERS {
        // One POST at a time: a dropped call's POST that kept its place
        // would keep every later call waiting.
        let (server, client) = connect(via, 1).await;
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
}

#[tokio::test]
async fn a_deadline_ends_a_call_its_caller_reads() {
    for via in READERS {
        let (_server, client) = connect(via, 64).await;
        let began = Instant::now();
        let opts = CallOptions::new().with_timeout(Duration::from_millis(300));
        let args = json!({"count": 1, "delay_ms": 60_000});
        let call = client.call_tool_with("slow_count", args, opts);
        let r = within("the deadline's end of the call", call).await;
        let e = r.expect_err("timed out");
        assert!(e.is_timeout(), "{via:?}: {e}");
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "{via:?}: {:?}",
            began.elapsed()
        );
        echo(&client, "after the deadline").await;
        client.close().await;
    }
}

#[tokio::test]
async fn a_closed_client_ends_a_call_no_one_polls() {
    for via in READERS {
        let (_server, client) = connect(via, 64).await;
        let mut held = slow(&client, 60_000);
        start(&mut held).await;
        within("the close", client.close()).await;
        let r = within("the held call's end with the client", held).await;
        assert!(r.is_err(), "{via:?}: {r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_callers_on_many_threads_some_dropping_their_calls() {
    for via in READERS {
        let (server, client) = connect(via, 64).await;
        let tasks: Vec<_> = (0..8)
            .map(|t| {
                let client = client.clone();
                tokio::spawn(async move {
                    for i in 0..200 {
                        let text_in = format!("{t}-{i}");
                        let mut call = Box::pin(client.call_tool("echo", json!({"text": text_in})));
                        if i % 5 == 0 {
                            // Started, then dropped: its POST or its lease
                            // goes back to the driver, which reads on.
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_caller_after_another_on_many_threads() {
    // Each call alone in flight (its caller holds the input's lease over a
    // byte stream), each caller on whichever thread runs it.
    for via in READERS {
        let (_server, client) = connect(via, 64).await;
        for t in 0..50 {
            let client = client.clone();
            let task = tokio::spawn(async move { echo(&client, &format!("call {t}")).await });
            within("a caller's task", task).await.expect("caller");
        }
        client.close().await;
    }
}

/// When a [`pinging_server`] sends its `ping`.
#[derive(Clone, Copy)]
enum PingAt {
    /// Instead of the call's reply, which comes once the ping is answered.
    BeforeTheReply,
    /// After the call's reply, with no call of the client's in flight.
    AfterTheReply,
}

/// A 2025-11-25 server over an in-memory pipe that answers `initialize`,
/// and meets a `tools/call` with a `ping` of its own, a virtual millisecond
/// later (or after it answered the call, `at`); it sends on `pinged` when
/// the client's answer to the ping comes (and answers a call left open).
async fn pinging_server(
    end: tokio::io::DuplexStream,
    at: PingAt,
    pinged: tokio::sync::oneshot::Sender<()>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (r, mut w) = tokio::io::split(end);
    let mut lines = BufReader::new(r).lines();
    let mut pinged = Some(pinged);
    let mut call_id = None;
    let ping = json!({"jsonrpc": "2.0", "id": "ping-1", "method": "ping"});
    while let Ok(Some(line)) = lines.next_line().await {
        let message: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        let mut replies = Vec::new();
        match message["method"].as_str() {
            Some("initialize") => {
                replies.push(json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "pinging", "version": "1"}
                }}))
            }
            Some("tools/call") => match at {
                PingAt::BeforeTheReply => call_id = Some(message["id"].clone()),
                PingAt::AfterTheReply => replies.push(
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": {"content": []}}),
                ),
            },
            Some(_) => continue,
            // The answer to the ping.
            None => {
                if let Some(tx) = pinged.take() {
                    let _ = tx.send(());
                }
                if let Some(id) = call_id.take() {
                    replies.push(json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}));
                }
            }
        }
        for reply in &replies {
            let mut line = reply.to_string();
            line.push('\n');
            if w.write_all(line.as_bytes()).await.is_err() {
                return;
            }
        }
        if message["method"] == "tools/call" {
            // Later than the client's own wake-ups around the call's start
            // (or its reply): only the driver's look at the lease finds it.
            // tidy: real clock: no, the test's clock is paused
            tokio::time::sleep(Duration::from_millis(1)).await;
            let mut line = ping.to_string();
            line.push('\n');
            if w.write_all(line.as_bytes()).await.is_err() {
                return;
            }
        }
    }
}

/// A 2025-11-25 client over an in-memory pipe to the server `serve` runs
/// on its end.
async fn client_over<F: Future<Output = ()> + Send + 'static>(
    serve: impl FnOnce(tokio::io::DuplexStream) -> F,
) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve(server_end));
    let (r, w) = tokio::io::split(client_end);
    Client::builder()
        .era(mcp_client::EraPreference::LegacyOnly)
        .io(r, w)
        .connect()
        .await
        .expect("connect")
}

/// A client over an in-memory pipe to a [`pinging_server`] that pings `at`.
async fn pinged_client(at: PingAt) -> (Client, tokio::sync::oneshot::Receiver<()>) {
    let (pinged_tx, pinged) = tokio::sync::oneshot::channel();
    let client = client_over(|end| pinging_server(end, at, pinged_tx)).await;
    (client, pinged)
}

/// The driver looks at a lease every 10 ms (on a paused clock, time moves
/// only when every task waits), and takes it back when it does: what came
/// since `began` waited no longer.
fn within_one_look(began: tokio::time::Instant) {
    let waited = began.elapsed();
    assert!(
        (Duration::from_millis(1)..=Duration::from_millis(10)).contains(&waited),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_servers_request_waits_one_look_at_most_for_a_caller_that_does_not_poll() {
    let (client, pinged) = pinged_client(PingAt::BeforeTheReply).await;
    let mut held = Box::pin(client.call_tool("t", json!({})));
    // The only call in flight: its caller holds the input, and polls no
    // more. The ping's wake goes to it (this task, which looks elsewhere).
    start(&mut held).await;
    let began = tokio::time::Instant::now();
    within("the ping's answer", pinged)
        .await
        .expect("the server");
    within_one_look(began);
    let r = within("the held call's end once polled again", held).await;
    assert!(r.expect("answered").content.is_empty());
    client.close().await;
}

#[tokio::test(start_paused = true)]
async fn a_servers_request_after_a_reply_waits_one_look_at_most_with_no_call_made() {
    let (client, pinged) = pinged_client(PingAt::AfterTheReply).await;
    // The caller read its own reply, and its lease outlives the call: the
    // ping that follows wakes it (this task, which makes no call now).
    let r = within("the call", client.call_tool("t", json!({}))).await;
    assert!(r.expect("answered").content.is_empty());
    let began = tokio::time::Instant::now();
    within("the ping's answer", pinged)
        .await
        .expect("the server");
    within_one_look(began);
    client.close().await;
}

/// A 2025-11-25 server over an in-memory pipe that answers `initialize`
/// and every `tools/call` at once.
async fn answering_server(end: tokio::io::DuplexStream) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (r, mut w) = tokio::io::split(end);
    let mut lines = BufReader::new(r).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        let result = match message["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "answering", "version": "1"}
            }),
            Some("tools/call") => json!({"content": []}),
            _ => continue,
        };
        let mut line = json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string();
        line.push('\n');
        if w.write_all(line.as_bytes()).await.is_err() {
            return;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_started_without_its_callers_waker_takes_a_kept_lease_back_at_once() {
    let client = client_over(answering_server).await;
    // Its caller reads its own reply, and keeps the lease after it.
    let r = within("the first call", client.call_tool("t", json!({}))).await;
    assert!(r.expect("answered").content.is_empty());
    // A handle's call starts without its caller's waker: its start takes
    // the lease back and the driver reads the input from then on, at once,
    // not at its next look (10 ms on this paused clock).
    let began = tokio::time::Instant::now();
    let params = json!({"name": "t", "arguments": {}});
    let handle = client.start_request("tools/call", Some(params));
    let result = within("the handle's call", handle.into_future())
        .await
        .expect("answered");
    assert_eq!(result["content"], json!([]));
    let waited = began.elapsed();
    assert!(waited < Duration::from_millis(10), "{waited:?}");
    client.close().await;
}

/// A call's future, started in one place and polled in another.
type HeldCall = Pin<Box<dyn Future<Output = Result<String, mcp_client::Error>> + Send>>;

#[tokio::test]
async fn a_reply_read_while_the_driver_is_busy_still_ends_its_call() {
    // At 2026-07-28 a caller holds its call's POST itself and takes the
    // driver's lock only for what the POST gives. Polled where the driver
    // holds its lock (in a handler, which the driver polls under it), the
    // caller finds the lock taken: what its POST gave goes to the driver
    // through the command channel, with no wait for the lock (on this
    // thread it would never come), and the call ends at the driver's next
    // turn.
    let server = Server::start(Via::HttpModern).await;
    let held: std::sync::Arc<std::sync::Mutex<Option<HeldCall>>> = Default::default();
    let (back_tx, mut back) = tokio::sync::mpsc::unbounded_channel::<(HeldCall, bool)>();
    let slot = held.clone();
    let client = builder(&server, 64)
        .form_elicitation(move |_| {
            let call = slot.lock().expect("the held call's slot").take();
            let back_tx = back_tx.clone();
            async move {
                if let Some(mut call) = call {
                    let polled = std::future::poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx)));
                    let pending = polled.await.is_pending();
                    back_tx.send((call, pending)).expect("the test waits");
                }
                Ok(named_ada())
            }
        })
        .connect()
        .await
        .expect("connect");
    let echoing = client.clone();
    let mut call: HeldCall = Box::pin(async move {
        let r = echoing.call_tool("echo", json!({"text": "held"})).await?;
        Ok(text(&r.content))
    });
    start(&mut call).await;
    server
        .until("the held call answered", |d| d.in_flight() == 0)
        .await;
    *held.lock().expect("the held call's slot") = Some(call);
    let asked = within("ask_name", client.call_tool("ask_name", json!({}))).await;
    assert_eq!(text(&asked.expect("ask_name").content), "Hello, Ada!");
    let (call, pending) = within("the held call back", back.recv())
        .await
        .expect("the handler ran");
    // Its reply was read in the handler's poll and handed to the driver:
    // the call could not end in that poll.
    assert!(pending, "the held call ended under the driver's lock");
    let r = within("the held call's end", call).await;
    assert_eq!(r.expect("echo"), "held");
    client.close().await;
}

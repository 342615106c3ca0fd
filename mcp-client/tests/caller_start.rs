//! Calls started by their callers while the driver waits (the driver's
//! `direct.rs`): over a byte stream, a call's request is written in its
//! caller's poll. What that must not change: each call still fails at its
//! own deadline (the caller arms the driver's timer, or wakes the driver
//! to), a caller's commands still go out in the order it made them, and
//! many callers at once on a multi-thread runtime each get their own
//! answer.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{CallOptions, Client, EraPreference};
use mcp_testkit::demo::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::Instant;

/// Every line the server read, in order.
type Seen = Arc<Mutex<Vec<Value>>>;

/// A 2025-11-25 server over an in-memory pipe: answers `initialize`, and a
/// `tools/call` only when its arguments say `"answer": true`; never
/// anything else. Returns the connected client and what the server read.
async fn connect() -> (Client, Seen) {
    connect_with(Some(Duration::from_secs(60))).await
}

/// [`connect`] with `timeout` as the client's default request timeout.
async fn connect_with(timeout: Option<Duration>) -> (Client, Seen) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let seen = Seen::default();
    tokio::spawn(serve(server_end, seen.clone()));
    let (r, w) = tokio::io::split(client_end);
    let client = Client::builder()
        .era(EraPreference::LegacyOnly)
        .request_timeout(timeout)
        .io(r, w)
        .connect()
        .await
        .expect("connect");
    (client, seen)
}

async fn serve(server_end: tokio::io::DuplexStream, seen: Seen) {
    let (r, mut w) = tokio::io::split(server_end);
    let mut lines = BufReader::new(r).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        seen.lock().expect("seen").push(message.clone());
        let result = match message["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "caller-start", "version": "1"}
            }),
            Some("tools/call") if message["params"]["arguments"]["answer"] == true => {
                json!({"content": []})
            }
            _ => continue,
        };
        let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        let mut line = reply.to_string();
        line.push('\n');
        if w.write_all(line.as_bytes()).await.is_err() {
            break;
        }
    }
}

/// Calls the tool with `timeout`; how long it took and whether it timed
/// out (`Ok` when answered).
async fn call(client: &Client, answer: bool, timeout: Duration) -> (Duration, Result<(), bool>) {
    let start = Instant::now();
    let opts = CallOptions::new().with_timeout(timeout);
    // Bounded: a deadline that never fires fails the test instead of
    // hanging it (a paused clock runs on to this bound).
    let r = tokio::time::timeout(
        timeout * 2 + Duration::from_secs(5),
        client.call_tool_with("t", json!({"answer": answer}), opts),
    )
    .await
    .expect("the call ended by itself");
    (start.elapsed(), r.map(drop).map_err(|e| e.is_timeout()))
}

#[tokio::test(start_paused = true)]
async fn each_call_started_by_its_caller_fails_at_its_own_deadline() {
    let (client, _) = connect().await;
    // Answered: the timer stays armed at this call's deadline, 10 s out.
    let (_, r) = call(&client, true, Duration::from_secs(10)).await;
    assert_eq!(r, Ok(()));
    // A later deadline than the armed one: the timer is kept, and fires
    // for nothing at 10 s; the call still ends at its own.
    let (took, r) = call(&client, false, Duration::from_secs(20)).await;
    assert_eq!(r, Err(true), "timed out");
    assert_eq!(took, Duration::from_secs(20));
    // Right after a timeout the timer holds no waker (it fired): the
    // caller arms it anew and has the driver poll it.
    let (took, r) = call(&client, false, Duration::from_secs(2)).await;
    assert_eq!(r, Err(true), "timed out");
    assert_eq!(took, Duration::from_secs(2));
    // An earlier deadline than the armed one.
    let (_, r) = call(&client, true, Duration::from_secs(30)).await;
    assert_eq!(r, Ok(()));
    let (took, r) = call(&client, false, Duration::from_secs(2)).await;
    assert_eq!(r, Err(true), "timed out");
    assert_eq!(took, Duration::from_secs(2));
    // After an idle gap with no call in flight.
    // tidy: real clock: no, this test's clock is paused (the file's last test runs real servers on many threads)
    tokio::time::sleep(Duration::from_secs(100)).await;
    let (took, r) = call(&client, false, Duration::from_secs(3)).await;
    assert_eq!(r, Err(true), "timed out");
    assert_eq!(took, Duration::from_secs(3));
    client.close().await;
}

#[tokio::test(start_paused = true)]
async fn the_first_deadline_a_caller_arms_wakes_the_driver() {
    // No deadline before this call's: the driver never polled its timer.
    let (client, _) = connect_with(None).await;
    let (took, r) = call(&client, false, Duration::from_secs(2)).await;
    assert_eq!(r, Err(true), "timed out");
    assert_eq!(took, Duration::from_secs(2));
    client.close().await;
}

/// On the real clock the driver's timer is a timerfd on Linux (tokio's
/// timer elsewhere): the deadlines still end the calls, an earlier one
/// after a later one too.
#[tokio::test]
async fn deadlines_end_calls_on_the_real_clock() {
    let (client, _) = connect().await;
    let (_, r) = call(&client, true, Duration::from_secs(10)).await;
    assert_eq!(r, Ok(()));
    for timeout in [Duration::from_millis(300), Duration::from_millis(100)] {
        let (took, r) = call(&client, false, timeout).await;
        assert_eq!(r, Err(true), "timed out");
        assert!(took >= timeout, "{took:?} for {timeout:?}");
        assert!(
            took < timeout + Duration::from_secs(2),
            "{took:?} for {timeout:?}"
        );
    }
    client.close().await;
}

/// A writer that fails every write once told to.
struct Failing {
    inner: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    fail: Arc<std::sync::atomic::AtomicBool>,
}

impl tokio::io::AsyncWrite for Failing {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            let e = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the write side broke");
            return std::task::Poll::Ready(Err(e));
        }
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A write that fails while its caller writes it ends the transport and
/// fails the call at once, as when the driver writes (not at its deadline).
#[tokio::test]
async fn a_write_that_fails_in_its_callers_start_fails_the_call_at_once() {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(serve(server_end, Seen::default()));
    let (r, w) = tokio::io::split(client_end);
    let fail = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let w = Failing {
        inner: w,
        fail: fail.clone(),
    };
    let client = Client::builder()
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(60)))
        .io(r, w)
        .connect()
        .await
        .expect("connect");
    fail.store(true, std::sync::atomic::Ordering::SeqCst);
    let call = client.call_tool("t", json!({"answer": true}));
    let e = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("failed at once, not at the deadline")
        .expect_err("the request could not be written");
    assert!(!e.is_timeout(), "{e}");
    assert!(e.is_transport(), "{e:?}");
}

#[tokio::test]
async fn a_cancel_sent_before_a_call_goes_out_before_it() {
    let (client, seen) = connect().await;
    for _ in 0..20 {
        // The first call's request goes out in its first poll; dropping it
        // then sends its cancel, and the next call starts at once after,
        // in the same turn of this task.
        let mut first = Box::pin(client.call_tool("t", json!({"answer": false})));
        assert!(futures::poll!(first.as_mut()).is_pending());
        drop(first);
        let second = client.call_tool("t", json!({"answer": true}));
        second.await.expect("answered");
    }
    let seen = seen.lock().expect("seen").clone();
    let order: Vec<&str> = seen
        .iter()
        .filter_map(|m| m["method"].as_str())
        .filter(|m| *m == "tools/call" || *m == "notifications/cancelled")
        .collect();
    let expected: Vec<&str> = ["tools/call", "notifications/cancelled", "tools/call"]
        .into_iter()
        .cycle()
        .take(60)
        .collect();
    assert_eq!(order, expected);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_callers_on_many_threads_each_get_their_answer() {
    for via in mcp_testkit::demo::ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let tasks: Vec<_> = (0..8)
            .map(|t| {
                let client = client.clone();
                tokio::spawn(async move {
                    for i in 0..100 {
                        let text = format!("{t}-{i}");
                        let r = client
                            .call_tool("echo", json!({"text": text}))
                            .await
                            .expect("echo");
                        let got = serde_json::to_value(&r.content).expect("content");
                        assert_eq!(got[0]["text"], json!(text), "{via:?}");
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("caller");
        }
        client.close().await;
    }
}

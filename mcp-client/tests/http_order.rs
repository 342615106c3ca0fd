//! Over Streamable HTTP every message is its own POST, and separate POSTs
//! may reach the server in any order. A request's order does not matter
//! (the server answers each by id), but notifications and responses carry
//! their order in time: progress must arrive increasing, a handler's
//! notifications before its response. So the client sends each message that
//! is not a request only once the POST of the one before it has ended.
//!
//! A scripted HTTP/1.1 server on loopback holds the `202` of the first
//! notification until the test releases it: the second must not reach the
//! server before that, while a request sent after both goes out at once.

use mcp_testkit::http as scripted;

use std::sync::Arc;

use mcp_client::{Client, EraPreference, HttpConfig};
use mcp_types::roots::Root;
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};

const ROOTS_CHANGED: &str = "notifications/roots/list_changed";

/// What the server tells the test, in the order it happened.
#[derive(Debug, PartialEq)]
enum Seen {
    /// The n-th `notifications/roots/list_changed` arrived.
    RootsChanged(usize),
    /// The first one's `202` is about to be written.
    FirstAnswered,
    Ping,
}

struct Server {
    seen: mpsc::UnboundedSender<Seen>,
    /// One permit: the first notification's `202` may go out.
    release: Semaphore,
    roots_changed: std::sync::atomic::AtomicUsize,
}

async fn serve(stream: TcpStream, server: Arc<Server>) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _, body)) = scripted::read_request(&mut conn).await {
        if method != "POST" {
            scripted::answer_non_post(&mut conn, &method).await;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
        match message["method"].as_str() {
            Some("initialize") => scripted::answer_initialize(&mut conn, &message).await,
            Some(ROOTS_CHANGED) => {
                let n = 1 + server
                    .roots_changed
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let _ = server.seen.send(Seen::RootsChanged(n));
                if n == 1 {
                    let _permit = server.release.acquire().await;
                    let _ = server.seen.send(Seen::FirstAnswered);
                }
                scripted::respond(&mut conn, "202 Accepted", "", "").await;
            }
            Some("ping") => {
                let _ = server.seen.send(Seen::Ping);
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {}});
                let extra = "content-type: application/json\r\n";
                scripted::respond(&mut conn, "200 OK", extra, &reply.to_string()).await;
            }
            // `notifications/initialized`, and whatever else comes.
            _ => scripted::respond(&mut conn, "202 Accepted", "", "").await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_waits_for_the_post_of_the_one_before_it() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let (tx, mut seen) = mpsc::unbounded_channel();
    let server = Arc::new(Server {
        seen: tx,
        release: Semaphore::new(0),
        roots_changed: Default::default(),
    });
    let accepting = Arc::clone(&server);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, Arc::clone(&accepting)));
        }
    });
    let client = Client::builder()
        .http_config(HttpConfig::new(&url).expect("config"))
        .era(EraPreference::LegacyOnly)
        .roots(Vec::<Root>::new())
        .connect()
        .await
        .expect("connect");

    client.notify_roots_list_changed().await.expect("first");
    client.notify_roots_list_changed().await.expect("second");
    // A request is not held behind them: it is answered while the first
    // notification's POST is still open.
    client.ping().await.expect("ping");
    let mut before_release = Vec::new();
    while !(before_release.contains(&Seen::Ping) && before_release.contains(&Seen::RootsChanged(1)))
    {
        before_release.push(seen.recv().await.expect("server events"));
    }
    assert!(
        !before_release.contains(&Seen::RootsChanged(2)),
        "the second notification reached the server before the first one's POST ended: {before_release:?}"
    );

    server.release.add_permits(1);
    assert_eq!(seen.recv().await, Some(Seen::FirstAnswered));
    assert_eq!(seen.recv().await, Some(Seen::RootsChanged(2)));
    client.close().await;
}

//! Time queued behind the HTTP in-flight limit does not count against a
//! request's deadline (issue 14, item 3): with two POSTs at a time, a
//! server that answers each call in 400 ms and a 1 s timeout, twelve
//! concurrent calls all succeed (the last ones wait about 2 s in the queue).

use mcp_testkit::http as scripted;

use std::time::Duration;

use mcp_client::{Client, EraPreference, HttpConfig};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};

const CALLS: usize = 12;
const ANSWER_AFTER: Duration = Duration::from_millis(400);

async fn serve(stream: TcpStream) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _, body)) = scripted::read_request(&mut conn).await {
        if method != "POST" {
            scripted::answer_non_post(&mut conn, &method).await;
            continue;
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        if request["method"] == "initialize" {
            scripted::answer_initialize(&mut conn, &request).await;
        } else if request.get("id").is_none() {
            scripted::respond(&mut conn, "202 Accepted", "", "").await;
        } else {
            // A healthy but not instant server. Real time is the behaviour
            // under test (queueing must not use up the deadline), on real
            // sockets: a paused clock jumps to the next timer (a deadline)
            // whenever the runtime waits on a socket, failing calls a real
            // clock would not.
            // tidy: real clock: the deadline under test, on real sockets
            tokio::time::sleep(ANSWER_AFTER).await;
            scripted::answer_echo(&mut conn, &request).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queueing_behind_the_in_flight_limit_does_not_use_up_the_deadline() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream));
        }
    });
    let config = HttpConfig::new(&url)
        .expect("config")
        .with_max_concurrent_posts(2);
    let client = Client::builder()
        .http_config(config)
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(1)))
        .connect()
        .await
        .expect("connect");
    let calls = (0..CALLS).map(|i| {
        let client = client.clone();
        async move {
            client
                .call_tool("echo", json!({ "text": format!("call {i}") }))
                .await
        }
    });
    let results = futures::future::join_all(calls).await;
    for (i, r) in results.iter().enumerate() {
        if let Err(e) = r {
            panic!("call {i} failed although the server answered in time: {e}");
        }
    }
    client.close().await;
}

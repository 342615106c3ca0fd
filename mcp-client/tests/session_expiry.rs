//! A 2025-11-25 session that the server ends while many calls are in
//! flight or queued (issue 14, item 4): only the calls that reached the old
//! session fail as "not replayed"; every call that was never sent goes out
//! in the new session and succeeds. And a server that answers a stale
//! session with `400` instead of `404` (item 8) is recovered the same way.

use mcp_testkit::http as scripted;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{Client, EraPreference};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};

/// Requests a session serves before the server ends it.
const SESSION_REQUESTS: u32 = 50;
const CALLS: usize = 500;

#[derive(Default)]
struct State {
    /// Answer a stale session with `400` and a JSON-RPC error naming it, as
    /// the TypeScript SDK v1 does, instead of `404`.
    stale_is_400: bool,
    /// The current session's number and how many requests it served.
    session: u32,
    served: u32,
    /// `tools/call` requests answered `404` (they reached an ended session).
    rejected_calls: usize,
    /// `tools/call` requests answered with a result.
    answered_calls: usize,
}

fn session_of(headers: &[(String, String)]) -> Option<u32> {
    let (_, v) = headers.iter().find(|(k, _)| k == "mcp-session-id")?;
    v.strip_prefix("s-")?.parse().ok()
}

async fn serve(stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut conn = BufReader::new(stream);
    while let Some((method, headers, body)) = scripted::read_request(&mut conn).await {
        if method != "POST" {
            scripted::answer_non_post(&mut conn, &method).await;
            continue;
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let call = request["method"].as_str().unwrap_or_default().to_owned();
        if call == "initialize" {
            let session = {
                let mut s = state.lock().expect("lock");
                s.session += 1;
                s.served = 0;
                s.session
            };
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "expiring", "version": "1"}
            }});
            let extra =
                format!("content-type: application/json\r\nmcp-session-id: s-{session}\r\n");
            scripted::respond(&mut conn, "200 OK", &extra, &reply.to_string()).await;
            continue;
        }
        let live = {
            let mut s = state.lock().expect("lock");
            let live = session_of(&headers) == Some(s.session) && s.served < SESSION_REQUESTS;
            if live && request.get("id").is_some() {
                s.served += 1;
            }
            if call == "tools/call" {
                match live {
                    true => s.answered_calls += 1,
                    false => s.rejected_calls += 1,
                }
            }
            live
        };
        let stale_is_400 = state.lock().expect("lock").stale_is_400;
        if !live && stale_is_400 {
            let body = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;
            let extra = "content-type: application/json\r\n";
            scripted::respond(&mut conn, "400 Bad Request", extra, body).await;
        } else if !live {
            scripted::respond(&mut conn, "404 Not Found", "", "").await;
        } else if request.get("id").is_none() {
            scripted::respond(&mut conn, "202 Accepted", "", "").await;
        } else {
            scripted::answer_echo(&mut conn, &request).await;
        }
    }
}

async fn start(state: Arc<Mutex<State>>) -> Client {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, state.clone()));
        }
    });
    Client::builder()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .connect()
        .await
        .expect("connect")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_calls_that_reached_an_ended_session_fail_as_not_replayed() {
    let state = Arc::new(Mutex::new(State::default()));
    let client = start(state.clone()).await;
    let calls = (0..CALLS).map(|i| {
        let client = client.clone();
        async move {
            let text = format!("call {i}");
            (
                text.clone(),
                client.call_tool("echo", json!({ "text": text })).await,
            )
        }
    });
    let results = tokio::time::timeout(Duration::from_secs(60), futures::future::join_all(calls))
        .await
        .expect("every call ends");
    let mut not_replayed = 0;
    for (text, result) in &results {
        match result {
            Ok(r) => {
                let got = r
                    .content
                    .iter()
                    .filter_map(|b| b.as_text())
                    .collect::<String>();
                assert_eq!(&got, text);
            }
            Err(e) => {
                assert!(e.is_session_recovered(), "{e}");
                assert!(e.to_string().contains("not replayed"), "{e}");
                not_replayed += 1;
            }
        }
    }
    let (sessions, rejected, answered) = {
        let s = state.lock().expect("lock");
        (s.session, s.rejected_calls, s.answered_calls)
    };
    assert_eq!(
        not_replayed, rejected,
        "only calls that reached an ended session fail ({answered} answered)"
    );
    assert_eq!(answered + not_replayed, CALLS);
    assert!(sessions > 1, "the server ended at least one session");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_session_answered_with_400_is_replaced() {
    let state = Arc::new(Mutex::new(State {
        stale_is_400: true,
        ..State::default()
    }));
    let client = start(state.clone()).await;
    for i in 0..SESSION_REQUESTS {
        client
            .call_tool("echo", json!({ "text": format!("call {i}") }))
            .await
            .expect("served in the first session");
    }
    let e = client
        .call_tool("echo", json!({"text": "stale"}))
        .await
        .expect_err("the server ended the session");
    assert!(e.is_session_recovered(), "{e}");
    assert!(e.to_string().contains("not replayed"), "{e}");
    let r = client
        .call_tool("echo", json!({"text": "again"}))
        .await
        .expect("served in a new session");
    let got: String = r.content.iter().filter_map(|b| b.as_text()).collect();
    assert_eq!(got, "again");
    assert_eq!(state.lock().expect("lock").session, 2);
    client.close().await;
}

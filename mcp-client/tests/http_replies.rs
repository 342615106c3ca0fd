//! What a `Client` call reports for HTTP answers that are not a response
//! (issue 14 item 6): a `202 Accepted` with no body answering a request is
//! the server's protocol violation, named as such, and a `401` shows the
//! transport's summary of its `WWW-Authenticate` challenge. A scripted
//! HTTP/1.1 server on loopback answers `tools/call` by tool name.

use mcp_testkit::http as scripted;

use std::time::Duration;

use mcp_client::{ClientBuilder, EraPreference, ErrorKind, PeerMisbehaved, RequestError};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};

use scripted::{answer_initialize, answer_non_post, read_request, respond};

/// A bearer token the client never holds; it must not show up anywhere.
const CHALLENGE: &str = "www-authenticate: Bearer realm=\"mcp\", error=\"invalid_token\", \
                         error_description=\"the token expired\"\r\n";

async fn serve_connection(stream: TcpStream) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _headers, body)) = read_request(&mut conn).await {
        if method != "POST" {
            answer_non_post(&mut conn, &method).await;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let name = message["params"]["name"].as_str().unwrap_or_default();
        match (message.get("method").and_then(Value::as_str), name) {
            (Some("initialize"), _) => answer_initialize(&mut conn, &message).await,
            (Some("tools/call"), "deny") => {
                respond(&mut conn, "401 Unauthorized", CHALLENGE, "").await;
            }
            _ => respond(&mut conn, "202 Accepted", "", "").await,
        }
    }
}

async fn call(tool: &str) -> mcp_client::Error {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(stream));
        }
    });
    let client = ClientBuilder::new()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .request_timeout(Some(Duration::from_secs(60)))
        .connect()
        .await
        .expect("connect");
    let outcome = tokio::time::timeout(Duration::from_secs(10), client.call_tool(tool, json!({})))
        .await
        .expect("the call ends long before its 60 s deadline");
    // The connection stays usable after either answer.
    assert!(!client.is_closed());
    client.close().await;
    outcome.expect_err("neither answer is a result")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_202_without_body_answering_a_request_is_a_protocol_violation() {
    let err = call("accept").await;
    assert!(err.is_protocol_violation(), "{err}");
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Request(RequestError::Peer(PeerMisbehaved::AcceptedWithoutBody(_)))
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("with 202 Accepted and no body") && text.contains("answered request"),
        "{text}"
    );
    assert!(!text.contains("transport closed"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_shows_its_challenge_summary() {
    let err = call("deny").await;
    assert!(err.is_unauthorized(), "{err}");
    let text = err.to_string();
    assert!(text.contains("401"), "{text}");
    assert!(
        text.contains("Bearer") && text.contains("invalid_token"),
        "the challenge is summarised: {text}"
    );
}

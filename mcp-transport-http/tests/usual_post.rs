//! The usual POST (an unregistered request with no field but its own, on
//! an idle HTTP/1.1 connection: `transport/usual.rs`) against the general
//! way (the same requests, registered): whatever a scripted server
//! answers, each request's outcome is the same, so are the connections
//! opened and the session adopted.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::atomic::Ordering;

use http::HeaderMap;
use mcp_transport_http::{HttpError, HttpTransport, Reply};
use mcp_types::ProtocolVersion;
use mcp_types::routing::HttpRouting;
use support::raw::{After, raw_server};
use support::{config, legacy, modern, ms, request, within};

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#;

/// A reply with this status line, fields and body (its length given).
fn reply(status: &str, fields: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{fields}content-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A chunked reply of one chunk and the end.
fn chunked(fields: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\n{fields}transfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    )
}

const JSON: &str = "content-type: application/json\r\n";
const SSE: &str = "content-type: text/event-stream\r\n";

/// What a request gave, as text to compare: a stream read to its end.
async fn outcome(result: Result<Reply, HttpError>) -> String {
    match result {
        Ok(Reply::Accepted) => "accepted".to_owned(),
        Ok(Reply::Message(m)) => format!("message {m:?}"),
        Ok(Reply::Stream(mut s)) => {
            let mut items = Vec::new();
            while let Some(item) = within(ms(5_000), s.next()).await {
                items.push(match item {
                    Ok(m) => format!("{m:?}"),
                    Err(e) => format!("error {e}"),
                });
            }
            format!("stream {items:?}")
        }
        Ok(other) => format!("other {other:?}"),
        Err(e) => format!("error {e}"),
    }
}

/// Three requests on one transport, each in a registered slot (the
/// general way) or an unregistered one (the usual way, from the second
/// on: the first finds no idle connection): each outcome and the session
/// after it, and the connections the server saw.
async fn run(pieces: &[Vec<u8>], after: After, routing: &HttpRouting, registered: bool) -> String {
    let (url, connections) = raw_server(pieces.to_vec(), after).await;
    let t = HttpTransport::new(config(&url)).unwrap();
    let mut seen = Vec::new();
    let none = HeaderMap::new();
    for _ in 0..3 {
        let slot = match registered {
            true => t.try_reserve(routing),
            false => t.try_reserve_unregistered(routing),
        };
        let slot = slot.unwrap().unwrap();
        let sent = t.send_in(slot, request(1, "ping"), routing, &none);
        let got = outcome(within(ms(5_000), sent).await).await;
        seen.push(format!("{got} / session {:?}", t.session_id()));
    }
    seen.push(format!(
        "connections {}",
        connections.load(Ordering::SeqCst)
    ));
    seen.join("\n")
}

#[tokio::test]
async fn the_usual_way_reads_every_reply_as_the_general_way_does() {
    let json = reply("200 OK", JSON, BODY);
    let head_len = json.len() - BODY.len();
    let event = format!("data: {BODY}\n\n");
    let progress = r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
    let cases: Vec<(&str, Vec<Vec<u8>>, After)> = vec![
        ("json", vec![json.clone().into_bytes()], After::KeepOpen),
        (
            "json after its head",
            vec![json[..head_len].into(), json[head_len..].into()],
            After::KeepOpen,
        ),
        (
            "chunked json",
            vec![chunked(JSON, BODY).into_bytes()],
            After::KeepOpen,
        ),
        (
            "sse reply",
            vec![chunked(SSE, &event).into_bytes()],
            After::KeepOpen,
        ),
        (
            "sse progress then reply",
            vec![chunked(SSE, &format!("{progress}\n\n{event}")).into_bytes()],
            After::KeepOpen,
        ),
        (
            "202",
            vec![reply("202 Accepted", "", "").into_bytes()],
            After::KeepOpen,
        ),
        (
            "500 with an error",
            vec![
                reply(
                    "500 Internal Server Error",
                    JSON,
                    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"down"}}"#,
                )
                .into_bytes(),
            ],
            After::KeepOpen,
        ),
        (
            "404",
            vec![reply("404 Not Found", "", "gone").into_bytes()],
            After::KeepOpen,
        ),
        (
            "401",
            vec![
                reply(
                    "401 Unauthorized",
                    "www-authenticate: Bearer realm=\"x\"\r\n",
                    "",
                )
                .into_bytes(),
            ],
            After::KeepOpen,
        ),
        (
            "302",
            vec![reply("302 Found", "location: /elsewhere\r\n", "").into_bytes()],
            After::KeepOpen,
        ),
        (
            "text",
            vec![reply("200 OK", "content-type: text/plain\r\n", "hi").into_bytes()],
            After::KeepOpen,
        ),
        (
            "no type",
            vec![reply("200 OK", "", "{}").into_bytes()],
            After::KeepOpen,
        ),
        (
            "blank json",
            vec![reply("200 OK", JSON, "  ").into_bytes()],
            After::KeepOpen,
        ),
        (
            "broken json",
            vec![reply("200 OK", JSON, "{\"jsonrpc\"").into_bytes()],
            After::KeepOpen,
        ),
        (
            "a session",
            vec![reply("200 OK", &format!("{JSON}mcp-session-id: s-1\r\n"), BODY).into_bytes()],
            After::KeepOpen,
        ),
        (
            "a broken session",
            vec![reply("200 OK", &format!("{JSON}mcp-session-id: s 1\r\n"), BODY).into_bytes()],
            After::KeepOpen,
        ),
        (
            "connection close",
            vec![reply("200 OK", &format!("{JSON}connection: close\r\n"), BODY).into_bytes()],
            After::Close,
        ),
        (
            "cut short",
            vec![json[..json.len() - 3].into()],
            After::Close,
        ),
        (
            "interim",
            vec![format!("HTTP/1.1 100 Continue\r\n\r\n{json}").into_bytes()],
            After::KeepOpen,
        ),
    ];
    let initialize = legacy(1, None);
    let modern = modern(1, "ping");
    let legacy = legacy(1, Some(ProtocolVersion::V2025_11_25));
    for (name, pieces, after) in &cases {
        for routing in [&modern, &legacy, &initialize] {
            let general = run(pieces, *after, routing, true).await;
            let usual = run(pieces, *after, routing, false).await;
            assert_eq!(usual, general, "{name} at {:?}", routing.protocol_version);
        }
    }
}

#[tokio::test]
async fn a_routing_text_that_cannot_travel_fails_the_usual_way_as_the_general_way() {
    let json = reply("200 OK", JSON, BODY);
    let broken = modern(1, "ping").with_name("bad\nname");
    let general = run(&[json.clone().into_bytes()], After::KeepOpen, &broken, true).await;
    let usual = run(&[json.into_bytes()], After::KeepOpen, &broken, false).await;
    assert_eq!(usual, general);
    assert!(usual.contains("error"), "{usual}");
}

//! 2025-11-25 (legacy era) behaviour: sessions, the GET stream, resumption.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::time::{Duration, Instant};

use http::Method;
use mcp_transport_http::{HttpError, HttpTransport, Reply};
use mcp_types::routing::HttpRouting;
use mcp_types::{Message, ProtocolVersion, RequestId};
use support::*;

const V: ProtocolVersion = ProtocolVersion::V2025_11_25;

fn with_session(mut response: http::Response<Body>, id: &str) -> http::Response<Body> {
    response
        .headers_mut()
        .insert("mcp-session-id", id.parse().unwrap());
    response
}

fn is_response(m: &Message, id: i64) -> bool {
    matches!(m, Message::Response(r) if r.id == RequestId::Number(id))
}

async fn drain(reply: Reply) -> Vec<Result<Message, HttpError>> {
    // A stream that carried only the reply, and ended with it, comes as
    // that one message.
    let mut stream = match reply {
        Reply::Stream(stream) => stream,
        Reply::Message(message) => return vec![Ok(message)],
        other => panic!("expected a stream or its reply, got {other:?}"),
    };
    let mut out = Vec::new();
    while let Some(item) = within(Duration::from_secs(5), stream.next()).await {
        out.push(item);
    }
    out
}

#[tokio::test]
async fn session_id_travels_on_every_request_and_close_deletes_it() {
    let server = serve(
        |seen, _| match (&seen.method, seen.json()["method"].as_str()) {
            (&Method::POST, Some("initialize")) => {
                with_session(json(200, &result(request_id(seen), "{}")), "sess-1")
            }
            (&Method::POST, Some("notifications/initialized")) => status(202),
            (&Method::POST, _) => json(200, &result(request_id(seen), "{}")),
            (&Method::DELETE, _) => status(405),
            _ => status(500),
        },
    )
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let init = t
        .send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    assert!(matches!(init, Reply::Message(m) if is_response(&m, 0)));
    assert_eq!(t.session_id().unwrap().as_str(), "sess-1");
    assert!(
        !format!("{:?}", t.session_id()).contains("sess-1"),
        "Debug redacts the session id"
    );
    let reply = t
        .send(
            notification("notifications/initialized"),
            &HttpRouting::new(V),
        )
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Accepted));
    t.send(request(1, "tools/list"), &legacy(1, Some(V)))
        .await
        .unwrap();
    t.close().await.unwrap();
    assert!(t.session_id().is_none());
    assert!(matches!(
        t.send(request(2, "ping"), &legacy(2, Some(V))).await,
        Err(HttpError::Closed)
    ));

    let seen = server.state.seen();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].header("mcp-session-id"), None);
    assert_eq!(seen[0].header("mcp-protocol-version"), None);
    for s in &seen[1..] {
        assert_eq!(s.header("mcp-session-id"), Some("sess-1"), "{:?}", s.method);
        assert_eq!(s.header("mcp-protocol-version"), Some("2025-11-25"));
    }
    assert_eq!(seen[3].method, Method::DELETE);
}

#[tokio::test]
async fn session_expiry_404_clears_the_id_and_a_fresh_initialize_starts_anew() {
    let server = serve(|seen, _| {
        let method = seen.json()["method"].as_str().unwrap_or("").to_owned();
        match (method.as_str(), seen.header("mcp-session-id")) {
            ("initialize", None) => {
                let n = if seen.json()["id"] == 0 { "s1" } else { "s2" };
                with_session(json(200, &result(request_id(seen), "{}")), n)
            }
            ("initialize", Some(_)) => status(400),
            (_, Some("s1")) => status(404),
            (_, Some("s2")) => json(200, &result(request_id(seen), "{}")),
            _ => status(400),
        }
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    t.send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    let err = t
        .send(request(1, "tools/list"), &legacy(1, Some(V)))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::SessionExpired), "{err:?}");
    assert!(err.to_string().contains("not replayed"));
    assert!(t.session_id().is_none(), "the stale id is forgotten");
    // The caller re-initializes (without the stale id) and goes on.
    t.send(request(10, "initialize"), &legacy(10, None))
        .await
        .unwrap();
    assert_eq!(t.session_id().unwrap().as_str(), "s2");
    let reply = t
        .send(request(11, "tools/list"), &legacy(11, Some(V)))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Message(m) if is_response(&m, 11)));
    let seen = server.state.seen();
    assert_eq!(seen.len(), 4, "the failed request was not replayed");
    assert_eq!(seen[2].header("mcp-session-id"), None);
}

#[tokio::test]
async fn after_an_expiry_no_request_goes_out_sessionless_until_initialize() {
    let server = serve(|seen, _| {
        let method = seen.json()["method"].as_str().unwrap_or("").to_owned();
        match (method.as_str(), seen.header("mcp-session-id")) {
            ("initialize", None) => {
                let n = if seen.json()["id"] == 0 { "s1" } else { "s2" };
                with_session(json(200, &result(request_id(seen), "{}")), n)
            }
            (_, Some("s1")) => status(404),
            (_, Some("s2")) => json(200, &result(request_id(seen), "{}")),
            _ => status(400),
        }
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    t.send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    let err = t
        .send(request(1, "tools/list"), &legacy(1, Some(V)))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::SessionExpired), "{err:?}");
    // A request already on its way when the expiry was seen is not sent
    // (it never reaches the server sessionless), and says so.
    let err = t
        .send(request(2, "tools/call"), &legacy(2, Some(V)))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::SessionLost), "{err:?}");
    assert_eq!(
        server.state.seen().len(),
        2,
        "nothing sent without a session"
    );
    t.send(request(10, "initialize"), &legacy(10, None))
        .await
        .unwrap();
    let reply = t
        .send(request(11, "tools/list"), &legacy(11, Some(V)))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Message(m) if is_response(&m, 11)));
}

#[tokio::test]
async fn a_404_before_any_session_is_not_session_expiry() {
    let server = serve(|_, _| status(404)).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let err = t
        .send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap_err();
    assert!(
        matches!(err, HttpError::Status { status, .. } if status == 404),
        "{err:?}"
    );
}

#[tokio::test]
async fn clear_session_makes_the_next_request_sessionless() {
    let server =
        serve(|seen, _| with_session(json(200, &result(request_id(seen), "{}")), "abc")).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    t.send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    t.clear_session();
    t.send(request(1, "initialize"), &legacy(1, None))
        .await
        .unwrap();
    assert_eq!(server.state.seen()[1].header("mcp-session-id"), None);
}

#[tokio::test]
async fn invalid_session_id_is_rejected() {
    let server =
        serve(|seen, _| with_session(json(200, &result(request_id(seen), "{}")), "bad id")).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let err = t
        .send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::InvalidSessionId));
}

#[tokio::test]
async fn get_405_means_no_server_stream_and_no_retry() {
    let server = serve(|seen, _| match seen.method {
        Method::GET => status(405),
        _ => with_session(json(200, &result(request_id(seen), "{}")), "s"),
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    t.send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    t.send(request(1, "ping"), &legacy(1, Some(V)))
        .await
        .unwrap();
    assert!(t.open_server_stream().await.unwrap().is_none());
    tokio::time::sleep(ms(100)).await;
    let gets: Vec<_> = server
        .state
        .seen()
        .into_iter()
        .filter(|s| s.method == Method::GET)
        .collect();
    assert_eq!(gets.len(), 1);
    assert_eq!(gets[0].header("accept"), Some("text/event-stream"));
    assert_eq!(gets[0].header("mcp-session-id"), Some("s"));
    assert_eq!(gets[0].header("mcp-protocol-version"), Some("2025-11-25"));
}

#[tokio::test]
async fn server_stream_delivers_requests_and_resumes_after_a_break() {
    let server = serve(|seen, _| {
        if seen.method != Method::GET {
            return with_session(json(200, &result(request_id(seen), "{}")), "s");
        }
        let ping = r#"{"jsonrpc":"2.0","id":"srv-1","method":"ping"}"#;
        let note = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        match seen.header("last-event-id") {
            None => sse(
                vec![
                    chunk(&format!("retry: 1\nid: g1\ndata: {ping}\n\n")),
                    Step::Sleep(ms(20)),
                    Step::Abort,
                ],
                None,
            ),
            Some(_) => sse(
                vec![chunk(&format!("id: g2\ndata: {note}\n\n")), Step::Hang],
                None,
            ),
        }
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    t.send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    let mut stream = t.open_server_stream().await.unwrap().unwrap();
    assert!(stream.request_id().is_none());
    let first = within(Duration::from_secs(2), stream.next())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(first, Message::Request(r) if r.method == "ping"));
    let second = within(Duration::from_secs(2), stream.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(second.method(), Some("notifications/tools/list_changed"));
    let gets: Vec<_> = server
        .state
        .seen()
        .into_iter()
        .filter(|s| s.method == Method::GET)
        .collect();
    assert_eq!(gets.len(), 2);
    assert_eq!(gets[1].header("last-event-id"), Some("g1"));
    assert_eq!(gets[1].header("mcp-session-id"), Some("s"));
    t.close().await.unwrap();
    let end = within(Duration::from_secs(2), stream.next()).await;
    assert!(matches!(end, Some(Err(HttpError::Closed))), "{end:?}");
}

#[tokio::test]
async fn post_stream_resumes_with_the_last_event_id_across_every_reconnect() {
    let server = serve(|seen, index| {
        if seen.method == Method::POST {
            let method = seen.json()["method"].as_str().unwrap_or("").to_owned();
            if method == "initialize" {
                return with_session(json(200, &result(request_id(seen), "{}")), "s");
            }
            let steps = vec![
                chunk("id: e1\nretry: 10\ndata:\n\n"),
                chunk(&format!("id: e2\ndata: {}\n\n", progress(1))),
                Step::Sleep(ms(20)),
                Step::Abort,
            ];
            return sse(steps, None);
        }
        // First GET: an empty stream that ends at once; second: the reply.
        if index == 2 {
            sse(vec![chunk(": nothing yet\n\n")], None)
        } else {
            sse(
                vec![chunk(&format!("id: e3\ndata: {}\n\n", result(7, "{}")))],
                None,
            )
        }
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    t.send(request(0, "initialize"), &legacy(0, None))
        .await
        .unwrap();
    let items = drain(
        t.send(request(7, "tools/call"), &legacy(7, Some(V)))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(
        items[0].as_ref().unwrap().method(),
        Some("notifications/progress")
    );
    assert!(is_response(items[1].as_ref().unwrap(), 7));
    let gets: Vec<_> = server
        .state
        .seen()
        .into_iter()
        .filter(|s| s.method == Method::GET)
        .collect();
    assert_eq!(gets.len(), 2);
    for get in &gets {
        assert_eq!(get.header("last-event-id"), Some("e2"));
        assert_eq!(get.header("mcp-session-id"), Some("s"));
        assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
    }
}

#[tokio::test]
async fn resumption_attempts_are_bounded_and_retry_is_clamped() {
    let server = serve(|seen, _| {
        if seen.method == Method::POST {
            // retry: 0 is raised to the 5 ms minimum of the test policy.
            let steps = vec![
                chunk("retry: 0\nid: a\ndata:\n\n"),
                Step::Sleep(ms(20)),
                Step::Abort,
            ];
            return sse(steps, None);
        }
        sse(vec![], None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let started = Instant::now();
    let items = drain(t.send(request(1, "x"), &legacy(1, Some(V))).await.unwrap()).await;
    assert!(
        matches!(items.last(), Some(Err(HttpError::ResumeFailed { attempts: 3, last_delay })) if *last_delay == ms(5)),
        "{items:?}"
    );
    assert!(started.elapsed() >= ms(15));
    let gets = server
        .state
        .seen()
        .iter()
        .filter(|s| s.method == Method::GET)
        .count();
    assert_eq!(gets, 3);
}

#[tokio::test]
async fn a_huge_retry_is_lowered_to_the_maximum() {
    let server = serve(|seen, _| {
        if seen.method == Method::POST {
            let steps = vec![
                chunk("retry: 99999999\nid: a\ndata:\n\n"),
                Step::Sleep(ms(20)),
                Step::Abort,
            ];
            return sse(steps, None);
        }
        sse(vec![chunk(&format!("data: {}\n\n", result(1, "{}")))], None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let started = Instant::now();
    let items = drain(t.send(request(1, "x"), &legacy(1, Some(V))).await.unwrap()).await;
    assert!(is_response(items[0].as_ref().unwrap(), 1));
    let elapsed = started.elapsed();
    assert!(
        elapsed >= ms(200) && elapsed < Duration::from_secs(3),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn a_broken_stream_without_event_id_fails_at_once() {
    let server = serve(|_, _| {
        sse(
            vec![
                chunk(&event(&progress(1))),
                Step::Sleep(ms(20)),
                Step::Abort,
            ],
            None,
        )
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let items = drain(t.send(request(1, "x"), &legacy(1, Some(V))).await.unwrap()).await;
    assert!(matches!(items.last(), Some(Err(HttpError::StreamEnded))));
    assert!(server.state.seen().iter().all(|s| s.method == Method::POST));
}

#[tokio::test]
async fn responses_to_server_requests_are_posted_and_accepted() {
    let server = serve(|_, _| status(202)).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let body = bytes::Bytes::from_static(br#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#);
    let reply = t.send(body, &HttpRouting::new(V)).await.unwrap();
    assert!(matches!(reply, Reply::Accepted));
}

//! 2026-07-28 (modern era) behaviour against the loopback server.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mcp_transport_http::{Fault, HttpError, HttpTransport, Reply};
use mcp_types::routing::HttpRouting;
use mcp_types::{ErrorCode, Message, ProtocolVersion, RequestId};
use support::*;

fn is_response(m: &Message, id: i64) -> bool {
    matches!(m, Message::Response(r) if r.id == RequestId::Number(id))
}

fn is_progress(m: &Message) -> bool {
    m.method() == Some("notifications/progress")
}

async fn collect(reply: Reply) -> Vec<Result<Message, HttpError>> {
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
async fn json_reply_and_routing_headers() {
    let server = serve(|seen, _| json(200, &result(request_id(seen), r#"{"ok":true}"#))).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let routing = modern(1, "tools/call")
        .with_name("get_weather")
        .with_param("Region", "us-west1")
        .with_param("Greeting", "=?base64?SGVsbG8=?=");
    let reply = t.send(request(1, "tools/call"), &routing).await.unwrap();
    let Reply::Message(m) = reply else {
        panic!("{reply:?}")
    };
    assert!(is_response(&m, 1));
    let seen = &server.state.seen()[0];
    assert_eq!(seen.method, http::Method::POST);
    assert_eq!(
        seen.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(seen.header("mcp-method"), Some("tools/call"));
    assert_eq!(seen.header("mcp-name"), Some("get_weather"));
    assert_eq!(seen.header("mcp-param-region"), Some("us-west1"));
    assert_eq!(
        seen.header("mcp-param-greeting"),
        Some("=?base64?SGVsbG8=?=")
    );
    assert_eq!(seen.header("mcp-session-id"), None);
    assert_eq!(seen.json()["method"], "tools/call");
}

#[tokio::test]
async fn json_with_parameters_is_accepted() {
    let server = serve(|seen, _| {
        let mut r = json(200, &result(request_id(seen), "{}"));
        r.headers_mut().insert(
            "content-type",
            "application/json; charset=utf-8".parse().unwrap(),
        );
        r
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let reply = t
        .send(request(3, "ping"), &modern(3, "ping"))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Message(m) if is_response(&m, 3)));
}

#[tokio::test]
async fn sse_progress_then_reply_in_order() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        let body = format!(
            "{}{}{}",
            event(&progress(1)),
            event(&progress(2)),
            event(&result(id, "{}"))
        );
        sse(vec![chunk(&body)], None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let items = collect(
        t.send(request(7, "tools/call"), &modern(7, "tools/call"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(items.len(), 3);
    assert!(is_progress(items[0].as_ref().unwrap()));
    assert!(is_progress(items[1].as_ref().unwrap()));
    assert!(is_response(items[2].as_ref().unwrap(), 7));
}

#[tokio::test]
async fn crlf_in_one_byte_chunks() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        let text = format!(
            ": keep-alive\r\nid: 1\r\ndata: {}\r\n\r\ndata: {{\"jsonrpc\":\"2.0\",\r\ndata: \"id\":{id},\"result\":{{}}}}\r\n\r\n",
            progress(1)
        );
        sse(bytewise(&text), None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let items = collect(t.send(request(4, "x"), &modern(4, "x")).await.unwrap()).await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(is_progress(items[0].as_ref().unwrap()));
    assert!(is_response(items[1].as_ref().unwrap(), 4));
}

#[tokio::test]
async fn slow_trickle_with_cr_line_ends() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        let text = format!("data: {}\r\rdata: {}\r\r", progress(1), result(id, "{}"));
        let mut steps = Vec::new();
        for piece in text.as_bytes().chunks(9) {
            steps.push(Step::Chunk(piece.to_vec()));
            steps.push(Step::Sleep(ms(3)));
        }
        sse(steps, None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let items = collect(t.send(request(5, "x"), &modern(5, "x")).await.unwrap()).await;
    assert_eq!(items.len(), 2);
    assert!(is_response(items[1].as_ref().unwrap(), 5));
}

#[tokio::test]
async fn stream_dropped_mid_event_fails_the_request_at_once() {
    let server = serve(|_, _| {
        let steps = vec![
            chunk(&event(&progress(1))),
            chunk("data: {\"jsonrpc\":"),
            Step::Sleep(ms(30)),
            Step::Abort,
        ];
        sse(steps, None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let started = Instant::now();
    let items = collect(t.send(request(6, "x"), &modern(6, "x")).await.unwrap()).await;
    assert_eq!(items.len(), 2);
    assert!(is_progress(items[0].as_ref().unwrap()));
    assert!(matches!(items[1], Err(HttpError::StreamEnded)));
    assert!(started.elapsed() < Duration::from_secs(2));
    // Modern streams are never resumed: no GET.
    assert!(
        server
            .state
            .seen()
            .iter()
            .all(|s| s.method == http::Method::POST)
    );
}

#[tokio::test]
async fn clean_end_before_reply_is_stream_ended() {
    let server = serve(|_, _| sse(vec![chunk(&event(&progress(1)))], None)).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let items = collect(t.send(request(8, "x"), &modern(8, "x")).await.unwrap()).await;
    assert!(matches!(items.last(), Some(Err(HttpError::StreamEnded))));
}

#[tokio::test]
async fn oversized_event_is_a_typed_error() {
    let big = format!("data: {}\n\n", "x".repeat(4096));
    let server = serve(move |_, _| sse(vec![chunk(&event(&progress(1))), chunk(&big)], None)).await;
    let t = HttpTransport::new(config(&server.url).with_max_event_bytes(1024)).unwrap();
    let items = collect(t.send(request(9, "x"), &modern(9, "x")).await.unwrap()).await;
    assert!(is_progress(items[0].as_ref().unwrap()));
    assert!(matches!(
        items[1],
        Err(HttpError::Sse(
            mcp_transport_http::sse::SseError::EventTooLarge { limit: 1024 }
        ))
    ));
    assert_eq!(items.len(), 2);
}

#[tokio::test]
async fn oversized_json_body_is_a_typed_error() {
    let server = serve(|_, _| json(200, &format!("{{\"pad\":\"{}\"}}", "x".repeat(4096)))).await;
    let t = HttpTransport::new(config(&server.url).with_max_body_bytes(1024)).unwrap();
    let err = t.send(request(1, "x"), &modern(1, "x")).await.unwrap_err();
    assert!(matches!(err, HttpError::BodyTooLarge { limit: 1024 }));
    assert_eq!(err.fault(), Fault::Server);
}

#[tokio::test]
async fn notification_gets_202() {
    let server = serve(|_, _| status(202)).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let routing = HttpRouting::new(ProtocolVersion::V2026_07_28).with_method("notifications/x");
    let reply = t
        .send(notification("notifications/x"), &routing)
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Accepted));
}

#[tokio::test]
async fn wrong_content_type_is_a_typed_error() {
    let server = serve(|_, _| {
        http::Response::builder()
            .status(200)
            .header("content-type", "text/html")
            .body(full("<html></html>"))
            .unwrap()
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let err = t.send(request(1, "x"), &modern(1, "x")).await.unwrap_err();
    assert!(
        matches!(&err, HttpError::UnexpectedContentType { status, content_type } if *status == 200 && content_type == "text/html"),
        "{err:?}"
    );
}

#[tokio::test]
async fn era_probe_400_surfaces_the_jsonrpc_error() {
    let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"]}}}"#;
    let server = serve(move |_, _| json(400, body)).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let err = t
        .send(request(1, "server/discover"), &modern(1, "server/discover"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(http::StatusCode::BAD_REQUEST));
    let Some(Message::Error(e)) = err.jsonrpc_message() else {
        panic!("{err:?}")
    };
    assert_eq!(e.error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
    assert!(matches!(&err, HttpError::Status { body, .. } if body.contains("-32022")));
}

#[tokio::test]
async fn plain_400_carries_a_bounded_excerpt_and_no_message() {
    let server = serve(|_, _| {
        http::Response::builder()
            .status(400)
            .body(full("x".repeat(10_000)))
            .unwrap()
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let err = t.send(request(1, "x"), &modern(1, "x")).await.unwrap_err();
    let HttpError::Status { body, message, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(message.is_none());
    assert!(body.len() <= 1024 + 4, "excerpt is bounded: {}", body.len());
}

/// A server whose every answer is a stream of one progress event that
/// then hangs, and a transport to it.
async fn progress_then_hang() -> (TestServer, HttpTransport) {
    let server = serve_st(|_, _, st| {
        sse(
            vec![chunk(&event(&progress(1))), Step::Hang],
            Some(st.clone()),
        )
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    (server, t)
}

#[tokio::test]
async fn cancel_closes_the_response_stream() {
    let (server, t) = progress_then_hang().await;
    let routing = modern(11, "tools/call");
    let Reply::Stream(mut stream) = t.send(request(11, "tools/call"), &routing).await.unwrap()
    else {
        panic!()
    };
    let first = within(Duration::from_secs(2), stream.next())
        .await
        .unwrap()
        .unwrap();
    assert!(is_progress(&first));
    let dropped = server.state.dropped.notified();
    assert!(t.cancel(&RequestId::Number(11)));
    let next = within(Duration::from_secs(2), stream.next()).await;
    assert!(matches!(next, Some(Err(HttpError::Cancelled))), "{next:?}");
    within(Duration::from_secs(2), dropped).await;
    assert_eq!(server.state.bodies_dropped.load(Ordering::SeqCst), 1);
    assert!(!t.cancel(&RequestId::Number(11)), "no longer registered");
}

/// A POST from `try_reserve_unregistered` is not the transport's to cancel
/// (its caller drops it), but the response stream it turns into is.
#[tokio::test]
async fn an_unregistered_posts_stream_is_registered_when_it_starts() {
    let (_server, t) = progress_then_hang().await;
    let routing = modern(12, "tools/call");
    let slot = t.try_reserve_unregistered(&routing).unwrap().unwrap();
    assert!(!t.cancel(&RequestId::Number(12)), "not registered");
    let reply = t
        .send_in(
            slot,
            request(12, "tools/call"),
            &routing,
            &http::HeaderMap::new(),
        )
        .await
        .unwrap();
    let Reply::Stream(mut stream) = reply else {
        panic!("{reply:?}")
    };
    let first = within(Duration::from_secs(2), stream.next())
        .await
        .unwrap()
        .unwrap();
    assert!(is_progress(&first));
    assert!(t.cancel(&RequestId::Number(12)), "the stream is registered");
    let next = within(Duration::from_secs(2), stream.next()).await;
    assert!(matches!(next, Some(Err(HttpError::Cancelled))), "{next:?}");
}

/// Dropping an unregistered POST's future ends it: its connection closes
/// (the server sees its body dropped) and its permit comes back.
#[tokio::test]
async fn dropping_an_unregistered_post_gives_its_permit_back() {
    let arrived = std::sync::Arc::new(tokio::sync::Notify::new());
    let arrival = arrived.clone();
    let slow = serve_st(move |_, _, st| {
        arrival.notify_one();
        http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(scripted(vec![chunk("{"), Step::Hang], Some(st.clone())))
            .unwrap()
    })
    .await;
    let t = HttpTransport::new(config(&slow.url).with_max_concurrent_posts(1)).unwrap();
    let routing = modern(5, "x");
    let slot = t.try_reserve_unregistered(&routing).unwrap().unwrap();
    assert!(
        t.try_reserve_unregistered(&modern(6, "x")).is_none(),
        "one permit"
    );
    let t2 = t.clone();
    let dropped = slow.state.dropped.notified();
    let call = tokio::spawn(async move {
        t2.send_in(slot, request(5, "x"), &routing, &http::HeaderMap::new())
            .await
    });
    within(Duration::from_secs(2), arrived.notified()).await;
    call.abort();
    within(Duration::from_secs(2), dropped).await;
    assert!(
        t.try_reserve_unregistered(&modern(6, "x")).is_some(),
        "the permit is back"
    );
}

#[tokio::test]
async fn cancel_while_a_json_body_is_pending() {
    // The JSON body never completes: `send` is still reading it when the
    // request is cancelled, and must return at once.
    let slow = serve(|_, _| {
        http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(scripted(vec![chunk("{"), Step::Hang], None))
            .unwrap()
    })
    .await;
    let t = HttpTransport::new(config(&slow.url)).unwrap();
    let t2 = t.clone();
    let call = tokio::spawn(async move { t2.send(request(5, "x"), &modern(5, "x")).await });
    tokio::time::sleep(ms(50)).await;
    assert!(t.cancel(&RequestId::Number(5)));
    let result = within(Duration::from_secs(2), call).await.unwrap();
    assert!(matches!(result, Err(HttpError::Cancelled)), "{result:?}");
}

#[tokio::test]
async fn listen_stream_is_long_lived_and_closed_by_dropping_it() {
    let server = serve_st(move |seen, _, st| {
        if seen.header("mcp-method") == Some("subscriptions/listen") {
            let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}"#;
            let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;
            let steps = vec![chunk(&event(ack)), chunk(":\r\n"), chunk(&event(changed)), Step::Hang];
            sse(steps, Some(st.clone()))
        } else {
            json(200, &result(request_id(seen), "{}"))
        }
    })
    .await;
    // One permit only: the listen stream must not hold it.
    let t = HttpTransport::new(config(&server.url).with_max_concurrent_posts(1)).unwrap();
    let routing = modern(1, "subscriptions/listen").long_lived();
    let Reply::Stream(mut listen) = t
        .send(request(1, "subscriptions/listen"), &routing)
        .await
        .unwrap()
    else {
        panic!()
    };
    let ack = within(Duration::from_secs(2), listen.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ack.method(),
        Some("notifications/subscriptions/acknowledged")
    );
    let changed = within(Duration::from_secs(2), listen.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed.method(), Some("notifications/tools/list_changed"));
    for id in 2..5 {
        let reply = within(
            Duration::from_secs(2),
            t.send(request(id, "ping"), &modern(id, "ping")),
        )
        .await;
        assert!(matches!(reply, Ok(Reply::Message(_))));
    }
    let dropped = server.state.dropped.notified();
    drop(listen);
    within(Duration::from_secs(2), dropped).await;
}

#[tokio::test]
async fn concurrent_ordinary_posts_are_limited() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        sse(
            vec![Step::Sleep(ms(40)), chunk(&event(&result(id, "{}")))],
            None,
        )
    })
    .await;
    let t = HttpTransport::new(config(&server.url).with_max_concurrent_posts(2)).unwrap();
    let mut tasks = Vec::new();
    for id in 0..6 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            let reply = t.send(request(id, "x"), &modern(id, "x")).await.unwrap();
            for item in collect(reply).await {
                item.unwrap();
            }
        }));
    }
    for task in tasks {
        within(Duration::from_secs(5), task).await.unwrap();
    }
    assert_eq!(server.state.seen().len(), 6);
    assert!(server.state.max_in_flight.load(Ordering::SeqCst) <= 2);
}

#[tokio::test]
async fn malformed_event_data_is_skipped() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        let body = format!(
            "data: not json\n\nevent: other\ndata: {}\n\n{}",
            progress(1),
            event(&result(id, "{}"))
        );
        sse(vec![chunk(&body)], None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let items = collect(t.send(request(2, "x"), &modern(2, "x")).await.unwrap()).await;
    assert_eq!(items.len(), 1);
    assert!(is_response(items[0].as_ref().unwrap(), 2));
}

#[tokio::test]
async fn a_stream_left_open_after_its_reply_ends_after_the_grace_period() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        sse(
            vec![
                chunk(&event(&result(id, "{}"))),
                chunk(&event(&progress(9))),
                Step::Hang,
            ],
            None,
        )
    })
    .await;
    let config = config(&server.url)
        .with_reply_grace(ms(100))
        .with_max_concurrent_posts(1);
    let t = HttpTransport::new(config).unwrap();
    let started = Instant::now();
    let items = collect(t.send(request(1, "x"), &modern(1, "x")).await.unwrap()).await;
    assert_eq!(items.len(), 2, "late messages are still delivered");
    assert!(is_response(items[0].as_ref().unwrap(), 1));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn the_permit_is_released_when_the_reply_arrives() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        sse(vec![chunk(&event(&result(id, "{}"))), Step::Hang], None)
    })
    .await;
    let t = HttpTransport::new(config(&server.url).with_max_concurrent_posts(1)).unwrap();
    let Reply::Stream(mut first) = t.send(request(1, "x"), &modern(1, "x")).await.unwrap() else {
        panic!()
    };
    assert!(first.next().await.unwrap().is_ok());
    // The first stream is still open, but its reply is in: a second request
    // gets the only permit.
    let second = within(
        Duration::from_secs(2),
        t.send(request(2, "x"), &modern(2, "x")),
    )
    .await;
    assert!(matches!(second, Ok(Reply::Stream(_))));
}

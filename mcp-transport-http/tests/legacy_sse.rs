//! The HTTP+SSE transport (2024-11-05) against a scripted loopback server of
//! that transport: a `GET /sse` event stream that starts with `endpoint`,
//! `POST /message?sessionId=...` answered `202`, responses on the stream.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http::{Method, Response};
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use mcp_transport_http::legacy_sse::{
    EndpointError, LegacySseError, LegacySseReceiver, LegacySseTransport,
};
use mcp_transport_http::{Fault, HttpError};
use mcp_types::{Message, RequestId};
use support::*;
use tokio::sync::mpsc;

type Push = Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>;

/// A `text/event-stream` body: `first`, then whatever is pushed, until the
/// pushing side is dropped.
fn live(first: String, rx: mpsc::UnboundedReceiver<String>) -> Response<Body> {
    let head = futures::stream::once(async move { Ok(Frame::data(Bytes::from(first))) });
    let rest = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|s| (Ok(Frame::data(Bytes::from(s))), rx))
    });
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(BodyExt::boxed_unsync(StreamBody::new(head.chain(rest))))
        .unwrap()
}

/// An old-transport server whose first event is `first`; it answers every
/// POSTed request on the stream with `{"echo": <method>}`.
async fn old_server(first: &'static str) -> (TestServer, Push) {
    let push: Push = Arc::default();
    let p = push.clone();
    let server = serve(move |seen, _| match (&seen.method, seen.path.as_str()) {
        (&Method::GET, "/sse") => {
            let (tx, rx) = mpsc::unbounded_channel();
            *p.lock().unwrap() = Some(tx);
            live(first.to_owned(), rx)
        }
        (&Method::POST, "/message") if seen.query == "sessionId=s1" => {
            let body = seen.json();
            if let (Some(id), Some(method)) = (body["id"].as_i64(), body["method"].as_str()) {
                let answer = result(id, &format!(r#"{{"echo":"{method}"}}"#));
                if let Some(tx) = p.lock().unwrap().as_ref() {
                    let _ = tx.send(event(&answer));
                }
            }
            status(202)
        }
        _ => status(404),
    })
    .await;
    (server, push)
}

/// The receiver has nothing more.
async fn assert_ended(receiver: &mut LegacySseReceiver) {
    assert!(
        within(Duration::from_secs(5), receiver.next())
            .await
            .is_none()
    );
}

/// The error of connecting to `url`.
async fn refused(url: &str) -> LegacySseError {
    LegacySseTransport::connect(config(url))
        .await
        .expect_err("the connection is refused")
}

const ENDPOINT: &str = "event: endpoint\ndata: /message?sessionId=s1\n\n";

fn sse_url(server: &TestServer) -> String {
    format!("{}/sse", server.url.trim_end_matches("/mcp"))
}

#[tokio::test]
async fn requests_are_posted_and_answered_on_the_event_stream() {
    let (server, push) = old_server(ENDPOINT).await;
    let config = config(&sse_url(&server))
        .with_header("X-Tenant", "acme")
        .unwrap();
    let transport = within(Duration::from_secs(5), LegacySseTransport::connect(config))
        .await
        .unwrap();
    let host = server.addr.to_string();
    assert_eq!(
        transport.message_endpoint().to_string(),
        format!("http://{host}/message?sessionId=s1")
    );
    let debug = format!("{transport:?}");
    assert!(
        !debug.contains("s1"),
        "the session id stays out of Debug: {debug}"
    );
    let (sender, mut receiver) = transport.into_parts();
    sender.send(request(7, "tools/list")).await.unwrap();
    let reply = within(Duration::from_secs(5), receiver.next()).await;
    let Some(Ok(Message::Response(r))) = reply else {
        panic!("expected the response: {reply:?}")
    };
    assert_eq!(r.id, RequestId::Number(7));
    // A server notification pushed on the stream arrives as well.
    let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
    push.lock()
        .unwrap()
        .as_ref()
        .unwrap()
        .send(event(note))
        .unwrap();
    let item = within(Duration::from_secs(5), receiver.next()).await;
    assert!(
        matches!(item, Some(Ok(Message::Notification(_)))),
        "{item:?}"
    );
    let seen = server.state.seen();
    let (get, post) = (&seen[0], &seen[1]);
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("x-tenant"), Some("acme"));
    assert_eq!(post.header("x-tenant"), Some("acme"));
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert!(post.header("mcp-protocol-version").is_none());
    sender.close().await;
    assert!(matches!(
        sender.send(request(8, "ping")).await,
        Err(LegacySseError::Closed)
    ));
    assert_ended(&mut receiver).await;
}

#[tokio::test]
async fn the_stream_ending_is_reported_once_then_the_receiver_ends() {
    let (server, push) = old_server(ENDPOINT).await;
    let transport = LegacySseTransport::connect(config(&sse_url(&server)))
        .await
        .unwrap();
    let (_sender, mut receiver) = transport.into_parts();
    drop(push.lock().unwrap().take());
    let item = within(Duration::from_secs(5), receiver.next()).await;
    let Some(Err(err)) = item else {
        panic!("expected the end: {item:?}")
    };
    assert!(matches!(
        err,
        LegacySseError::StreamEnded {
            before_endpoint: false
        }
    ));
    assert_eq!(err.to_string(), "the HTTP+SSE event stream ended");
    assert_ended(&mut receiver).await;
}

#[tokio::test]
async fn a_cross_origin_endpoint_is_refused_and_nothing_is_posted() {
    let (server, _push) = old_server("event: endpoint\ndata: http://evil.example/m\n\n").await;
    let err = refused(&sse_url(&server)).await;
    let LegacySseError::Endpoint(EndpointError::CrossOrigin { endpoint, .. }) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(endpoint, "http://evil.example");
    assert_eq!(err.fault(), Fault::Server);
    assert_eq!(server.state.seen().len(), 1, "only the GET went out");
}

#[tokio::test]
async fn the_first_event_must_be_the_endpoint() {
    let (server, _push) = old_server("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n").await;
    let err = refused(&sse_url(&server)).await;
    assert!(
        matches!(&err, LegacySseError::NotEndpointFirst { found } if found == "message"),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_failed_get_names_its_status() {
    for code in [404, 405, 500] {
        let server = serve(move |_, _| status(code)).await;
        let err = refused(&server.url).await;
        assert_eq!(err.to_string(), format!("GET answered {code}"));
        assert!(matches!(err, LegacySseError::Get(_)));
    }
    let server = serve(|_, _| json(200, "{}")).await;
    let err = refused(&server.url).await;
    assert!(
        matches!(
            &err,
            LegacySseError::Get(HttpError::UnexpectedContentType { .. })
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_event_over_the_limit_fails_the_stream() {
    let (server, push) = old_server(ENDPOINT).await;
    let config = config(&sse_url(&server)).with_max_event_bytes(256);
    let transport = LegacySseTransport::connect(config).await.unwrap();
    let (_sender, mut receiver) = transport.into_parts();
    let big = format!("data: {}\n\n", "x".repeat(300));
    push.lock().unwrap().as_ref().unwrap().send(big).unwrap();
    let item = within(Duration::from_secs(5), receiver.next()).await;
    assert!(
        matches!(item, Some(Err(LegacySseError::Stream(HttpError::Sse(_))))),
        "{item:?}"
    );
    assert_ended(&mut receiver).await;
}

#[tokio::test]
async fn the_stream_ending_before_the_endpoint_is_named() {
    let server = serve(|_, _| sse(vec![chunk(": keep-alive\n\n")], None)).await;
    let err = refused(&server.url).await;
    assert!(matches!(
        err,
        LegacySseError::StreamEnded {
            before_endpoint: true
        }
    ));
}

#[tokio::test(start_paused = true)]
async fn the_wait_for_the_endpoint_is_bounded_by_the_connect_timeout() {
    let server = serve(|_, _| sse(vec![chunk(": open\n\n"), Step::Hang], None)).await;
    let config = config(&server.url).with_connect_timeout(Duration::from_secs(3));
    let err = LegacySseTransport::connect(config).await.unwrap_err();
    assert!(
        matches!(err, LegacySseError::EndpointTimeout(d) if d == Duration::from_secs(3)),
        "{err:?}"
    );
}

#[tokio::test]
async fn any_success_accepts_a_post_and_a_direct_answer_is_delivered() {
    let push: Push = Arc::default();
    let p = push.clone();
    let server = serve(move |seen, _| match (&seen.method, request_id(seen)) {
        (&Method::GET, _) => {
            let (tx, rx) = mpsc::unbounded_channel();
            *p.lock().unwrap() = Some(tx);
            live(ENDPOINT.to_owned(), rx)
        }
        // Off the old transport's script, but seen in the wild.
        (_, 1) => Response::builder()
            .status(200)
            .header("content-type", "text/plain")
            .body(full("Accepted"))
            .unwrap(),
        (_, id) => json(200, &result(id, "{}")),
    })
    .await;
    let transport = LegacySseTransport::connect(config(&server.url))
        .await
        .unwrap();
    let (sender, mut receiver) = transport.into_parts();
    sender.send(request(1, "ping")).await.unwrap();
    sender.send(request(2, "ping")).await.unwrap();
    let item = within(Duration::from_secs(5), receiver.next()).await;
    assert!(
        matches!(&item, Some(Ok(Message::Response(r))) if r.id == RequestId::Number(2)),
        "{item:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_post_that_never_ends_fails_after_the_connect_timeout() {
    let push: Push = Arc::default();
    let p = push.clone();
    let server = serve(move |seen, _| match seen.method {
        Method::GET => {
            let (tx, rx) = mpsc::unbounded_channel();
            *p.lock().unwrap() = Some(tx);
            live(ENDPOINT.to_owned(), rx)
        }
        // `202`, then a body that never ends.
        _ => Response::builder()
            .status(202)
            .body(scripted(vec![Step::Hang], None))
            .unwrap(),
    })
    .await;
    let config = config(&server.url).with_connect_timeout(Duration::from_secs(4));
    let transport = LegacySseTransport::connect(config).await.unwrap();
    let (sender, _receiver) = transport.into_parts();
    let err = sender.send(request(1, "ping")).await.unwrap_err();
    assert!(
        matches!(err, LegacySseError::PostTimeout(d) if d == Duration::from_secs(4)),
        "{err:?}"
    );
}

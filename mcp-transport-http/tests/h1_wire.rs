//! HTTP/1.1 as the transport speaks it, against a raw scripted server on
//! loopback: replies split at odd places, chunked bodies, interim `1xx`
//! heads, `Connection: close`, and broken replies (a body cut short, a
//! head past its bound, broken chunk framing), each a typed error.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::atomic::Ordering;

use mcp_transport_http::{HttpTransport, Reply};
use mcp_types::Message;
use support::raw::{After, raw_server};
use support::{
    chunk, config, event, json, modern, progress, request, request_id, result, sse, trust_ca,
};

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

fn split(text: &str, at: &[usize]) -> Vec<Vec<u8>> {
    let mut pieces = Vec::new();
    let mut from = 0;
    for &to in at.iter().chain([&text.len()]) {
        pieces.push(text.as_bytes()[from..to].to_vec());
        from = to;
    }
    pieces
}

async fn ping(t: &HttpTransport, id: i64) -> Result<Reply, mcp_transport_http::HttpError> {
    t.send(request(id, "ping"), &modern(id, "ping")).await
}

#[tokio::test]
async fn a_chunked_reply_split_anywhere_is_read_and_its_connection_reused() {
    let reply = format!(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
         transfer-encoding: chunked\r\n\r\n5;ext=1\r\n{}\r\n{:x}\r\n{}\r\n0\r\nx-trailer: t\r\n\r\n",
        &BODY[..5],
        BODY.len() - 5,
        &BODY[5..]
    );
    // Cut inside the interim head, the status line, a size line and data.
    let (url, connections) =
        raw_server(split(&reply, &[7, 30, 52, 118, 121, 140]), After::KeepOpen).await;
    let t = HttpTransport::new(config(&url)).unwrap();
    for id in 1..=3 {
        let reply = ping(&t, id).await;
        assert!(matches!(reply, Ok(Reply::Message(_))), "{reply:?}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_reply_that_says_close_is_not_reused() {
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let (url, connections) = raw_server(vec![reply.into_bytes()], After::KeepOpen).await;
    let t = HttpTransport::new(config(&url)).unwrap();
    for id in 1..=2 {
        assert!(matches!(ping(&t, id).await, Ok(Reply::Message(_))));
    }
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}

/// A `Content-Length` reply whose body came with its head is taken from
/// the buffer whole; one whose body comes after it is read as it comes.
/// Either way the connection is reused, and a body over the limit is a
/// typed error however it came.
#[tokio::test]
async fn a_length_delimited_body_with_its_head_or_after_it_is_read_and_bounded() {
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let head_len = reply.len() - BODY.len();
    for pieces in [split(&reply, &[]), split(&reply, &[head_len, head_len + 9])] {
        let (url, connections) = raw_server(pieces.clone(), After::KeepOpen).await;
        let t = HttpTransport::new(config(&url)).unwrap();
        for id in 1..=3 {
            let reply = ping(&t, id).await;
            assert!(matches!(reply, Ok(Reply::Message(_))), "{reply:?}");
        }
        assert_eq!(connections.load(Ordering::SeqCst), 1);

        let (url, _) = raw_server(pieces, After::KeepOpen).await;
        let small = HttpTransport::new(config(&url).with_max_body_bytes(BODY.len() - 1)).unwrap();
        let err = ping(&small, 1).await.unwrap_err();
        assert!(
            matches!(err, mcp_transport_http::HttpError::BodyTooLarge { limit } if limit == BODY.len() - 1),
            "{err:?}"
        );
    }
}

/// A body that came with its head is read in place in the connection's
/// buffer when small (below `Message::SHARE_FROM`); a larger one, or one
/// that comes after its head, is read as it comes. Each reads to its whole
/// result, no byte more: the connection is reused.
#[tokio::test]
async fn a_body_of_any_size_is_read_whole_in_place_or_as_it_comes() {
    for size in [
        0,
        100,
        Message::SHARE_FROM - 40,
        Message::SHARE_FROM,
        40_000,
    ] {
        let text = "y".repeat(size);
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"text":"{text}"}}}}"#);
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let head_len = reply.len() - body.len();
        for pieces in [split(&reply, &[]), split(&reply, &[head_len])] {
            let (url, connections) = raw_server(pieces, After::KeepOpen).await;
            let t = HttpTransport::new(config(&url)).unwrap();
            for id in 1..=4 {
                let reply = ping(&t, id).await;
                let Ok(Reply::Message(Message::Response(r))) = reply else {
                    panic!("{size}: {reply:?}")
                };
                let result: serde_json::Value = r.result.decode().unwrap();
                assert_eq!(result["text"].as_str().map(str::len), Some(size));
            }
            assert_eq!(connections.load(Ordering::SeqCst), 1, "{size}");
        }
    }
}

#[tokio::test]
async fn a_body_delimited_by_the_close_is_read_to_it() {
    let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{BODY}");
    let (url, connections) = raw_server(split(&reply, &[60]), After::Close).await;
    let t = HttpTransport::new(config(&url)).unwrap();
    for id in 1..=2 {
        let reply = ping(&t, id).await;
        assert!(matches!(reply, Ok(Reply::Message(_))), "{reply:?}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}

/// The error a broken reply gives, as text.
async fn broken(reply: String) -> String {
    let (url, _) = raw_server(vec![reply.into_bytes()], After::Close).await;
    let t = HttpTransport::new(config(&url)).unwrap();
    match ping(&t, 1).await {
        Ok(reply) => panic!("a broken reply was accepted: {reply:?}"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_body_cut_short_is_a_typed_error() {
    let e = broken(format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{BODY}"
    ))
    .await;
    assert!(
        e.contains("closed the connection before the end of the response"),
        "{e}"
    );
}

#[tokio::test]
async fn a_head_past_its_bound_is_a_typed_error() {
    let e = broken(format!(
        "HTTP/1.1 200 OK\r\nx-big: {}\r\n\r\n",
        "a".repeat(70_000)
    ))
    .await;
    assert!(
        e.contains("response head is larger than 65536 bytes"),
        "{e}"
    );
}

#[tokio::test]
async fn broken_chunk_framing_is_a_typed_error() {
    let e = broken(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"
            .to_owned(),
    )
    .await;
    assert!(
        e.contains("malformed chunked body (invalid chunk size)"),
        "{e}"
    );
}

#[tokio::test]
async fn a_closed_connection_before_any_reply_is_a_typed_error() {
    let e = broken(String::new()).await;
    assert!(
        e.contains("closed the connection before the end of the response"),
        "{e}"
    );
}

#[tokio::test]
async fn http1_over_tls_carries_json_and_event_streams_on_one_connection() {
    let mut pki = support::test_pki();
    pki.server.alpn_protocols = vec![b"http/1.1".to_vec()];
    let server = support::serve_tls(
        |seen, _| {
            let id = request_id(seen);
            if id % 2 == 0 {
                return json(200, &result(id, "{}"));
            }
            let events = vec![
                chunk(&event(&progress(1))),
                chunk(&event(&result(id, "{}"))),
            ];
            sse(events, None)
        },
        pki.server,
    )
    .await;
    let tls = trust_ca(&pki.ca_pem);
    let t = HttpTransport::new(config(&server.url).with_tls(tls)).unwrap();
    for id in 0..20 {
        match ping(&t, id).await.unwrap() {
            Reply::Message(_) => assert_eq!(id % 2, 0),
            Reply::Stream(mut s) => {
                assert_eq!(id % 2, 1);
                while s.next().await.unwrap().unwrap().method().is_some() {}
                // Read to its end: the connection goes back to the pool.
                assert!(s.next().await.is_none());
            }
            other => panic!("unexpected reply {other:?}"),
        }
    }
    assert_eq!(server.state.seen()[0].version, http::Version::HTTP_11);
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
}

/// A `ping` request of exactly `len` bytes (at least 70; `id` of five
/// digits), its padding in its params.
fn request_of(id: i64, len: usize) -> bytes::Bytes {
    let bare = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"p":""}}}}"#);
    let pad = "y".repeat(len - bare.len());
    let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"p":"{pad}"}}}}"#);
    assert_eq!(text.len(), len);
    bytes::Bytes::from(text)
}

/// Sends requests of every size (a small one goes out with its head in one
/// write, a large one after it from where it is; one larger than a socket's
/// buffer in several writes) on one connection, each of which the server
/// must see whole: plain and over TLS.
#[tokio::test]
async fn a_request_body_of_any_size_reaches_the_server_whole() {
    let sizes = [
        70,
        500,
        8 * 1024 - 1,
        8 * 1024,
        8 * 1024 + 1,
        100_000,
        3_000_000,
    ];
    let answer = |seen: &support::Seen, _: usize| {
        let id = request_id(seen);
        // The body as sent, byte for byte.
        let len = seen.body.len();
        let expected = request_of(id, len);
        match seen.body == expected {
            true => json(200, &result(id, &len.to_string())),
            false => json(200, &result(id, "\"mangled\"")),
        }
    };
    let mut pki = support::test_pki();
    pki.server.alpn_protocols = vec![b"http/1.1".to_vec()];
    let plain = support::serve(answer).await;
    let tls = support::serve_tls(answer, pki.server).await;
    let transports = [
        (HttpTransport::new(config(&plain.url)).unwrap(), &plain),
        (
            HttpTransport::new(config(&tls.url).with_tls(trust_ca(&pki.ca_pem))).unwrap(),
            &tls,
        ),
    ];
    for (t, server) in &transports {
        for (id, &len) in (10_000..).zip(&sizes) {
            let reply = t
                .send(request_of(id, len), &modern(id, "ping"))
                .await
                .unwrap();
            let Reply::Message(Message::Response(r)) = reply else {
                panic!("unexpected reply {reply:?}");
            };
            assert_eq!(
                r.result.as_bytes(),
                len.to_string().as_bytes(),
                "{len} bytes"
            );
        }
        assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
    }
}

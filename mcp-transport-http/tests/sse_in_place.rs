//! A request's event stream read by its POST up to the reply: a stream of
//! nothing but the reply comes back as that message (no pump, its
//! connection free at once); anything else is handed to a pump that
//! delivers every message in order. Against a raw server that writes
//! each answer in known pieces.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_transport_http::{HttpError, HttpTransport, Reply};
use mcp_types::{Message, RequestId};
use support::raw::{After, raw_server};
use support::{config, event, modern, progress, request, result, within};

const HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

/// One chunk of a chunked body.
fn chunked(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

const END: &str = "0\r\n\r\n";

/// A 2025-11-25 priming event: an id and a retry delay, no data.
const PRIMING: &str = "data: \nid: 0/0\nretry: 3000\n\n";

/// The answer to request 1, event by event, then the end.
fn reply_event() -> String {
    format!(
        "{}\nid: 1/0\n\n",
        event(&result(1, r#"{"ok":true}"#)).trim_end()
    )
}

/// A transport to a raw server that answers every request with `writes`
/// (each its own write), and the count of connections it accepted.
async fn transport_for(writes: Vec<Vec<u8>>) -> (HttpTransport, Arc<AtomicUsize>) {
    let (url, connections) = raw_server(writes, After::KeepOpen).await;
    (HttpTransport::new(config(&url)).unwrap(), connections)
}

async fn ping(t: &HttpTransport) -> Result<Reply, HttpError> {
    t.send(request(1, "ping"), &modern(1, "ping")).await
}

fn is_reply(m: &Message) -> bool {
    matches!(m, Message::Response(r) if r.id == RequestId::Number(1))
}

fn is_progress(m: &Message) -> bool {
    m.method() == Some("notifications/progress")
}

/// Every item of a reply that must be a stream.
async fn items(reply: Reply) -> Vec<Message> {
    let Reply::Stream(mut stream) = reply else {
        panic!("expected a stream, got {reply:?}");
    };
    let mut out = Vec::new();
    while let Some(item) = within(Duration::from_secs(5), stream.next()).await {
        out.push(item.unwrap());
    }
    out
}

#[tokio::test]
async fn a_stream_of_only_its_reply_comes_as_that_message_on_a_reused_connection() {
    let answer = [HEAD, &chunked(PRIMING), &chunked(&reply_event()), END].concat();
    let (t, connections) = transport_for(vec![answer.into_bytes()]).await;
    for _ in 0..3 {
        match ping(&t).await.unwrap() {
            Reply::Message(m) => assert!(is_reply(&m), "{m:?}"),
            other => panic!("expected the reply itself, got {other:?}"),
        }
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_reply_awaited_across_reads_still_comes_as_that_message() {
    // The priming event first, the reply and the end in a later write: the
    // POST waits for the reply, then finds the end already there.
    let pieces = vec![
        [HEAD, &chunked(PRIMING)].concat().into_bytes(),
        [chunked(&reply_event()), END.to_owned()]
            .concat()
            .into_bytes(),
    ];
    let (t, connections) = transport_for(pieces).await;
    for _ in 0..3 {
        let reply = ping(&t).await.unwrap();
        assert!(
            matches!(&reply, Reply::Message(m) if is_reply(m)),
            "{reply:?}"
        );
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_message_before_the_reply_hands_the_stream_to_a_pump_in_order() {
    let answer = [
        HEAD,
        &chunked(PRIMING),
        &chunked(&event(&progress(1))),
        &chunked(&reply_event()),
        END,
    ]
    .concat();
    let (t, connections) = transport_for(vec![answer.into_bytes()]).await;
    for _ in 0..2 {
        let got = items(ping(&t).await.unwrap()).await;
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(is_progress(&got[0]) && is_reply(&got[1]), "{got:?}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_stream_going_on_after_its_reply_delivers_the_reply_then_the_rest() {
    // The end is not there when the reply is read (it comes in a later
    // write, unless the two writes arrive as one): the pump reads on.
    let pieces = vec![
        [HEAD, &chunked(&reply_event())].concat().into_bytes(),
        [chunked(&event(&progress(2))), END.to_owned()]
            .concat()
            .into_bytes(),
    ];
    let (t, connections) = transport_for(pieces).await;
    for _ in 0..2 {
        let got = items(ping(&t).await.unwrap()).await;
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(is_reply(&got[0]) && is_progress(&got[1]), "{got:?}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_stream_ending_before_its_reply_fails_through_its_pump() {
    let answer = [HEAD, &chunked(&event(&progress(1))), END].concat();
    let (t, _) = transport_for(vec![answer.into_bytes()]).await;
    let Reply::Stream(mut stream) = ping(&t).await.unwrap() else {
        panic!("expected a stream");
    };
    assert!(is_progress(&stream.next().await.unwrap().unwrap()));
    let end = stream.next().await.unwrap();
    assert!(matches!(end, Err(HttpError::StreamEnded)), "{end:?}");
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn a_broken_reply_fails_the_post_itself() {
    let broken = r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#;
    let answer = [HEAD, &chunked(PRIMING), &chunked(&event(broken)), END].concat();
    let (t, _) = transport_for(vec![answer.into_bytes()]).await;
    let err = ping(&t).await.unwrap_err();
    assert!(
        matches!(
            &err,
            HttpError::InvalidEnvelope {
                id: Some(RequestId::Number(1)),
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_oversized_event_before_the_reply_is_the_streams_error() {
    let big = format!("data: {}\n\n", "x".repeat(2048));
    let answer = [HEAD, &chunked(&big), &chunked(&reply_event()), END].concat();
    let (url, _) = raw_server(vec![answer.into_bytes()], After::KeepOpen).await;
    let t = HttpTransport::new(config(&url).with_max_event_bytes(1024)).unwrap();
    let Reply::Stream(mut stream) = ping(&t).await.unwrap() else {
        panic!("expected a stream");
    };
    let err = stream.next().await.unwrap().unwrap_err();
    assert!(matches!(err, HttpError::Sse(_)), "{err:?}");
}

/// One event of a generated stream.
#[derive(Clone, Debug)]
enum Piece {
    Priming,
    Comment,
    Progress(u32),
    Reply,
}

impl Piece {
    fn text(&self) -> String {
        match self {
            Piece::Priming => PRIMING.to_owned(),
            Piece::Comment => ": keep-alive\n\n".to_owned(),
            Piece::Progress(n) => event(&progress(*n)),
            Piece::Reply => reply_event(),
        }
    }
}

/// What a stream of `pieces` delivers: every progress and the reply, in
/// their order.
fn expected(pieces: &[Piece]) -> Vec<String> {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Progress(n) => Some(format!("progress {n}")),
            Piece::Reply => Some("reply".to_owned()),
            Piece::Priming | Piece::Comment => None,
        })
        .collect()
}

fn describe(m: &Message) -> String {
    if is_reply(m) {
        return "reply".to_owned();
    }
    let Message::Notification(n) = m else {
        return format!("{m:?}");
    };
    let params: serde_json::Value = n.params_as().unwrap();
    format!("progress {}", params["progress"])
}

/// Sends one request to a server that answers with `pieces` (a chunked
/// body, then its end) cut into writes at `cuts`, twice on one
/// connection; what each answer delivered, and the connections opened.
async fn deliver(pieces: &[Piece], cuts: &[usize]) -> (Vec<Vec<String>>, usize) {
    let body: String = pieces.iter().map(|p| chunked(&p.text())).collect();
    let answer = [HEAD, &body, END].concat().into_bytes();
    let mut at: Vec<usize> = cuts.iter().map(|c| c % answer.len()).collect();
    at.sort_unstable();
    at.dedup();
    let mut writes = Vec::new();
    let mut from = 0;
    for to in at.into_iter().chain([answer.len()]) {
        if to > from {
            writes.push(answer[from..to].to_vec());
            from = to;
        }
    }
    let (t, connections) = transport_for(writes).await;
    let mut got = Vec::new();
    for _ in 0..2 {
        let delivered = match ping(&t).await.unwrap() {
            Reply::Message(m) => vec![describe(&m)],
            reply => items(reply).await.iter().map(describe).collect(),
        };
        got.push(delivered);
    }
    (got, connections.load(Ordering::SeqCst))
}

fn piece() -> impl proptest::strategy::Strategy<Value = Piece> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Piece::Priming),
        Just(Piece::Comment),
        (0u32..100).prop_map(Piece::Progress),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Whatever comes before and after the reply, and wherever the writes
    /// cut the answer, every message arrives once, in order, and the
    /// connection is reused: read in place, handed to a pump before the
    /// reply, or after it.
    #[test]
    fn every_message_arrives_once_in_order_however_the_answer_is_cut(
        before in proptest::collection::vec(piece(), 0..4),
        after in proptest::collection::vec(piece(), 0..3),
        cuts in proptest::collection::vec(0usize..4096, 0..4),
    ) {
        let pieces: Vec<Piece> = before
            .into_iter()
            .chain([Piece::Reply])
            .chain(after)
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (got, connections) = runtime.block_on(deliver(&pieces, &cuts));
        let want = expected(&pieces);
        proptest::prop_assert_eq!(&got[0], &want);
        proptest::prop_assert_eq!(&got[1], &want);
        proptest::prop_assert_eq!(connections, 1);
    }
}

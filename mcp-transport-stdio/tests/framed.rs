//! The framing over in-memory streams.

use std::time::Duration;

use mcp_transport_stdio::{Inbound, Receiver, SendError, Sender, framed, memory_pair};
use mcp_types::RequestId;

#[path = "common/frames.rs"]
mod frames;

use frames::{msg, next_id, read_ids};

#[tokio::test]
async fn a_linked_pair_carries_messages_both_ways() {
    let ((ctx, mut crx), (stx, mut srx)) = memory_pair();
    ctx.send(&msg(1, 3)).await.unwrap();
    assert_eq!(next_id(&mut srx).await, RequestId::Number(1));
    stx.send(&msg(2, 3)).await.unwrap();
    assert_eq!(next_id(&mut crx).await, RequestId::Number(2));
    ctx.close().await.unwrap();
    assert!(srx.recv().await.is_none(), "a plain stream ends with None");
    assert!(matches!(ctx.send(&msg(3, 0)).await, Err(SendError::Closed)));
    assert!(ctx.is_closed().await);
}

#[tokio::test]
async fn malformed_frames_are_refused_before_writing() {
    let ((tx, _rx), _) = memory_pair();
    assert!(matches!(tx.send(b"").await, Err(SendError::Empty)));
    assert!(matches!(
        tx.send(b"{}\n{}").await,
        Err(SendError::EmbeddedNewline)
    ));
}

#[tokio::test]
async fn a_send_cancelled_mid_line_does_not_corrupt_the_framing() {
    let (near, far) = tokio::io::duplex(16);
    let (_r, w) = tokio::io::split(near);
    let tx = Sender::new(w);
    // Nobody reads yet: the write stalls after 16 bytes and is cancelled.
    let stalled = tokio::time::timeout(Duration::from_millis(50), tx.send(&msg(1, 1000))).await;
    assert!(stalled.is_err(), "the send should have stalled");
    let (fr, _fw) = tokio::io::split(far);
    let mut rx = Receiver::new(fr);
    let reader = tokio::spawn(async move {
        let a = next_id(&mut rx).await;
        let b = next_id(&mut rx).await;
        (a, b)
    });
    tx.send(&msg(2, 10)).await.unwrap();
    let (a, b) = reader.await.unwrap();
    assert_eq!((a, b), (RequestId::Number(1), RequestId::Number(2)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_senders_never_interleave() {
    let ((tx, _), (_, mut rx)) = memory_pair();
    let tasks: Vec<_> = (0..200)
        .map(|i| {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(&msg(i, (i as usize * 97) % 5000)).await })
        })
        .collect();
    let reader = tokio::spawn(async move {
        let mut ids = Vec::new();
        for _ in 0..200 {
            ids.push(next_id(&mut rx).await);
        }
        ids
    });
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let mut ids = reader.await.unwrap();
    ids.sort();
    assert_eq!(ids, (0..200).map(RequestId::Number).collect::<Vec<_>>());
}

#[tokio::test]
async fn junk_blank_crlf_and_unterminated_lines() {
    let input: &[u8] = b"\n  \r\nnot json\n{\"jsonrpc\":\"2.0\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}";
    let (_, mut rx) = framed(input, tokio::io::sink());
    let mut kinds = Vec::new();
    while let Some(item) = rx.recv().await {
        kinds.push(match item.unwrap() {
            Inbound::Message(m) => m.method().unwrap_or_default().to_owned(),
            Inbound::Skipped(s) => format!("{:?}", s.reason),
            other => format!("{other:?}"),
        });
    }
    assert_eq!(kinds, ["NotJson", "InvalidMessage", "a", "b"]);
    assert_eq!(rx.messages_received(), 2);
}

#[tokio::test]
async fn a_batch_arrives_as_separate_lines_in_order() {
    let ((ctx, _crx), (_stx, mut srx)) = memory_pair();
    let batch: Vec<Vec<u8>> = (1..=5).map(|i| msg(i, i as usize * 7)).collect();
    ctx.send_batch(&batch).await.unwrap();
    ctx.send_batch(&[msg(6, 0)]).await.unwrap();
    ctx.send_batch::<Vec<u8>>(&[]).await.unwrap();
    for i in 1..=6 {
        assert_eq!(next_id(&mut srx).await, RequestId::Number(i));
    }
}

#[tokio::test]
async fn a_malformed_batch_writes_nothing() {
    let (near, far) = tokio::io::duplex(1024);
    let (_r, w) = tokio::io::split(near);
    let tx = Sender::new(w);
    let bad = [msg(1, 0), b"{}\n{}".to_vec()];
    assert!(matches!(
        tx.send_batch(&bad).await,
        Err(SendError::EmbeddedNewline)
    ));
    let empty = [msg(1, 0), Vec::new()];
    assert!(matches!(tx.send_batch(&empty).await, Err(SendError::Empty)));
    tx.send(&msg(2, 0)).await.unwrap();
    let (fr, _fw) = tokio::io::split(far);
    let mut rx = Receiver::new(fr);
    assert_eq!(next_id(&mut rx).await, RequestId::Number(2));
}

#[tokio::test]
async fn a_batch_cancelled_mid_write_is_completed_before_the_next_send() {
    let (near, far) = tokio::io::duplex(16);
    let (_r, w) = tokio::io::split(near);
    let tx = Sender::new(w);
    let batch = [msg(1, 500), msg(2, 500)];
    let stalled = tokio::time::timeout(Duration::from_millis(50), tx.send_batch(&batch)).await;
    assert!(stalled.is_err(), "the batch should have stalled");
    let (fr, _fw) = tokio::io::split(far);
    let rx = Receiver::new(fr);
    let reader = read_ids(rx, 3);
    tx.send(&msg(3, 10)).await.unwrap();
    let ids = reader.await.unwrap();
    assert_eq!(ids, [1, 2, 3].map(RequestId::Number));
}

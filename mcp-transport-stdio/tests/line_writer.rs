//! [`LineWriter`]: the writer held by one owner, lines queued into one
//! buffer and written by the owner's own poll.

use std::task::{Context, Poll, Waker};

use mcp_transport_stdio::{LineWriter, Receiver, SendError, Sender};
use mcp_types::RequestId;

#[path = "common/frames.rs"]
mod frames;

use frames::{msg, next_id, read_ids};

/// One poll of the writer's flush, with a waker nobody listens to.
fn poll_once(w: &mut LineWriter) -> Poll<Result<(), SendError>> {
    w.poll_flush(&mut Context::from_waker(Waker::noop()))
}

/// A sender on one end of a duplex of `capacity` bytes, and a receiver on
/// the other.
fn pipe(capacity: usize) -> (Sender, Receiver) {
    let (near, far) = tokio::io::duplex(capacity);
    let (_r, w) = tokio::io::split(near);
    let (fr, _fw) = tokio::io::split(far);
    // The unused halves stay open as long as the split halves live.
    (Sender::new(w), Receiver::new(fr))
}

#[tokio::test]
async fn queued_lines_go_out_in_order_as_separate_lines() {
    let (tx, mut rx) = pipe(64 * 1024);
    let mut w = tx.exclusive().await;
    assert!(!w.has_queued());
    for i in 1..=5 {
        w.queue(&msg(i, i as usize * 3)).unwrap();
    }
    assert!(w.has_queued());
    w.flush().await.unwrap();
    assert!(!w.has_queued());
    w.queue(&msg(6, 0)).unwrap();
    w.flush().await.unwrap();
    for i in 1..=6 {
        assert_eq!(next_id(&mut rx).await, RequestId::Number(i));
    }
}

#[tokio::test]
async fn a_malformed_frame_is_refused_and_nothing_is_queued() {
    let (tx, mut rx) = pipe(1024);
    let mut w = tx.exclusive().await;
    assert!(matches!(w.queue(b""), Err(SendError::Empty)));
    assert!(matches!(
        w.queue(b"{}\n{}"),
        Err(SendError::EmbeddedNewline)
    ));
    assert!(!w.has_queued());
    w.queue(&msg(1, 0)).unwrap();
    w.flush().await.unwrap();
    assert_eq!(next_id(&mut rx).await, RequestId::Number(1));
}

#[tokio::test]
async fn a_stalled_flush_keeps_its_bytes_and_finishes_when_polled_again() {
    let (tx, rx) = pipe(16);
    let mut w = tx.exclusive().await;
    w.queue(&msg(1, 300)).unwrap();
    w.queue(&msg(2, 300)).unwrap();
    assert!(poll_once(&mut w).is_pending(), "a 16-byte pipe stalls");
    assert!(w.has_queued());
    let reader = read_ids(rx, 2);
    w.flush().await.unwrap();
    assert_eq!(reader.await.unwrap(), [1, 2].map(RequestId::Number));
}

#[tokio::test]
async fn lines_left_queued_by_a_dropped_writer_go_out_before_the_next_send() {
    let (tx, rx) = pipe(16);
    let mut w = tx.exclusive().await;
    w.queue(&msg(1, 200)).unwrap();
    w.queue(&msg(2, 200)).unwrap();
    assert!(poll_once(&mut w).is_pending(), "a 16-byte pipe stalls");
    drop(w);
    let reader = read_ids(rx, 3);
    tx.send(&msg(3, 10)).await.unwrap();
    assert_eq!(reader.await.unwrap(), [1, 2, 3].map(RequestId::Number));
}

#[tokio::test]
async fn a_peer_that_stopped_reading_fails_the_flush_and_every_later_one() {
    let (near, far) = tokio::io::duplex(1024);
    let (_r, w) = tokio::io::split(near);
    drop(far);
    let tx = Sender::new(w);
    let mut w = tx.exclusive().await;
    w.queue(&msg(1, 0)).unwrap();
    assert!(matches!(w.flush().await, Err(SendError::PeerClosed(_))));
    assert!(!w.has_queued(), "a broken writer drops what was queued");
    w.queue(&msg(2, 0)).unwrap();
    assert!(matches!(w.flush().await, Err(SendError::PeerClosed(_))));
    drop(w);
    assert!(tx.is_closed().await);
}

#[tokio::test]
async fn close_waits_for_the_writer_and_writes_what_it_left_queued() {
    let (tx, mut rx) = pipe(1024);
    let mut w = tx.exclusive().await;
    w.queue(&msg(1, 0)).unwrap();
    let closer = {
        let tx = tx.clone();
        tokio::spawn(async move { tx.close().await })
    };
    tokio::task::yield_now().await;
    assert!(
        !closer.is_finished(),
        "close waits while the writer is held"
    );
    drop(w);
    closer.await.unwrap().unwrap();
    assert_eq!(next_id(&mut rx).await, RequestId::Number(1));
    assert!(rx.recv().await.is_none(), "closed after the queued line");
}

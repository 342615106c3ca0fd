//! Frames for the framing tests: a request line, and the id of the next
//! request a receiver reads.
#![allow(unreachable_pub)]

use std::time::Duration;

use mcp_transport_stdio::{Inbound, Receiver};
use mcp_types::{Message, RequestId};

/// A request line with id `id` whose params carry `pad` bytes of padding.
pub fn msg(id: i64, pad: usize) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"m","params":{{"pad":"{}"}}}}"#,
        "p".repeat(pad)
    )
    .into_bytes()
}

/// The id of the next request `rx` reads (within five seconds).
pub async fn next_id(rx: &mut Receiver) -> RequestId {
    match tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("in time")
    {
        Some(Ok(Inbound::Message(Message::Request(r)))) => r.id,
        other => panic!("unexpected {other:?}"),
    }
}

/// Reads the ids of the next `n` requests on a task of their own, so the
/// test can write (and be held up by a full pipe) meanwhile.
pub fn read_ids(mut rx: Receiver, n: usize) -> tokio::task::JoinHandle<Vec<RequestId>> {
    tokio::spawn(async move {
        let mut ids = Vec::with_capacity(n);
        for _ in 0..n {
            ids.push(next_id(&mut rx).await);
        }
        ids
    })
}

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

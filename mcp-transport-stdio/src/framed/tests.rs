//! The receiver keeps a large result where it was read: the result is a
//! view of the read buffer (no copy), the buffer is reused for the next
//! line once the result is dropped, and a small result is copied out so it
//! does not keep the buffer.

use std::ops::Range;

use mcp_types::Message;
use mcp_types::raw::RawJson;

use super::{Inbound, Receiver};

fn response(id: u32, text_len: usize) -> String {
    let text = "x".repeat(text_len);
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    ) + "\n"
}

async fn next_result(rx: &mut Receiver) -> RawJson {
    match rx.recv().await {
        Some(Ok(Inbound::Message(Message::Response(r)))) => r.result,
        other => panic!("expected a response, got {other:?}"),
    }
}

/// Where the bytes of `raw` are.
fn span(raw: &RawJson) -> Range<usize> {
    let at = raw.as_bytes().as_ptr() as usize;
    at..at + raw.len()
}

fn inside(inner: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

fn text_len(raw: &RawJson) -> Option<usize> {
    let v: serde_json::Value = raw.decode().ok()?;
    v["content"][0]["text"].as_str().map(str::len)
}

#[tokio::test(flavor = "current_thread")]
async fn a_large_result_is_a_view_of_the_read_buffer_which_is_reused() {
    const BIG: usize = 1024 * 1024;
    let wire = response(1, BIG) + &response(2, BIG) + &response(3, 100);
    let mut rx = Receiver::new(std::io::Cursor::new(wire.into_bytes()));

    let first = next_result(&mut rx).await;
    let buffer = rx.splitter.allocation();
    assert!(
        inside(&span(&first), &buffer),
        "not copied out of the buffer"
    );
    assert_eq!(text_len(&first), Some(BIG));
    let first_span = span(&first);
    drop(first);

    let second = next_result(&mut rx).await;
    assert_eq!(rx.splitter.allocation(), buffer, "the same buffer");
    assert_eq!(span(&second), first_span, "read where the first one was");
    assert_eq!(text_len(&second), Some(BIG));

    let small = next_result(&mut rx).await;
    assert!(
        !inside(&span(&small), &rx.splitter.allocation()),
        "a small result is copied: it does not keep the buffer"
    );
    assert_eq!(text_len(&small), Some(100));
}

//! Encode + correlate + decode of a `tools/call` round trip, small and 1 MiB.
//!
//! Each iteration starts a call on a ready 2026-07-28 connection, takes the
//! serialized request from `poll_transmit`, parses the server's response
//! frame once into a `Message` (as a transport does), feeds it to
//! `handle_message`, and decodes the `CallToolResult` from the event.
// One clock read gives the benchmark's virtual clock its origin.
#![allow(clippy::disallowed_methods, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use mcp_core::{Config, Connection, EraPreference, Event, RequestOptions, Transmit};
use mcp_types::methods::v2026_07_28::CallTool;
use mcp_types::{Message, ProtocolVersion};
use serde_json::json;

/// A connection with a cached era: ready at once, its background
/// `server/discover` (id 1) answered, so the first call has id 2.
fn ready(now: Instant) -> Connection {
    let config =
        Config::new("bench", "1").with_era(EraPreference::Known(ProtocolVersion::V2026_07_28));
    let mut conn = Connection::new(config);
    conn.connect(now).expect("connect");
    while conn.poll_transmit().is_some() {}
    let facts = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "1"}}
    }}))
    .expect("serialize");
    conn.handle_message(now, Message::from_slice(&facts).expect("parse"));
    while conn.poll_event().is_some() {}
    assert!(
        conn.server_facts_known(),
        "the background discover was answered"
    );
    conn
}

fn response(text_len: usize) -> Vec<u8> {
    // The first call after `ready` has id 2.
    let text = "x".repeat(text_len);
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 2, "result": {
        "resultType": "complete",
        "content": [{"type": "text", "text": text}],
        "isError": false
    }}))
    .expect("serialize")
}

fn round_trip(mut conn: Connection, now: Instant, reply: &[u8]) -> (Connection, usize) {
    let id = conn
        .call_tool(
            now,
            "echo",
            json!({"text": "hello"}),
            RequestOptions::default(),
        )
        .expect("call");
    let sent = match conn.poll_transmit() {
        Some(Transmit::Message { bytes, .. }) => bytes.len(),
        _ => 0,
    };
    let message = Message::from_slice(reply).expect("parse");
    conn.handle_message(now, message);
    let Some(Event::Response(done)) = conn.poll_event() else {
        panic!("no response");
    };
    assert_eq!(done.id, id);
    let result = done.decode_as::<CallTool>().expect("decode");
    black_box(&result);
    // Returned so that dropping the connection stays outside the timing.
    (conn, sent)
}

fn bench(c: &mut Criterion) {
    let now = Instant::now();
    let mut group = c.benchmark_group("tools_call_round_trip");
    for (name, len) in [("small", 16usize), ("1MiB", 1 << 20)] {
        let reply = response(len);
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.bench_function(name, |b| {
            b.iter_batched(
                || ready(now),
                |conn| round_trip(conn, now, &reply),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

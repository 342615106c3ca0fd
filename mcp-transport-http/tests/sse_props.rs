//! Property tests for the SSE parser: any bytes, any chunking.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use mcp_transport_http::sse::{SseError, SseEvent, SseParser};
use proptest::prelude::*;

#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<SseEvent>,
    error: Option<SseError>,
    last_id: Option<String>,
    retry: Option<std::time::Duration>,
}

fn run(input: &[u8], cap: usize, sizes: &[usize]) -> Outcome {
    let mut parser = SseParser::new(cap);
    let mut events = Vec::new();
    let mut error = None;
    let mut rest = input;
    let mut i = 0;
    while !rest.is_empty() {
        let n = if sizes.is_empty() {
            rest.len()
        } else {
            sizes[i % sizes.len()].min(rest.len())
        };
        i += 1;
        let (head, tail) = rest.split_at(n);
        rest = tail;
        if let Err(e) = parser.feed(head, &mut events) {
            error = Some(e);
            break;
        }
    }
    Outcome {
        events,
        error,
        last_id: parser.last_event_id().map(str::to_owned),
        retry: parser.retry(),
    }
}

/// Bytes that look like an event stream, with arbitrary noise mixed in.
fn sse_like() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"data:".to_vec()),
        Just(b"data: ".to_vec()),
        Just(b"id: ".to_vec()),
        Just(b"retry: ".to_vec()),
        Just(b"event: ".to_vec()),
        Just(b": ping".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"\r\n\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\"}".to_vec()),
        Just(b"\0".to_vec()),
        "[0-9]{1,4}".prop_map(String::into_bytes),
        "[a-z ]{1,12}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 1..8),
    ];
    proptest::collection::vec(token, 0..80).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn chunking_never_changes_the_outcome(
        input in sse_like(),
        sizes in proptest::collection::vec(1usize..12, 1..8),
        cap in 1usize..200,
    ) {
        let whole = run(&input, cap, &[]);
        let chunked = run(&input, cap, &sizes);
        prop_assert_eq!(&whole, &chunked);
        let bytewise = run(&input, cap, &[1]);
        prop_assert_eq!(&whole, &bytewise);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_respect_the_cap(
        input in proptest::collection::vec(any::<u8>(), 0..2048),
        sizes in proptest::collection::vec(1usize..64, 1..8),
        cap in 1usize..512,
    ) {
        let out = run(&input, cap, &sizes);
        for event in &out.events {
            prop_assert!(event.data.len() <= cap);
        }
        if let Some(err) = out.error {
            prop_assert_eq!(err, SseError::EventTooLarge { limit: cap });
        }
        prop_assert_eq!(out.events, run(&input, cap, &[]).events);
    }

    #[test]
    fn every_event_is_within_the_cap_and_oversized_ones_fail(
        lines in proptest::collection::vec("[a-z]{0,40}", 1..6),
        cap in 8usize..120,
        sep in prop_oneof![Just("\n"), Just("\r"), Just("\r\n")],
        sizes in proptest::collection::vec(1usize..7, 1..5),
    ) {
        // One event: data lines, then a blank line.
        let mut text = String::new();
        let mut event_bytes = 0;
        for line in &lines {
            text.push_str("data:");
            text.push_str(line);
            text.push_str(sep);
            event_bytes += 5 + line.len();
        }
        text.push_str(sep);
        let out = run(text.as_bytes(), cap, &sizes);
        if event_bytes > cap {
            prop_assert_eq!(out.error, Some(SseError::EventTooLarge { limit: cap }));
            prop_assert!(out.events.is_empty());
        } else {
            prop_assert_eq!(out.error, None);
            prop_assert_eq!(out.events.len(), 1);
            prop_assert_eq!(out.events[0].data.clone(), lines.join("\n").into_bytes());
        }
    }

    #[test]
    fn well_formed_events_round_trip(
        events in proptest::collection::vec(("[a-z0-9]{1,6}", "[ -~]{0,30}"), 1..10),
        sep in prop_oneof![Just("\n"), Just("\r"), Just("\r\n")],
        sizes in proptest::collection::vec(1usize..9, 1..5),
    ) {
        let mut text = String::new();
        for (id, data) in &events {
            text.push_str(&format!(": keepalive{sep}id: {id}{sep}data: {data}{sep}{sep}"));
        }
        let out = run(text.as_bytes(), 1 << 16, &sizes);
        prop_assert_eq!(out.error, None);
        prop_assert_eq!(out.events.len(), events.len());
        for (event, (id, data)) in out.events.iter().zip(&events) {
            prop_assert_eq!(event.id.as_deref(), Some(id.as_str()));
            prop_assert_eq!(&event.data, data.as_bytes());
        }
    }
}

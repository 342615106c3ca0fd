//! The 2025-11-25 GET stream on a virtual clock: opened when the session
//! becomes ready, the wait at connect, `405`, the `409` backoff, closing
//! and reopening on demand, and recovered sessions.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{
    Event, RequestError, ServerStreamChange, ServerStreamOutcome, ServerStreamState, Timer,
    Transmit, TransportKind, UsageError,
};

fn http_legacy() -> Harness {
    legacy(config().with_transport(TransportKind::Http))
}

/// The generations of the GET opens sent since the last call; `None` for
/// a close.
fn stream_transmits(h: &mut Harness) -> Vec<Option<u64>> {
    h.drain();
    std::mem::take(&mut h.streams)
        .into_iter()
        .map(|t| match t {
            Transmit::OpenServerStream { generation } => Some(generation),
            _ => None,
        })
        .collect()
}

fn changes(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ServerStream(c) => Some(format!("{c:?}")),
            Event::ServerStreamSettled => Some("Settled".into()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_stream_opens_when_the_session_is_ready_and_settles_connect() {
    let mut h = http_legacy();
    assert_eq!(stream_transmits(&mut h), vec![Some(1)]);
    assert_eq!(h.conn.server_stream_state(), ServerStreamState::Opening);
    assert_eq!(
        h.conn.poll_timeout(),
        Some((h.now + Duration::from_secs(2), Timer::ServerStreamWait))
    );
    h.conn
        .handle_server_stream(h.now, 1, ServerStreamOutcome::Opened);
    assert_eq!(changes(&h.take_events()), vec!["Settled", "Opened"]);
    assert_eq!(h.conn.server_stream_state(), ServerStreamState::Open);
    assert_eq!(h.conn.poll_timeout(), None, "the wait timer is gone");
    assert_eq!(
        h.conn.open_server_stream(h.now).unwrap(),
        ServerStreamState::Open
    );
    assert!(stream_transmits(&mut h).is_empty(), "already open");
}

#[test]
fn connect_waits_at_most_two_seconds_for_the_get() {
    let mut h = http_legacy();
    stream_transmits(&mut h);
    h.advance(Duration::from_millis(1999));
    assert!(changes(&h.take_events()).is_empty());
    h.advance(Duration::from_millis(1));
    assert_eq!(changes(&h.take_events()), vec!["Settled"]);
    h.conn
        .handle_server_stream(h.now, 1, ServerStreamOutcome::Opened);
    assert_eq!(
        changes(&h.take_events()),
        vec!["Opened"],
        "settled once only"
    );
}

#[test]
fn a_server_without_a_get_stream_is_not_asked_again() {
    let mut h = http_legacy();
    stream_transmits(&mut h);
    h.conn
        .handle_server_stream(h.now, 1, ServerStreamOutcome::NotOffered);
    assert_eq!(changes(&h.take_events()), vec!["Settled", "NotOffered"]);
    assert_eq!(h.conn.server_stream_state(), ServerStreamState::Closed);
    h.advance(Duration::from_secs(60));
    assert!(stream_transmits(&mut h).is_empty());
}

#[test]
fn conflicts_are_retried_with_a_doubling_backoff_then_fail() {
    let mut h = http_legacy();
    assert_eq!(stream_transmits(&mut h), vec![Some(1)]);
    let mut generation = 1;
    for pause in [50u64, 100, 200, 400] {
        h.conn
            .handle_server_stream(h.now, generation, ServerStreamOutcome::Conflict);
        assert!(stream_transmits(&mut h).is_empty(), "not at once");
        assert_eq!(
            h.conn.poll_timeout(),
            Some((
                h.now + Duration::from_millis(pause),
                Timer::ServerStreamRetry
            ))
        );
        assert_eq!(h.conn.server_stream_state(), ServerStreamState::Opening);
        h.advance(Duration::from_millis(pause));
        generation += 1;
        assert_eq!(stream_transmits(&mut h), vec![Some(generation)]);
    }
    h.conn
        .handle_server_stream(h.now, generation, ServerStreamOutcome::Conflict);
    let events = h.take_events();
    assert_eq!(
        changes(&events)[0],
        "Settled",
        "the first answer settled connect"
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::ServerStream(ServerStreamChange::Failed(RequestError::ServerStream(r))) if r.contains("409")
        )),
        "{events:?}"
    );
    assert_eq!(h.conn.server_stream_state(), ServerStreamState::Closed);
    assert_eq!(h.conn.poll_timeout(), None);
}

#[test]
fn a_conflict_then_success_resets_the_backoff() {
    let mut h = http_legacy();
    stream_transmits(&mut h);
    h.conn
        .handle_server_stream(h.now, 1, ServerStreamOutcome::Conflict);
    h.advance(Duration::from_millis(50));
    assert_eq!(stream_transmits(&mut h), vec![Some(2)]);
    h.conn
        .handle_server_stream(h.now, 2, ServerStreamOutcome::Opened);
    h.conn
        .handle_server_stream(h.now, 2, ServerStreamOutcome::Ended);
    assert_eq!(
        changes(&h.take_events()),
        vec!["Settled", "Opened", "Ended"]
    );
    h.conn.open_server_stream(h.now).unwrap();
    assert_eq!(stream_transmits(&mut h), vec![Some(3)]);
    h.conn
        .handle_server_stream(h.now, 3, ServerStreamOutcome::Conflict);
    assert_eq!(
        h.conn.poll_timeout(),
        Some((h.now + Duration::from_millis(50), Timer::ServerStreamRetry)),
        "the backoff starts over"
    );
}

#[test]
fn closing_drops_the_stream_ignores_its_late_outcome_and_keeps_it_closed() {
    let mut h = http_legacy();
    stream_transmits(&mut h);
    assert!(h.conn.close_server_stream(h.now).unwrap(), "it was opening");
    assert_eq!(stream_transmits(&mut h), vec![None]);
    assert_eq!(changes(&h.take_events()), vec!["Settled", "Closed"]);
    h.conn
        .handle_server_stream(h.now, 1, ServerStreamOutcome::Opened);
    assert!(
        changes(&h.take_events()).is_empty(),
        "a stale outcome is ignored"
    );
    assert_eq!(h.conn.server_stream_state(), ServerStreamState::Closed);
    assert!(
        !h.conn.close_server_stream(h.now).unwrap(),
        "nothing was open"
    );
    assert!(stream_transmits(&mut h).is_empty());

    // A recovered session does not reopen a stream the caller closed.
    h.conn.handle_session_expired(h.now, None, false);
    let init = h.drain().pop().unwrap();
    assert_eq!(init["method"], "initialize");
    h.reply(&init, initialize_result("2025-11-25"));
    assert!(stream_transmits(&mut h).is_empty());

    // Asked for again: it opens, and stays wanted.
    assert_eq!(
        h.conn.open_server_stream(h.now).unwrap(),
        ServerStreamState::Opening
    );
    let opened = stream_transmits(&mut h);
    assert_eq!(opened.len(), 1);
    let generation = opened[0].unwrap();
    h.conn
        .handle_server_stream(h.now, generation, ServerStreamOutcome::Opened);
    assert_eq!(
        changes(&h.take_events()),
        vec!["Opened"],
        "no wait to settle"
    );
    h.conn.handle_session_expired(h.now, None, false);
    assert_eq!(
        stream_transmits(&mut h),
        vec![None],
        "the old session's GET goes"
    );
    let init = h.sent.last().unwrap().clone();
    h.reply(&init, initialize_result("2025-11-25"));
    assert_eq!(
        stream_transmits(&mut h),
        vec![Some(generation + 2)],
        "the new session opens it again"
    );
}

#[test]
fn a_get_that_finds_its_session_ended_recovers_the_session() {
    let mut h = http_legacy();
    stream_transmits(&mut h);
    h.conn.handle_server_stream(
        h.now,
        1,
        ServerStreamOutcome::SessionExpired {
            newer_session_live: false,
        },
    );
    let events = h.take_events();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ServerStream(ServerStreamChange::Failed(RequestError::SessionExpired))
    )));
    assert!(events.iter().any(|e| matches!(e, Event::SessionExpired)));
    assert_eq!(h.sent.last().unwrap()["method"], "initialize");
}

#[test]
fn only_legacy_streamable_http_has_a_get_stream() {
    let mut stdio = legacy(config());
    assert!(stream_transmits(&mut stdio).is_empty());
    assert!(matches!(
        stdio.conn.open_server_stream(stdio.now),
        Err(UsageError::NoServerStream)
    ));
    let mut modern_http = modern(config().with_transport(TransportKind::Http));
    assert!(stream_transmits(&mut modern_http).is_empty());
    assert!(matches!(
        modern_http.conn.close_server_stream(modern_http.now),
        Err(UsageError::NoServerStream)
    ));
    let mut idle = Harness::new(config().with_transport(TransportKind::Http));
    assert!(matches!(
        idle.conn.open_server_stream(idle.now),
        Err(UsageError::NotReady)
    ));
}

#[test]
fn a_stream_not_wanted_at_start_opens_on_demand() {
    let mut h = legacy(
        config()
            .with_transport(TransportKind::Http)
            .with_server_stream(false),
    );
    assert!(stream_transmits(&mut h).is_empty());
    assert!(!changes(&h.take_events()).contains(&"Settled".to_owned()));
    h.conn.open_server_stream(h.now).unwrap();
    assert_eq!(stream_transmits(&mut h), vec![Some(1)]);
    h.conn.handle_server_stream(
        h.now,
        1,
        ServerStreamOutcome::Failed("connection refused".into()),
    );
    let events = h.take_events();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ServerStream(ServerStreamChange::Failed(RequestError::ServerStream(r))) if r == "connection refused"
    )));
    assert_eq!(h.conn.server_stream_state(), ServerStreamState::Closed);
    h.conn.close(h.now);
    h.conn
        .handle_server_stream(h.now, 1, ServerStreamOutcome::Opened);
    assert!(changes(&h.take_events()).is_empty());
}

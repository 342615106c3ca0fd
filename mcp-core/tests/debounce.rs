//! Debounced notifications on a virtual clock: held for the window, the
//! latest per key wins, other keys and methods are not held, progress is
//! keyed by its call (and flushed before the call ends), merges are
//! counted, and nothing is lost at close.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{Debounce, Event, RequestOptions, Timer};
use serde_json::{Value, json};

fn debounced(methods: &[&str]) -> Harness {
    let d = Debounce::new(methods.iter().copied(), Duration::from_millis(100));
    legacy(config().with_debounce(d))
}

fn notify(h: &mut Harness, method: &str, params: Value) {
    h.feed(json!({"jsonrpc": "2.0", "method": method, "params": params}));
}

/// `count` log messages of the logger `db`, data 0, 1, ...
fn log_db(h: &mut Harness, count: u32) {
    for n in 0..count {
        let params = json!({"level": "info", "logger": "db", "data": n});
        notify(h, "notifications/message", params);
    }
}

fn delivered(h: &mut Harness) -> Vec<String> {
    h.take_events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notification(n) => Some(format!(
                "{} {}",
                n.method(),
                n.raw().map_or(String::new(), |p| p.get().to_owned())
            )),
            Event::Progress { progress, .. } => Some(format!("progress {progress}")),
            _ => None,
        })
        .collect()
}

#[test]
fn the_latest_of_a_key_comes_out_when_the_window_ends() {
    let mut h = debounced(&["notifications/message"]);
    let log = |logger: &str, n: u32| json!({"level": "info", "logger": logger, "data": n});
    notify(&mut h, "notifications/message", log("db", 1));
    h.advance(Duration::from_millis(50));
    notify(&mut h, "notifications/message", log("db", 2));
    notify(&mut h, "notifications/message", log("net", 3));
    notify(
        &mut h,
        "notifications/resources/updated",
        json!({"uri": "demo://a"}),
    );
    assert_eq!(
        delivered(&mut h),
        vec![r#"notifications/resources/updated {"uri":"demo://a"}"#],
        "other methods are not held"
    );
    assert_eq!(
        h.conn.poll_timeout(),
        Some((
            h.start + Duration::from_millis(100),
            Timer::NotificationFlush
        ))
    );
    h.advance(Duration::from_millis(50));
    assert_eq!(
        delivered(&mut h),
        vec![r#"notifications/message {"level":"info","logger":"db","data":2}"#],
        "the window counts from the key's first notification"
    );
    h.advance(Duration::from_millis(49));
    assert!(delivered(&mut h).is_empty());
    h.advance(Duration::from_millis(1));
    assert_eq!(
        delivered(&mut h),
        vec![r#"notifications/message {"level":"info","logger":"net","data":3}"#]
    );
    assert_eq!(h.conn.poll_timeout(), None);
}

#[test]
fn progress_is_keyed_by_its_call() {
    let mut h = debounced(&["notifications/progress"]);
    let opts = RequestOptions::default().with_progress();
    let a = h
        .conn
        .send_request(h.now, "tools/list", None, opts.clone())
        .unwrap();
    let b = h
        .conn
        .send_request(h.now, "tools/list", None, opts)
        .unwrap();
    h.drain();
    for (call, n) in [(&a, 1), (&a, 2), (&b, 7)] {
        notify(
            &mut h,
            "notifications/progress",
            json!({"progressToken": call.as_number().unwrap(), "progress": n}),
        );
    }
    assert!(delivered(&mut h).is_empty());
    h.advance(Duration::from_millis(100));
    assert_eq!(delivered(&mut h), vec!["progress 2", "progress 7"]);
}

#[test]
fn without_debounce_nothing_is_held_and_close_flushes() {
    let mut plain = legacy(config());
    notify(
        &mut plain,
        "notifications/message",
        json!({"level": "info", "data": 1}),
    );
    assert_eq!(delivered(&mut plain).len(), 1);

    let mut h = debounced(&["notifications/message"]);
    notify(
        &mut h,
        "notifications/message",
        json!({"level": "info", "data": 1}),
    );
    h.conn.close(h.now);
    let events = h.take_events();
    assert!(
        matches!(&events[..], [Event::Notification(_), Event::Closed]),
        "{events:?}"
    );
}

#[test]
fn merges_are_counted() {
    let mut h = debounced(&["notifications/message"]);
    log_db(&mut h, 5);
    assert_eq!(h.conn.coalesced_notifications(), 4);
    h.advance(Duration::from_millis(100));
    assert_eq!(
        delivered(&mut h),
        vec![r#"notifications/message {"level":"info","logger":"db","data":4}"#]
    );
    assert_eq!(h.conn.coalesced_notifications(), 4);
}

#[test]
fn a_calls_held_progress_comes_out_before_its_result() {
    let mut h = debounced(&["notifications/progress"]);
    let opts = RequestOptions::default().with_progress();
    let call = h
        .conn
        .send_request(h.now, "tools/list", None, opts)
        .unwrap();
    let sent = h.drain();
    for n in 1..=3 {
        notify(
            &mut h,
            "notifications/progress",
            json!({"progressToken": call.as_number().unwrap(), "progress": n}),
        );
    }
    h.reply(&sent[0], json!({"tools": []}));
    let events = h.take_events();
    assert!(
        matches!(
            &events[..],
            [Event::Progress { progress, .. }, Event::Response(_)] if *progress == 3.0
        ),
        "{events:?}"
    );
    assert_eq!(h.conn.coalesced_notifications(), 2);
    assert_eq!(h.conn.poll_timeout(), None, "nothing left to flush");
}

#[test]
fn a_zero_window_merges_one_burst_until_the_timer_turn() {
    let d = Debounce::new(["notifications/message"], Duration::ZERO);
    let mut h = legacy(config().with_debounce(d));
    log_db(&mut h, 3);
    assert!(delivered(&mut h).is_empty(), "held until the timer turn");
    assert_eq!(
        h.conn.poll_timeout(),
        Some((h.now, Timer::NotificationFlush))
    );
    h.advance(Duration::ZERO);
    assert_eq!(
        delivered(&mut h),
        vec![r#"notifications/message {"level":"info","logger":"db","data":2}"#]
    );
    assert_eq!(h.conn.coalesced_notifications(), 2);
}

#[test]
fn supersedable_methods_follow_the_table_and_the_debounced_methods() {
    let h = debounced(&["custom/ticks"]);
    for m in [
        "notifications/progress",
        "notifications/message",
        "notifications/tools/list_changed",
        "notifications/resources/updated",
        "notifications/tasks/status",
        "custom/ticks",
    ] {
        assert!(h.conn.is_supersedable(m), "{m}");
    }
    for m in ["custom/other", "notifications/cancelled"] {
        assert!(!h.conn.is_supersedable(m), "{m}");
    }
}

//! Watching a task by id (`Connection::watch_task`), both eras, on a
//! virtual clock: the polls, the outcome, input, the budget, stopping.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{Event, RequestError, RequestOptions, Timer, UsageError};
use serde_json::{Value, json};

fn task(id: &str, status: &str, poll_ms: u64) -> Value {
    json!({"taskId": id, "status": status, "createdAt": "2026-01-01T00:00:00Z",
           "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": poll_ms})
}

fn modern_get(status: &str, poll_ms: u64) -> Value {
    let mut t = task("t-9", status, poll_ms);
    t["resultType"] = json!("complete");
    t
}

/// Whether a task poll is scheduled (other timers, such as the cache's
/// expiry or a request deadline, may be armed meanwhile).
fn polling(h: &Harness) -> bool {
    matches!(h.conn.poll_timeout(), Some((_, Timer::TaskPoll(_))))
}

fn failure(events: &[Event]) -> Option<&RequestError> {
    events.iter().find_map(|e| match e {
        Event::RequestFailed { error, .. } => Some(error),
        _ => None,
    })
}

/// Starts watching task `t-9`: the call and its first `tasks/get`.
fn watch(h: &mut Harness, opts: RequestOptions) -> (mcp_types::RequestId, Value) {
    let id = h
        .conn
        .watch_task(h.now, "t-9", opts)
        .expect("a valid watch");
    let first = h.drain().remove(0);
    (id, first)
}

/// The watch failed because the server broke the protocol, as `why` says.
fn assert_peer_failure(events: &[Event], why: &str) {
    assert!(
        matches!(failure(events), Some(RequestError::Peer(p)) if p.to_string().contains(why)),
        "{why}: {events:?}"
    );
}

#[test]
fn a_modern_watch_polls_answers_input_and_completes() {
    let mut h = modern(config());
    let (id, g1) = watch(&mut h, RequestOptions::default());
    assert_eq!(g1["method"], "tasks/get", "the first poll goes out at once");
    assert_eq!(g1["params"]["taskId"], "t-9");
    h.reply(&g1, modern_get("working", 2000));
    let events = h.take_events();
    assert_eq!(statuses(&events), vec![("Working".into(), 1)]);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::TaskCreated { .. }))
    );
    assert_eq!(
        h.conn.poll_timeout(),
        Some((
            h.now + Duration::from_millis(2000),
            Timer::TaskPoll(id.clone())
        ))
    );
    h.advance(Duration::from_millis(1999));
    assert!(h.drain().is_empty(), "not before the server's interval");
    h.advance(Duration::from_millis(1));
    let g2 = h.drain().remove(0);
    let mut ir = modern_get("input_required", 500);
    ir["inputRequests"] =
        json!({"q": {"method": "elicitation/create", "params": {"message": "ok?"}}});
    h.reply(&g2, ir.clone());
    let events = h.take_events();
    let asked: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::TaskInputRequested { id: call, key, .. } if call == &id => Some(key),
            _ => None,
        })
        .collect();
    assert_eq!(asked, vec!["q"]);
    let mut answers = serde_json::Map::new();
    answers.insert("q".into(), json!({"action": "accept", "content": {}}));
    h.conn.answer_task_input(h.now, &id, answers).unwrap();
    let u = h.drain().remove(0);
    assert_eq!(u["method"], "tasks/update");
    assert_eq!(u["params"]["taskId"], "t-9");
    h.reply(&u, json!({"resultType": "complete"}));
    h.advance(Duration::from_millis(500));
    let g3 = h.drain().remove(0);
    h.reply(&g3, ir);
    assert!(
        !h.take_events()
            .iter()
            .any(|e| matches!(e, Event::TaskInputRequested { .. })),
        "a key is surfaced once"
    );
    h.advance(Duration::from_millis(500));
    let g4 = h.drain().remove(0);
    let mut done = modern_get("completed", 500);
    done["result"] = json!({"content": [{"type": "text", "text": "ok"}]});
    h.reply(&g4, done);
    let events = h.take_events();
    let result = events.iter().find_map(|e| match e {
        Event::Response(c) if c.id == id => Some(c.decode::<Value>().unwrap()),
        _ => None,
    });
    assert_eq!(result.unwrap()["content"][0]["text"], "ok");
    assert!(!polling(&h), "nothing more is scheduled");
    assert_eq!(h.conn.calls_in_progress(), 0);
}

#[test]
fn a_modern_watch_reports_the_tasks_error_and_cancellation() {
    let mut h = modern(config());
    let (_, g) = watch(&mut h, RequestOptions::default());
    let mut failed = modern_get("failed", 500);
    failed["error"] = json!({"code": -32000, "message": "boom"});
    h.reply(&g, failed);
    let events = h.take_events();
    assert!(matches!(failure(&events), Some(RequestError::Remote(e)) if e.message == "boom"));

    let (_, g) = watch(&mut h, RequestOptions::default());
    h.reply(&g, modern_get("cancelled", 500));
    assert!(matches!(
        failure(&h.take_events()),
        Some(RequestError::TaskCancelled)
    ));

    let (_, g) = watch(&mut h, RequestOptions::default());
    h.reply(&g, modern_get("completed", 500));
    assert_peer_failure(&h.take_events(), "without result");
}

#[test]
fn a_legacy_watch_fetches_the_outcome_with_tasks_result() {
    for status in ["completed", "failed", "input_required"] {
        let mut h = legacy(config());
        let (id, g) = watch(&mut h, RequestOptions::default());
        assert_eq!(g["method"], "tasks/get");
        h.reply(&g, task("t-9", "working", 100));
        h.advance(Duration::from_millis(100));
        let g = h.drain().remove(0);
        h.reply(&g, task("t-9", status, 100));
        let r = h.drain().remove(0);
        assert_eq!(r["method"], "tasks/result", "{status}");
        assert_eq!(r["params"]["taskId"], "t-9");
        assert!(!polling(&h), "{status}: no poll while tasks/result waits");
        h.reply(&r, json!({"content": [], "isError": status != "completed"}));
        let events = h.take_events();
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Response(c) if c.id == id)),
            "{status}: {events:?}"
        );
    }
    let mut h = legacy(config());
    let (_, g) = watch(&mut h, RequestOptions::default());
    h.reply(&g, task("t-9", "cancelled", 100));
    assert!(matches!(
        failure(&h.take_events()),
        Some(RequestError::TaskCancelled)
    ));
    assert!(
        h.drain().is_empty(),
        "a cancelled task has no outcome to fetch"
    );
}

#[test]
fn an_answer_for_another_task_fails_the_watch() {
    let mut h = modern(config());
    let (_, g) = watch(&mut h, RequestOptions::default());
    let mut other = task("t-1", "working", 100);
    other["resultType"] = json!("complete");
    h.reply(&g, other);
    assert_peer_failure(&h.take_events(), "another task");
    assert!(!polling(&h));
}

#[test]
fn the_budget_clamps_the_last_poll_and_then_times_out() {
    let mut h = modern(config());
    let opts = RequestOptions::default().with_max_total(Duration::from_secs(3));
    let (id, g) = watch(&mut h, opts);
    h.reply(&g, modern_get("working", 2000));
    h.advance(Duration::from_secs(2));
    let g = h.drain().remove(0);
    h.reply(&g, modern_get("working", 2000));
    assert_eq!(
        h.conn.poll_timeout(),
        Some((
            h.start + Duration::from_secs(3),
            Timer::TaskPoll(id.clone())
        )),
        "the next poll is clamped to the budget"
    );
    h.advance(Duration::from_secs(1));
    let g = h.drain().remove(0);
    h.reply(&g, modern_get("working", 2000));
    let events = h.take_events();
    assert!(
        matches!(failure(&events), Some(RequestError::Timeout(d)) if *d == Duration::from_secs(3)),
        "{events:?}"
    );
}

#[test]
fn a_poll_interval_of_the_caller_wins_over_the_servers() {
    let mut h = modern(config());
    let mut opts = RequestOptions::default();
    opts.poll_interval = Some(Duration::from_millis(300));
    let (id, g) = watch(&mut h, opts);
    h.reply(&g, modern_get("working", 5000));
    assert_eq!(
        h.conn.poll_timeout(),
        Some((h.now + Duration::from_millis(300), Timer::TaskPoll(id)))
    );
}

#[test]
fn bad_ids_and_an_unready_connection_are_refused() {
    let mut h = modern(config());
    for bad in [String::new(), "x".repeat(1025)] {
        let e = h.conn.watch_task(h.now, &bad, RequestOptions::default());
        assert!(
            matches!(e, Err(UsageError::InvalidTaskId { max: 1024 })),
            "{e:?}"
        );
    }
    assert!(
        h.conn
            .watch_task(h.now, &"x".repeat(1024), RequestOptions::default())
            .is_ok()
    );
    let mut idle = Harness::new(config());
    let e = idle
        .conn
        .watch_task(idle.now, "t", RequestOptions::default());
    assert!(matches!(e, Err(UsageError::NotReady)), "{e:?}");
    h.conn.close(h.now);
    let e = h.conn.watch_task(h.now, "t", RequestOptions::default());
    assert!(matches!(e, Err(UsageError::Closed)), "{e:?}");
}

#[test]
fn unwatching_stops_quietly_and_absorbs_the_late_answer() {
    let mut h = modern(config());
    let (id, g) = watch(&mut h, RequestOptions::default());
    h.conn.unwatch_task(h.now, &id).unwrap();
    assert!(
        h.drain().is_empty(),
        "nothing is sent: the task is not cancelled"
    );
    h.reply(&g, modern_get("working", 100));
    let events = h.take_events();
    assert!(events.is_empty(), "no event, no violation: {events:?}");
    assert!(!polling(&h));
    assert!(matches!(
        h.conn.unwatch_task(h.now, &id),
        Err(UsageError::UnknownCall(_))
    ));
    // Only watches can be unwatched.
    let call = h
        .conn
        .call_tool(h.now, "echo", json!({}), RequestOptions::default())
        .unwrap();
    assert!(matches!(
        h.conn.unwatch_task(h.now, &call),
        Err(UsageError::UnknownCall(_))
    ));
}

#[test]
fn cancelling_a_watch_cancels_the_task() {
    let mut h = legacy(config());
    let (id, g) = watch(&mut h, RequestOptions::default());
    h.reply(&g, task("t-9", "working", 100));
    h.conn.cancel(h.now, &id).unwrap();
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "tasks/cancel");
    assert_eq!(sent[0]["params"]["taskId"], "t-9");
    assert!(matches!(
        failure(&h.take_events()),
        Some(RequestError::Cancelled)
    ));
    assert!(!polling(&h));
}

#[test]
fn a_server_that_keeps_inventing_input_keys_fails_the_watch() {
    let mut h = modern(config());
    let (_, g) = watch(&mut h, RequestOptions::default());
    let mut ir = modern_get("input_required", 100);
    let requests: serde_json::Map<String, Value> = (0..257)
        .map(|i| (format!("k{i}"), json!({"method": "ping"})))
        .collect();
    ir["inputRequests"] = Value::Object(requests);
    h.reply(&g, ir);
    assert_peer_failure(&h.take_events(), "too many input");
}

#[test]
fn a_pushed_terminal_status_pulls_the_next_poll_forward() {
    let mut h = modern(config());
    let (id, g) = watch(&mut h, RequestOptions::default());
    h.reply(&g, modern_get("working", 5000));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/tasks",
                  "params": task("t-9", "completed", 5000)}));
    assert_eq!(h.conn.poll_timeout(), Some((h.now, Timer::TaskPoll(id))));
}

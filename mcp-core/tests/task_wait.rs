//! What a task handle waits for, decided by the connection on a virtual
//! clock (`Connection::wait_task`, `Event::TaskWaitOver`): state sets, the
//! poll cap (which stops polling until the next wait), the state a call's
//! end implies, and the era's shape of a task call (`start_task`).

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{
    ClientFeatures, Event, RequestError, RequestOptions, TaskStates, TaskWait, TaskWaitEnd, Timer,
};
use mcp_types::RequestId;
use mcp_types::tasks::TaskStatus;
use serde_json::{Value, json};

fn task(status: &str) -> Value {
    json!({"taskId": "t-1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
           "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 1000})
}

/// A 2025-11-25 task `L1` (polled every second).
fn legacy_task(status: &str) -> Value {
    json!({"taskId": "L1", "status": status, "createdAt": "x", "lastUpdatedAt": "x",
           "ttl": 60000, "pollInterval": 1000})
}

fn get_result(status: &str) -> Value {
    let mut t = task(status);
    t["resultType"] = json!("complete");
    t
}

/// Starts a task call of tool `long`: its id and the request sent.
fn start(h: &mut Harness, opts: RequestOptions) -> (RequestId, Value) {
    let params = mcp_core::call_tool_params("long", json!({}));
    let id = h
        .conn
        .start_task(h.now, "tools/call", Some(params.into()), opts)
        .expect("a valid call");
    (id, h.drain().remove(0))
}

/// A 2026-07-28 task call answered with a working task `t-1` (polled
/// every second).
fn modern_task(h: &mut Harness) -> RequestId {
    let (id, r) = start(h, RequestOptions::default());
    assert!(r["params"].get("task").is_none(), "the server decides");
    let mut created = task("working");
    created["resultType"] = json!("task");
    h.reply(&r, created);
    h.take_events();
    id
}

fn ready() -> Harness {
    modern(config().with_features(ClientFeatures::default().with_tasks()))
}

/// The ends of waits among `events`.
fn wait_ends(events: &[Event]) -> Vec<TaskWaitEnd> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TaskWaitOver { end, .. } => Some(end.clone()),
            _ => None,
        })
        .collect()
}

/// Advances to the next poll and answers it with `status`.
fn poll(h: &mut Harness, status: &str) {
    h.advance(Duration::from_secs(1));
    let g = h.drain().remove(0);
    assert_eq!(g["method"], "tasks/get");
    h.reply(&g, get_result(status));
}

fn polling(h: &Harness) -> bool {
    matches!(h.conn.poll_timeout(), Some((_, Timer::TaskPoll(_))))
}

#[test]
fn a_poll_cap_stops_polling_until_the_next_wait() {
    let mut h = ready();
    let id = modern_task(&mut h);
    h.conn
        .wait_task(h.now, &id, TaskWait::outcome().with_max_polls(2))
        .expect("a task call");
    assert!(h.take_events().is_empty(), "no poll was sent yet");
    poll(&mut h, "working");
    assert!(wait_ends(&h.take_events()).is_empty());
    poll(&mut h, "working");
    let ends = wait_ends(&h.take_events());
    assert!(
        matches!(&ends[..], [TaskWaitEnd::PollCapReached { task, max_polls: 2 }] if task.polls == 2),
        "{ends:?}"
    );
    // Polling stopped: the task runs on, nothing is sent.
    assert!(!polling(&h));
    h.advance(Duration::from_secs(30));
    assert!(h.drain().is_empty(), "no third poll");
    // The next wait without a cap resumes polling at the task's pace.
    h.conn
        .wait_task(h.now, &id, TaskWait::outcome())
        .expect("still a task call");
    assert_eq!(
        h.conn.poll_timeout(),
        Some((h.now + Duration::from_secs(1), Timer::TaskPoll(id.clone())))
    );
    let mut done = get_result("completed");
    done["result"] = json!({"content": []});
    h.advance(Duration::from_secs(1));
    let g = h.drain().remove(0);
    h.reply(&g, done);
    assert!(matches!(h.take_events().last(), Some(Event::Response(c)) if c.id == id));
}

#[test]
fn a_cap_already_used_ends_the_wait_at_once() {
    let mut h = ready();
    let id = modern_task(&mut h);
    for _ in 0..3 {
        poll(&mut h, "working");
    }
    h.take_events();
    h.conn
        .wait_task(h.now, &id, TaskWait::outcome().with_max_polls(2))
        .expect("a task call");
    let ends = wait_ends(&h.take_events());
    assert!(
        matches!(&ends[..], [TaskWaitEnd::PollCapReached { task, .. }] if task.polls == 3),
        "{ends:?}"
    );
    assert!(!polling(&h), "the poll already armed is withdrawn");
    // A higher cap resumes polling; it ends the wait at its own count.
    h.conn
        .wait_task(h.now, &id, TaskWait::outcome().with_max_polls(4))
        .expect("a task call");
    assert!(polling(&h));
    poll(&mut h, "working");
    assert_eq!(wait_ends(&h.take_events()).len(), 1);
}

#[test]
fn a_state_wait_ends_at_once_on_a_poll_or_on_a_push() {
    let mut h = ready();
    let id = modern_task(&mut h);
    // Already there: answered at once, with the record's snapshot.
    let working = TaskStates::empty().with(TaskStatus::Working);
    h.conn
        .wait_task(h.now, &id, TaskWait::until(working))
        .expect("a task call");
    let ends = wait_ends(&h.take_events());
    assert!(matches!(&ends[..], [TaskWaitEnd::Reached(s)] if s.task_id == "t-1"));
    // Until input or the end: a working poll does not end it, an
    // input_required one does (once: the wait is then over).
    let until_input = TaskStates::terminal().with(TaskStatus::InputRequired);
    h.conn
        .wait_task(h.now, &id, TaskWait::until(until_input))
        .expect("a task call");
    poll(&mut h, "working");
    assert!(wait_ends(&h.take_events()).is_empty());
    poll(&mut h, "input_required");
    let ends = wait_ends(&h.take_events());
    assert!(
        matches!(&ends[..], [TaskWaitEnd::Reached(s)] if s.status == TaskStatus::InputRequired)
    );
    poll(&mut h, "input_required");
    assert!(wait_ends(&h.take_events()).is_empty(), "answered once");
    // A pushed status ends a wait too (the listen stream's
    // `notifications/tasks`), before any poll.
    h.conn
        .wait_task(h.now, &id, TaskWait::until(TaskStates::terminal()))
        .expect("a task call");
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": task("failed")}));
    let ends = wait_ends(&h.take_events());
    assert!(
        matches!(&ends[..], [TaskWaitEnd::Reached(s)] if s.status == TaskStatus::Failed),
        "{ends:?}"
    );
}

#[test]
fn the_end_of_the_call_concludes_the_state_before_the_call_ends() {
    let mut h = ready();
    let id = modern_task(&mut h);
    let only_completed = [TaskStatus::Completed].into_iter().collect();
    h.conn
        .wait_task(h.now, &id, TaskWait::until(only_completed))
        .expect("a task call");
    h.conn.cancel(h.now, &id).expect("in progress");
    let events = h.take_events();
    let order: Vec<&str> = events
        .iter()
        .map(|e| match e {
            Event::TaskStatus { task, .. } if task.status == TaskStatus::Cancelled => "cancelled",
            Event::TaskWaitOver {
                end: TaskWaitEnd::EndedElsewhere(s),
                ..
            } if s.status == TaskStatus::Cancelled => "ended elsewhere",
            Event::RequestFailed {
                error: RequestError::Cancelled,
                ..
            } => "failed",
            _ => "other",
        })
        .collect();
    assert_eq!(
        order,
        ["cancelled", "ended elsewhere", "failed"],
        "{events:?}"
    );
    // A wait that outlives its call gets no event: it is gone with it.
    assert!(
        h.conn
            .wait_task(h.now, &id, TaskWait::until(TaskStates::terminal()))
            .is_err()
    );
}

#[test]
fn a_result_after_a_working_report_concludes_completed_once() {
    let mut h = legacy(config());
    let (id, r) = start(&mut h, RequestOptions::default());
    assert_eq!(r["params"]["task"], json!({}), "2025-11-25: augmented");
    h.reply(&r, json!({"task": legacy_task("working")}));
    h.conn
        .wait_task(h.now, &id, TaskWait::until(TaskStates::terminal()))
        .expect("a task call");
    h.advance(Duration::from_secs(1));
    let g = h.drain().remove(0);
    h.reply(&g, legacy_task("input_required"));
    let res = h.drain().remove(0);
    assert_eq!(res["method"], "tasks/result");
    h.take_events();
    // The result arrives while the task was last seen asking for input:
    // the call's end says it completed.
    h.reply(&res, json!({"content": []}));
    let events = h.take_events();
    assert_eq!(statuses(&events), vec![("Completed".into(), 1)]);
    let ends = wait_ends(&events);
    assert!(matches!(&ends[..], [TaskWaitEnd::Reached(s)] if s.status == TaskStatus::Completed));
    assert!(matches!(events.last(), Some(Event::Response(c)) if c.id == id));
}

#[test]
fn start_task_keeps_the_callers_ttl_and_pushes_after_the_end_are_not_reported() {
    let mut h = legacy(config());
    let (_, r) = start(&mut h, RequestOptions::default().with_task(Some(5000)));
    assert_eq!(r["params"]["task"], json!({"ttl": 5000}));
    h.reply(&r, json!({"task": legacy_task("working")}));
    // A pushed end, then a stale push and a stale poll: the record keeps
    // the end; only the poll count moves.
    let push = |h: &mut Harness, status: &str| {
        h.feed(
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                      "params": legacy_task(status)}),
        );
    };
    push(&mut h, "completed");
    push(&mut h, "working");
    h.advance(Duration::ZERO);
    let g = h.drain().remove(0);
    h.reply(&g, legacy_task("working"));
    let seen = statuses(&h.take_events());
    assert_eq!(
        seen,
        vec![("Completed".into(), 0), ("Completed".into(), 1)],
        "the end stays"
    );
}

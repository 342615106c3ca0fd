//! Tasks of both generations, driven by poll timers on a virtual clock.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::{
    ClientFeatures, Event, POLL_FLOOR, RequestError, RequestOptions, TaskSnapshot, TaskStates,
    TaskWait, TaskWaitEnd, Timer, UsageError, related_task_id,
};
use mcp_types::tasks::TaskStatus;
use serde_json::json;

fn task(status: &str, poll_ms: u64) -> serde_json::Value {
    json!({"taskId": "t-1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
           "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": poll_ms})
}

#[test]
fn extension_task_polls_surfaces_input_and_completes() {
    let mut h = modern(config().with_features(ClientFeatures::default().with_tasks()));
    let id = h
        .conn
        .call_tool(h.now, "render", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    let mut created = task("working", 2000);
    created["resultType"] = json!("task");
    h.reply(&r, created);
    let events = h.take_events();
    assert!(matches!(&events[0], Event::TaskCreated { task, .. } if task.task_id == "t-1"));
    assert_eq!(
        h.conn.poll_timeout().unwrap(),
        (
            h.now + Duration::from_millis(2000),
            Timer::TaskPoll(id.clone())
        )
    );
    h.advance(Duration::from_millis(1999));
    assert!(h.drain().is_empty());
    h.advance(Duration::from_millis(1));
    let g1 = h.drain().remove(0);
    assert_eq!(g1["method"], "tasks/get");
    assert_eq!(g1["params"]["taskId"], "t-1");
    let mut ir = task("input_required", 500);
    ir["resultType"] = json!("complete");
    ir["inputRequests"] =
        json!({"q": {"method": "elicitation/create", "params": {"message": "ok?"}}});
    h.reply(&g1, ir.clone());
    let events = h.take_events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TaskInputRequested { key, .. } if key == "q"))
    );
    // Not spun on: the next poll waits the interval.
    assert!(h.drain().is_empty());
    // One typed answer (the `Map` form, `answer_task_input`, is under it).
    let accept = json!({"action": "accept", "content": {}});
    h.conn
        .answer_task_input_with(h.now, &id, "q", &accept)
        .unwrap();
    let u = h.drain().remove(0);
    assert_eq!(u["method"], "tasks/update");
    assert_eq!(u["params"]["taskId"], "t-1");
    assert_eq!(
        u["params"]["inputResponses"],
        json!({"q": {"action": "accept", "content": {}}}),
        "tasks/update carries the answers"
    );
    h.reply(&u, json!({"resultType": "complete"}));
    h.advance(Duration::from_millis(500));
    let g2 = h.drain().remove(0);
    h.reply(&g2, ir);
    let events = h.take_events();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::TaskInputRequested { .. })),
        "each key is surfaced once"
    );
    h.advance(Duration::from_millis(500));
    let g3 = h.drain().remove(0);
    let mut done = task("completed", 500);
    done["resultType"] = json!("complete");
    done["result"] = json!({"content": [{"type": "text", "text": "done"}], "isError": true});
    h.reply(&g3, done);
    let events = h.take_events();
    let Event::Response(c) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(c.id, id);
    assert!(String::from_utf8_lossy(c.result.as_bytes()).contains("done"));
    assert_eq!(h.conn.calls_in_progress(), 0);
    assert!(
        h.conn
            .poll_timeout()
            .is_none_or(|t| t.1 == Timer::CacheExpiry)
    );
    insta::assert_snapshot!("task_extension", h.transcript());
}

#[test]
fn task_result_without_declaring_the_extension_is_invalid() {
    let mut h = modern(config());
    h.conn
        .call_tool(h.now, "render", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    let mut created = task("working", 100);
    created["resultType"] = json!("task");
    h.reply(&r, created);
    assert!(matches!(
        &h.take_events()[0],
        Event::RequestFailed {
            error: RequestError::Peer(_),
            ..
        }
    ));
}

#[test]
fn extension_task_failure_cancel_and_budget() {
    let mut h = modern(config().with_features(ClientFeatures::default().with_tasks()));
    let id = h
        .conn
        .call_tool(
            h.now,
            "x",
            json!({}),
            RequestOptions::default().with_max_total(Duration::from_secs(3)),
        )
        .unwrap();
    let r = h.drain().remove(0);
    let mut created = task("working", 2000);
    created["resultType"] = json!("task");
    h.reply(&r, created);
    h.advance(Duration::from_secs(2));
    let g = h.drain().remove(0);
    let mut w = task("working", 2000);
    w["resultType"] = json!("complete");
    h.reply(&g, w);
    // Clamped to the budget: the next poll is at 3 s, not 4 s.
    assert_eq!(
        h.conn.poll_timeout().unwrap().0,
        h.start + Duration::from_secs(3)
    );
    h.advance(Duration::from_secs(1));
    let g = h.drain().remove(0);
    let mut w = task("working", 2000);
    w["resultType"] = json!("complete");
    h.reply(&g, w);
    let events = h.take_events();
    assert!(matches!(
        events.last(),
        Some(Event::RequestFailed {
            error: RequestError::Timeout(_),
            ..
        })
    ));
    assert!(h.conn.cancel(h.now, &id).is_err());

    // Failed with an error; cancel uses tasks/cancel, never notifications/cancelled.
    let mut h = modern(config().with_features(ClientFeatures::default().with_tasks()));
    let id = h
        .conn
        .call_tool(h.now, "x", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    let mut created = task("working", 100);
    created["resultType"] = json!("task");
    h.reply(&r, created);
    h.conn.cancel(h.now, &id).unwrap();
    let c = h.drain().remove(0);
    assert_eq!(c["method"], "tasks/cancel");
    assert_eq!(c["params"]["taskId"], "t-1");
    let id2 = h
        .conn
        .call_tool(h.now, "y", json!({}), RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    let mut created = task("working", 100);
    created["resultType"] = json!("task");
    h.reply(&r, created);
    h.advance(Duration::from_millis(100));
    let g = h.drain().remove(0);
    let mut f = task("failed", 100);
    f["error"] = json!({"code": -32603, "message": "boom"});
    h.reply(&g, f);
    let events = h.take_events();
    assert!(events.iter().any(|e| matches!(e, Event::RequestFailed { id, error: RequestError::Remote(err), .. } if *id == id2 && err.message == "boom")));
}

#[test]
fn legacy_task_augmented_call_polls_then_fetches_the_result() {
    let mut h = legacy(config());
    let id = h
        .conn
        .call_tool(
            h.now,
            "long",
            json!({}),
            RequestOptions::default()
                .with_task(Some(60000))
                .with_poll_interval(Duration::from_millis(10)),
        )
        .unwrap();
    let r = h.drain().remove(0);
    assert_eq!(r["params"]["task"], json!({"ttl": 60000}));
    h.reply(&r, json!({"task": {"taskId": "L1", "status": "working", "createdAt": "x", "lastUpdatedAt": "x", "ttl": 60000, "pollInterval": 5000}}));
    // The caller's interval wins over the server's, but not below the floor.
    assert_eq!(h.conn.poll_timeout().unwrap().0, h.now + POLL_FLOOR);
    h.advance(POLL_FLOOR);
    let g = h.drain().remove(0);
    assert_eq!(g["method"], "tasks/get");
    assert!(g["params"].get("_meta").is_none());
    h.reply(&g, json!({"taskId": "L1", "status": "completed", "createdAt": "x", "lastUpdatedAt": "x", "ttl": 60000}));
    let res = h.drain().remove(0);
    assert_eq!(res["method"], "tasks/result");
    h.reply(&res, json!({"content": [{"type": "text", "text": "ok"}]}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::TaskCreated { .. }));
    assert!(matches!(events.last(), Some(Event::Response(c)) if c.id == id));
    insta::assert_snapshot!("task_legacy", h.transcript());
}

#[test]
fn legacy_task_augmentation_is_gated_and_update_is_modern_only() {
    let mut h = legacy(config());
    let err = h
        .conn
        .send_request(h.now, "tasks/list", None, RequestOptions::default());
    assert!(matches!(
        err,
        Err(UsageError::CapabilityNotAdvertised {
            capability: "tasks.list",
            ..
        })
    ));
    let id = h
        .conn
        .call_tool(h.now, "x", json!({}), RequestOptions::default())
        .unwrap();
    assert!(matches!(
        h.conn.answer_task_input(h.now, &id, serde_json::Map::new()),
        Err(UsageError::WrongEra { .. })
    ));
}

fn legacy_task(status: &str) -> serde_json::Value {
    json!({"taskId": "L1", "status": status, "createdAt": "x", "lastUpdatedAt": "x",
           "ttl": 60000, "pollInterval": 2000})
}

/// Starts a task-augmented legacy call and answers it with a working task.
fn legacy_started(h: &mut Harness, opts: RequestOptions) -> mcp_types::RequestId {
    let id = h
        .conn
        .call_tool(h.now, "long", json!({}), opts.with_task(None))
        .expect("a valid call");
    let r = h.drain().remove(0);
    h.reply(&r, json!({"task": legacy_task("working")}));
    id
}

#[test]
fn caller_interval_overrides_the_server_in_both_directions() {
    // Faster than the server: the caller wins.
    let mut h = legacy(config());
    legacy_started(
        &mut h,
        RequestOptions::default().with_poll_interval(Duration::from_millis(300)),
    );
    assert_eq!(
        h.conn.poll_timeout().unwrap().0,
        h.now + Duration::from_millis(300)
    );
    // Slower than the server: the caller still wins.
    let mut h = legacy(config());
    legacy_started(
        &mut h,
        RequestOptions::default().with_poll_interval(Duration::from_secs(5)),
    );
    assert_eq!(
        h.conn.poll_timeout().unwrap().0,
        h.now + Duration::from_secs(5)
    );
    // Without a caller interval, the server's 2 s applies.
    let mut h = legacy(config());
    legacy_started(&mut h, RequestOptions::default());
    assert_eq!(
        h.conn.poll_timeout().unwrap().0,
        h.now + Duration::from_secs(2)
    );
}

#[test]
fn polls_are_counted_and_pushes_carry_the_count() {
    let mut h = legacy(config());
    legacy_started(&mut h, RequestOptions::default());
    h.take_events();
    for _ in 0..3 {
        h.advance(Duration::from_secs(2));
        let g = h.drain().remove(0);
        assert_eq!(g["method"], "tasks/get");
        h.reply(&g, legacy_task("working"));
    }
    // A pushed status does not count as a poll and keeps the count.
    h.feed(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                  "params": legacy_task("input_required")}),
    );
    let seen = statuses(&h.take_events());
    assert_eq!(
        seen,
        vec![
            ("Working".into(), 1),
            ("Working".into(), 2),
            ("Working".into(), 3),
            ("InputRequired".into(), 3)
        ]
    );
    // Polling stays in charge of the outcome, but the push pulled the next
    // poll forward: it is due now, not 2 s from the last one.
    assert!(h.drain().is_empty());
    assert_eq!(h.conn.poll_timeout().unwrap().0, h.now);
    h.advance(Duration::ZERO);
    assert_eq!(h.drain().remove(0)["method"], "tasks/get");
}

#[test]
fn a_pushed_terminal_status_fetches_the_outcome_at_once() {
    let mut h = legacy(config());
    let id = legacy_started(&mut h, RequestOptions::default());
    h.advance(Duration::from_millis(500));
    assert!(h.drain().is_empty(), "the first poll is 2 s away");
    h.feed(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                  "params": legacy_task("completed")}),
    );
    h.advance(Duration::ZERO);
    let g = h.drain().remove(0);
    assert_eq!(g["method"], "tasks/get", "polled at once, not at 2 s");
    h.reply(&g, legacy_task("completed"));
    let res = h.drain().remove(0);
    assert_eq!(res["method"], "tasks/result");
    h.reply(&res, json!({"content": []}));
    assert!(
        matches!(h.take_events().last(), Some(Event::Response(c)) if c.id == id),
        "the call completes"
    );
    // A non-terminal push leaves the schedule alone.
    let mut h = legacy(config());
    legacy_started(&mut h, RequestOptions::default());
    h.feed(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                  "params": legacy_task("working")}),
    );
    assert_eq!(
        h.conn.poll_timeout().unwrap().0,
        h.now + Duration::from_secs(2)
    );
}

#[test]
fn pushes_after_a_terminal_poll_are_not_reported() {
    let mut h = legacy(config());
    legacy_started(&mut h, RequestOptions::default());
    h.advance(Duration::from_secs(2));
    let g = h.drain().remove(0);
    h.reply(&g, legacy_task("completed"));
    let res = h.drain().remove(0);
    assert_eq!(res["method"], "tasks/result");
    h.take_events();
    // A stale push while tasks/result is in flight changes nothing.
    h.feed(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                  "params": legacy_task("working")}),
    );
    assert!(statuses(&h.take_events()).is_empty());
    h.reply(&res, json!({"content": []}));
    assert!(matches!(h.take_events().last(), Some(Event::Response(_))));
}

#[test]
fn wait_ends_are_decided_on_states() {
    let until_input = TaskWait::until(TaskStates::terminal().with(TaskStatus::InputRequired));
    let t = |st| TaskSnapshot::new("t", st);
    assert_eq!(until_input.end_for(&t(TaskStatus::Working)), None);
    assert!(matches!(
        until_input.end_for(&t(TaskStatus::InputRequired)),
        Some(TaskWaitEnd::Reached(s)) if s.status == TaskStatus::InputRequired
    ));
    let only_completed = TaskWait::until([TaskStatus::Completed].into_iter().collect());
    assert!(matches!(
        only_completed.end_for(&t(TaskStatus::Cancelled)),
        Some(TaskWaitEnd::EndedElsewhere(s)) if s.status == TaskStatus::Cancelled
    ));
    assert_eq!(TaskWait::outcome().end_for(&t(TaskStatus::Failed)), None);
    assert!(TaskStates::terminal().covers_terminal());
    assert!(!only_completed.until.covers_terminal());
    assert!(!TaskStates::terminal().contains(&TaskStatus::Unknown("x".into())));
}

#[test]
fn related_task_ids_are_read_from_meta_and_error_data() {
    let key = "io.modelcontextprotocol/related-task";
    assert_eq!(
        related_task_id(&json!({"_meta": {key: {"taskId": "a"}}})),
        Some("a")
    );
    assert_eq!(related_task_id(&json!({key: {"taskId": "b"}})), Some("b"));
    assert_eq!(related_task_id(&json!({key: {"taskId": 5}})), None);
    assert_eq!(related_task_id(&json!({key: {"taskId": ""}})), None);
    let long = "x".repeat(5000);
    assert_eq!(related_task_id(&json!({key: {"taskId": long}})), None);
}

#[test]
fn legacy_input_required_stops_polling_for_tasks_result() {
    let mut h = legacy(config());
    let id = legacy_started(&mut h, RequestOptions::default());
    h.advance(Duration::from_secs(2));
    let g = h.drain().remove(0);
    h.reply(&g, legacy_task("input_required"));
    let res = h.drain().remove(0);
    assert_eq!(
        res["method"], "tasks/result",
        "input_required fetches the result"
    );
    // No poll is sent while tasks/result is open.
    h.advance(Duration::from_secs(5));
    assert!(h.drain().iter().all(|m| m["method"] != "tasks/get"));
    // So a poll cap the task has used up does not end a wait: the client
    // is not polling, it waits on tasks/result.
    h.take_events();
    let capped = TaskWait::outcome().with_max_polls(1);
    h.conn.wait_task(h.now, &id, capped).expect("a task call");
    assert!(
        !h.take_events()
            .iter()
            .any(|e| matches!(e, Event::TaskWaitOver { .. }))
    );
}

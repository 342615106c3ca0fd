//! Tasks of both generations, driven by poll timers on a virtual clock.

mod common;

use std::time::Duration;

use common::*;
use mcp_core::tasks::{POLL_FLOOR, PollDecision, PollOptions, TaskSnapshot, TaskStatus, decide};
use mcp_core::{ClientFeatures, Event, RequestError, RequestOptions, Timer, UsageError};
use proptest::prelude::*;
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
            .any(|e| matches!(e, Event::TaskInputRequested { request, .. } if request.key == "q"))
    );
    // Not spun on: the next poll waits the interval.
    assert!(h.drain().is_empty());
    let mut answers = serde_json::Map::new();
    answers.insert("q".into(), json!({"action": "accept", "content": {}}));
    h.conn.answer_task_input(h.now, &id, answers).unwrap();
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
    assert!(c.result.get().contains("done"));
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

#[test]
fn decide_examples() {
    let now = origin();
    let t = TaskSnapshot::new("t", TaskStatus::Working).with_poll_interval(Duration::from_secs(2));
    assert_eq!(
        decide(&t, now, &PollOptions::default()),
        PollDecision::PollAt(now + Duration::from_secs(2))
    );
    assert_eq!(
        decide(
            &TaskSnapshot::new("t", TaskStatus::Working),
            now,
            &PollOptions::default()
        ),
        PollDecision::PollAt(now + Duration::from_secs(1))
    );
    assert_eq!(
        decide(
            &TaskSnapshot::new("t", TaskStatus::InputRequired),
            now,
            &PollOptions::default()
        ),
        PollDecision::InputRequired
    );
    assert_eq!(
        decide(
            &TaskSnapshot::new("t", TaskStatus::Cancelled),
            now,
            &PollOptions::default()
        ),
        PollDecision::Terminal
    );
    assert_eq!(
        decide(&t, now, &PollOptions::default().with_deadline(now)),
        PollDecision::BudgetExhausted
    );
}

fn status() -> impl Strategy<Value = TaskStatus> {
    prop_oneof![
        Just(TaskStatus::Working),
        Just(TaskStatus::InputRequired),
        Just(TaskStatus::Completed),
        Just(TaskStatus::Failed),
        Just(TaskStatus::Cancelled),
        Just(TaskStatus::Unknown("later".into())),
    ]
}

proptest! {
    #[test]
    fn poll_decisions_obey_floor_priority_and_budget(
        st in status(),
        server in proptest::option::of(0u64..10_000),
        caller in proptest::option::of(0u64..10_000),
        budget in proptest::option::of(0u64..20_000),
    ) {
        let now = origin();
        let mut t = TaskSnapshot::new("t", st.clone());
        if let Some(s) = server { t = t.with_poll_interval(Duration::from_millis(s)); }
        let mut o = PollOptions::default();
        if let Some(c) = caller { o = o.with_interval(Duration::from_millis(c)); }
        if let Some(b) = budget { o = o.with_deadline(now + Duration::from_millis(b)); }
        let d = decide(&t, now, &o);
        if st.is_terminal() {
            prop_assert_eq!(d, PollDecision::Terminal);
        } else if st == TaskStatus::InputRequired {
            prop_assert_eq!(d, PollDecision::InputRequired);
        } else if budget == Some(0) {
            prop_assert_eq!(d, PollDecision::BudgetExhausted);
        } else {
            let PollDecision::PollAt(at) = d else { return Err(TestCaseError::fail("expected PollAt")); };
            let want = Duration::from_millis(caller.or(server).unwrap_or(1000)).max(POLL_FLOOR);
            let want = budget.map_or(want, |b| want.min(Duration::from_millis(b)));
            prop_assert_eq!(at, now + want);
            prop_assert!(at > now);
        }
    }
}

//! Callback tasks the client serves (2025-11-25), on a virtual clock: the
//! `CreateTaskResult`, `tasks/get` / `list` / `result` / `cancel`, the
//! status notification, TTL expiry, the live cap, lost sessions.

mod common;

use std::time::{Duration, SystemTime};

use common::*;
use mcp_core::ServedTaskOptions;
use mcp_core::{ClientFeatures, Config, Event, TransportKind};
use mcp_types::incoming::ServerRequest;
use serde_json::{Value, json};

/// 2025-11-25T00:00:00.000Z
const ANCHOR_MS: u64 = 1_764_028_800_000;

fn serving(options: ServedTaskOptions) -> Harness {
    let features = ClientFeatures::default()
        .with_sampling(false)
        .with_elicitation(true, false)
        .with_task_requests(true, false);
    let config = config()
        .with_transport(TransportKind::Http)
        .with_server_stream(false)
        .with_features(features)
        .with_served_tasks(options);
    served_with(config)
}

fn served_with(config: Config) -> Harness {
    let mut h = legacy(config);
    let wall = SystemTime::UNIX_EPOCH + Duration::from_millis(ANCHOR_MS);
    h.conn.set_wall_clock(h.now, wall);
    h
}

fn request(h: &mut Harness, id: u64, method: &str, params: Value) -> Vec<Value> {
    h.feed(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    h.drain()
}

fn sample(h: &mut Harness, id: u64, ttl: Option<u64>) -> Value {
    let task = ttl.map_or_else(|| json!({}), |t| json!({ "ttl": t }));
    let params = json!({"messages": [], "maxTokens": 5, "task": task});
    let sent = request(h, id, "sampling/createMessage", params);
    assert_eq!(sent.len(), 1, "{sent:?}");
    sent[0].clone()
}

/// The task id of a `CreateTaskResult` response.
fn task_id_of(created: &Value) -> String {
    created["result"]["task"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

fn started(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ServedTaskStarted { task_id, .. } => Some(task_id.clone()),
            _ => None,
        })
        .collect()
}

fn stopped(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ServedTaskStopped { task_id } => Some(task_id.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_task_augmented_request_becomes_a_task_served_to_its_end() {
    let mut h = serving(ServedTaskOptions::new());
    let created = sample(&mut h, 1, Some(60_000));
    let task = &created["result"]["task"];
    let task_id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60_000);
    assert_eq!(task["pollInterval"], 500);
    assert_eq!(task["createdAt"], "2025-11-25T00:00:00.000Z");
    let events = h.take_events();
    assert_eq!(started(&events), vec![task_id.clone()]);
    assert!(matches!(
        &events[0],
        Event::ServedTaskStarted { request: ServerRequest::CreateMessage(p), .. }
            if p.raw().is_some_and(|p| p.get().contains("maxTokens"))
    ));

    let got = request(&mut h, 2, "tasks/get", json!({"taskId": task_id}));
    assert_eq!(got[0]["result"]["status"], "working");
    assert!(
        request(&mut h, 3, "tasks/result", json!({"taskId": task_id})).is_empty(),
        "held until the task ends"
    );

    h.advance(Duration::from_millis(1500));
    let answer =
        json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"});
    assert!(h.conn.finish_served_task(h.now, &task_id, Ok(answer)));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/tasks/status");
    assert_eq!(sent[0]["params"]["status"], "completed");
    assert_eq!(
        sent[0]["params"]["lastUpdatedAt"],
        "2025-11-25T00:00:01.500Z"
    );
    assert_eq!(sent[1]["id"], 3, "the held tasks/result is answered");
    assert_eq!(sent[1]["result"]["model"], "m");
    assert_eq!(
        sent[1]["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        json!(task_id)
    );
    let again = request(&mut h, 4, "tasks/result", json!({"taskId": task_id}));
    assert_eq!(again[0]["result"]["model"], "m", "kept until the TTL");
    assert!(
        !h.conn.finish_served_task(h.now, &task_id, Ok(json!({}))),
        "terminal states never change"
    );
    assert!(h.take_events().is_empty(), "tasks/* never reach the driver");
}

#[test]
fn a_failed_handler_fails_the_task_and_its_result() {
    let mut h = serving(ServedTaskOptions::new());
    let created = sample(&mut h, 1, None);
    let task_id = task_id_of(&created);
    let error =
        mcp_types::jsonrpc::ErrorObject::new(mcp_types::ErrorCode::INTERNAL_ERROR, "no model");
    h.conn.finish_served_task(h.now, &task_id, Err(error));
    let sent = h.drain();
    assert_eq!(sent[0]["params"]["status"], "failed");
    let r = request(&mut h, 2, "tasks/result", json!({"taskId": task_id}));
    assert_eq!(r[0]["error"]["message"], "no model");
}

#[test]
fn cancel_ends_a_working_task_stops_its_handler_and_answers_waiters() {
    let mut h = serving(ServedTaskOptions::new());
    let created = sample(&mut h, 1, None);
    let task_id = task_id_of(&created);
    h.take_events();
    assert!(request(&mut h, 2, "tasks/result", json!({"taskId": task_id})).is_empty());
    let sent = request(&mut h, 3, "tasks/cancel", json!({"taskId": task_id}));
    let by_id = |id: u64| sent.iter().find(|m| m["id"] == id).cloned().unwrap();
    assert_eq!(by_id(3)["result"]["status"], "cancelled");
    assert!(
        by_id(2)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cancelled")
    );
    assert!(
        sent.iter()
            .any(|m| m["method"] == "notifications/tasks/status")
    );
    assert_eq!(stopped(&h.take_events()), vec![task_id.clone()]);
    assert!(!h.conn.finish_served_task(h.now, &task_id, Ok(json!({}))));
    let again = request(&mut h, 4, "tasks/cancel", json!({"taskId": task_id}));
    assert_eq!(again[0]["error"]["code"], -32602, "already terminal");
    let bad = request(&mut h, 5, "tasks/get", json!({}));
    assert_eq!(bad[0]["error"]["code"], -32602, "no taskId");
    let unknown = request(&mut h, 6, "tasks/get", json!({"taskId": "ct9-nope"}));
    assert_eq!(unknown[0]["error"]["code"], -32602);
}

#[test]
fn the_ttl_is_capped_and_an_expired_task_is_forgotten() {
    let options = ServedTaskOptions::new().with_max_ttl(Duration::from_secs(10));
    let mut h = serving(options);
    let created = sample(&mut h, 1, Some(60_000));
    assert_eq!(created["result"]["task"]["ttl"], 10_000, "capped");
    let task_id = task_id_of(&created);
    h.take_events();
    assert!(request(&mut h, 2, "tasks/result", json!({"taskId": task_id})).is_empty());
    h.advance(Duration::from_millis(9_999));
    assert!(h.drain().is_empty());
    h.advance(Duration::from_millis(1));
    let sent = h.drain();
    assert_eq!(sent[0]["id"], 2, "the held waiter learns the task is gone");
    assert_eq!(sent[0]["error"]["code"], -32602);
    assert_eq!(
        stopped(&h.take_events()),
        vec![task_id.clone()],
        "its handler stops"
    );
    let got = request(&mut h, 3, "tasks/get", json!({"taskId": task_id}));
    assert_eq!(got[0]["error"]["code"], -32602);
}

#[test]
fn the_live_task_cap_refuses_and_expiry_frees_a_slot() {
    let mut h = serving(ServedTaskOptions::new().with_max_tasks(2));
    let a = sample(&mut h, 1, Some(1_000));
    let b = sample(&mut h, 2, Some(5_000));
    let refused = sample(&mut h, 3, None);
    assert_eq!(refused["error"]["code"], -32603);
    assert_eq!(started(&h.take_events()).len(), 2);
    let ids: Vec<&str> = [&a, &b]
        .iter()
        .map(|c| c["result"]["task"]["taskId"].as_str().unwrap())
        .collect();
    assert_ne!(ids[0], ids[1]);
    assert!(ids[0].starts_with("ct1-") && ids[1].starts_with("ct2-"));
    assert_eq!(ids[0].len(), "ct1-".len() + 32);
    assert_ne!(ids[0][4..], ids[1][4..]);
    h.advance(Duration::from_secs(1));
    let again = sample(&mut h, 4, None);
    assert!(again["result"]["task"]["taskId"].is_string(), "{again}");
}

#[test]
fn tasks_list_pages_in_creation_order() {
    let mut h = serving(ServedTaskOptions::new().with_max_tasks(200));
    let ids: Vec<String> = (0..120)
        .map(|i| {
            let c = sample(&mut h, i, None);
            task_id_of(&c)
        })
        .collect();
    let first = request(&mut h, 1000, "tasks/list", json!({}));
    let page = &first[0]["result"];
    assert_eq!(page["tasks"].as_array().unwrap().len(), 50);
    assert_eq!(page["tasks"][0]["taskId"], json!(ids[0]));
    let second = request(
        &mut h,
        1001,
        "tasks/list",
        json!({"cursor": page["nextCursor"]}),
    );
    assert_eq!(second[0]["result"]["tasks"][0]["taskId"], json!(ids[50]));
    let cursor = second[0]["result"]["nextCursor"].clone();
    let third = request(&mut h, 1002, "tasks/list", json!({ "cursor": cursor }));
    assert_eq!(third[0]["result"]["tasks"].as_array().unwrap().len(), 20);
    assert!(third[0]["result"].get("nextCursor").is_none());
    for bad in [json!({"cursor": "nope"}), json!({"cursor": "9999"})] {
        let r = request(&mut h, 1003, "tasks/list", bad);
        assert_eq!(r[0]["error"]["code"], -32602);
    }
}

#[test]
fn undeclared_or_unserved_task_requests_reach_the_driver() {
    // Elicitation is not declared as a task type: `params.task` is ignored.
    let mut h = serving(ServedTaskOptions::new());
    let params = json!({"message": "ok?", "requestedSchema": {"type": "object"}, "task": {}});
    assert!(request(&mut h, 1, "elicitation/create", params.clone()).is_empty());
    assert!(matches!(
        &h.take_events()[..],
        [Event::ServerRequest {
            request: ServerRequest::Elicit(_),
            ..
        }]
    ));
    // Without served-task limits in the config the core serves no tasks.
    let features = ClientFeatures::default()
        .with_sampling(false)
        .with_task_requests(true, false);
    let mut plain = served_with(config().with_features(features));
    let sampled = json!({"messages": [], "maxTokens": 5, "task": {}});
    assert!(request(&mut plain, 1, "sampling/createMessage", sampled).is_empty());
    assert!(request(&mut plain, 2, "tasks/get", json!({"taskId": "x"})).is_empty());
    let events = plain.take_events();
    assert_eq!(events.len(), 2);
    assert!(
        events
            .iter()
            .all(|e| matches!(e, Event::ServerRequest { .. }))
    );
}

#[test]
fn a_lost_session_stops_every_running_task() {
    let mut h = serving(ServedTaskOptions::new());
    let a = sample(&mut h, 1, None);
    let b = sample(&mut h, 2, None);
    let a = task_id_of(&a);
    let b = task_id_of(&b);
    h.conn.finish_served_task(h.now, &b, Ok(json!({})));
    h.take_events();
    h.conn.handle_session_expired(h.now, None, false);
    assert_eq!(
        stopped(&h.take_events()),
        vec![a.clone()],
        "only the running one"
    );
    let init = h.sent.last().unwrap().clone();
    h.reply(&init, initialize_result("2025-11-25"));
    h.drain();
    let got = request(&mut h, 3, "tasks/get", json!({"taskId": a}));
    assert_eq!(
        got[0]["error"]["code"], -32602,
        "the new session knows no task"
    );
}

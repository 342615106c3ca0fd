//! The tasks extension (`io.modelcontextprotocol/tasks`) on 2026-07-28:
//! fixtures for every message it defines parse, round-trip and validate
//! against the extension's own schema.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{Outcome, SchemaSet, check_dir, notif, req, rt, tests_dir};
use mcp_types::methods::ext_tasks as m;
use mcp_types::results::{EmptyResult, ResultOutcome, decode_result};
use mcp_types::tasks::TaskStatus;
use mcp_types::tasks::ext::{CreateTaskResult, DetailedTask, TaskDetail};
use mcp_types::tools::CallToolResult;
use serde_json::Value;

fn roundtrip(ty: &str, v: &Value) -> Option<Outcome> {
    Some(match ty {
        "CreateTaskResult" => rt::<CreateTaskResult>(v),
        "GetTaskRequest" => req::<m::GetTask>(v),
        "GetTaskResult" => rt::<DetailedTask>(v),
        "UpdateTaskRequest" => req::<m::UpdateTask>(v),
        "UpdateTaskResult" | "CancelTaskResult" => rt::<EmptyResult>(v),
        "CancelTaskRequest" => req::<m::CancelTask>(v),
        "TaskStatusNotification" => notif::<m::TaskStatus>(v),
        _ => return None,
    })
}

#[test]
fn every_ext_tasks_fixture_round_trips_and_validates() {
    let mut schema = SchemaSet::load("ext-tasks.json");
    let dir = tests_dir().join("fixtures/ext-tasks");
    let (count, failures) = check_dir(&dir, &mut schema, &roundtrip, &|_, v| v.clone());
    assert!(count >= 10, "only {count} fixtures");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_ext_tasks_message_is_covered() {
    for ty in [
        "CreateTaskResult",
        "GetTaskRequest",
        "GetTaskResult",
        "UpdateTaskRequest",
        "UpdateTaskResult",
        "CancelTaskRequest",
        "CancelTaskResult",
        "TaskStatusNotification",
    ] {
        assert!(
            tests_dir().join("fixtures/ext-tasks").join(ty).is_dir(),
            "{ty}"
        );
    }
}

#[test]
fn a_task_result_of_tools_call_dispatches_on_result_type() {
    let raw = serde_json::value::RawValue::from_string(
        std::fs::read_to_string(
            tests_dir().join("fixtures/ext-tasks/CreateTaskResult/working.json"),
        )
        .unwrap(),
    )
    .unwrap();
    match decode_result::<CallToolResult>(&raw.into()).unwrap() {
        ResultOutcome::Task(t) => {
            assert_eq!(t.status, TaskStatus::Working);
            assert_eq!(t.ttl_ms, Some(3_600_000));
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

#[test]
fn detailed_task_statuses_carry_their_members() {
    let load = |f: &str| -> DetailedTask {
        serde_json::from_value(common::load(
            &tests_dir().join("fixtures/ext-tasks/GetTaskResult").join(f),
        ))
        .unwrap()
    };
    assert!(
        matches!(load("input-required.json").detail, TaskDetail::InputRequired(r) if r.contains_key("confirm"))
    );
    match load("completed.json").detail {
        // The extension maps a tool's isError:true to `completed`.
        TaskDetail::Completed(result) => {
            let r: CallToolResult = serde_json::from_value(Value::Object(result)).unwrap();
            assert!(r.is_error());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(load("failed.json").detail, TaskDetail::Failed(e) if e.code.get() == -32603));
    // A status that promises a member must carry it.
    let bad = serde_json::json!({"taskId": "t", "status": "completed", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null});
    assert!(serde_json::from_value::<DetailedTask>(bad).is_err());
}

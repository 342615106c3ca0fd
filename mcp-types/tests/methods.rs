//! The method markers and method lists agree with the schemas' unions.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::collections::BTreeSet;

use mcp_types::methods::{ext_tasks, v2025_11_25 as v25, v2026_07_28 as v26};
use mcp_types::{NotificationMethod, RequestMethod};
use serde_json::Value;

/// The `method` consts of the members of `$defs/<union>`.
fn union_methods(file: &str, union: &str) -> BTreeSet<String> {
    let schema = common::load(&common::tests_dir().join("schema").join(file));
    let defs = &schema["$defs"];
    let members = defs[union]["anyOf"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| vec![defs[union].clone()]);
    members
        .iter()
        .map(|m| {
            let def = match m.get("$ref").and_then(Value::as_str) {
                Some(r) => &defs[r.rsplit('/').next().unwrap()],
                None => m,
            };
            def["properties"]["method"]["const"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn set(methods: &[&str]) -> BTreeSet<String> {
    methods.iter().map(|m| (*m).to_owned()).collect()
}

fn r<M: RequestMethod>() -> &'static str {
    M::METHOD
}

fn n<M: NotificationMethod>() -> &'static str {
    M::METHOD
}

#[test]
fn v2025_lists_and_markers_match_the_schema() {
    let file = "2025-11-25.json";
    assert_eq!(
        set(v25::CLIENT_REQUESTS),
        union_methods(file, "ClientRequest")
    );
    assert_eq!(
        set(v25::SERVER_REQUESTS),
        union_methods(file, "ServerRequest")
    );
    let requests = set(&[
        r::<v25::Initialize>(),
        r::<v25::Ping>(),
        r::<v25::ListResources>(),
        r::<v25::ListResourceTemplates>(),
        r::<v25::ReadResource>(),
        r::<v25::Subscribe>(),
        r::<v25::Unsubscribe>(),
        r::<v25::ListPrompts>(),
        r::<v25::GetPrompt>(),
        r::<v25::ListTools>(),
        r::<v25::CallTool>(),
        r::<v25::CallToolAsTask>(),
        r::<v25::Complete>(),
        r::<v25::SetLevel>(),
        r::<v25::GetTask>(),
        r::<v25::GetTaskPayload>(),
        r::<v25::ListTasks>(),
        r::<v25::CancelTask>(),
        r::<v25::CreateMessage>(),
        r::<v25::ListRoots>(),
        r::<v25::Elicit>(),
    ]);
    let all: BTreeSet<String> = union_methods(file, "ClientRequest")
        .union(&union_methods(file, "ServerRequest"))
        .cloned()
        .collect();
    assert_eq!(requests, all);
    let notifications = set(&[
        n::<v25::Initialized>(),
        n::<v25::Cancelled>(),
        n::<v25::Progress>(),
        n::<v25::RootsListChanged>(),
        n::<v25::TaskStatus>(),
        n::<v25::LoggingMessage>(),
        n::<v25::ResourceListChanged>(),
        n::<v25::ResourceUpdated>(),
        n::<v25::PromptListChanged>(),
        n::<v25::ToolListChanged>(),
        n::<v25::ElicitationComplete>(),
    ]);
    let all: BTreeSet<String> = union_methods(file, "ClientNotification")
        .union(&union_methods(file, "ServerNotification"))
        .cloned()
        .collect();
    assert_eq!(notifications, all);
}

#[test]
fn v2026_lists_and_markers_match_the_schema() {
    let file = "2026-07-28.json";
    assert_eq!(
        set(v26::CLIENT_REQUESTS),
        union_methods(file, "ClientRequest")
    );
    assert_eq!(
        set(v26::INPUT_REQUESTS),
        union_methods(file, "InputRequest")
    );
    let requests = set(&[
        r::<v26::Discover>(),
        r::<v26::ListResources>(),
        r::<v26::ListResourceTemplates>(),
        r::<v26::ReadResource>(),
        r::<v26::SubscriptionsListen>(),
        r::<v26::ListPrompts>(),
        r::<v26::GetPrompt>(),
        r::<v26::ListTools>(),
        r::<v26::CallTool>(),
        r::<v26::Complete>(),
        r::<v26::CreateMessage>(),
        r::<v26::ListRoots>(),
        r::<v26::Elicit>(),
    ]);
    let all: BTreeSet<String> = union_methods(file, "ClientRequest")
        .union(&union_methods(file, "InputRequest"))
        .cloned()
        .collect();
    assert_eq!(requests, all);
    let notifications = set(&[
        n::<v26::Cancelled>(),
        n::<v26::Progress>(),
        n::<v26::LoggingMessage>(),
        n::<v26::SubscriptionsAcknowledged>(),
        n::<v26::ResourceListChanged>(),
        n::<v26::ResourceUpdated>(),
        n::<v26::PromptListChanged>(),
        n::<v26::ToolListChanged>(),
    ]);
    let all: BTreeSet<String> = union_methods(file, "ClientNotification")
        .union(&union_methods(file, "ServerNotification"))
        .cloned()
        .collect();
    assert_eq!(notifications, all);
}

#[test]
fn ext_tasks_markers_match_the_schema() {
    let schema = common::load(&common::tests_dir().join("schema/ext-tasks.json"));
    let method_of = |def: &str| -> String {
        schema["$defs"][def]["allOf"][1]["properties"]["method"]["const"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(r::<ext_tasks::GetTask>(), method_of("GetTaskRequest"));
    assert_eq!(r::<ext_tasks::UpdateTask>(), method_of("UpdateTaskRequest"));
    assert_eq!(r::<ext_tasks::CancelTask>(), method_of("CancelTaskRequest"));
    assert_eq!(
        n::<ext_tasks::TaskStatus>(),
        method_of("TaskStatusNotification")
    );
}

//! 2025-11-25 ships no examples, so these fixtures (one folder per `$defs`
//! type) cover every request, result and notification of the revision: each
//! parses as its type, serializes back to the same JSON, and the output
//! validates against the 2025-11-25 schema.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{Outcome, SchemaSet, check_dir, err_resp, notif, req, rt, tests_dir};
use mcp_types::completion::CompleteResult;
use mcp_types::elicitation::ElicitResult;
use mcp_types::lifecycle::InitializeResult;
use mcp_types::methods::v2025_11_25 as m;
use mcp_types::prompts::{GetPromptResult, ListPromptsResult};
use mcp_types::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use mcp_types::results::EmptyResult;
use mcp_types::roots::ListRootsResult;
use mcp_types::sampling::CreateMessageResult;
use mcp_types::tasks::legacy::{CreateTaskResult, GetTaskPayloadResult, ListTasksResult, Task};
use mcp_types::tools::{CallToolResult, ListToolsResult};
use serde_json::Value;

fn roundtrip(ty: &str, v: &Value) -> Option<Outcome> {
    Some(match ty {
        "InitializeRequest" => req::<m::Initialize>(v),
        "InitializeResult" => rt::<InitializeResult>(v),
        "InitializedNotification" => notif::<m::Initialized>(v),
        "PingRequest" => req::<m::Ping>(v),
        "EmptyResult" | "Result" => rt::<EmptyResult>(v),
        "ListResourcesRequest" => req::<m::ListResources>(v),
        "ListResourcesResult" => rt::<ListResourcesResult>(v),
        "ListResourceTemplatesRequest" => req::<m::ListResourceTemplates>(v),
        "ListResourceTemplatesResult" => rt::<ListResourceTemplatesResult>(v),
        "ReadResourceRequest" => req::<m::ReadResource>(v),
        "ReadResourceResult" => rt::<ReadResourceResult>(v),
        "SubscribeRequest" => req::<m::Subscribe>(v),
        "UnsubscribeRequest" => req::<m::Unsubscribe>(v),
        "ListPromptsRequest" => req::<m::ListPrompts>(v),
        "ListPromptsResult" => rt::<ListPromptsResult>(v),
        "GetPromptRequest" => req::<m::GetPrompt>(v),
        "GetPromptResult" => rt::<GetPromptResult>(v),
        "ListToolsRequest" => req::<m::ListTools>(v),
        "ListToolsResult" => rt::<ListToolsResult>(v),
        "CallToolRequest" => req::<m::CallTool>(v),
        "CallToolResult" => rt::<CallToolResult>(v),
        "CreateTaskResult" => rt::<CreateTaskResult>(v),
        "GetTaskRequest" => req::<m::GetTask>(v),
        "GetTaskResult" | "CancelTaskResult" => rt::<Task>(v),
        "GetTaskPayloadRequest" => req::<m::GetTaskPayload>(v),
        "GetTaskPayloadResult" => rt::<GetTaskPayloadResult>(v),
        "ListTasksRequest" => req::<m::ListTasks>(v),
        "ListTasksResult" => rt::<ListTasksResult>(v),
        "CancelTaskRequest" => req::<m::CancelTask>(v),
        "TaskStatusNotification" => notif::<m::TaskStatus>(v),
        "SetLevelRequest" => req::<m::SetLevel>(v),
        "CompleteRequest" => req::<m::Complete>(v),
        "CompleteResult" => rt::<CompleteResult>(v),
        "CreateMessageRequest" => req::<m::CreateMessage>(v),
        "CreateMessageResult" => rt::<CreateMessageResult>(v),
        "ListRootsRequest" => req::<m::ListRoots>(v),
        "ListRootsResult" => rt::<ListRootsResult>(v),
        "ElicitRequest" => req::<m::Elicit>(v),
        "ElicitResult" => rt::<ElicitResult>(v),
        "ElicitationCompleteNotification" => notif::<m::ElicitationComplete>(v),
        "URLElicitationRequiredError" => err_resp(v, true),
        "CancelledNotification" => notif::<m::Cancelled>(v),
        "ProgressNotification" => notif::<m::Progress>(v),
        "RootsListChangedNotification" => notif::<m::RootsListChanged>(v),
        "ResourceListChangedNotification" => notif::<m::ResourceListChanged>(v),
        "ResourceUpdatedNotification" => notif::<m::ResourceUpdated>(v),
        "PromptListChangedNotification" => notif::<m::PromptListChanged>(v),
        "ToolListChangedNotification" => notif::<m::ToolListChanged>(v),
        "LoggingMessageNotification" => notif::<m::LoggingMessage>(v),
        _ => return None,
    })
}

#[test]
fn every_2025_fixture_round_trips_and_validates() {
    let mut schema = SchemaSet::load("2025-11-25.json");
    let dir = tests_dir().join("fixtures/2025-11-25");
    let (count, failures) = check_dir(&dir, &mut schema, &roundtrip, &|_, v| v.clone());
    assert!(count >= 50, "only {count} fixtures");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every request, result and notification type of 2025-11-25 (the members
/// of the schema's unions) has a fixture.
#[test]
fn every_2025_message_type_is_covered() {
    let schema = SchemaSet::load("2025-11-25.json");
    let mut missing = Vec::new();
    for union in [
        "ClientRequest",
        "ServerRequest",
        "ClientNotification",
        "ServerNotification",
        "ClientResult",
        "ServerResult",
    ] {
        for ty in schema.union_members(union) {
            if !tests_dir().join("fixtures/2025-11-25").join(&ty).is_dir() {
                missing.push(format!("{union}: {ty}"));
            }
        }
    }
    assert!(missing.is_empty(), "uncovered types: {missing:?}");
}

//! Which schema definition applies: a request method's result per
//! revision (and the variant a result declares), and the message definition
//! whose `params` a server request or notification must satisfy.

use serde_json::Value;

use super::schema::Doc;

/// The result of a completed (non-task, non-input) request, 2025-11-25.
pub(super) fn legacy_complete(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            "EmptyResult"
        }
        "tools/list" => "ListToolsResult",
        "prompts/list" => "ListPromptsResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "tasks/list" => "ListTasksResult",
        "tools/call" => "CallToolResult",
        "prompts/get" => "GetPromptResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        "sampling/createMessage" => "CreateMessageResult",
        "elicitation/create" => "ElicitResult",
        "roots/list" => "ListRootsResult",
        _ => return None,
    })
}

/// The result of a completed request, 2026-07-28.
pub(super) fn modern_complete(method: &str) -> Option<&'static str> {
    Some(match method {
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "prompts/list" => "ListPromptsResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "tools/call" => "CallToolResult",
        "prompts/get" => "GetPromptResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        "sampling/createMessage" => "CreateMessageResult",
        "elicitation/create" => "ElicitResult",
        "roots/list" => "ListRootsResult",
        "ping" => "EmptyResult",
        _ => return None,
    })
}

/// The definition a result must satisfy. The variants a method may return
/// are told apart the way the spec tells them apart: `resultType` in
/// 2026-07-28 (`input_required`, `task`), a `task` member in 2025-11-25.
/// Methods the schema does not know are checked against `Result`.
pub(super) fn definition(
    doc: Doc,
    method: &str,
    call_method: &str,
    result: &Value,
) -> (Doc, &'static str) {
    if doc == Doc::Legacy {
        let is_task = result.get("task").is_some();
        let def = match method {
            "tasks/result" => legacy_complete(call_method).unwrap_or("GetTaskPayloadResult"),
            "tasks/get" => "GetTaskResult",
            "tasks/cancel" => "CancelTaskResult",
            "tools/call" | "sampling/createMessage" | "elicitation/create" if is_task => {
                "CreateTaskResult"
            }
            m => legacy_complete(m).unwrap_or("Result"),
        };
        return (Doc::Legacy, def);
    }
    let result_type = result.get("resultType").and_then(Value::as_str);
    match (method, result_type) {
        ("tasks/get", _) => (Doc::Tasks, "GetTaskResult"),
        ("tasks/update", _) => (Doc::Tasks, "UpdateTaskResult"),
        ("tasks/cancel", _) => (Doc::Tasks, "CancelTaskResult"),
        ("tools/call" | "prompts/get" | "resources/read", Some("input_required")) => {
            (Doc::Modern, "InputRequiredResult")
        }
        ("tools/call", Some("task")) => (Doc::Tasks, "CreateTaskResult"),
        (m, _) => (Doc::Modern, modern_complete(m).unwrap_or("Result")),
    }
}

/// The message definitions whose `params` server requests and
/// notifications are checked against, per document.
pub(super) fn messages(doc: Doc) -> &'static [(&'static str, &'static str)] {
    match doc {
        Doc::Legacy => &[
            ("notifications/cancelled", "CancelledNotification"),
            ("notifications/progress", "ProgressNotification"),
            ("notifications/message", "LoggingMessageNotification"),
            (
                "notifications/resources/updated",
                "ResourceUpdatedNotification",
            ),
            (
                "notifications/resources/list_changed",
                "ResourceListChangedNotification",
            ),
            (
                "notifications/tools/list_changed",
                "ToolListChangedNotification",
            ),
            (
                "notifications/prompts/list_changed",
                "PromptListChangedNotification",
            ),
            ("notifications/tasks/status", "TaskStatusNotification"),
            (
                "notifications/elicitation/complete",
                "ElicitationCompleteNotification",
            ),
            ("ping", "PingRequest"),
            ("sampling/createMessage", "CreateMessageRequest"),
            ("elicitation/create", "ElicitRequest"),
            ("roots/list", "ListRootsRequest"),
            ("tasks/get", "GetTaskRequest"),
            ("tasks/result", "GetTaskPayloadRequest"),
            ("tasks/list", "ListTasksRequest"),
            ("tasks/cancel", "CancelTaskRequest"),
        ],
        Doc::Modern => &[
            ("notifications/cancelled", "CancelledNotification"),
            ("notifications/progress", "ProgressNotification"),
            ("notifications/message", "LoggingMessageNotification"),
            (
                "notifications/resources/updated",
                "ResourceUpdatedNotification",
            ),
            (
                "notifications/resources/list_changed",
                "ResourceListChangedNotification",
            ),
            (
                "notifications/tools/list_changed",
                "ToolListChangedNotification",
            ),
            (
                "notifications/prompts/list_changed",
                "PromptListChangedNotification",
            ),
            (
                "notifications/subscriptions/acknowledged",
                "SubscriptionsAcknowledgedNotification",
            ),
        ],
        Doc::Tasks => &[],
    }
}

/// The message definition for a server request or notification, if the
/// revision's schema has one.
pub(super) fn message_definition(doc: Doc, method: &str) -> Option<&'static str> {
    messages(doc)
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, def)| *def)
}

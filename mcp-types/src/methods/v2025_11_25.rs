//! Every method of 2025-11-25 (legacy era).

use crate::common::{NotificationParams, PaginatedRequestParams, RequestParams};
use crate::completion::{CompleteRequestParams, CompleteResult};
use crate::elicitation::{
    ElicitResult, ElicitationCompleteNotificationParams, LegacyElicitRequestParams,
};
use crate::lifecycle::{InitializeRequestParams, InitializeResult};
use crate::logging::{LoggingMessageNotificationParams, SetLevelRequestParams};
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceRequestParams, ResourceUpdatedNotificationParams,
};
use crate::results::EmptyResult;
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::tasks::TaskIdParams;
use crate::tasks::legacy::{
    CreateTaskResult, GetTaskPayloadResult, ListTasksResult, Task, TaskAugmented,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};

request!(
    /// `initialize`: the first request of a session.
    Initialize = "initialize", InitializeRequestParams => InitializeResult
);
request!(
    /// `ping`, in either direction.
    Ping = "ping", RequestParams => EmptyResult
);
request!(
    /// `resources/list`.
    ListResources = "resources/list", PaginatedRequestParams => ListResourcesResult
);
request!(
    /// `resources/templates/list`.
    ListResourceTemplates = "resources/templates/list", PaginatedRequestParams => ListResourceTemplatesResult
);
request!(
    /// `resources/read`.
    ReadResource = "resources/read", ReadResourceRequestParams => ReadResourceResult
);
request!(
    /// `resources/subscribe`.
    Subscribe = "resources/subscribe", ResourceRequestParams => EmptyResult
);
request!(
    /// `resources/unsubscribe`.
    Unsubscribe = "resources/unsubscribe", ResourceRequestParams => EmptyResult
);
request!(
    /// `prompts/list`.
    ListPrompts = "prompts/list", PaginatedRequestParams => ListPromptsResult
);
request!(
    /// `prompts/get`.
    GetPrompt = "prompts/get", GetPromptRequestParams => GetPromptResult
);
request!(
    /// `tools/list`.
    ListTools = "tools/list", PaginatedRequestParams => ListToolsResult
);
request!(
    /// `tools/call` answered directly (no `task` in the params).
    CallTool = "tools/call", TaskAugmented<CallToolRequestParams> => CallToolResult
);
request!(
    /// `tools/call` with `params.task`: answered with a [`CreateTaskResult`].
    CallToolAsTask = "tools/call", TaskAugmented<CallToolRequestParams> => CreateTaskResult
);
request!(
    /// `completion/complete`.
    Complete = "completion/complete", CompleteRequestParams => CompleteResult
);
request!(
    /// `logging/setLevel`.
    SetLevel = "logging/setLevel", SetLevelRequestParams => EmptyResult
);
request!(
    /// `tasks/get`.
    GetTask = "tasks/get", TaskIdParams => Task
);
request!(
    /// `tasks/result`: blocks until the task is terminal; the result is the
    /// underlying request's result, decoded later with its own type.
    GetTaskPayload = "tasks/result", TaskIdParams => GetTaskPayloadResult
);
request!(
    /// `tasks/list`.
    ListTasks = "tasks/list", PaginatedRequestParams => ListTasksResult
);
request!(
    /// `tasks/cancel`: answered with the task.
    CancelTask = "tasks/cancel", TaskIdParams => Task
);
request!(
    /// `sampling/createMessage` (server to client).
    CreateMessage = "sampling/createMessage", TaskAugmented<CreateMessageRequestParams> => CreateMessageResult
);
request!(
    /// `roots/list` (server to client).
    ListRoots = "roots/list", RequestParams => ListRootsResult
);
request!(
    /// `elicitation/create` (server to client), with legacy URL-mode params.
    Elicit = "elicitation/create", TaskAugmented<LegacyElicitRequestParams> => ElicitResult
);

notification!(
    /// `notifications/initialized` (client to server).
    Initialized = "notifications/initialized", NotificationParams
);
notification!(
    /// `notifications/cancelled` (either direction).
    Cancelled = "notifications/cancelled", CancelledNotificationParams
);
notification!(
    /// `notifications/progress` (either direction).
    Progress = "notifications/progress", ProgressNotificationParams
);
notification!(
    /// `notifications/roots/list_changed` (client to server).
    RootsListChanged = "notifications/roots/list_changed", NotificationParams
);
notification!(
    /// `notifications/tasks/status` (either direction).
    TaskStatus = "notifications/tasks/status", Task
);
notification!(
    /// `notifications/message`.
    LoggingMessage = "notifications/message", LoggingMessageNotificationParams
);
notification!(
    /// `notifications/resources/list_changed`.
    ResourceListChanged = "notifications/resources/list_changed", NotificationParams
);
notification!(
    /// `notifications/resources/updated`.
    ResourceUpdated = "notifications/resources/updated", ResourceUpdatedNotificationParams
);
notification!(
    /// `notifications/prompts/list_changed`.
    PromptListChanged = "notifications/prompts/list_changed", NotificationParams
);
notification!(
    /// `notifications/tools/list_changed`.
    ToolListChanged = "notifications/tools/list_changed", NotificationParams
);
notification!(
    /// `notifications/elicitation/complete`: a URL elicitation finished.
    ElicitationComplete = "notifications/elicitation/complete", ElicitationCompleteNotificationParams
);

/// Requests a client sends.
pub const CLIENT_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "tools/list",
    "tools/call",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "logging/setLevel",
    "completion/complete",
];

/// Requests a server sends.
pub const SERVER_REQUESTS: &[&str] = &[
    "ping",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "sampling/createMessage",
    "roots/list",
    "elicitation/create",
];

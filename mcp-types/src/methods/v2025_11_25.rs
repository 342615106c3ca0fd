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
    Initialize = INITIALIZE, InitializeRequestParams => InitializeResult
);
request!(
    /// `ping`, in either direction.
    Ping = PING, RequestParams => EmptyResult
);
request!(
    /// `resources/list`.
    ListResources = RESOURCES_LIST, PaginatedRequestParams => ListResourcesResult
);
request!(
    /// `resources/templates/list`.
    ListResourceTemplates = RESOURCE_TEMPLATES_LIST, PaginatedRequestParams => ListResourceTemplatesResult
);
request!(
    /// `resources/read`.
    ReadResource = RESOURCES_READ, ReadResourceRequestParams => ReadResourceResult
);
request!(
    /// `resources/subscribe`.
    Subscribe = RESOURCES_SUBSCRIBE, ResourceRequestParams => EmptyResult
);
request!(
    /// `resources/unsubscribe`.
    Unsubscribe = RESOURCES_UNSUBSCRIBE, ResourceRequestParams => EmptyResult
);
request!(
    /// `prompts/list`.
    ListPrompts = PROMPTS_LIST, PaginatedRequestParams => ListPromptsResult
);
request!(
    /// `prompts/get`.
    GetPrompt = PROMPTS_GET, GetPromptRequestParams => GetPromptResult
);
request!(
    /// `tools/list`.
    ListTools = TOOLS_LIST, PaginatedRequestParams => ListToolsResult
);
request!(
    /// `tools/call` answered directly (no `task` in the params).
    CallTool = TOOLS_CALL, TaskAugmented<CallToolRequestParams> => CallToolResult
);
request!(
    /// `tools/call` with `params.task`: answered with a [`CreateTaskResult`].
    CallToolAsTask = TOOLS_CALL, TaskAugmented<CallToolRequestParams> => CreateTaskResult
);
request!(
    /// `completion/complete`.
    Complete = COMPLETE, CompleteRequestParams => CompleteResult
);
request!(
    /// `logging/setLevel`.
    SetLevel = SET_LEVEL, SetLevelRequestParams => EmptyResult
);
request!(
    /// `tasks/get`.
    GetTask = TASKS_GET, TaskIdParams => Task
);
request!(
    /// `tasks/result`: blocks until the task is terminal; the result is the
    /// underlying request's result, decoded later with its own type.
    GetTaskPayload = TASKS_RESULT, TaskIdParams => GetTaskPayloadResult
);
request!(
    /// `tasks/list`.
    ListTasks = TASKS_LIST, PaginatedRequestParams => ListTasksResult
);
request!(
    /// `tasks/cancel`: answered with the task.
    CancelTask = TASKS_CANCEL, TaskIdParams => Task
);
request!(
    /// `sampling/createMessage` (server to client).
    CreateMessage = CREATE_MESSAGE, TaskAugmented<CreateMessageRequestParams> => CreateMessageResult
);
request!(
    /// `roots/list` (server to client).
    ListRoots = ROOTS_LIST, RequestParams => ListRootsResult
);
request!(
    /// `elicitation/create` (server to client), with legacy URL-mode params.
    Elicit = ELICIT, TaskAugmented<LegacyElicitRequestParams> => ElicitResult
);

notification!(
    /// `notifications/initialized` (client to server).
    Initialized = INITIALIZED, NotificationParams
);
notification!(
    /// `notifications/cancelled` (either direction).
    Cancelled = CANCELLED, CancelledNotificationParams
);
notification!(
    /// `notifications/progress` (either direction).
    Progress = PROGRESS, ProgressNotificationParams
);
notification!(
    /// `notifications/roots/list_changed` (client to server).
    RootsListChanged = ROOTS_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/tasks/status` (either direction).
    TaskStatus = LEGACY_TASK_STATUS, Task
);
notification!(
    /// `notifications/message`.
    LoggingMessage = LOGGING_MESSAGE, LoggingMessageNotificationParams
);
notification!(
    /// `notifications/resources/list_changed`.
    ResourceListChanged = RESOURCE_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/resources/updated`.
    ResourceUpdated = RESOURCE_UPDATED, ResourceUpdatedNotificationParams
);
notification!(
    /// `notifications/prompts/list_changed`.
    PromptListChanged = PROMPT_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/tools/list_changed`.
    ToolListChanged = TOOL_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/elicitation/complete`: a URL elicitation finished.
    ElicitationComplete = ELICITATION_COMPLETE, ElicitationCompleteNotificationParams
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

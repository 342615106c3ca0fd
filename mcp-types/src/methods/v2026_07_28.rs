//! Every method of 2026-07-28 (modern era). Servers send no JSON-RPC
//! requests; [`CreateMessage`], [`ListRoots`] and [`Elicit`] describe the
//! input requests embedded in `input_required` results.

use crate::common::{NotificationParams, PaginatedRequestParams, RequestParams};
use crate::completion::{CompleteRequestParams, CompleteResult};
use crate::elicitation::{ElicitRequestParams, ElicitResult};
use crate::lifecycle::DiscoverResult;
use crate::logging::LoggingMessageNotificationParams;
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceUpdatedNotificationParams,
};
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::subscriptions::{
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};

request!(
    /// `server/discover`.
    Discover = DISCOVER, RequestParams => DiscoverResult
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
    /// `resources/read` (may answer `input_required`).
    ReadResource = RESOURCES_READ, ReadResourceRequestParams => ReadResourceResult
);
request!(
    /// `subscriptions/listen` (long-lived).
    SubscriptionsListen = SUBSCRIPTIONS_LISTEN, SubscriptionsListenRequestParams => SubscriptionsListenResult
);
request!(
    /// `prompts/list`.
    ListPrompts = PROMPTS_LIST, PaginatedRequestParams => ListPromptsResult
);
request!(
    /// `prompts/get` (may answer `input_required`).
    GetPrompt = PROMPTS_GET, GetPromptRequestParams => GetPromptResult
);
request!(
    /// `tools/list`.
    ListTools = TOOLS_LIST, PaginatedRequestParams => ListToolsResult
);
request!(
    /// `tools/call` (may answer `input_required`, or `task` with the extension).
    CallTool = TOOLS_CALL, CallToolRequestParams => CallToolResult
);
request!(
    /// `completion/complete`.
    Complete = COMPLETE, CompleteRequestParams => CompleteResult
);
request!(
    /// Embedded input request `sampling/createMessage`.
    CreateMessage = CREATE_MESSAGE, CreateMessageRequestParams => CreateMessageResult
);
request!(
    /// Embedded input request `roots/list`.
    ListRoots = ROOTS_LIST, RequestParams => ListRootsResult
);
request!(
    /// Embedded input request `elicitation/create`.
    Elicit = ELICIT, ElicitRequestParams => ElicitResult
);

notification!(
    /// `notifications/cancelled`.
    Cancelled = CANCELLED, CancelledNotificationParams
);
notification!(
    /// `notifications/progress`.
    Progress = PROGRESS, ProgressNotificationParams
);
notification!(
    /// `notifications/message` (only for requests that set a log level).
    LoggingMessage = LOGGING_MESSAGE, LoggingMessageNotificationParams
);
notification!(
    /// `notifications/subscriptions/acknowledged`.
    SubscriptionsAcknowledged = SUBSCRIPTIONS_ACKNOWLEDGED, SubscriptionsAcknowledgedNotificationParams
);
notification!(
    /// `notifications/resources/list_changed` (listen streams only).
    ResourceListChanged = RESOURCE_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/resources/updated` (listen streams only).
    ResourceUpdated = RESOURCE_UPDATED, ResourceUpdatedNotificationParams
);
notification!(
    /// `notifications/prompts/list_changed` (listen streams only).
    PromptListChanged = PROMPT_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/tools/list_changed` (listen streams only).
    ToolListChanged = TOOL_LIST_CHANGED, NotificationParams
);

/// Requests a client sends.
pub const CLIENT_REQUESTS: &[&str] = &[
    "server/discover",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "subscriptions/listen",
    "prompts/list",
    "prompts/get",
    "tools/list",
    "tools/call",
    "completion/complete",
];

/// Methods of the input requests a server may embed.
pub const INPUT_REQUESTS: &[&str] = &["sampling/createMessage", "roots/list", "elicitation/create"];

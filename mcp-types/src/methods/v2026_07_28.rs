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
    Discover = "server/discover", RequestParams => DiscoverResult
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
    /// `resources/read` (may answer `input_required`).
    ReadResource = "resources/read", ReadResourceRequestParams => ReadResourceResult
);
request!(
    /// `subscriptions/listen` (long-lived).
    SubscriptionsListen = "subscriptions/listen", SubscriptionsListenRequestParams => SubscriptionsListenResult
);
request!(
    /// `prompts/list`.
    ListPrompts = "prompts/list", PaginatedRequestParams => ListPromptsResult
);
request!(
    /// `prompts/get` (may answer `input_required`).
    GetPrompt = "prompts/get", GetPromptRequestParams => GetPromptResult
);
request!(
    /// `tools/list`.
    ListTools = "tools/list", PaginatedRequestParams => ListToolsResult
);
request!(
    /// `tools/call` (may answer `input_required`, or `task` with the extension).
    CallTool = "tools/call", CallToolRequestParams => CallToolResult
);
request!(
    /// `completion/complete`.
    Complete = "completion/complete", CompleteRequestParams => CompleteResult
);
request!(
    /// Embedded input request `sampling/createMessage`.
    CreateMessage = "sampling/createMessage", CreateMessageRequestParams => CreateMessageResult
);
request!(
    /// Embedded input request `roots/list`.
    ListRoots = "roots/list", RequestParams => ListRootsResult
);
request!(
    /// Embedded input request `elicitation/create`.
    Elicit = "elicitation/create", ElicitRequestParams => ElicitResult
);

notification!(
    /// `notifications/cancelled`.
    Cancelled = "notifications/cancelled", CancelledNotificationParams
);
notification!(
    /// `notifications/progress`.
    Progress = "notifications/progress", ProgressNotificationParams
);
notification!(
    /// `notifications/message` (only for requests that set a log level).
    LoggingMessage = "notifications/message", LoggingMessageNotificationParams
);
notification!(
    /// `notifications/subscriptions/acknowledged`.
    SubscriptionsAcknowledged = "notifications/subscriptions/acknowledged", SubscriptionsAcknowledgedNotificationParams
);
notification!(
    /// `notifications/resources/list_changed` (listen streams only).
    ResourceListChanged = "notifications/resources/list_changed", NotificationParams
);
notification!(
    /// `notifications/resources/updated` (listen streams only).
    ResourceUpdated = "notifications/resources/updated", ResourceUpdatedNotificationParams
);
notification!(
    /// `notifications/prompts/list_changed` (listen streams only).
    PromptListChanged = "notifications/prompts/list_changed", NotificationParams
);
notification!(
    /// `notifications/tools/list_changed` (listen streams only).
    ToolListChanged = "notifications/tools/list_changed", NotificationParams
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

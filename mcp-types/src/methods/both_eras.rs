//! Markers of the methods whose params and result are the same in
//! 2025-11-25 and 2026-07-28: name them as `mcp_types::methods::CallTool`
//! whatever the era of the connection. [`v2025_11_25`](super::v2025_11_25)
//! and [`v2026_07_28`](super::v2026_07_28) re-export them under their own
//! paths; only `tools/call` has a legacy marker of its own as well
//! ([`v2025_11_25::CallTool`](super::v2025_11_25::CallTool), whose params
//! may carry a task).

use crate::common::{NotificationParams, PaginatedRequestParams};
use crate::completion::{CompleteRequestParams, CompleteResult};
use crate::logging::LoggingMessageNotificationParams;
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceUpdatedNotificationParams,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};

request!(
    /// `resources/list`.
    ListResources = RESOURCES_LIST, PaginatedRequestParams => ListResourcesResult
);
request!(
    /// `resources/templates/list`.
    ListResourceTemplates = RESOURCE_TEMPLATES_LIST, PaginatedRequestParams => ListResourceTemplatesResult
);
request!(
    /// `resources/read` (2026-07-28: may answer `input_required`).
    ReadResource = RESOURCES_READ, ReadResourceRequestParams => ReadResourceResult
);
request!(
    /// `prompts/list`.
    ListPrompts = PROMPTS_LIST, PaginatedRequestParams => ListPromptsResult
);
request!(
    /// `prompts/get` (2026-07-28: may answer `input_required`).
    GetPrompt = PROMPTS_GET, GetPromptRequestParams => GetPromptResult
);
request!(
    /// `tools/list`.
    ListTools = TOOLS_LIST, PaginatedRequestParams => ListToolsResult
);
request!(
    /// `tools/call` answered directly, in either era (2026-07-28: may
    /// answer `input_required`, or `task` with the extension).
    CallTool = TOOLS_CALL, CallToolRequestParams => CallToolResult
);
request!(
    /// `completion/complete`.
    Complete = COMPLETE, CompleteRequestParams => CompleteResult
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
    /// `notifications/message` (2026-07-28: only for requests that set a
    /// log level).
    LoggingMessage = LOGGING_MESSAGE, LoggingMessageNotificationParams
);
notification!(
    /// `notifications/resources/list_changed` (2026-07-28: listen streams
    /// only).
    ResourceListChanged = RESOURCE_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/resources/updated` (2026-07-28: listen streams only).
    ResourceUpdated = RESOURCE_UPDATED, ResourceUpdatedNotificationParams
);
notification!(
    /// `notifications/prompts/list_changed` (2026-07-28: listen streams
    /// only).
    PromptListChanged = PROMPT_LIST_CHANGED, NotificationParams
);
notification!(
    /// `notifications/tools/list_changed` (2026-07-28: listen streams only).
    ToolListChanged = TOOL_LIST_CHANGED, NotificationParams
);

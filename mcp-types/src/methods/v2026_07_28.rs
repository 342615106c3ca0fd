//! Every method of 2026-07-28 (modern era). Servers send no JSON-RPC
//! requests; [`CreateMessage`], [`ListRoots`] and [`Elicit`] describe the
//! input requests embedded in `input_required` results.

use crate::common::RequestParams;
use crate::elicitation::{ElicitRequestParams, ElicitResult};
use crate::lifecycle::DiscoverResult;
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::subscriptions::{
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};

pub use super::both_eras::{
    CallTool, Cancelled, Complete, GetPrompt, ListPrompts, ListResourceTemplates, ListResources,
    ListTools, LoggingMessage, Progress, PromptListChanged, ReadResource, ResourceListChanged,
    ResourceUpdated, ToolListChanged,
};

request!(
    /// `server/discover`.
    Discover = DISCOVER, RequestParams => DiscoverResult
);
request!(
    /// `subscriptions/listen` (long-lived).
    SubscriptionsListen = SUBSCRIPTIONS_LISTEN, SubscriptionsListenRequestParams => SubscriptionsListenResult
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
    /// `notifications/subscriptions/acknowledged`.
    SubscriptionsAcknowledged = SUBSCRIPTIONS_ACKNOWLEDGED, SubscriptionsAcknowledgedNotificationParams
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

//! `subscriptions/listen` (2026-07-28): the opt-in filter, the
//! acknowledgement notification and the subscription id.
//!
//! Every message on a listen stream carries
//! `_meta["io.modelcontextprotocol/subscriptionId"]`, the id of the listen
//! request (see [`Meta::subscription_id`]).

use serde::{Deserialize, Serialize};

use crate::meta::Meta;
use crate::results::{ResultType, complete};

/// Which notifications a listen stream delivers (also what the server
/// acknowledged).
///
/// ```
/// use mcp_types::subscriptions::SubscriptionFilter;
/// let f = SubscriptionFilter::new().with_tools_list_changed().with_resource("file:///a");
/// assert_eq!(serde_json::to_value(&f).unwrap(), serde_json::json!(
///     {"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]}));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Tasks extension: `notifications/tasks` for these task ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

impl SubscriptionFilter {
    /// An empty filter.
    pub fn new() -> Self {
        SubscriptionFilter::default()
    }

    /// Opts in to tool list changes.
    #[must_use]
    pub fn with_tools_list_changed(mut self) -> Self {
        self.tools_list_changed = Some(true);
        self
    }

    /// Opts in to prompt list changes.
    #[must_use]
    pub fn with_prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = Some(true);
        self
    }

    /// Opts in to resource list changes.
    #[must_use]
    pub fn with_resources_list_changed(mut self) -> Self {
        self.resources_list_changed = Some(true);
        self
    }

    /// Subscribes to updates of one resource.
    #[must_use]
    pub fn with_resource(mut self, uri: impl Into<String>) -> Self {
        self.resource_subscriptions
            .get_or_insert_with(Vec::new)
            .push(uri.into());
        self
    }

    /// Tasks extension: subscribes to status updates of one task.
    #[must_use]
    pub fn with_task(mut self, task_id: impl Into<String>) -> Self {
        self.task_ids
            .get_or_insert_with(Vec::new)
            .push(task_id.into());
        self
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        self == &SubscriptionFilter::default()
    }
}

/// Params of `subscriptions/listen`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// What to deliver.
    pub notifications: SubscriptionFilter,
}

impl SubscriptionsListenRequestParams {
    /// Listen for `notifications`.
    pub fn new(notifications: SubscriptionFilter) -> Self {
        SubscriptionsListenRequestParams {
            meta: Meta::new(),
            notifications,
        }
    }
}

/// Result of `subscriptions/listen`: sent when the server ends the stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// `_meta` with `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
    /// `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
}

impl SubscriptionsListenResult {
    /// The end of the subscription `meta` names.
    pub fn new(meta: Meta) -> Self {
        SubscriptionsListenResult {
            meta,
            result_type: complete(),
        }
    }
}

/// Params of `notifications/subscriptions/acknowledged`: the first message
/// of every listen stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// `_meta` with `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// What the server agreed to deliver.
    pub notifications: SubscriptionFilter,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// An acknowledgement.
    pub fn new(meta: Meta, notifications: SubscriptionFilter) -> Self {
        SubscriptionsAcknowledgedNotificationParams {
            meta,
            notifications,
        }
    }
}

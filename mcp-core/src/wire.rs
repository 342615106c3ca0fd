//! Private decoders for the few wire shapes the core reads.
//!
//! Each reads only the members the core dispatches on (a peek, not a full
//! decode): the head of any result, the routing key of a notification, the
//! outcome members of a task, an elicitation's mode. Full shapes come from
//! `mcp-types`.

use mcp_types::RequestId;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The members of any result the core dispatches on.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResultHead {
    #[serde(default)]
    pub(crate) result_type: Option<String>,
    #[serde(default)]
    pub(crate) next_cursor: Option<String>,
    #[serde(default)]
    pub(crate) ttl_ms: Option<i64>,
    #[serde(default)]
    pub(crate) cache_scope: Option<String>,
}

/// The `_meta` of a notification, for subscription routing.
#[derive(Deserialize)]
pub(crate) struct NotificationMetaHolder {
    #[serde(default, rename = "_meta")]
    pub(crate) meta: Option<NotificationMeta>,
}

/// Subscription routing key of a notification (M-87).
#[derive(Deserialize)]
pub(crate) struct NotificationMeta {
    #[serde(default, rename = "io.modelcontextprotocol/subscriptionId")]
    pub(crate) subscription_id: Option<RequestId>,
}

/// The outcome members of a 2026-07-28 `DetailedTask`.
#[derive(Deserialize)]
pub(crate) struct TaskOutcome {
    #[serde(default)]
    pub(crate) result: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) error: Option<mcp_types::jsonrpc::ErrorObject>,
    #[serde(default, rename = "inputRequests")]
    pub(crate) input_requests: Option<std::collections::BTreeMap<String, InputRequestWire>>,
}

/// One embedded input request.
#[derive(Deserialize)]
pub(crate) struct InputRequestWire {
    pub(crate) method: String,
    #[serde(default)]
    pub(crate) params: Option<Box<RawValue>>,
}

/// The `elicitation/create` member the client checks before surfacing it.
#[derive(Deserialize)]
pub(crate) struct ElicitMode {
    #[serde(default)]
    pub(crate) mode: Option<String>,
}

/// Parses a raw object into `T`, or `T::default()` for absent params.
pub(crate) fn parse<T: for<'de> Deserialize<'de>>(
    raw: Option<&RawValue>,
) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.map_or("{}", RawValue::get))
}

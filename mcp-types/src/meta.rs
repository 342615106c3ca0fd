//! `_meta` objects and every `_meta` key the specifications name.
//!
//! [`Meta`] is a JSON object newtype with typed getters and setters for the
//! reserved keys listed in [`keys`]. Getters of structured values return
//! `Result<Option<T>, _>`: `Ok(None)` when the key is absent, an error when
//! the server sent a value of the wrong shape.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::ClientCapabilities;
use crate::common::Implementation;
use crate::jsonrpc::RequestId;
use crate::logging::LoggingLevel;
use crate::version::ProtocolVersion;

/// The `_meta` keys the specifications define.
pub mod keys {
    /// 2026-07-28, request `_meta` (required): the revision of this request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// 2026-07-28, request `_meta` (required): the client's capabilities.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// 2026-07-28, request `_meta` (should): the client's [`Implementation`](crate::common::Implementation).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// 2026-07-28, request `_meta`: the lowest log level the server may send for this request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// 2026-07-28, result `_meta`: the server's [`Implementation`](crate::common::Implementation).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// 2026-07-28, notification and listen-result `_meta`: the id of the
    /// `subscriptions/listen` request a message belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// 2025-11-25 tasks: `{ "taskId": ... }` on every message tied to a task.
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// 2025-11-25 tasks: on a `CreateTaskResult`, a string a host may hand
    /// the model as an interim tool result.
    pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";
    /// Both revisions, request `_meta`: the token progress notifications carry.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// 2026-07-28: W3C Trace Context `traceparent` (exempt from the prefix rule).
    pub const TRACEPARENT: &str = "traceparent";
    /// 2026-07-28: W3C Trace Context `tracestate` (exempt from the prefix rule).
    pub const TRACESTATE: &str = "tracestate";
    /// 2026-07-28: W3C `baggage` (exempt from the prefix rule).
    pub const BAGGAGE: &str = "baggage";
}

/// The id of the tasks extension, used as a key in `extensions` capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A progress token: a string or an integer chosen by the requester.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

impl From<i64> for ProgressToken {
    fn from(n: i64) -> Self {
        ProgressToken::Number(n)
    }
}

impl From<&str> for ProgressToken {
    fn from(s: &str) -> Self {
        ProgressToken::String(s.to_owned())
    }
}

impl From<String> for ProgressToken {
    fn from(s: String) -> Self {
        ProgressToken::String(s)
    }
}

/// The value of the `io.modelcontextprotocol/related-task` key (2025-11-25).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RelatedTaskMetadata {
    /// The task this message belongs to.
    pub task_id: String,
}

impl RelatedTaskMetadata {
    /// Metadata naming a task.
    pub fn new(task_id: impl Into<String>) -> Self {
        RelatedTaskMetadata {
            task_id: task_id.into(),
        }
    }
}

/// A `_meta` object: reserved keys with typed accessors, anything else kept.
///
/// ```
/// use mcp_types::meta::{keys, Meta};
/// use mcp_types::ProtocolVersion;
/// let meta = Meta::new()
///     .with_protocol_version(&ProtocolVersion::V2026_07_28)
///     .with_progress_token(7);
/// assert_eq!(meta.protocol_version(), Some(ProtocolVersion::V2026_07_28));
/// assert_eq!(meta.get(keys::PROGRESS_TOKEN), Some(&serde_json::json!(7)));
/// ```
///
/// A `_meta` received through serde_json's text reader (`from_str`, as
/// every message and result is decoded, see [`raw::parse`](crate::raw::parse))
/// is kept as its JSON text (checked when the message is decoded) and
/// decoded into a map on the first read, so a result whose `_meta` nobody
/// reads does not pay for building it. Any other deserializer decodes the
/// map at once. The map itself is [`as_map`](Meta::as_map) (this was the
/// public field `.0`).
#[derive(Clone, Default)]
pub struct Meta(object::Object);

mod known;
mod object;
pub(crate) use object::plain_end;
#[cfg(test)]
mod props;
mod scan;

/// Serializes one of this crate's types, which always serialize to JSON
/// (string keys, no non-finite floats constructed by us).
fn value_of<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl Meta {
    /// An empty `_meta` object.
    pub fn new() -> Self {
        Meta::default()
    }

    /// The object as a map (decoded now if it was received and not read
    /// yet).
    pub fn as_map(&self) -> &Map<String, Value> {
        self.0.map()
    }

    /// The object as a map, to change.
    pub fn as_map_mut(&mut self) -> &mut Map<String, Value> {
        self.0.map_mut()
    }

    /// The object as a map, taken out.
    pub fn into_map(self) -> Map<String, Value> {
        self.0.into_map()
    }

    /// Whether the object has no keys (then it is omitted on the wire).
    /// Does not decode a received object.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The raw value under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map().get(key)
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.as_map().contains_key(key)
    }

    /// Sets `key` to a raw value, returning the previous one.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.as_map_mut().insert(key.into(), value)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.as_map_mut().remove(key)
    }

    /// Sets `key` to a raw value (builder form).
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.as_map_mut().insert(key.into(), value.into());
        self
    }

    /// Decodes the value under `key`.
    ///
    /// # Errors
    /// When the value is present but does not have the shape of `T`.
    pub fn get_as<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, serde_json::Error> {
        self.get(key).map(T::deserialize).transpose()
    }

    /// Sets `key` to the JSON form of `value`.
    pub fn set<T: Serialize>(&mut self, key: impl Into<String>, value: &T) {
        self.as_map_mut().insert(key.into(), value_of(value));
    }

    fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// `io.modelcontextprotocol/protocolVersion`, when it is a string.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.get_str(keys::PROTOCOL_VERSION)
            .map(ProtocolVersion::parse)
    }

    /// Sets `io.modelcontextprotocol/protocolVersion`.
    #[must_use]
    pub fn with_protocol_version(mut self, version: &ProtocolVersion) -> Self {
        self.set(keys::PROTOCOL_VERSION, version);
        self
    }

    /// `io.modelcontextprotocol/clientCapabilities`.
    ///
    /// # Errors
    /// When the value is not a capabilities object.
    pub fn client_capabilities(&self) -> Result<Option<ClientCapabilities>, serde_json::Error> {
        self.get_as(keys::CLIENT_CAPABILITIES)
    }

    /// Sets `io.modelcontextprotocol/clientCapabilities`.
    #[must_use]
    pub fn with_client_capabilities(mut self, capabilities: &ClientCapabilities) -> Self {
        self.set(keys::CLIENT_CAPABILITIES, capabilities);
        self
    }

    /// `io.modelcontextprotocol/clientInfo`.
    ///
    /// # Errors
    /// When the value is not an `Implementation` object.
    pub fn client_info(&self) -> Result<Option<Implementation>, serde_json::Error> {
        self.get_as(keys::CLIENT_INFO)
    }

    /// Sets `io.modelcontextprotocol/clientInfo`.
    #[must_use]
    pub fn with_client_info(mut self, info: &Implementation) -> Self {
        self.set(keys::CLIENT_INFO, info);
        self
    }

    /// `io.modelcontextprotocol/serverInfo`.
    ///
    /// # Errors
    /// When the value is not an `Implementation` object.
    pub fn server_info(&self) -> Result<Option<Implementation>, serde_json::Error> {
        self.get_as(keys::SERVER_INFO)
    }

    /// Sets `io.modelcontextprotocol/serverInfo`.
    #[must_use]
    pub fn with_server_info(mut self, info: &Implementation) -> Self {
        self.set(keys::SERVER_INFO, info);
        self
    }

    /// `io.modelcontextprotocol/logLevel`.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.get_str(keys::LOG_LEVEL).map(LoggingLevel::parse)
    }

    /// Sets `io.modelcontextprotocol/logLevel`.
    #[must_use]
    pub fn with_log_level(mut self, level: &LoggingLevel) -> Self {
        self.set(keys::LOG_LEVEL, level);
        self
    }

    /// `io.modelcontextprotocol/subscriptionId`.
    ///
    /// # Errors
    /// When the value is neither a string nor an integer.
    pub fn subscription_id(&self) -> Result<Option<RequestId>, serde_json::Error> {
        self.get_as(keys::SUBSCRIPTION_ID)
    }

    /// Sets `io.modelcontextprotocol/subscriptionId`.
    #[must_use]
    pub fn with_subscription_id(mut self, id: &RequestId) -> Self {
        self.set(keys::SUBSCRIPTION_ID, id);
        self
    }

    /// `io.modelcontextprotocol/related-task` (2025-11-25 tasks).
    ///
    /// # Errors
    /// When the value is not a `{ "taskId": ... }` object.
    pub fn related_task(&self) -> Result<Option<RelatedTaskMetadata>, serde_json::Error> {
        self.get_as(keys::RELATED_TASK)
    }

    /// Sets `io.modelcontextprotocol/related-task`.
    #[must_use]
    pub fn with_related_task(mut self, task_id: impl Into<String>) -> Self {
        self.set(keys::RELATED_TASK, &RelatedTaskMetadata::new(task_id));
        self
    }

    /// `progressToken`.
    ///
    /// # Errors
    /// When the value is neither a string nor an integer.
    pub fn progress_token(&self) -> Result<Option<ProgressToken>, serde_json::Error> {
        self.get_as(keys::PROGRESS_TOKEN)
    }

    /// Sets `progressToken`.
    #[must_use]
    pub fn with_progress_token(mut self, token: impl Into<ProgressToken>) -> Self {
        self.set(keys::PROGRESS_TOKEN, &token.into());
        self
    }

    /// `io.modelcontextprotocol/model-immediate-response` (2025-11-25 tasks).
    pub fn model_immediate_response(&self) -> Option<&str> {
        self.get_str(keys::MODEL_IMMEDIATE_RESPONSE)
    }

    /// `traceparent` (W3C Trace Context).
    pub fn traceparent(&self) -> Option<&str> {
        self.get_str(keys::TRACEPARENT)
    }

    /// `tracestate` (W3C Trace Context).
    pub fn tracestate(&self) -> Option<&str> {
        self.get_str(keys::TRACESTATE)
    }

    /// `baggage` (W3C Baggage).
    pub fn baggage(&self) -> Option<&str> {
        self.get_str(keys::BAGGAGE)
    }

    /// Sets `traceparent`, and `tracestate` / `baggage` when given.
    #[must_use]
    pub fn with_trace_context(
        mut self,
        traceparent: impl Into<String>,
        tracestate: Option<String>,
        baggage: Option<String>,
    ) -> Self {
        let map = self.as_map_mut();
        map.insert(
            keys::TRACEPARENT.to_owned(),
            Value::String(traceparent.into()),
        );
        if let Some(s) = tracestate {
            map.insert(keys::TRACESTATE.to_owned(), Value::String(s));
        }
        if let Some(b) = baggage {
            map.insert(keys::BAGGAGE.to_owned(), Value::String(b));
        }
        self
    }
}

impl From<Map<String, Value>> for Meta {
    fn from(map: Map<String, Value>) -> Self {
        Meta(object::Object::from(map))
    }
}

/// A message part with a `_meta` object: lets generic code (the core)
/// read or fill `_meta` on any params or result type.
///
/// ```
/// use mcp_types::meta::{HasMeta, Meta};
/// use mcp_types::tools::CallToolRequestParams;
/// fn stamp<P: HasMeta>(mut params: P) -> P {
///     params.meta_mut().insert("traceparent", "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01".into());
///     params
/// }
/// let p = stamp(CallToolRequestParams::new("x"));
/// assert!(p.meta().traceparent().is_some());
/// ```
pub trait HasMeta {
    /// The `_meta` object.
    fn meta(&self) -> &Meta;
    /// The `_meta` object, mutably.
    fn meta_mut(&mut self) -> &mut Meta;
    /// Replaces the `_meta` object (builder form).
    #[must_use]
    fn with_meta(mut self, meta: Meta) -> Self
    where
        Self: Sized,
    {
        *self.meta_mut() = meta;
        self
    }
}

macro_rules! impl_has_meta {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl HasMeta for $ty {
                fn meta(&self) -> &Meta {
                    &self.meta
                }
                fn meta_mut(&mut self) -> &mut Meta {
                    &mut self.meta
                }
            }
        )+
    };
}

impl_has_meta!(
    crate::common::RequestParams,
    crate::common::NotificationParams,
    crate::common::PaginatedRequestParams,
    crate::tools::CallToolRequestParams,
    crate::tools::CallToolResult,
    crate::tools::ListToolsResult,
    crate::prompts::GetPromptRequestParams,
    crate::prompts::GetPromptResult,
    crate::prompts::ListPromptsResult,
    crate::resources::ReadResourceRequestParams,
    crate::resources::ReadResourceResult,
    crate::resources::ResourceRequestParams,
    crate::resources::ListResourcesResult,
    crate::resources::ListResourceTemplatesResult,
    crate::resources::ResourceUpdatedNotificationParams,
    crate::completion::CompleteRequestParams,
    crate::completion::CompleteResult,
    crate::logging::SetLevelRequestParams,
    crate::logging::LoggingMessageNotificationParams,
    crate::lifecycle::InitializeRequestParams,
    crate::lifecycle::InitializeResult,
    crate::lifecycle::DiscoverResult,
    crate::subscriptions::SubscriptionsListenRequestParams,
    crate::subscriptions::SubscriptionsListenResult,
    crate::subscriptions::SubscriptionsAcknowledgedNotificationParams,
    crate::notifications::ProgressNotificationParams,
    crate::notifications::CancelledNotificationParams,
    crate::results::EmptyResult,
    crate::results::InputRequiredResult,
    crate::sampling::CreateMessageRequestParams,
    crate::sampling::CreateMessageResult,
    crate::elicitation::ElicitRequestFormParams,
    crate::elicitation::LegacyElicitRequestUrlParams,
    crate::elicitation::ElicitResult,
    crate::roots::ListRootsResult,
    crate::tasks::TaskIdParams,
    crate::tasks::legacy::Task,
    crate::tasks::legacy::CreateTaskResult,
    crate::tasks::legacy::ListTasksResult,
    crate::tasks::ext::CreateTaskResult,
    crate::tasks::ext::DetailedTask,
    crate::tasks::ext::UpdateTaskRequestParams,
);

impl<P: HasMeta> HasMeta for crate::tasks::legacy::TaskAugmented<P> {
    fn meta(&self) -> &Meta {
        self.params.meta()
    }
    fn meta_mut(&mut self) -> &mut Meta {
        self.params.meta_mut()
    }
}

/// Whether `key` is a well-formed `_meta` key: an optional prefix of
/// dot-separated labels followed by `/`, then a name (both revisions'
/// `basic/index` page). `traceparent`, `tracestate` and `baggage` are plain
/// names and so pass.
///
/// ```
/// use mcp_types::meta::is_valid_key;
/// assert!(is_valid_key("com.example/my-key"));
/// assert!(is_valid_key("progressToken"));
/// assert!(!is_valid_key("com..example/x"));
/// assert!(!is_valid_key("-bad"));
/// ```
pub fn is_valid_key(key: &str) -> bool {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let name_ok = !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let prefix_ok = prefix.is_none_or(|p| {
        p.split('.').all(|label| {
            !label.is_empty()
                && label.starts_with(|c: char| c.is_ascii_alphabetic())
                && label.ends_with(|c: char| c.is_ascii_alphanumeric())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    });
    name_ok && prefix_ok
}

/// Whether `key` lies under a prefix MCP reserves (second label
/// `modelcontextprotocol` or `mcp`, e.g. `io.modelcontextprotocol/`):
/// applications must not mint such keys.
pub fn is_reserved_key(key: &str) -> bool {
    key.rsplit_once('/')
        .map(|(prefix, _)| {
            matches!(
                prefix.split('.').nth(1),
                Some("modelcontextprotocol" | "mcp")
            )
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_prefixes() {
        assert!(is_reserved_key("io.modelcontextprotocol/anything"));
        assert!(is_reserved_key("dev.mcp/x"));
        assert!(!is_reserved_key("com.example/x"));
        assert!(!is_reserved_key("traceparent"));
    }

    #[test]
    fn typed_getters_report_bad_shapes() {
        let meta = Meta::new().with(keys::SUBSCRIPTION_ID, serde_json::json!({"x": 1}));
        assert!(meta.subscription_id().is_err());
        let meta = Meta::new().with(keys::SUBSCRIPTION_ID, "listen-1");
        assert_eq!(
            meta.subscription_id().unwrap(),
            Some(RequestId::String("listen-1".into()))
        );
        assert_eq!(Meta::new().server_info().unwrap(), None);
    }
}

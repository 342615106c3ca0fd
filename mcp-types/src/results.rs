//! Result headers, `resultType`, caching fields and multi-round-trip
//! (`input_required`) results of 2026-07-28.
//!
//! A 2026-07-28 result is dispatched on its `resultType` before its body is
//! decoded: [`ResultHeader`] reads only the header, and [`decode_result`]
//! turns a raw result into a [`ResultOutcome`] with the expected type for
//! `complete`. A missing `resultType` reads as `complete` (which is also how
//! every 2025-11-25 result reads).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::common::RequestParams;
use crate::elicitation::{ElicitRequestParams, ElicitResult};
use crate::incoming::ServerRequestKind;
use crate::macros::open_enum;
use crate::meta::Meta;
use crate::raw::RawJson;
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::tasks::ext::CreateTaskResult;

open_enum! {
    /// The `resultType` of a 2026-07-28 result.
    pub enum ResultType {
        /// The request finished; the body is the method's result.
        Complete = "complete",
        /// The server needs input first: an [`InputRequiredResult`].
        InputRequired = "input_required",
        /// Tasks extension: the request became a task ([`CreateTaskResult`]).
        Task = "task",
    }
}

open_enum! {
    /// Who may share a cached result (2026-07-28 `cacheScope`).
    pub enum CacheScope {
        /// Any client may be served this result from a shared cache.
        Public = "public",
        /// Only the requesting principal may reuse it.
        Private = "private",
    }
}

impl CacheScope {
    /// Whether a result may be shared across authorization contexts: only
    /// an explicit `public`; `private` and unknown values are not.
    ///
    /// ```
    /// use mcp_types::results::CacheScope;
    /// assert!(CacheScope::Public.is_public());
    /// assert!(!CacheScope::parse("team").is_public());
    /// ```
    pub fn is_public(&self) -> bool {
        matches!(self, CacheScope::Public)
    }

    /// The scope a cache applies to a result's `cacheScope` as sent:
    /// [`Public`](CacheScope::Public) for `public`, and
    /// [`Private`](CacheScope::Private) for anything else, absent or
    /// unknown included (a cache never shares what it cannot prove public).
    ///
    /// ```
    /// use mcp_types::results::CacheScope;
    /// assert_eq!(CacheScope::effective(Some("public")), CacheScope::Public);
    /// assert_eq!(CacheScope::effective(Some("team")), CacheScope::Private);
    /// assert_eq!(CacheScope::effective(None), CacheScope::Private);
    /// ```
    pub fn effective(wire: Option<&str>) -> CacheScope {
        match wire {
            Some("public") => CacheScope::Public,
            _ => CacheScope::Private,
        }
    }
}

/// The header of any result: `resultType`, `_meta` and the caching fields,
/// read without decoding the body.
///
/// ```
/// use mcp_types::results::{ResultHeader, ResultType};
/// let h = ResultHeader::from_json(r#"{"tools":[],"ttlMs":5000,"cacheScope":"public"}"#).unwrap();
/// assert_eq!(h.result_type(), ResultType::Complete);
/// assert_eq!(h.ttl_ms, Some(5000));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResultHeader {
    /// `resultType` as sent; `None` when absent.
    #[serde(default)]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default)]
    pub meta: Meta,
    /// `ttlMs` (2026-07-28 cacheable results).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// `cacheScope` (2026-07-28 cacheable results).
    #[serde(default)]
    pub cache_scope: Option<CacheScope>,
}

impl ResultHeader {
    /// Reads the header of a raw result.
    ///
    /// # Errors
    /// When the result is not an object or a header field has a wrong type.
    pub fn from_raw(raw: &RawValue) -> Result<Self, serde_json::Error> {
        Self::from_json(raw.get())
    }

    /// Reads the header of a result given as JSON text.
    ///
    /// # Errors
    /// When the result is not an object or a header field has a wrong type.
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The effective result type: absent means [`ResultType::Complete`].
    pub fn result_type(&self) -> ResultType {
        self.result_type.clone().unwrap_or(ResultType::Complete)
    }
}

/// A decoded result, dispatched on `resultType`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ResultOutcome<R> {
    /// `complete` (or absent): the method's own result.
    Complete(R),
    /// `input_required`: answer the input requests and retry.
    InputRequired(InputRequiredResult),
    /// `task` (tasks extension): the request became a task.
    Task(CreateTaskResult),
    /// A `resultType` this crate does not know; the raw result is kept.
    Unknown {
        /// The unknown `resultType` value.
        result_type: String,
        /// The whole result object.
        result: Value,
    },
}

/// Decodes a raw result, dispatching on its `resultType` first.
///
/// # Errors
/// When the body does not match the type its `resultType` announces.
///
/// ```
/// use mcp_types::results::{decode_result, ResultOutcome};
/// use mcp_types::tools::CallToolResult;
/// use mcp_types::raw::RawJson;
/// let raw = RawJson::from_bytes(&br#"{"resultType":"input_required","requestState":"abc"}"#[..]);
/// let out = decode_result::<CallToolResult>(&raw).unwrap();
/// assert!(matches!(out, ResultOutcome::InputRequired(r) if r.request_state.as_deref() == Some("abc")));
/// ```
pub fn decode_result<R: DeserializeOwned>(
    raw: &RawJson,
) -> Result<ResultOutcome<R>, serde_json::Error> {
    #[derive(Deserialize)]
    struct TypeOnly {
        #[serde(rename = "resultType", default)]
        result_type: Option<ResultType>,
    }
    let head: TypeOnly = raw.decode()?;
    Ok(match head.result_type.unwrap_or(ResultType::Complete) {
        ResultType::Complete => ResultOutcome::Complete(raw.decode()?),
        ResultType::InputRequired => ResultOutcome::InputRequired(raw.decode()?),
        ResultType::Task => ResultOutcome::Task(raw.decode()?),
        ResultType::Unknown(result_type) => ResultOutcome::Unknown {
            result_type,
            result: raw.decode()?,
        },
    })
}

pub(crate) fn complete() -> Option<ResultType> {
    Some(ResultType::Complete)
}

/// A result with no content beyond its header (`ping`, `resources/subscribe`,
/// `logging/setLevel`, the tasks extension's acknowledgements).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmptyResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// 2026-07-28: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
}

impl EmptyResult {
    /// An empty result with `resultType: "complete"` (2026-07-28 form).
    pub fn complete() -> Self {
        EmptyResult {
            meta: Meta::new(),
            result_type: complete(),
        }
    }

    /// An empty result without `resultType` (2025-11-25 form).
    pub fn legacy() -> Self {
        EmptyResult::default()
    }
}

/// The server needs input before it can finish the request (2026-07-28).
///
/// Answer the [`InputRequests`] in `inputResponses` and echo `requestState`
/// verbatim on a retry with a new request id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// Always `input_required`.
    #[serde(default = "input_required")]
    pub result_type: ResultType,
    /// What the server asks for, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

fn input_required() -> ResultType {
    ResultType::InputRequired
}

impl InputRequiredResult {
    /// An `input_required` result asking for `input_requests`.
    pub fn new(input_requests: InputRequests) -> Self {
        InputRequiredResult {
            meta: Meta::new(),
            result_type: ResultType::InputRequired,
            input_requests: Some(input_requests),
            request_state: None,
        }
    }

    /// Sets the request state.
    #[must_use]
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

mod input_raw;

pub use input_raw::{RawInputRequest, RawInputRequired};

/// Input requests by key (`InputRequests`).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// Responses to input requests by the same keys (`InputResponses`).
pub type InputResponses = BTreeMap<String, InputResponse>;

/// A request embedded in an [`InputRequiredResult`]: `{method, params}`,
/// no `jsonrpc`, no `id`. Unknown methods are kept as data.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// `roots/list`.
    ListRoots(RequestParams),
    /// Any other method, kept as received.
    Unknown {
        /// The method name.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
}

impl InputRequest {
    /// Decodes the params of a known method; other methods are kept as
    /// [`InputRequest::Unknown`].
    ///
    /// # Errors
    /// When a known method's params do not have its shape.
    pub fn from_parts(method: String, params: Option<Value>) -> Result<Self, serde_json::Error> {
        use ServerRequestKind as K;
        let obj = || params.clone().unwrap_or_else(|| Value::Object(Map::new()));
        Ok(match K::of(&method) {
            Some(K::CreateMessage) => InputRequest::CreateMessage(serde_json::from_value(obj())?),
            Some(K::Elicit) => InputRequest::Elicit(serde_json::from_value(obj())?),
            Some(K::ListRoots) => InputRequest::ListRoots(serde_json::from_value(obj())?),
            _ => InputRequest::Unknown { method, params },
        })
    }

    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            InputRequest::CreateMessage(_) => ServerRequestKind::CreateMessage.method(),
            InputRequest::Elicit(_) => ServerRequestKind::Elicit.method(),
            InputRequest::ListRoots(_) => ServerRequestKind::ListRoots.method(),
            InputRequest::Unknown { method, .. } => method,
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("method", self.method())?;
        match self {
            InputRequest::CreateMessage(p) => map.serialize_entry("params", p)?,
            InputRequest::Elicit(p) => map.serialize_entry("params", p)?,
            InputRequest::ListRoots(p) => {
                if !p.meta.is_empty() {
                    map.serialize_entry("params", p)?;
                }
            }
            InputRequest::Unknown { params, .. } => {
                if let Some(p) = params {
                    map.serialize_entry("params", p)?;
                }
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        struct Wire {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let w = Wire::deserialize(deserializer)?;
        InputRequest::from_parts(w.method, w.params).map_err(D::Error::custom)
    }
}

impl schemars::JsonSchema for InputRequest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "InputRequest".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {"method": {"type": "string"}, "params": {"type": "object"}},
            "required": ["method"]
        })
    }
}

/// The client's answer to one [`InputRequest`].
#[allow(
    clippy::large_enum_variant,
    reason = "wire data: boxing would only complicate matching"
)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// A shape this crate does not recognize, kept as received.
    Unknown(Value),
}

impl Serialize for InputResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InputResponse::CreateMessage(r) => r.serialize(serializer),
            InputResponse::Elicit(r) => r.serialize(serializer),
            InputResponse::ListRoots(r) => r.serialize(serializer),
            InputResponse::Unknown(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    /// Recognizes the answer by its required members: `action` (elicitation),
    /// `roots` (roots), `model` + `role` (sampling).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = Value::deserialize(deserializer)?;
        let has = |k: &str| v.as_object().is_some_and(|o| o.contains_key(k));
        Ok(if has("action") {
            InputResponse::Elicit(serde_json::from_value(v).map_err(D::Error::custom)?)
        } else if has("roots") {
            InputResponse::ListRoots(serde_json::from_value(v).map_err(D::Error::custom)?)
        } else if has("model") && has("role") {
            InputResponse::CreateMessage(serde_json::from_value(v).map_err(D::Error::custom)?)
        } else {
            InputResponse::Unknown(v)
        })
    }
}

impl schemars::JsonSchema for InputResponse {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "InputResponse".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object" })
    }
}

impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        InputResponse::CreateMessage(r)
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        InputResponse::Elicit(r)
    }
}

impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        InputResponse::ListRoots(r)
    }
}

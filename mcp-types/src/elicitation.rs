//! Elicitation: form mode (with its restricted schema) and URL mode.
//!
//! The revisions differ in URL mode: 2025-11-25 URL requests carry an
//! `elicitationId` ([`LegacyElicitRequestUrlParams`]) that
//! `notifications/elicitation/complete` and the `-32042` error data refer
//! to; 2026-07-28 has neither ([`ElicitRequestUrlParams`]). The form-mode
//! schema types live in [`schema`].

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

use crate::macros::open_enum;
use crate::meta::Meta;

pub mod schema;

pub use schema::{PrimitiveSchemaDefinition, RequestedSchema};

open_enum! {
    /// The elicitation mode.
    pub enum ElicitationMode {
        /// An in-client form.
        Form = "form",
        /// An out-of-band URL the user visits.
        Url = "url",
    }
}

/// Params of `elicitation/create`, by mode. `U` is the URL-mode params type
/// of the revision: [`ElicitRequestUrlParams`] (2026-07-28, the default) or
/// [`LegacyElicitRequestUrlParams`] (2025-11-25).
#[allow(
    clippy::large_enum_variant,
    reason = "wire data: boxing would only complicate matching"
)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequestParams<U = ElicitRequestUrlParams> {
    /// Form mode (also when `mode` is absent).
    Form(ElicitRequestFormParams),
    /// URL mode.
    Url(U),
}

/// 2025-11-25 `elicitation/create` params (URL mode with `elicitationId`).
pub type LegacyElicitRequestParams = ElicitRequestParams<LegacyElicitRequestUrlParams>;

impl<U: Serialize> Serialize for ElicitRequestParams<U> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitRequestParams::Form(p) => p.serialize(serializer),
            ElicitRequestParams::Url(p) => p.serialize(serializer),
        }
    }
}

impl<'de, U: DeserializeOwned> Deserialize<'de> for ElicitRequestParams<U> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = Value::deserialize(deserializer)?;
        let mode = v
            .get("mode")
            .and_then(Value::as_str)
            .map(ElicitationMode::parse);
        match mode {
            None | Some(ElicitationMode::Form) => serde_json::from_value(v)
                .map(ElicitRequestParams::Form)
                .map_err(D::Error::custom),
            Some(ElicitationMode::Url) => serde_json::from_value(v)
                .map(ElicitRequestParams::Url)
                .map_err(D::Error::custom),
            Some(ElicitationMode::Unknown(m)) => Err(D::Error::custom(format_args!(
                "unknown elicitation mode {m:?}"
            ))),
        }
    }
}

impl<U> schemars::JsonSchema for ElicitRequestParams<U> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElicitRequestParams".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object" })
    }
}

/// Form-mode params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// Request metadata (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// `form`, or absent (which also means form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitationMode>,
    /// The message shown to the user.
    pub message: String,
    /// The form: a flat object of primitive fields.
    pub requested_schema: RequestedSchema,
}

impl ElicitRequestFormParams {
    /// A form request (`mode: "form"` written explicitly).
    pub fn new(message: impl Into<String>, requested_schema: RequestedSchema) -> Self {
        ElicitRequestFormParams {
            meta: Meta::new(),
            mode: Some(ElicitationMode::Form),
            message: message.into(),
            requested_schema,
        }
    }
}

/// URL-mode params of 2026-07-28 (no `elicitationId`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestUrlParams {
    /// Always `url`.
    pub mode: ElicitationMode,
    /// The message shown to the user.
    pub message: String,
    /// The URL to open (untrusted: show it, ask consent).
    pub url: String,
}

impl ElicitRequestUrlParams {
    /// A URL request.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequestUrlParams {
            mode: ElicitationMode::Url,
            message: message.into(),
            url: url.into(),
        }
    }
}

/// URL-mode params of 2025-11-25, with `elicitationId`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyElicitRequestUrlParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// Always `url`.
    pub mode: ElicitationMode,
    /// The message shown to the user.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// The id `notifications/elicitation/complete` refers to.
    pub elicitation_id: String,
}

impl LegacyElicitRequestUrlParams {
    /// A URL request with its id.
    pub fn new(
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Self {
        LegacyElicitRequestUrlParams {
            meta: Meta::new(),
            mode: ElicitationMode::Url,
            message: message.into(),
            url: url.into(),
            elicitation_id: elicitation_id.into(),
        }
    }
}

open_enum! {
    /// The user's response to an elicitation.
    pub enum ElicitAction {
        /// The user submitted (or, in URL mode, consented).
        Accept = "accept",
        /// The user explicitly declined.
        Decline = "decline",
        /// The user dismissed without choosing.
        Cancel = "cancel",
    }
}

/// One submitted form value. Numbers are kept as JSON numbers (integers and
/// decimals alike: `NumberSchema` allows `type: "number"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string (also single-select enums).
    String(String),
    /// Several strings (multi-select enums).
    Strings(Vec<String>),
}

impl From<&str> for ElicitValue {
    fn from(s: &str) -> Self {
        ElicitValue::String(s.to_owned())
    }
}

impl From<bool> for ElicitValue {
    fn from(b: bool) -> Self {
        ElicitValue::Bool(b)
    }
}

impl From<i64> for ElicitValue {
    fn from(n: i64) -> Self {
        ElicitValue::Number(n.into())
    }
}

/// Result of `elicitation/create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ElicitResult {
    /// `_meta` (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, `accept` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
}

impl ElicitResult {
    /// An accepted form with `content`.
    pub fn accept(content: BTreeMap<String, ElicitValue>) -> Self {
        ElicitResult {
            meta: Meta::new(),
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }

    /// An accepted URL-mode elicitation (no content).
    pub fn accept_url() -> Self {
        ElicitResult {
            meta: Meta::new(),
            action: ElicitAction::Accept,
            content: None,
        }
    }

    /// A decline.
    pub fn decline() -> Self {
        ElicitResult {
            meta: Meta::new(),
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// A cancel.
    pub fn cancel() -> Self {
        ElicitResult {
            meta: Meta::new(),
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}

/// Params of `notifications/elicitation/complete` (2025-11-25 only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the finished URL elicitation.
    pub elicitation_id: String,
}

/// `data` of the 2025-11-25 `-32042` URL-elicitation-required error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations to complete before retrying.
    pub elicitations: Vec<LegacyElicitRequestUrlParams>,
}

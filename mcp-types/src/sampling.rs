//! Sampling: `sampling/createMessage` with tools, tool choice and model
//! preferences (a server-to-client request in 2025-11-25, an embedded input
//! request in 2026-07-28, deprecated there).

use serde::{Deserialize, Serialize};

use crate::common::{JsonObject, Role};
use crate::content::ContentBlock;
use crate::macros::open_enum;
use crate::meta::Meta;
use crate::tools::Tool;

/// The content of a sampling message: one block or several.
#[allow(
    clippy::large_enum_variant,
    reason = "wire data: boxing would only complicate matching"
)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block.
    Single(ContentBlock),
    /// Several blocks.
    Multiple(Vec<ContentBlock>),
}

impl SamplingContent {
    /// The blocks, as a slice.
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b),
            SamplingContent::Multiple(v) => v,
        }
    }
}

impl From<ContentBlock> for SamplingContent {
    fn from(block: ContentBlock) -> Self {
        SamplingContent::Single(block)
    }
}

/// One message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl SamplingMessage {
    /// A message.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        SamplingMessage {
            role,
            content: content.into(),
            meta: Meta::new(),
        }
    }
}

open_enum! {
    /// Which servers' context to include (soft-deprecated beyond `none`).
    pub enum IncludeContext {
        /// No context.
        None = "none",
        /// Context from the requesting server.
        ThisServer = "thisServer",
        /// Context from all servers.
        AllServers = "allServers",
    }
}

open_enum! {
    /// How the model may use the offered tools.
    pub enum ToolChoiceMode {
        /// The model decides.
        Auto = "auto",
        /// The model must use a tool.
        Required = "required",
        /// The model must not use tools.
        None = "none",
    }
}

/// Tool-use policy for a sampling request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ToolChoice {
    /// The mode; absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

impl ToolChoice {
    /// A tool choice with `mode`.
    pub fn new(mode: ToolChoiceMode) -> Self {
        ToolChoice { mode: Some(mode) }
    }
}

/// A hint for model selection.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ModelHint {
    /// A (partial) model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The server's preferences for model selection, all advisory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// 0 to 1: how much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// 0 to 1: how much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// 0 to 1: how much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// Params of `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// Request metadata (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context inclusion (soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Maximum tokens to generate.
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Tool-use policy (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

impl CreateMessageRequestParams {
    /// A sampling request.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            meta: Meta::new(),
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }

    /// Sets the tools and tool choice.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<Tool>, choice: Option<ToolChoice>) -> Self {
        self.tools = Some(tools);
        self.tool_choice = choice;
        self
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the model preferences.
    #[must_use]
    pub fn with_model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(preferences);
        self
    }
}

open_enum! {
    /// Why sampling stopped.
    pub enum StopReason {
        /// The model finished its turn.
        EndTurn = "endTurn",
        /// A stop sequence matched.
        StopSequence = "stopSequence",
        /// The token limit was reached.
        MaxTokens = "maxTokens",
        /// The model wants to use a tool.
        ToolUse = "toolUse",
    }
}

/// Result of `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// Who speaks (the assistant).
    pub role: Role,
    /// The generated content.
    pub content: SamplingContent,
    /// The model that generated it.
    pub model: String,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}

impl CreateMessageResult {
    /// A generated message.
    pub fn new(content: impl Into<SamplingContent>, model: impl Into<String>) -> Self {
        CreateMessageResult {
            meta: Meta::new(),
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
        }
    }

    /// Sets the stop reason.
    #[must_use]
    pub fn with_stop_reason(mut self, reason: StopReason) -> Self {
        self.stop_reason = Some(reason);
        self
    }
}

//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::meta::Meta;
use crate::results::{ResultType, complete};

/// What is being completed: a prompt or a resource template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// `ref/prompt`.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt name.
        name: String,
        /// Display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// `ref/resource`.
    #[serde(rename = "ref/resource")]
    ResourceTemplate {
        /// The URI template.
        uri: String,
    },
}

impl CompletionReference {
    /// A reference to the prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        CompletionReference::Prompt {
            name: name.into(),
            title: None,
        }
    }

    /// A reference to the resource template `uri`.
    pub fn resource_template(uri: impl Into<String>) -> Self {
        CompletionReference::ResourceTemplate { uri: uri.into() }
    }
}

/// The argument being completed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// Argument name.
    pub name: String,
    /// The partial value typed so far.
    pub value: String,
}

/// Already-resolved arguments that give context.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct CompletionContext {
    /// Values of other arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Params of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// What is completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument.
    pub argument: CompletionArgument,
    /// Context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

impl CompleteRequestParams {
    /// Complete `argument` = `value` for `reference`.
    pub fn new(
        reference: CompletionReference,
        argument: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteRequestParams {
            meta: Meta::new(),
            reference,
            argument: CompletionArgument {
                name: argument.into(),
                value: value.into(),
            },
            context: None,
        }
    }

    /// Adds a resolved context argument.
    #[must_use]
    pub fn with_context_argument(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.context
            .get_or_insert_with(CompletionContext::default)
            .arguments
            .get_or_insert_with(BTreeMap::new)
            .insert(name.into(), value.into());
        self
    }
}

/// The completion values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// Up to 100 values.
    pub values: Vec<String>,
    /// Total number of available values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist beyond these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// Result of `completion/complete`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// 2026-07-28: `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The completion.
    pub completion: Completion,
}

impl CompleteResult {
    /// A completion result, `resultType: "complete"`.
    pub fn new(values: Vec<String>) -> Self {
        CompleteResult {
            meta: Meta::new(),
            result_type: complete(),
            completion: Completion {
                values,
                total: None,
                has_more: None,
            },
        }
    }
}

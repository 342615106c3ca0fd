//! The enum (select) field schemas of form-mode elicitation: single and
//! multi select, titled or not, and the legacy `enumNames` form.

use serde::{Deserialize, Serialize};

/// An option of a titled enum: a value and its label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct TitledOption {
    /// The value submitted.
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown.
    pub title: String,
}

impl TitledOption {
    /// An option: submitted `value`, shown `title`.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        TitledOption {
            value: value.into(),
            title: title.into(),
        }
    }
}

/// Single select from plain values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `string`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl UntitledSingleSelectEnumSchema {
    /// Single select from `values`.
    pub fn new(values: Vec<String>) -> Self {
        UntitledSingleSelectEnumSchema {
            schema_type: "string".to_owned(),
            title: None,
            description: None,
            values,
            default: None,
        }
    }
}

/// Single select from titled values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// Always `string`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<TitledOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl TitledSingleSelectEnumSchema {
    /// Single select from titled `options`.
    pub fn new(options: Vec<TitledOption>) -> Self {
        TitledSingleSelectEnumSchema {
            schema_type: "string".to_owned(),
            title: None,
            description: None,
            one_of: options,
            default: None,
        }
    }
}

/// The `items` of an untitled multi select.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct UntitledItems {
    /// Always `string`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi select.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledItems {
    /// The options.
    pub any_of: Vec<TitledOption>,
}

/// Multi select from plain values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `array`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The values.
    pub items: UntitledItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

impl UntitledMultiSelectEnumSchema {
    /// Multi select from `values`.
    pub fn new(values: Vec<String>) -> Self {
        UntitledMultiSelectEnumSchema {
            schema_type: "array".to_owned(),
            title: None,
            description: None,
            min_items: None,
            max_items: None,
            items: UntitledItems {
                schema_type: "string".to_owned(),
                values,
            },
            default: None,
        }
    }
}

/// Multi select from titled values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// Always `array`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

impl TitledMultiSelectEnumSchema {
    /// Multi select from titled `options`.
    pub fn new(options: Vec<TitledOption>) -> Self {
        TitledMultiSelectEnumSchema {
            schema_type: "array".to_owned(),
            title: None,
            description: None,
            min_items: None,
            max_items: None,
            items: TitledItems { any_of: options },
            default: None,
        }
    }
}

/// The legacy titled enum: `enum` plus parallel `enumNames`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// Always `string`.
    #[serde(rename = "type")]
    pub schema_type: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Labels, parallel to `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

//! Roots: `roots/list` (a server-to-client request in 2025-11-25, an
//! embedded input request in 2026-07-28, deprecated there).

use serde::{Deserialize, Serialize};

use crate::meta::Meta;

/// A root the client exposes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl Root {
    /// A root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            name: None,
            meta: Meta::new(),
        }
    }

    /// Sets the display name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// Result of `roots/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// `_meta` (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The roots.
    pub roots: Vec<Root>,
}

impl ListRootsResult {
    /// A list of roots.
    pub fn new(roots: Vec<Root>) -> Self {
        ListRootsResult {
            meta: Meta::new(),
            roots,
        }
    }
}

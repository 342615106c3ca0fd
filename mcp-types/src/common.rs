//! Small shapes shared by many messages: [`Implementation`], [`Icon`],
//! [`Role`], [`Annotations`], [`Cursor`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::macros::open_enum;
use crate::meta::Meta;

/// A JSON object, kept exactly as received.
pub type JsonObject = Map<String, Value>;

/// An opaque pagination cursor.
pub type Cursor = String;

/// The name and version of an MCP implementation (client or server).
///
/// ```
/// use mcp_types::common::Implementation;
/// let me = Implementation::new("my-client", "1.0.0").with_title("My Client");
/// assert_eq!(serde_json::to_value(&me).unwrap(),
///     serde_json::json!({"name": "my-client", "title": "My Client", "version": "1.0.0"}));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string (read as empty when a peer omits it: identity is
    /// display-only and must not fail a handshake).
    #[serde(default)]
    pub version: String,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons a UI may show (untrusted URIs: see the icon rules of the spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The implementation's website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with a name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            title: None,
            version: version.into(),
            description: None,
            icons: None,
            website_url: None,
        }
    }

    /// Sets the display title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the icons.
    #[must_use]
    pub fn with_icons(mut self, icons: Vec<Icon>) -> Self {
        self.icons = Some(icons);
        self
    }

    /// Sets the website URL.
    #[must_use]
    pub fn with_website_url(mut self, url: impl Into<String>) -> Self {
        self.website_url = Some(url.into());
        self
    }
}

open_enum! {
    /// The theme an icon is designed for.
    pub enum IconTheme {
        /// For light backgrounds.
        Light = "light",
        /// For dark backgrounds.
        Dark = "dark",
    }
}

/// An icon a UI may display. Its `src` is untrusted server data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// MIME type override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme this icon suits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// An icon at `src`.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the sizes.
    #[must_use]
    pub fn with_sizes(mut self, sizes: Vec<String>) -> Self {
        self.sizes = Some(sizes);
        self
    }

    /// Sets the theme.
    #[must_use]
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }
}

open_enum! {
    /// The sender or recipient of a message in a conversation.
    pub enum Role {
        /// The user.
        User = "user",
        /// The assistant (the model).
        Assistant = "assistant",
    }
}

/// Hints for how a client uses or displays an object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who the content is intended for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Annotations {
    /// Empty annotations.
    pub fn new() -> Self {
        Annotations::default()
    }

    /// Sets the audience.
    #[must_use]
    pub fn with_audience(mut self, audience: Vec<Role>) -> Self {
        self.audience = Some(audience);
        self
    }

    /// Sets the priority (0 to 1).
    #[must_use]
    pub fn with_priority(mut self, priority: f64) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets the last-modified timestamp.
    #[must_use]
    pub fn with_last_modified(mut self, timestamp: impl Into<String>) -> Self {
        self.last_modified = Some(timestamp.into());
        self
    }
}

/// Params of a request that carries only `_meta` (`ping`, `server/discover`,
/// `roots/list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct RequestParams {
    /// Request metadata (required in 2026-07-28, where the core fills it).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl RequestParams {
    /// Params with empty metadata.
    pub fn new() -> Self {
        RequestParams::default()
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// Params of a notification that carries only `_meta` (the list-changed
/// notifications, `notifications/initialized`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct NotificationParams {
    /// Notification metadata (2026-07-28: `io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl NotificationParams {
    /// Params with empty metadata.
    pub fn new() -> Self {
        NotificationParams::default()
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// Params of a paginated list request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The `nextCursor` of the previous page; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
}

impl PaginatedRequestParams {
    /// The first page.
    pub fn new() -> Self {
        PaginatedRequestParams::default()
    }

    /// The page after `cursor`.
    #[must_use]
    pub fn with_cursor(mut self, cursor: impl Into<Cursor>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = meta;
        self
    }
}

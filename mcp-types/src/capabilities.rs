//! Client and server capabilities of both revisions.
//!
//! One type per side covers both revisions; fields that exist in only one
//! revision say so. 2025-11-25 has `tasks` (core tasks) and
//! `roots.listChanged`; 2026-07-28 drops them and adds `extensions`, where
//! the tasks extension (`io.modelcontextprotocol/tasks`) is declared.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::JsonObject;
use crate::version::Era;

/// Capabilities a client declares.
///
/// ```
/// use mcp_types::capabilities::ClientCapabilities;
/// use mcp_types::meta::TASKS_EXTENSION;
/// let caps = ClientCapabilities::new()
///     .with_elicitation_form()
///     .with_sampling_tools()
///     .with_extension(TASKS_EXTENSION, Default::default());
/// assert!(caps.has_extension(TASKS_EXTENSION));
/// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({
///     "sampling": {"tools": {}},
///     "elicitation": {"form": {}},
///     "extensions": {"io.modelcontextprotocol/tasks": {}}
/// }));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Non-standard experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The client can list roots (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from an LLM (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can elicit input from the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// 2025-11-25 only: core task support on the client side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TasksCapability>,
    /// 2026-07-28 only: extensions the client supports, by id, with settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// The `roots` client capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RootsCapability {
    /// 2025-11-25 only: the client sends `notifications/roots/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `sampling` client capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingCapability {
    /// Supports `includeContext` values other than `none` (soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Supports `tools` and `toolChoice` in sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// The `elicitation` client capability. An empty object means form mode only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Whether form mode is supported (an empty capability implies it).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// The 2025-11-25 `tasks` capability (both sides): `list`, `cancel`, and a
/// tree of task-augmentable request methods under `requests`
/// (e.g. `{"tools": {"call": {}}}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TasksCapability {
    /// `tasks/list` is supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// `tasks/cancel` is supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Methods that may be task-augmented, as a tree keyed by method segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<JsonObject>,
}

impl TasksCapability {
    /// Whether `method` (e.g. `"tools/call"`) may be task-augmented.
    ///
    /// ```
    /// use mcp_types::capabilities::TasksCapability;
    /// let caps: TasksCapability =
    ///     serde_json::from_str(r#"{"requests":{"tools":{"call":{}}}}"#).unwrap();
    /// assert!(caps.supports_request("tools/call"));
    /// assert!(!caps.supports_request("sampling/createMessage"));
    /// ```
    pub fn supports_request(&self, method: &str) -> bool {
        let Some(tree) = &self.requests else {
            return false;
        };
        let mut node = tree;
        let mut segments = method.split('/').peekable();
        while let Some(segment) = segments.next() {
            match node.get(segment) {
                Some(Value::Object(next)) => node = next,
                _ => return false,
            }
            if segments.peek().is_none() {
                return true;
            }
        }
        false
    }

    /// Marks `method` as task-augmentable.
    #[must_use]
    pub fn with_request(mut self, method: &str) -> Self {
        let segments: Vec<&str> = method.split('/').collect();
        insert_path(self.requests.get_or_insert_with(Map::new), &segments);
        self
    }
}

fn insert_path(node: &mut JsonObject, segments: &[&str]) {
    if let Some((first, rest)) = segments.split_first() {
        let entry = node
            .entry((*first).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        if let Value::Object(next) = entry {
            insert_path(next, rest);
        }
    }
}

impl ClientCapabilities {
    /// No capabilities.
    pub fn new() -> Self {
        ClientCapabilities::default()
    }

    /// Declares `roots` (2026-07-28 shape: an empty object).
    #[must_use]
    pub fn with_roots(mut self) -> Self {
        self.roots.get_or_insert_with(RootsCapability::default);
        self
    }

    /// Declares `roots.listChanged` (2025-11-25 only).
    #[must_use]
    pub fn with_roots_list_changed(mut self) -> Self {
        self.roots
            .get_or_insert_with(RootsCapability::default)
            .list_changed = Some(true);
        self
    }

    /// Declares `sampling`.
    #[must_use]
    pub fn with_sampling(mut self) -> Self {
        self.sampling
            .get_or_insert_with(SamplingCapability::default);
        self
    }

    /// Declares `sampling.tools` (tool use inside sampling).
    #[must_use]
    pub fn with_sampling_tools(mut self) -> Self {
        self.sampling
            .get_or_insert_with(SamplingCapability::default)
            .tools = Some(Map::new());
        self
    }

    /// Declares `sampling.context` (soft-deprecated `includeContext`).
    #[must_use]
    pub fn with_sampling_context(mut self) -> Self {
        self.sampling
            .get_or_insert_with(SamplingCapability::default)
            .context = Some(Map::new());
        self
    }

    /// Declares form-mode elicitation.
    #[must_use]
    pub fn with_elicitation_form(mut self) -> Self {
        self.elicitation
            .get_or_insert_with(ElicitationCapability::default)
            .form = Some(Map::new());
        self
    }

    /// Declares URL-mode elicitation.
    #[must_use]
    pub fn with_elicitation_url(mut self) -> Self {
        self.elicitation
            .get_or_insert_with(ElicitationCapability::default)
            .url = Some(Map::new());
        self
    }

    /// Declares the 2025-11-25 `tasks` capability.
    #[must_use]
    pub fn with_tasks(mut self, tasks: TasksCapability) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Declares an extension (2026-07-28) with its settings object.
    #[must_use]
    pub fn with_extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.extensions
            .get_or_insert_with(Map::new)
            .insert(id.into(), Value::Object(settings));
        self
    }

    /// Declares an experimental capability.
    #[must_use]
    pub fn with_experimental(mut self, name: impl Into<String>, settings: JsonObject) -> Self {
        self.experimental
            .get_or_insert_with(Map::new)
            .insert(name.into(), Value::Object(settings));
        self
    }

    /// Whether the extension `id` is declared.
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// These capabilities in the shape of `era`: modern drops `tasks` and
    /// `roots.listChanged`; legacy drops `extensions`.
    ///
    /// ```
    /// use mcp_types::capabilities::ClientCapabilities;
    /// use mcp_types::Era;
    /// let caps = ClientCapabilities::new().with_roots_list_changed().with_extension("x.y/z", Default::default());
    /// assert_eq!(serde_json::to_value(caps.for_era(Era::Modern)).unwrap(),
    ///     serde_json::json!({"roots": {}, "extensions": {"x.y/z": {}}}));
    /// assert_eq!(serde_json::to_value(caps.for_era(Era::Legacy)).unwrap(),
    ///     serde_json::json!({"roots": {"listChanged": true}}));
    /// ```
    pub fn for_era(&self, era: Era) -> ClientCapabilities {
        let mut caps = self.clone();
        match era {
            Era::Modern => {
                caps.tasks = None;
                if let Some(roots) = &mut caps.roots {
                    roots.list_changed = None;
                }
            }
            Era::Legacy => caps.extensions = None,
        }
        caps
    }
}

/// Capabilities a server declares.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Non-standard experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The server sends log messages (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server answers `completion/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// 2025-11-25 only: core task support on the server side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TasksCapability>,
    /// Extensions the server supports, by id, with settings: a 2026-07-28
    /// field, which a 2025-11-25 `initialize` result may carry too for an
    /// extension that is defined there (the skills extension, SEP-2640).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// A capability with an optional `listChanged` flag (prompts, tools).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListChangedCapability {
    /// The server notifies when the list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Subscriptions to individual resources are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when the resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

impl ServerCapabilities {
    /// No capabilities.
    pub fn new() -> Self {
        ServerCapabilities::default()
    }

    /// Declares tools, with `listChanged` when `list_changed`.
    #[must_use]
    pub fn with_tools(mut self, list_changed: bool) -> Self {
        self.tools = Some(ListChangedCapability {
            list_changed: list_changed.then_some(true),
        });
        self
    }

    /// Declares prompts, with `listChanged` when `list_changed`.
    #[must_use]
    pub fn with_prompts(mut self, list_changed: bool) -> Self {
        self.prompts = Some(ListChangedCapability {
            list_changed: list_changed.then_some(true),
        });
        self
    }

    /// Declares resources with the given flags.
    #[must_use]
    pub fn with_resources(mut self, subscribe: bool, list_changed: bool) -> Self {
        self.resources = Some(ResourcesCapability {
            subscribe: subscribe.then_some(true),
            list_changed: list_changed.then_some(true),
        });
        self
    }

    /// Declares logging.
    #[must_use]
    pub fn with_logging(mut self) -> Self {
        self.logging = Some(Map::new());
        self
    }

    /// Declares completions.
    #[must_use]
    pub fn with_completions(mut self) -> Self {
        self.completions = Some(Map::new());
        self
    }

    /// Declares the 2025-11-25 `tasks` capability.
    #[must_use]
    pub fn with_tasks(mut self, tasks: TasksCapability) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Declares an extension (2026-07-28) with its settings object.
    #[must_use]
    pub fn with_extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.extensions
            .get_or_insert_with(Map::new)
            .insert(id.into(), Value::Object(settings));
        self
    }

    /// Whether the extension `id` is declared.
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_request_tree_round_trips_through_builders() {
        let caps = TasksCapability::default()
            .with_request("tools/call")
            .with_request("sampling/createMessage");
        assert!(caps.supports_request("tools/call"));
        assert!(caps.supports_request("sampling/createMessage"));
        assert!(!caps.supports_request("elicitation/create"));
        assert_eq!(
            serde_json::to_value(&caps).unwrap(),
            serde_json::json!({"requests": {"tools": {"call": {}}, "sampling": {"createMessage": {}}}})
        );
    }

    #[test]
    fn empty_elicitation_capability_means_form() {
        let e: ElicitationCapability = serde_json::from_str("{}").unwrap();
        assert!(e.supports_form() && !e.supports_url());
        let e: ElicitationCapability = serde_json::from_str(r#"{"url":{}}"#).unwrap();
        assert!(!e.supports_form() && e.supports_url());
    }
}

//! Tools: `tools/list` and `tools/call`.
//!
//! A tool's `inputSchema` and `outputSchema` are kept exactly as the server
//! sent them (same keys, same order, same `$ref`s): never normalized, never
//! dereferenced. `x-mcp-header` annotations live inside `inputSchema`
//! properties and are read from there by the core.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::{Cursor, Icon, JsonObject};
use crate::content::ContentBlock;
use crate::macros::{list_result, open_enum};
use crate::meta::Meta;
use crate::results::{CacheScope, InputResponses, ResultType, complete};

mod read;

/// A tool the server offers.
///
/// ```
/// use mcp_types::tools::Tool;
/// let json = r##"{"name":"q","inputSchema":{"type":"object","properties":{"z":{"$ref":"#/$defs/Z"},"a":{"type":"string"}}}}"##;
/// let tool: Tool = serde_json::from_str(json).unwrap();
/// // Kept verbatim: key order and `$ref` untouched.
/// assert_eq!(serde_json::to_string(&tool).unwrap(), json);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description (a hint to the model; untrusted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments, exactly as sent (`type: "object"`).
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`, exactly as sent (2025-11-25: an
    /// object schema; 2026-07-28: any schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (untrusted unless the server is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// 2025-11-25 only: task support of this tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl Tool {
    /// A tool with a name and input schema.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: Meta::new(),
        }
    }

    /// A tool whose input schema is derived from `T` (JSON Schema 2020-12,
    /// via `schemars`).
    ///
    /// ```
    /// use mcp_types::tools::Tool;
    /// #[derive(schemars::JsonSchema)]
    /// struct Args { city: String }
    /// let tool = Tool::for_arguments::<Args>("get_weather");
    /// assert_eq!(tool.input_schema["type"], "object");
    /// assert_eq!(tool.input_schema["required"][0], "city");
    /// ```
    pub fn for_arguments<T: schemars::JsonSchema>(name: impl Into<String>) -> Self {
        Tool::new(name, schema_object_for::<T>())
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the output schema to the one derived from `T`.
    #[must_use]
    pub fn with_output_for<T: schemars::JsonSchema>(mut self) -> Self {
        self.output_schema = Some(Value::Object(schema_object_for::<T>()));
        self
    }

    /// Sets the output schema.
    #[must_use]
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the annotations.
    #[must_use]
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the 2025-11-25 task support.
    #[must_use]
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.execution = Some(ToolExecution {
            task_support: Some(support),
        });
        self
    }

    /// The display name: `title`, then `annotations.title`, then `name`.
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }

    /// The 2025-11-25 task support; absent means `forbidden`.
    pub fn task_support(&self) -> TaskSupport {
        self.execution
            .as_ref()
            .and_then(|e| e.task_support.clone())
            .unwrap_or(TaskSupport::Forbidden)
    }
}

/// The JSON Schema (2020-12) of `T` as an object, as tools carry it.
pub fn schema_object_for<T: schemars::JsonSchema>() -> JsonObject {
    match schemars::schema_for!(T).to_value() {
        Value::Object(object) => object,
        // `true` / `false` schemas: spell them as objects.
        Value::Bool(true) => JsonObject::new(),
        other => {
            let mut object = JsonObject::new();
            object.insert("not".to_owned(), other);
            object
        }
    }
}

/// Hints about a tool's behaviour. Untrusted unless the server is trusted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// May perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no extra effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

open_enum! {
    /// Whether a tool may be called as a task (2025-11-25 core tasks).
    pub enum TaskSupport {
        /// Never as a task (the default).
        Forbidden = "forbidden",
        /// Either way.
        Optional = "optional",
        /// Only as a task.
        Required = "required",
    }
}

impl ToolAnnotations {
    /// No hints.
    pub fn new() -> Self {
        ToolAnnotations::default()
    }

    /// Sets `readOnlyHint`.
    #[must_use]
    pub fn read_only(mut self, value: bool) -> Self {
        self.read_only_hint = Some(value);
        self
    }

    /// Sets `destructiveHint`.
    #[must_use]
    pub fn destructive(mut self, value: bool) -> Self {
        self.destructive_hint = Some(value);
        self
    }

    /// Sets `idempotentHint`.
    #[must_use]
    pub fn idempotent(mut self, value: bool) -> Self {
        self.idempotent_hint = Some(value);
        self
    }

    /// Sets `openWorldHint`.
    #[must_use]
    pub fn open_world(mut self, value: bool) -> Self {
        self.open_world_hint = Some(value);
        self
    }
}

/// Execution properties of a tool (2025-11-25 only).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Task support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

list_result! {
    /// Result of `tools/list`.
    pub struct ListToolsResult {
        /// The tools on this page.
        pub tools: Vec<Tool>,
    }
    /// A page of tools, `resultType: "complete"`.
    fn new;
}

/// Params of `tools/call`.
///
/// In 2025-11-25 a call may be task-augmented: wrap these params in
/// [`TaskAugmented`](crate::tasks::legacy::TaskAugmented). In 2026-07-28 a
/// retry after `input_required` carries `inputResponses` and `requestState`.
///
/// ```
/// use mcp_types::tools::CallToolRequestParams;
/// let p = CallToolRequestParams::new("get_weather")
///     .with_argument("location", "New York");
/// assert_eq!(serde_json::to_value(&p).unwrap(),
///     serde_json::json!({"name": "get_weather", "arguments": {"location": "New York"}}));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The tool name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// 2026-07-28 retry: answers to the previous `input_required` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// 2026-07-28 retry: the `requestState` echoed verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl CallToolRequestParams {
    /// Call the tool `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        CallToolRequestParams {
            meta: Meta::new(),
            name: name.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
        }
    }

    /// Sets all arguments.
    #[must_use]
    pub fn with_arguments(mut self, arguments: JsonObject) -> Self {
        self.arguments = Some(arguments);
        self
    }

    /// Adds one argument.
    #[must_use]
    pub fn with_argument(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.arguments
            .get_or_insert_with(JsonObject::new)
            .insert(name.into(), value.into());
        self
    }

    /// Sets the arguments from any serializable value that is a JSON object.
    ///
    /// # Errors
    /// When `arguments` does not serialize to a JSON object.
    pub fn with_typed_arguments<T: serde::Serialize>(
        mut self,
        arguments: &T,
    ) -> Result<Self, serde_json::Error> {
        match serde_json::to_value(arguments)? {
            Value::Object(object) => {
                self.arguments = Some(object);
                Ok(self)
            }
            _ => Err(serde::ser::Error::custom(
                "tool arguments must be a JSON object",
            )),
        }
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.meta = meta;
        self
    }

    /// Sets the retry fields of a 2026-07-28 multi-round-trip request.
    #[must_use]
    pub fn with_input_responses(
        mut self,
        responses: InputResponses,
        request_state: Option<String>,
    ) -> Self {
        self.input_responses = Some(responses);
        self.request_state = request_state;
        self
    }
}

/// Result of `tools/call`. `structuredContent` may come without `content`
/// (read as an empty list) and is any JSON value in 2026-07-28.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// 2026-07-28: `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Unstructured result.
    #[serde(default, deserialize_with = "crate::content::blocks")]
    pub content: Vec<ContentBlock>,
    /// Structured result, to validate against the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool reported an error (visible to the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl CallToolResult {
    /// A successful result, `resultType: "complete"`.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            meta: Meta::new(),
            result_type: complete(),
            content,
            structured_content: None,
            is_error: None,
        }
    }

    /// A tool error result with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..CallToolResult::new(vec![ContentBlock::text(message)])
        }
    }

    /// Sets the structured content.
    #[must_use]
    pub fn with_structured_content(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }

    /// The text of the result: every text block's text, joined by `\n`
    /// (other blocks are skipped; see [`ContentBlock::as_text`] to walk the
    /// blocks yourself, and [`CallToolResult::structured_as`] for a typed
    /// structured result). Empty when there is no text block.
    ///
    /// ```
    /// use mcp_types::content::ContentBlock;
    /// use mcp_types::tools::CallToolResult;
    /// let r = CallToolResult::new(vec![ContentBlock::text("one"), ContentBlock::text("two")]);
    /// assert_eq!(r.text(), "one\ntwo");
    /// assert_eq!(CallToolResult::new(vec![]).text(), "");
    /// ```
    pub fn text(&self) -> String {
        let mut out = String::new();
        for t in self.content.iter().filter_map(ContentBlock::as_text) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
        out
    }

    /// Decodes the structured content as `T`; `Ok(None)` when absent.
    ///
    /// # Errors
    /// When the structured content does not have the shape of `T`.
    pub fn structured_as<T: serde::de::DeserializeOwned>(
        &self,
    ) -> Result<Option<T>, serde_json::Error> {
        self.structured_content
            .as_ref()
            .map(T::deserialize)
            .transpose()
    }

    /// Whether the tool reported an error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

//! The static catalogue: tool, resource, template and prompt definitions.

use mcp_types::Era;
use serde_json::{Value, json};

/// Number of filler tools that pad the list to 25 entries.
pub(crate) const FILLER_TOOLS: usize = 12;

/// The list definitions, built once.
pub(crate) struct Catalog {
    pub(crate) tools_legacy: Vec<Value>,
    pub(crate) tools_modern: Vec<Value>,
    pub(crate) resources: Vec<Value>,
    pub(crate) templates: Vec<Value>,
    pub(crate) prompts: Vec<Value>,
}

impl Catalog {
    pub(crate) fn new() -> Catalog {
        Catalog {
            tools_legacy: tools(Era::Legacy),
            tools_modern: tools(Era::Modern),
            resources: resources(),
            templates: vec![json!({
                "uriTemplate": "demo://item/{id}",
                "name": "item",
                "title": "Demo item",
                "description": "A numbered item whose value the `trigger` tool can change.",
                "mimeType": "text/plain"
            })],
            prompts: prompts(),
        }
    }

    /// The tool list of an era.
    pub(crate) fn tools(&self, era: Era) -> &[Value] {
        match era {
            Era::Legacy => &self.tools_legacy,
            Era::Modern => &self.tools_modern,
        }
    }

    /// The definition of a tool by name.
    pub(crate) fn tool(&self, era: Era, name: &str) -> Option<&Value> {
        self.tools(era)
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

fn tool(name: &str, description: &str, input_schema: Value) -> Value {
    json!({ "name": name, "description": description, "inputSchema": input_schema })
}

fn tools(era: Era) -> Vec<Value> {
    let mut add = tool(
        "add",
        "Adds two numbers; returns structured output.",
        object(
            json!({ "a": { "type": "number" }, "b": { "type": "number" } }),
            &["a", "b"],
        ),
    );
    add["outputSchema"] = object(json!({ "sum": { "type": "number" } }), &["sum"]);
    add["annotations"] = json!({ "readOnlyHint": true, "idempotentHint": true });

    let mut long_task = tool(
        "long_task",
        "Works for `steps` steps of `step_ms` ms; runs as a task when the client asks \
         (2025-11-25 params.task) or declares io.modelcontextprotocol/tasks (2026-07-28). \
         With `confirm` it asks for confirmation half way; with `fail` it ends in an error.",
        object(
            json!({
                "steps": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 3 },
                "step_ms": { "type": "integer", "minimum": 0, "maximum": 60000, "default": 100 },
                "confirm": { "type": "boolean", "default": false },
                "fail": { "type": "boolean", "default": false }
            }),
            &[],
        ),
    );
    if era == Era::Legacy {
        long_task["execution"] = json!({ "taskSupport": "optional" });
    }

    let mut out = vec![
        tool(
            "echo",
            "Echoes `text` back as text content.",
            object(json!({ "text": { "type": "string" } }), &["text"]),
        ),
        add,
        tool(
            "slow_count",
            "Counts to `count`, one step every `delay_ms` ms, reporting progress and \
             info log messages; honours cancellation.",
            object(
                json!({
                    "count": { "type": "integer", "minimum": 0, "maximum": 10000, "default": 5 },
                    "delay_ms": { "type": "integer", "minimum": 0, "maximum": 60000, "default": 100 }
                }),
                &[],
            ),
        ),
        tool(
            "ask_name",
            "Asks the user for their name (elicitation) and greets them.",
            object(json!({}), &[]),
        ),
        tool(
            "interview",
            "Asks for a name, then a favourite colour: two elicitation rounds.",
            object(json!({}), &[]),
        ),
        tool(
            "summarize",
            "Summarizes `text` with the client's model (sampling).",
            object(json!({ "text": { "type": "string" } }), &["text"]),
        ),
        tool(
            "list_roots",
            "Lists the client's roots.",
            object(json!({}), &[]),
        ),
        long_task,
        tool(
            "big",
            "Returns a text result of exactly `bytes` bytes (at most 64 MiB).",
            object(
                json!({ "bytes": { "type": "integer", "minimum": 0, "maximum": 67108864 } }),
                &["bytes"],
            ),
        ),
        tool(
            "regional",
            "Runs `query` in `region`; both `region` and `priority` are mirrored into \
             Mcp-Param-* headers over HTTP.",
            object(
                json!({
                    "region": { "type": "string", "x-mcp-header": "Region" },
                    "priority": { "type": "integer", "x-mcp-header": "Priority" },
                    "query": { "type": "string" }
                }),
                &["region", "query"],
            ),
        ),
        tool(
            "trigger",
            "Emits a change: `event` is tools_list_changed, prompts_list_changed, \
             resources_list_changed or resource_updated (with `uri`; an item URI also \
             gets `value`).",
            object(
                json!({
                    "event": {
                        "type": "string",
                        "enum": ["tools_list_changed", "prompts_list_changed",
                                 "resources_list_changed", "resource_updated"]
                    },
                    "uri": { "type": "string" },
                    "value": { "type": "string" }
                }),
                &["event"],
            ),
        ),
        tool(
            "authorize",
            "Sends the user to a URL (URL-mode elicitation). With `via_error` \
             (2025-11-25 only) the first call fails with -32042 and a retry succeeds.",
            object(
                json!({ "via_error": { "type": "boolean", "default": false } }),
                &[],
            ),
        ),
        tool(
            "fail",
            "Always returns a tool execution error (isError: true) with `message`.",
            object(json!({ "message": { "type": "string" } }), &[]),
        ),
        crate::callbacks::definition(),
    ];
    for i in 1..=FILLER_TOOLS {
        out.push(tool(
            &format!("filler_{i:02}"),
            "A filler tool that makes the list long enough to paginate.",
            object(json!({}), &[]),
        ));
    }
    out
}

fn resources() -> Vec<Value> {
    let mut out = vec![
        json!({
            "uri": "demo://readme",
            "name": "readme",
            "title": "Demo README",
            "mimeType": "text/markdown",
            "description": "What this server offers."
        }),
        json!({
            "uri": "demo://config.json",
            "name": "config",
            "mimeType": "application/json"
        }),
        json!({
            "uri": "demo://binary",
            "name": "binary",
            "mimeType": "application/octet-stream",
            "description": "Eight bytes, as a blob."
        }),
    ];
    out.push(json!({
        "uri": "demo://secret",
        "name": "secret",
        "mimeType": "text/plain",
        "description": "Reading it asks for a passphrase (elicitation)."
    }));
    for id in 1..=3 {
        out.push(json!({
            "uri": format!("demo://item/{id}"),
            "name": format!("item-{id}"),
            "mimeType": "text/plain"
        }));
    }
    out
}

fn prompts() -> Vec<Value> {
    vec![
        json!({
            "name": "greeting",
            "title": "Greeting",
            "description": "Greets someone in a style.",
            "arguments": [
                { "name": "name", "description": "Who to greet", "required": true },
                { "name": "style", "description": "casual or formal", "required": false }
            ]
        }),
        json!({
            "name": "code_review",
            "description": "Asks for a review of a code snippet.",
            "arguments": [
                { "name": "language", "description": "Programming language", "required": true },
                { "name": "code", "description": "The code", "required": true }
            ]
        }),
        json!({
            "name": "plain",
            "description": "A prompt without arguments that embeds the README resource."
        }),
    ]
}

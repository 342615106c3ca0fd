//! The `http` family: `sse-retry` (2025-11-25), `http-standard-headers`,
//! `http-custom-headers` and `http-invalid-tool-headers` (2026-07-28). The
//! headers are the client's business: these scenarios only make ordinary
//! calls through the public API.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_client::mcp_types::tools::Tool;
use mcp_client::{CallOptions, Client};
use serde_json::{Map, Value, json};

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{
    LEGACY, MODERN, builder, connect, expect_success, failed, text_of, unexpected,
};

/// The family.
pub const FAMILY: Family = Family::new(
    "http",
    &[
        Scenario::new("sse-retry", LEGACY, |inv| {
            Box::pin(sse_retry(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("http-standard-headers", MODERN, |inv| {
            Box::pin(standard_headers(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("http-custom-headers", MODERN, |inv| {
            Box::pin(custom_headers(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("http-invalid-tool-headers", MODERN, |inv| {
            Box::pin(invalid_tool_headers(inv)) as ScenarioFuture<'_>
        }),
    ],
);

/// `sse-retry` (SEP-1699): the response to `test_reconnection` only arrives
/// after the client resumes the closed POST stream with a GET carrying
/// `Last-Event-ID`, no sooner than the server's `retry`.
async fn sse_retry(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    require_tool(&tools, "test_reconnection")?;
    let opts = CallOptions::new().with_timeout(Duration::from_secs(10));
    let result = client
        .call_tool_with("test_reconnection", json!({}), opts)
        .await
        .map_err(failed("tools/call test_reconnection"))?;
    expect_success("test_reconnection", &result)?;
    client.close().await;
    Ok(())
}

/// `http-standard-headers`: one request of every graded method, so the
/// server sees `Mcp-Method` and `Mcp-Name` on each.
async fn standard_headers(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    for tool in &tools {
        let result = client
            .call_tool(&tool.name, json!({}))
            .await
            .map_err(failed(&format!("tools/call {}", tool.name)))?;
        expect_success(&tool.name, &result)?;
    }
    let resources = client
        .list_all_resources()
        .await
        .map_err(failed("resources/list"))?;
    for resource in &resources {
        client
            .read_resource(&resource.uri)
            .await
            .map_err(failed(&format!("resources/read {}", resource.uri)))?;
    }
    let prompts = client
        .list_all_prompts()
        .await
        .map_err(failed("prompts/list"))?;
    for prompt in &prompts {
        client
            .get_prompt(&prompt.name, BTreeMap::new())
            .await
            .map_err(failed(&format!("prompts/get {}", prompt.name)))?;
    }
    if tools.is_empty() || resources.is_empty() || prompts.is_empty() {
        return Err(unexpected(
            "listing",
            format!(
                "expected tools, resources and prompts; got {} / {} / {}",
                tools.len(),
                resources.len(),
                prompts.len()
            ),
        ));
    }
    client.close().await;
    Ok(())
}

/// One call the suite asks for in `MCP_CONFORMANCE_CONTEXT.toolCalls`.
struct ToolCall {
    name: String,
    arguments: Value,
}

/// Reads `toolCalls` from the context.
fn tool_calls(invocation: &Invocation) -> Result<Vec<ToolCall>, ScenarioError> {
    let bad = |what: &str| unexpected("MCP_CONFORMANCE_CONTEXT", what);
    let calls = invocation
        .context
        .as_ref()
        .and_then(|c| c.get("toolCalls"))
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no toolCalls array"))?;
    calls
        .iter()
        .map(|call| {
            let name = call
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a toolCalls entry has no name"))?;
            let arguments = call
                .get("arguments")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            Ok(ToolCall {
                name: name.to_owned(),
                arguments,
            })
        })
        .collect()
}

/// `http-custom-headers` (SEP-2243): list the tools, then make the calls
/// the context names; the client mirrors `x-mcp-header` arguments into
/// `Mcp-Param-*` headers.
async fn custom_headers(invocation: &Invocation) -> Result<(), ScenarioError> {
    let calls = tool_calls(invocation)?;
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    for call in calls {
        require_tool(&tools, &call.name)?;
        let result = client
            .call_tool(&call.name, call.arguments)
            .await
            .map_err(failed(&format!("tools/call {}", call.name)))?;
        expect_success(&call.name, &result)?;
    }
    client.close().await;
    Ok(())
}

/// Arguments for a tool of `http-invalid-tool-headers`: a string for every
/// string property, so each annotated header has a value.
fn sample_arguments(tool: &Tool) -> Value {
    let mut arguments = Map::new();
    if let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    {
        for (name, schema) in properties {
            if schema.get("type").and_then(Value::as_str) == Some("string") {
                arguments.insert(name.clone(), Value::from("us-west1"));
            }
        }
    }
    Value::Object(arguments)
}

/// `http-invalid-tool-headers` (SEP-2243): call every tool the client
/// still offers after `tools/list`. A tool whose `x-mcp-header`
/// annotations are invalid must be dropped (or refused locally); the valid
/// one must work. Refusals are reported on stderr, not as failures.
async fn invalid_tool_headers(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    require_tool(&tools, "valid_tool")?;
    for tool in &tools {
        call_offered(&client, tool).await?;
    }
    client.close().await;
    Ok(())
}

/// Calls one offered tool: `valid_tool` must succeed; any other may be
/// refused by the client.
async fn call_offered(client: &Client, tool: &Tool) -> Result<(), ScenarioError> {
    let outcome = client.call_tool(&tool.name, sample_arguments(tool)).await;
    match outcome {
        Ok(result) if tool.name == "valid_tool" => expect_success(&tool.name, &result),
        Ok(result) => {
            eprintln!("{}: called, result {:?}", tool.name, text_of(&result));
            Ok(())
        }
        Err(e) if tool.name == "valid_tool" => Err(failed("tools/call valid_tool")(e)),
        Err(e) => {
            eprintln!("{}: refused by the client: {e}", tool.name);
            Ok(())
        }
    }
}

/// Fails unless the listing has the tool.
fn require_tool(tools: &[Tool], name: &str) -> Result<(), ScenarioError> {
    if tools.iter().any(|t| t.name == name) {
        Ok(())
    } else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        Err(unexpected(
            "tools/list",
            format!("no tool {name:?} among {names:?}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::invocation::{CONTEXT_VAR, SCENARIO_VAR};

    fn invocation(context: Option<&str>) -> Invocation {
        Invocation::parse([OsString::from("http://localhost:1")], |name| match name {
            SCENARIO_VAR => Some("http-custom-headers".into()),
            CONTEXT_VAR => context.map(OsString::from),
            _ => None,
        })
        .expect("valid invocation")
    }

    #[test]
    fn reads_the_tool_calls_of_the_context_in_order() {
        let inv = invocation(Some(
            r#"{"name":"http-custom-headers","toolCalls":[
                {"name":"a","arguments":{"region":"us-west1","verbose":null}},
                {"name":"b"}]}"#,
        ));
        let calls = tool_calls(&inv).expect("valid");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "a");
        assert_eq!(
            calls[0].arguments,
            json!({"region": "us-west1", "verbose": null})
        );
        assert_eq!(calls[1].name, "b");
        assert_eq!(calls[1].arguments, json!({}));
    }

    #[test]
    fn a_missing_or_malformed_context_is_an_error() {
        assert!(tool_calls(&invocation(None)).is_err());
        assert!(tool_calls(&invocation(Some(r#"{"toolCalls":{}}"#))).is_err());
        assert!(tool_calls(&invocation(Some(r#"{"toolCalls":[{"arguments":{}}]}"#))).is_err());
    }

    #[test]
    fn sample_arguments_fill_string_properties_only() {
        let tool: Tool = serde_json::from_value(json!({
            "name": "t",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer"},
                "meta": {"type": "object"}}}
        }))
        .expect("parses");
        assert_eq!(sample_arguments(&tool), json!({"region": "us-west1"}));
    }
}

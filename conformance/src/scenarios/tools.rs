//! The `tools` family: `tools_call` (2025-06-18 and both revisions),
//! `json-schema-2020-12-preservation` (both) and `json-schema-ref-no-deref`
//! (2026-07-28).

use mcp_client::mcp_types::tools::Tool;
use serde_json::{Value, json};

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{
    BOTH, MODERN, SINCE_2025_06_18, builder, connect, expect_success, failed, text_of, unexpected,
};

/// The family.
pub const FAMILY: Family = Family::new(
    "tools",
    &[
        Scenario::new("tools_call", SINCE_2025_06_18, |inv| {
            Box::pin(tools_call(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("json-schema-2020-12-preservation", BOTH, |inv| {
            Box::pin(json_schema_preservation(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("json-schema-ref-no-deref", MODERN, |inv| {
            Box::pin(json_schema_ref_no_deref(inv)) as ScenarioFuture<'_>
        }),
    ],
);

/// Finds a tool by name in a listing.
fn find<'t>(tools: &'t [Tool], name: &str) -> Result<&'t Tool, ScenarioError> {
    tools.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        unexpected("tools/list", format!("no tool {name:?} among {names:?}"))
    })
}

/// `tools_call`: list the tools, call `add_numbers` with 5 and 3, and check
/// the sum in its text.
async fn tools_call(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    find(&tools, "add_numbers")?;
    let result = client
        .call_tool("add_numbers", json!({"a": 5, "b": 3}))
        .await
        .map_err(failed("tools/call add_numbers"))?;
    expect_success("add_numbers", &result)?;
    let text = text_of(&result);
    if !text.contains('8') {
        return Err(unexpected(
            "tools/call add_numbers",
            format!("expected the sum 8 in {text:?}"),
        ));
    }
    client.close().await;
    Ok(())
}

/// `json-schema-2020-12-preservation`: echo the `inputSchema` of
/// `json_schema_2020_12_tool`, exactly as the client exposes it, back
/// through `json_schema_echo`. The server grades what survived.
async fn json_schema_preservation(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    let schema = Value::Object(
        find(&tools, "json_schema_2020_12_tool")?
            .input_schema
            .clone(),
    );
    find(&tools, "json_schema_echo")?;
    let result = client
        .call_tool("json_schema_echo", json!({ "schema": schema }))
        .await
        .map_err(failed("tools/call json_schema_echo"))?;
    expect_success("json_schema_echo", &result)?;
    client.close().await;
    Ok(())
}

/// `json-schema-ref-no-deref`: list the tools; the client must never fetch
/// the network `$ref` in `lookup_user`'s schema (schemas stay raw JSON).
async fn json_schema_ref_no_deref(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(failed("tools/list"))?;
    let tool = find(&tools, "lookup_user")?;
    let profile = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.pointer("/profile/$ref"));
    if !profile.is_some_and(Value::is_string) {
        return Err(unexpected(
            "tools/list",
            format!("lookup_user's profile $ref was not kept verbatim: {profile:?}"),
        ));
    }
    client.close().await;
    Ok(())
}

//! Tools, prompts, resources and completion.

use std::collections::BTreeMap;

use mcp_client::{CallOptions, Client};
use mcp_types::completion::{CompleteRequestParams, CompletionReference};
use mcp_types::resources::Resource;
use mcp_types::tools::CallToolResult;
use serde_json::{Value, json};

use crate::args::{CallArgs, CompleteArgs, PromptsCmd, ResourcesCmd, ToolsCmd};
use crate::connect::Session;
use crate::exit::{CliError, Exit};
use crate::render::{Out, first_line, signature};
use crate::tool_args;

/// `tools list|call`.
pub(super) async fn tools(client: &Client, cmd: &ToolsCmd, out: &Out) -> Result<Exit, CliError> {
    match cmd {
        ToolsCmd::List => {
            let tools = client.list_all_tools().await?;
            if out.json {
                out.json_doc(&json!({ "tools": tools }));
                return Ok(Exit::Ok);
            }
            for t in &tools {
                out.line(&format!(
                    "{}({})  {}",
                    out.ui.bold(&t.name),
                    signature(&t.input_schema),
                    out.ui.dim(&first_line(t.description.as_deref(), 80))
                ));
            }
            Ok(Exit::Ok)
        }
        ToolsCmd::Call(args) => call(client, args, out).await,
    }
}

async fn call(client: &Client, args: &CallArgs, out: &Out) -> Result<Exit, CliError> {
    // Parse what needs no server first: a bad --args fails before any call.
    let json = args
        .args
        .as_deref()
        .map(tool_args::read_json_object)
        .transpose()?;
    let tools = client.list_all_tools().await?;
    let Some(tool) = tools.iter().find(|t| t.name == args.name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(CliError::usage(format!(
            "the server has no tool {:?}; it has: {}",
            args.name,
            names.join(", ")
        )));
    };
    let arguments = tool_args::build(&tool.name, &tool.input_schema, json, &args.pairs)?;
    let ui = out.ui.clone();
    let opts = CallOptions::new().on_progress(move |p| ui.progress(&p));
    let result = if args.task {
        let mut task = client
            .call_tool_as_task(&tool.name, arguments, opts)
            .await?;
        if let Some(id) = task.task_id() {
            out.note(&format!("mcp: task {id} started"));
        }
        task.wait().await?
    } else {
        client.call_tool_with(&tool.name, arguments, opts).await?
    };
    out.ui.clear_status();
    tool_result(&tool.name, &result, out)
}

/// Prints a tool result; exit 1 when the tool reported an error.
pub(super) fn tool_result(
    name: &str,
    result: &CallToolResult,
    out: &Out,
) -> Result<Exit, CliError> {
    let failed = result.is_error == Some(true);
    if out.json {
        out.json_doc(&serde_json::to_value(result).unwrap_or(Value::Null));
    } else {
        let blocks: Vec<Value> = result
            .content
            .iter()
            .map(|b| serde_json::to_value(b).unwrap_or(Value::Null))
            .collect();
        out.content(&blocks)?;
        if let Some(s) = &result.structured_content
            && blocks.is_empty()
        {
            out.line(&serde_json::to_string_pretty(s).unwrap_or_default());
        }
    }
    if failed {
        out.note(&format!("mcp: tool {name:?} reported an error"));
        Ok(Exit::ToolError)
    } else {
        Ok(Exit::Ok)
    }
}

/// `prompts list|get`.
pub(super) async fn prompts(
    client: &Client,
    cmd: &PromptsCmd,
    out: &Out,
) -> Result<Exit, CliError> {
    match cmd {
        PromptsCmd::List => {
            let prompts = client.list_all_prompts().await?;
            if out.json {
                out.json_doc(&json!({ "prompts": prompts }));
                return Ok(Exit::Ok);
            }
            for p in &prompts {
                let args: Vec<String> = p
                    .arguments
                    .iter()
                    .flatten()
                    .map(|a| {
                        let opt = if a.required == Some(true) { "" } else { "?" };
                        format!("{}{opt}", a.name)
                    })
                    .collect();
                out.line(&format!(
                    "{}({})  {}",
                    out.ui.bold(&p.name),
                    args.join(", "),
                    out.ui.dim(&first_line(p.description.as_deref(), 80))
                ));
            }
            Ok(Exit::Ok)
        }
        PromptsCmd::Get { name, pairs, args } => {
            let mut map = match args {
                Some(a) => tool_args::read_json_object(a)?,
                None => serde_json::Map::new(),
            };
            map.extend(tool_args::string_pairs(pairs)?);
            let mut strings = BTreeMap::new();
            for (k, v) in map {
                match v {
                    Value::String(s) => strings.insert(k, s),
                    other => {
                        return Err(CliError::usage(format!(
                            "prompt argument {k} must be a string, not {other}"
                        )));
                    }
                };
            }
            let result = client.get_prompt(name, strings).await?;
            if out.json {
                out.json_doc(&serde_json::to_value(&result).unwrap_or(Value::Null));
                return Ok(Exit::Ok);
            }
            if let Some(d) = &result.description {
                out.line(&out.ui.dim(d));
            }
            for m in &result.messages {
                let m = serde_json::to_value(m).unwrap_or(Value::Null);
                out.line(
                    &out.ui
                        .bold(&format!("{}:", m["role"].as_str().unwrap_or("?"))),
                );
                let blocks = match &m["content"] {
                    Value::Array(a) => a.clone(),
                    other => vec![other.clone()],
                };
                out.content(&blocks)?;
            }
            Ok(Exit::Ok)
        }
    }
}

/// `resources ...`.
pub(super) async fn resources(
    session: &mut Session,
    cmd: &ResourcesCmd,
    out: &Out,
) -> Result<Exit, CliError> {
    let client = session.client.clone();
    match cmd {
        ResourcesCmd::List => {
            let list = client.list_all_resources().await?;
            resource_list(&list, out)
        }
        ResourcesCmd::DirectoryRead { uri } => {
            let list = client.read_all_directory(uri).await?;
            resource_list(&list, out)
        }
        ResourcesCmd::Templates => {
            let list = client.list_all_resource_templates().await?;
            if out.json {
                out.json_doc(&json!({ "resourceTemplates": list }));
                return Ok(Exit::Ok);
            }
            for t in &list {
                out.line(&format!("{}  {}", out.ui.bold(&t.uri_template), t.name));
            }
            Ok(Exit::Ok)
        }
        ResourcesCmd::Read { uri } => {
            let result = client.read_resource(uri).await?;
            let doc = serde_json::to_value(&result).unwrap_or(Value::Null);
            if out.json {
                out.json_doc(&doc);
                return Ok(Exit::Ok);
            }
            for c in doc["contents"].as_array().into_iter().flatten() {
                out.resource_contents(c)?;
            }
            Ok(Exit::Ok)
        }
        ResourcesCmd::Subscribe { uri, count } => {
            super::streams::subscribe(session, uri, *count, out).await
        }
        ResourcesCmd::Unsubscribe { uri } => {
            client.unsubscribe(uri).await?;
            if out.json {
                out.json_doc(&json!({ "unsubscribed": uri }));
            } else {
                out.line(&format!("unsubscribed from {uri}"));
            }
            Ok(Exit::Ok)
        }
    }
}

/// Prints resources: `{"resources": [...]}` with `--json`, one line each
/// otherwise.
fn resource_list(list: &[Resource], out: &Out) -> Result<Exit, CliError> {
    if out.json {
        out.json_doc(&json!({ "resources": list }));
        return Ok(Exit::Ok);
    }
    for r in list {
        let mime = r.mime_type.as_deref().unwrap_or("");
        out.line(&format!(
            "{}  {}  {}",
            out.ui.bold(&r.uri),
            r.name,
            out.ui.dim(mime)
        ));
    }
    Ok(Exit::Ok)
}

/// `complete`.
pub(super) async fn complete(
    client: &Client,
    args: &CompleteArgs,
    out: &Out,
) -> Result<Exit, CliError> {
    let reference = match (&args.prompt, &args.template) {
        (Some(p), _) => CompletionReference::prompt(p.as_str()),
        (None, Some(t)) => CompletionReference::resource_template(t.as_str()),
        (None, None) => return Err(CliError::usage("give --prompt NAME or --template URI")),
    };
    let mut params = CompleteRequestParams::new(reference, &args.argument, &args.value);
    for (k, v) in tool_args::string_pairs(&args.context)? {
        params = params.with_context_argument(k, v.as_str().unwrap_or_default());
    }
    let result = client.complete(params).await?;
    if out.json {
        out.json_doc(&serde_json::to_value(&result).unwrap_or(Value::Null));
    } else {
        for v in &result.completion.values {
            out.line(v);
        }
        if result.completion.has_more == Some(true) {
            out.note("mcp: more values exist");
        }
    }
    Ok(Exit::Ok)
}

//! The 2025-11-25 lifecycle: `initialize`, version validation,
//! `notifications/initialized`, capability gating and the admission of
//! server-to-client requests.

use mcp_types::ErrorCode;
use mcp_types::ProtocolVersion;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::{Map, Value, json};

use crate::config::ClientFeatures;
use crate::wire;

/// The params of `initialize` (L-01).
pub fn initialize_params(
    version: &ProtocolVersion,
    features: &ClientFeatures,
    client_info: &Value,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("protocolVersion".into(), json!(version.as_str()));
    m.insert(
        "capabilities".into(),
        features.capabilities(false, &Map::new()),
    );
    m.insert("clientInfo".into(), client_info.clone());
    m
}

/// The server capability a 2025-11-25 request needs (L-07), if any.
pub fn required_capability(method: &str, params: &Map<String, Value>) -> Option<&'static str> {
    Some(match method {
        "resources/list" | "resources/templates/list" | "resources/read" => "resources",
        "resources/subscribe" | "resources/unsubscribe" => "resources.subscribe",
        "prompts/list" | "prompts/get" => "prompts",
        "tools/list" => "tools",
        "tools/call" if params.contains_key("task") => "tasks.requests.tools.call",
        "tools/call" => "tools",
        "completion/complete" => "completions",
        "logging/setLevel" => "logging",
        "tasks/list" => "tasks.list",
        "tasks/cancel" => "tasks.cancel",
        "tasks/get" | "tasks/result" => "tasks",
        "skills/list" | "skills/get" => crate::lifecycle::SKILLS_CAPABILITY,
        "resources/directory/read" => crate::lifecycle::DIRECTORY_READ_CAPABILITY,
        _ => return None,
    })
}

/// Whether the client may answer a server request, per the capabilities
/// it declared; an error to send back otherwise (L-56, L-58).
///
/// # Errors
/// `-32601` for a feature the client does not serve, `-32602` for params
/// that are not an object or an elicitation mode it did not declare.
pub fn admit_server_request(
    method: &str,
    params: Option<&serde_json::value::RawValue>,
    features: &ClientFeatures,
) -> Result<(), ErrorObject> {
    let not_served = || {
        ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("the client does not support {method}"),
        )
    };
    // MCP params are an object (JSON-RPC would allow an array); `null`
    // counts as absent.
    if let Some(p) = params
        && !matches!(p.get().trim_start().as_bytes().first(), Some(b'{' | b'n'))
    {
        return Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("the params of {method} must be a JSON object"),
        ));
    }
    match method {
        "sampling/createMessage" if !features.sampling => Err(not_served()),
        "roots/list" if !features.roots => Err(not_served()),
        "elicitation/create" => {
            let mode = wire::parse::<wire::ElicitMode>(params)
                .ok()
                .and_then(|m| m.mode)
                .unwrap_or_else(|| "form".to_owned());
            let declared = match mode.as_str() {
                "form" => features.elicitation_form,
                "url" => features.elicitation_url,
                _ => false,
            };
            if declared {
                Ok(())
            } else {
                Err(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("elicitation mode {mode:?} is not supported"),
                ))
            }
        }
        _ => Ok(()),
    }
}

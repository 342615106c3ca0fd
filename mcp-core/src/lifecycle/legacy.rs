//! The 2025-11-25 lifecycle: `initialize`, version validation,
//! `notifications/initialized` and the admission of server-to-client
//! requests. (Capability gating reads the method table's row once per
//! call, in `connection/send.rs`.)

use mcp_types::ErrorCode;
use mcp_types::ProtocolVersion;
use mcp_types::elicitation::ElicitationMode;
use mcp_types::incoming::ServerRequest;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::{Map, Value, json};

use crate::config::ClientFeatures;
use crate::wire;

/// The params of `initialize`: the version, the declared capabilities and
/// `clientInfo`.
pub(crate) fn initialize_params(
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

/// Whether the client may answer a server request, per the capabilities
/// it declared; an error to send back otherwise (a client
/// answers only what it declared).
///
/// # Errors
/// `-32601` for a feature the client does not serve, `-32602` for params
/// that are not an object or an elicitation mode it did not declare.
pub(crate) fn admit_server_request(
    request: &ServerRequest,
    features: &ClientFeatures,
) -> Result<(), ErrorObject> {
    let method = request.method();
    let not_served = || {
        ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("the client does not support {method}"),
        )
    };
    // MCP params are an object (JSON-RPC would allow an array); `null`
    // counts as absent.
    if let Some(p) = request.raw()
        && !wire::is_object(p)
        && p.get().trim() != "null"
    {
        return Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("the params of {method} must be a JSON object"),
        ));
    }
    match request {
        ServerRequest::CreateMessage(_) if !features.sampling => Err(not_served()),
        ServerRequest::ListRoots(_) if !features.roots => Err(not_served()),
        ServerRequest::Elicit(e) => {
            let declared = match e.mode {
                ElicitationMode::Form => features.elicitation_form,
                ElicitationMode::Url => features.elicitation_url,
                ElicitationMode::Unknown(_) => false,
            };
            if declared {
                Ok(())
            } else {
                Err(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("elicitation mode {:?} is not supported", e.mode.as_str()),
                ))
            }
        }
        _ => Ok(()),
    }
}

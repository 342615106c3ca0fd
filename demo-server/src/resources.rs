//! Resource reading (list data lives in [`crate::catalog`]).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcp_types::{Era, ErrorCode};
use serde_json::json;

use crate::server::Server;
use crate::support::{Reply, RpcError};

const README: &str = "# demo-server\n\nA demonstration MCP server speaking 2025-11-25 and \
2026-07-28. Tools: echo, add, slow_count, ask_name, interview, summarize, list_roots, \
long_task, big, regional, trigger, fail and fillers.\n";

/// The item id of a `demo://item/{id}` URI.
pub(crate) fn item_id(uri: &str) -> Option<u64> {
    uri.strip_prefix("demo://item/")?.parse().ok()
}

/// Whether `uri` names an existing resource.
pub(crate) fn exists(uri: &str) -> bool {
    matches!(
        uri,
        "demo://readme" | "demo://config.json" | "demo://binary"
    ) || item_id(uri).is_some()
        || crate::skills::exists(uri)
}

/// `resources/read` without era decorations.
pub(crate) fn read(server: &Server, era: Era, uri: &str) -> Reply {
    let contents = match uri {
        "demo://readme" => json!([{ "uri": uri, "mimeType": "text/markdown", "text": README }]),
        "demo://config.json" => json!([{
            "uri": uri,
            "mimeType": "application/json",
            "text": json!({ "pageSize": server.opts.page_size, "eras": format!("{:?}", server.opts.eras) }).to_string()
        }]),
        "demo://binary" => json!([{
            "uri": uri,
            "mimeType": "application/octet-stream",
            "blob": STANDARD.encode([0u8, 1, 2, 3, 252, 253, 254, 255])
        }]),
        _ => match item_id(uri) {
            Some(id) => json!([{ "uri": uri, "mimeType": "text/plain", "text": server.item(id) }]),
            None => crate::skills::read(uri, server.catalog.resources.len())
                .ok_or_else(|| not_found(era, uri))?,
        },
    };
    Ok(json!({ "contents": contents }))
}

/// "Resource not found": `-32002` in 2025-11-25, `-32602` in 2026-07-28.
pub(crate) fn not_found(era: Era, uri: &str) -> RpcError {
    let code = match era {
        Era::Legacy => ErrorCode::RESOURCE_NOT_FOUND,
        Era::Modern => ErrorCode::INVALID_PARAMS,
    };
    RpcError::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// Checks a `resources/subscribe` target.
pub(crate) fn check_subscribable(era: Era, uri: &str) -> Result<(), RpcError> {
    if exists(uri) {
        Ok(())
    } else {
        Err(not_found(era, uri))
    }
}

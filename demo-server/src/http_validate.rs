//! 2026-07-28 header validation: `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*` must agree with the body, else `-32020`
//! with HTTP 400.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, StatusCode};
use mcp_types::{Era, ErrorCode};
use serde_json::Value;

use crate::modern::META_VERSION;
use crate::server::Server;
use crate::support::RpcError;

fn mismatch(message: String) -> RpcError {
    RpcError::new(ErrorCode::HEADER_MISMATCH, message).with_status(StatusCode::BAD_REQUEST)
}

/// A header's value as text, `None` when absent.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, RpcError> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v.to_str().map(Some).map_err(|_| {
            mismatch(format!(
                "Header mismatch: {name} contains invalid characters"
            ))
        }),
    }
}

/// Decodes the `=?base64?...?=` sentinel form.
pub(crate) fn decode_value(name: &str, raw: &str) -> Result<String, RpcError> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => STANDARD
            .decode(b64)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| mismatch(format!("Header mismatch: {name} has invalid base64"))),
        None => Ok(raw.to_owned()),
    }
}

fn require_equal(
    headers: &HeaderMap,
    name: &str,
    body: &str,
    encoded: bool,
) -> Result<(), RpcError> {
    let Some(raw) = header(headers, name)? else {
        return Err(mismatch(format!(
            "Header mismatch: missing required header {name}"
        )));
    };
    let value = if encoded {
        decode_value(name, raw)?
    } else {
        raw.to_owned()
    };
    if value == body {
        Ok(())
    } else {
        Err(mismatch(format!(
            "Header mismatch: {name} header value {value:?} does not match body value {body:?}"
        )))
    }
}

/// The body value `Mcp-Name` mirrors for `method`, if any.
fn name_source<'a>(method: &str, params: &'a Value) -> Option<(&'static str, Option<&'a str>)> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "skills/get" | "resources/directory/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    Some((key, params.get(key).and_then(Value::as_str)))
}

/// Validates the mirrored headers of a modern POST.
pub(crate) fn validate(
    server: &Server,
    headers: &HeaderMap,
    method: &str,
    params: &Value,
) -> Result<(), RpcError> {
    let body_version = params
        .get("_meta")
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    if let Some(v) = body_version {
        require_equal(headers, "mcp-protocol-version", v, false)?;
    }
    require_equal(headers, "mcp-method", method, false)?;
    if let Some((key, value)) = name_source(method, params) {
        match value {
            Some(v) => require_equal(headers, "mcp-name", v, true)?,
            // The body is malformed; the method handler reports it.
            None if header(headers, "mcp-name")?.is_some() => {
                return Err(mismatch(format!(
                    "Header mismatch: Mcp-Name present but params.{key} is missing"
                )));
            }
            None => {}
        }
    }
    if method == "tools/call" {
        let tool = params
            .get("name")
            .and_then(Value::as_str)
            .and_then(|n| server.catalog.tool(Era::Modern, n));
        if let Some(schema) = tool.and_then(|t| t.get("inputSchema")) {
            let args = params.get("arguments").unwrap_or(&Value::Null);
            check_params(headers, schema, args)?;
        }
    }
    Ok(())
}

/// Checks `Mcp-Param-*` for every `x-mcp-header` reachable via `properties`.
fn check_params(headers: &HeaderMap, schema: &Value, args: &Value) -> Result<(), RpcError> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, prop) in props {
        let value = args.get(key).filter(|v| !v.is_null());
        if let Some(name) = prop.get("x-mcp-header").and_then(Value::as_str) {
            let header_name = format!("mcp-param-{}", name.to_ascii_lowercase());
            let raw = header(headers, &header_name)?;
            match (value, raw) {
                (None, None) => {}
                (Some(_), None) => {
                    return Err(mismatch(format!(
                        "Header mismatch: missing Mcp-Param-{name} for argument {key:?}"
                    )));
                }
                (None, Some(_)) => {
                    return Err(mismatch(format!(
                        "Header mismatch: Mcp-Param-{name} sent but argument {key:?} is absent"
                    )));
                }
                (Some(v), Some(raw)) => {
                    let decoded = decode_value(&header_name, raw)?;
                    if !param_matches(v, &decoded) {
                        return Err(mismatch(format!(
                            "Header mismatch: Mcp-Param-{name} value {decoded:?} does not match \
                             argument {key:?}"
                        )));
                    }
                }
            }
        }
        if let Some(nested) = value.filter(|v| v.is_object()) {
            check_params(headers, prop, nested)?;
        }
    }
    Ok(())
}

fn param_matches(body: &Value, header: &str) -> bool {
    match body {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (n.as_f64(), header.parse::<f64>()) {
            (Some(a), Ok(b)) => a == b,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_sentinel_values() {
        assert_eq!(
            decode_value("x", "=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
        assert_eq!(decode_value("x", "plain").unwrap(), "plain");
        assert!(decode_value("x", "=?base64?***?=").is_err());
    }

    #[test]
    fn params_compare_by_type() {
        assert!(param_matches(&serde_json::json!(42), "42.0"));
        assert!(param_matches(&serde_json::json!(true), "true"));
        assert!(!param_matches(&serde_json::json!("a"), "b"));
    }
}

//! The 2026-07-28 lifecycle: per-request `_meta`, retired methods, the
//! `resultType` dispatch and capability gating from `server/discover`.

use mcp_types::ProtocolVersion;
use serde_json::{Map, Value, json};

use crate::error::PeerMisbehaved;
use crate::mrtr::allows_input_required;

/// `_meta` key: the protocol version of a request.
pub const META_PROTOCOL_VERSION: &str = mcp_types::meta::keys::PROTOCOL_VERSION;
/// `_meta` key: the client capabilities of a request.
pub const META_CLIENT_CAPABILITIES: &str = mcp_types::meta::keys::CLIENT_CAPABILITIES;
/// `_meta` key: the client's `Implementation`.
pub const META_CLIENT_INFO: &str = mcp_types::meta::keys::CLIENT_INFO;
/// `_meta` key: the log level of a request.
pub const META_LOG_LEVEL: &str = mcp_types::meta::keys::LOG_LEVEL;
/// `_meta` key: the subscription a notification belongs to.
pub const META_SUBSCRIPTION_ID: &str = mcp_types::meta::keys::SUBSCRIPTION_ID;

/// The replacement of a method removed in 2026-07-28, if it was removed.
pub fn retired(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" | "notifications/initialized" => "server/discover (optional; no handshake)",
        "ping" => "nothing: liveness is the transport's concern",
        "logging/setLevel" => {
            "the per-request io.modelcontextprotocol/logLevel _meta (Config::with_log_level)"
        }
        "resources/subscribe" | "resources/unsubscribe" => {
            "subscriptions/listen with resourceSubscriptions"
        }
        "notifications/roots/list_changed" => "roots delivered through input_required",
        "tasks/result" => "tasks/get, whose completed task carries the result",
        "tasks/list" => "keeping the task ids you created (there is no listing)",
        _ => return None,
    })
}

/// The `_meta` every modern request carries (M-01 to M-04), merged over
/// the caller's own members.
pub fn request_meta(
    version: &ProtocolVersion,
    capabilities: Value,
    client_info: &Value,
    log_level: Option<&str>,
    user: &Map<String, Value>,
) -> Map<String, Value> {
    let mut m = user.clone();
    m.insert(META_PROTOCOL_VERSION.into(), json!(version.as_str()));
    m.insert(META_CLIENT_CAPABILITIES.into(), capabilities);
    m.insert(META_CLIENT_INFO.into(), client_info.clone());
    if let Some(level) = log_level {
        m.insert(META_LOG_LEVEL.into(), json!(level));
    }
    m
}

/// The kind of a 2026-07-28 result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// The final result of the method.
    Complete,
    /// An `InputRequiredResult`.
    InputRequired,
    /// A `CreateTaskResult` (tasks extension).
    Task,
}

/// Dispatches on `resultType` (M-10 to M-13, T-04).
///
/// # Errors
/// An unknown value, `input_required` where it is not allowed, or `task`
/// where the extension was not declared or the method cannot create tasks.
pub fn classify_result(
    method: &str,
    result_type: Option<&str>,
    tasks_declared: bool,
) -> Result<ResultKind, PeerMisbehaved> {
    match result_type {
        None | Some("complete") => Ok(ResultKind::Complete),
        Some("input_required") if allows_input_required(method) => Ok(ResultKind::InputRequired),
        Some("input_required") => Err(PeerMisbehaved::InputRequiredNotAllowed {
            method: method.to_owned(),
        }),
        Some("task") if tasks_declared && method == "tools/call" => Ok(ResultKind::Task),
        Some(other) => Err(PeerMisbehaved::UnknownResultType {
            method: method.to_owned(),
            value: other.to_owned(),
        }),
    }
}

/// The server capability a 2026-07-28 request needs, if any (M-22, T-15).
pub fn required_capability(method: &str) -> Option<&'static str> {
    Some(match method {
        "resources/list" | "resources/templates/list" | "resources/read" => "resources",
        "prompts/list" | "prompts/get" => "prompts",
        "tools/list" | "tools/call" => "tools",
        "completion/complete" => "completions",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "extensions.io.modelcontextprotocol/tasks",
        _ => return None,
    })
}

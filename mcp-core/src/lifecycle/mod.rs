//! The lifecycle of a connection, one machine per era.
//!
//! ```text
//!            connect()
//!   Idle ──────────────┬──────────────────────────────┐
//!                      │ modern first                 │ legacy only
//!                      v                              v
//!                  Probing ── non-modern error ──> Initializing
//!          (server/discover)   or silence (stdio)  (initialize)
//!                      │                              │ InitializeResult,
//!    DiscoverResult or │                              │ version accepted,
//!    -32022 + retry    │                              │ notifications/initialized
//!                      v                              v
//!                    Ready(Modern)               Ready(Legacy)
//!                      │                              │
//!                      └──── close() / transport closed / fatal ──> Closed
//! ```
//!
//! [`legacy`] holds the 2025-11-25 handshake and capability rules,
//! [`modern`] the 2026-07-28 per-request `_meta`, retired methods and
//! `resultType` dispatch.

pub mod legacy;
pub mod modern;

use serde_json::Value;

/// Where the lifecycle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum State {
    /// Nothing sent yet.
    Idle,
    /// Waiting for the answer to the `server/discover` probe.
    Probing,
    /// Waiting for the `initialize` result.
    Initializing,
    /// Requests may be sent.
    Ready,
    /// Closed; nothing more will happen.
    Closed,
}

/// Whether a dotted capability path (`resources.subscribe`) is present
/// and not `false` in a capabilities object.
///
/// Under `extensions.` the rest of the path is one extension id (which may
/// contain dots).
pub fn has_capability(capabilities: &Value, path: &str) -> bool {
    if let Some(id) = path.strip_prefix("extensions.") {
        return capabilities
            .get("extensions")
            .and_then(|e| e.get(id))
            .is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)));
    }
    let mut v = capabilities;
    for seg in path.split('.') {
        match v.get(seg) {
            Some(next) => v = next,
            None => return false,
        }
    }
    !matches!(v, Value::Null | Value::Bool(false))
}

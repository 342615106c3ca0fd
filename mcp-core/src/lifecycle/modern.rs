//! The 2026-07-28 lifecycle: per-request `_meta`, retired methods and the
//! `resultType` dispatch. (Capability gating reads the method table's row
//! once per call, in `connection/send.rs`.)

use mcp_types::ProtocolVersion;
use mcp_types::methods::facts;
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use crate::error::PeerMisbehaved;
use crate::mrtr::allows_input_required;

/// `_meta` key: the protocol version of a request.
pub(crate) const META_PROTOCOL_VERSION: &str = mcp_types::meta::keys::PROTOCOL_VERSION;
/// `_meta` key: the client capabilities of a request.
pub(crate) const META_CLIENT_CAPABILITIES: &str = mcp_types::meta::keys::CLIENT_CAPABILITIES;
/// `_meta` key: the client's `Implementation`.
pub(crate) const META_CLIENT_INFO: &str = mcp_types::meta::keys::CLIENT_INFO;
/// `_meta` key: the log level of a request.
pub(crate) const META_LOG_LEVEL: &str = mcp_types::meta::keys::LOG_LEVEL;

/// The replacement of a method removed in 2026-07-28, if it was removed.
pub(crate) fn retired(method: &str) -> Option<&'static str> {
    facts::modern_replacement(method)
}

/// The members the client adds to a 2026-07-28 request's `_meta`:
/// the protocol version, client info and capabilities, and the log level.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ModernMeta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub version: &'a ProtocolVersion,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub capabilities: &'a Value,
    /// `io.modelcontextprotocol/clientInfo`.
    pub client_info: &'a Value,
    /// `io.modelcontextprotocol/logLevel`, when logs are wanted.
    pub log_level: Option<&'a str>,
}

/// A request's `_meta`, serialized straight from borrowed parts (no copy):
/// the caller's members, the progress token, and in 2026-07-28 the
/// required members, which win over caller members of the same name. The
/// connection's log level is a default: a caller's own level wins.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RequestMeta<'a> {
    /// The caller's members (custom keys, `traceparent`, ...).
    pub user: &'a Map<String, Value>,
    /// `progressToken`.
    pub progress_token: Option<i64>,
    /// The 2026-07-28 members.
    pub modern: Option<ModernMeta<'a>>,
}

impl RequestMeta<'_> {
    /// Whether the object would be empty (a 2025-11-25 request may then
    /// omit `_meta`).
    pub(crate) fn is_empty(&self) -> bool {
        self.user.is_empty() && self.progress_token.is_none() && self.modern.is_none()
    }
}

impl Serialize for RequestMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        let reserved = |k: &str| {
            (self.progress_token.is_some() && k == "progressToken")
                || (self.modern.is_some()
                    && matches!(
                        k,
                        META_PROTOCOL_VERSION | META_CLIENT_CAPABILITIES | META_CLIENT_INFO
                    ))
        };
        for (k, v) in self.user {
            if !reserved(k) {
                map.serialize_entry(k, v)?;
            }
        }
        if let Some(t) = self.progress_token {
            map.serialize_entry("progressToken", &t)?;
        }
        if let Some(m) = &self.modern {
            map.serialize_entry(META_PROTOCOL_VERSION, m.version)?;
            map.serialize_entry(META_CLIENT_CAPABILITIES, m.capabilities)?;
            map.serialize_entry(META_CLIENT_INFO, m.client_info)?;
            if let Some(level) = m.log_level
                && !self.user.contains_key(META_LOG_LEVEL)
            {
                map.serialize_entry(META_LOG_LEVEL, level)?;
            }
        }
        map.end()
    }
}

/// The kind of a 2026-07-28 result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResultKind {
    /// The final result of the method.
    Complete,
    /// An `InputRequiredResult`.
    InputRequired,
    /// A `CreateTaskResult` (tasks extension).
    Task,
}

/// Dispatches on `resultType` (`complete`, `input_required`, and `task`
/// when the tasks extension was declared).
///
/// # Errors
/// An unknown value, `input_required` where it is not allowed, or `task`
/// where the extension was not declared or the method cannot create tasks.
pub(crate) fn classify_result(
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

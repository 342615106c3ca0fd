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

pub(crate) mod legacy;
pub(crate) mod modern;

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

/// The server's capabilities as received, and the answers to the paths
/// asked so far: every request asks for one of a few paths (the rows of the
/// method table), and a walk costs a hashed lookup per segment.
#[derive(Debug)]
pub(crate) struct RawCapabilities {
    value: Value,
    answers: Vec<(&'static str, bool)>,
}

impl RawCapabilities {
    /// The capabilities object as received.
    pub(crate) fn new(value: Value) -> Self {
        RawCapabilities {
            value,
            answers: Vec::new(),
        }
    }

    /// [`has_capability`], walked once per path.
    #[inline]
    pub(crate) fn has(&mut self, path: &'static str) -> bool {
        // The paths are the core's own constants: the same text is
        // nearly always the same address, looked at before the bytes.
        let same = |p: &&str| std::ptr::eq(*p, path) || *p == path;
        match self.answers.iter().find(|(p, _)| same(p)) {
            Some(&(_, yes)) => yes,
            None => self.walk(path),
        }
    }

    /// The first answer for `path`: walked, then kept.
    #[cold]
    #[inline(never)]
    fn walk(&mut self, path: &'static str) -> bool {
        let yes = has_capability(&self.value, path);
        self.answers.push((path, yes));
        yes
    }
}

/// Whether a dotted capability path (`resources.subscribe`) is present
/// and not `false` in a capabilities object.
///
/// Under `extensions.` the rest of the path is one extension id (which may
/// contain dots), optionally followed by `.setting` after the id's `/name`
/// segment: `extensions.io.modelcontextprotocol/skills.directoryRead`
/// needs that setting to be `true`.
pub(crate) fn has_capability(capabilities: &Value, path: &str) -> bool {
    if let Some(rest) = path.strip_prefix("extensions.") {
        let (id, setting) = split_extension_path(rest);
        let declared = capabilities.get("extensions").and_then(|e| e.get(id));
        return match setting {
            None => declared.is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false))),
            Some(s) => declared.and_then(|v| v.get(s)) == Some(&Value::Bool(true)),
        };
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

/// Splits `vendor.tld/name.setting` into the extension id and the setting.
fn split_extension_path(rest: &str) -> (&str, Option<&str>) {
    let name_start = rest.rfind('/').map_or(0, |i| i + 1);
    match rest[name_start..].find('.') {
        Some(dot) => (
            &rest[..name_start + dot],
            Some(&rest[name_start + dot + 1..]),
        ),
        None => (rest, None),
    }
}

#[cfg(test)]
mod tests {
    use super::has_capability;

    #[test]
    fn extension_paths_name_one_id_then_a_setting() {
        let caps =
            serde_json::json!({"tools": {}, "extensions": {"io.modelcontextprotocol/skills": {}}});
        assert!(has_capability(&caps, "tools"));
        assert!(!has_capability(&caps, "resources.subscribe"));
        assert!(has_capability(
            &caps,
            "extensions.io.modelcontextprotocol/skills"
        ));
        assert!(!has_capability(
            &caps,
            "extensions.io.modelcontextprotocol/skills.directoryRead"
        ));
    }
}

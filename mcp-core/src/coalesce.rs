//! Which server notifications a newer one supersedes, and on what key.
//!
//! A client that queues notifications for slow handlers may keep only the
//! latest of a kind: a progress update, a log line of one logger, a
//! resource update of one URI, a task status of one task, a list change.
//! This is a protocol decision (which notifications carry state that a
//! newer one replaces), so it lives here; the queue that applies it is the
//! facade's.
//!
//! | method | key |
//! | --- | --- |
//! | `notifications/progress` | the `progressToken` |
//! | `notifications/message` | the `logger` |
//! | `notifications/resources/updated` | the `uri` |
//! | `notifications/tasks/status` | the `taskId` |
//! | any other | none (the method alone) |

use serde_json::value::RawValue;

/// Methods whose newer notification supersedes an older one with the same
/// [`key`] (a bounded queue drops these first when it is full).
pub const COALESCABLE: [&str; 7] = [
    "notifications/progress",
    "notifications/message",
    "notifications/resources/updated",
    "notifications/tasks/status",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
];

/// Whether a newer notification of this method supersedes an older one
/// with the same [`key`].
///
/// ```
/// use mcp_core::coalesce::is_coalescable;
/// assert!(is_coalescable("notifications/message"));
/// assert!(!is_coalescable("notifications/cancelled"));
/// ```
pub fn is_coalescable(method: &str) -> bool {
    COALESCABLE.contains(&method)
}

/// The key, within its method, under which a newer notification replaces
/// an older one (see the table in the module docs); empty when the method
/// has none or the params lack it.
///
/// ```
/// use mcp_core::coalesce::key;
/// use serde_json::value::RawValue;
/// let params = RawValue::from_string(r#"{"level":"info","logger":"db","data":1}"#.into()).unwrap();
/// assert_eq!(key("notifications/message", Some(&params)), "db");
/// assert_eq!(key("notifications/custom", Some(&params)), "");
/// ```
pub fn key(method: &str, params: Option<&RawValue>) -> String {
    #[derive(serde::Deserialize)]
    struct Keys {
        logger: Option<String>,
        uri: Option<String>,
        #[serde(rename = "taskId")]
        task_id: Option<String>,
        #[serde(rename = "progressToken")]
        progress_token: Option<mcp_types::RequestId>,
    }
    let member = matches!(
        method,
        "notifications/message"
            | "notifications/resources/updated"
            | "notifications/tasks/status"
            | "notifications/progress"
    );
    let Some(keys) = params
        .filter(|_| member)
        .and_then(|p| serde_json::from_str::<Keys>(p.get()).ok())
    else {
        return String::new();
    };
    let key = match method {
        "notifications/message" => keys.logger,
        "notifications/resources/updated" => keys.uri,
        "notifications/tasks/status" => keys.task_id,
        _ => keys.progress_token.map(|t| t.to_string()),
    };
    key.unwrap_or_default()
}

/// Notifications the core holds back for a window, keeping only the
/// latest per [`key`] (see [`crate::connection::debounce`]).
///
/// ```
/// use std::time::Duration;
/// use mcp_core::coalesce::Debounce;
/// let d = Debounce::new(["notifications/progress"], Duration::from_millis(100));
/// assert!(d.applies("notifications/progress"));
/// assert!(!d.applies("notifications/message"));
/// assert!(!Debounce::default().applies("notifications/progress"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Debounce {
    /// The methods held back.
    pub methods: std::collections::BTreeSet<String>,
    /// How long the first of a key waits; later ones of the key replace it
    /// meanwhile.
    pub window: std::time::Duration,
}

impl Debounce {
    /// Debounces `methods` with `window`.
    pub fn new<I, S>(methods: I, window: std::time::Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Debounce {
            methods: methods.into_iter().map(Into::into).collect(),
            window,
        }
    }

    /// Whether notifications of `method` are held back (never with a zero
    /// window).
    pub fn applies(&self, method: &str) -> bool {
        !self.window.is_zero() && self.methods.contains(method)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap_or_else(|_| RawValue::NULL.to_owned())
    }

    #[test]
    fn keys_follow_the_table() {
        let log = raw(r#"{"level":"info","logger":"db","data":1}"#);
        assert_eq!(key("notifications/message", Some(&log)), "db");
        let up = raw(r#"{"uri":"demo://a"}"#);
        assert_eq!(
            key("notifications/resources/updated", Some(&up)),
            "demo://a"
        );
        let task = raw(r#"{"taskId":"t1","status":"working"}"#);
        assert_eq!(key("notifications/tasks/status", Some(&task)), "t1");
        let progress = raw(r#"{"progressToken":7,"progress":1}"#);
        assert_eq!(key("notifications/progress", Some(&progress)), "7");
        assert_eq!(key("notifications/custom", Some(&up)), "");
        assert_eq!(key("notifications/message", None), "");
        assert_eq!(key("notifications/message", Some(&raw("[1]"))), "");
    }

    #[test]
    fn list_changes_and_updates_coalesce_and_requests_do_not() {
        for m in COALESCABLE {
            assert!(is_coalescable(m));
        }
        assert!(!is_coalescable("notifications/cancelled"));
        assert!(!is_coalescable("notifications/initialized"));
    }
}

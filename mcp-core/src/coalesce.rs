//! Which server notifications a newer one supersedes, and on what key.
//!
//! A client that queues notifications for slow handlers may keep only the
//! latest of a kind: a progress update, a log line of one logger, a
//! resource update of one URI, a task status of one task, a list change.
//! This is a protocol decision (which notifications carry state that a
//! newer one replaces), so it lives here, private to the core: the
//! debouncer (`connection/debounce.rs`) merges on [`key`], and
//! [`Connection::is_supersedable`](crate::Connection::is_supersedable)
//! tells a bounded queue what to drop first.
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
pub(crate) const COALESCABLE: [&str; 7] = [
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
pub(crate) fn is_coalescable(method: &str) -> bool {
    COALESCABLE.contains(&method)
}

/// The key, within its method, under which a newer notification replaces
/// an older one (see the table in the module docs); empty when the method
/// has none or the params lack it.
pub(crate) fn key(method: &str, params: Option<&RawValue>) -> String {
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
        .and_then(|p| serde_json::from_slice::<Keys>(p.get().as_bytes()).ok())
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

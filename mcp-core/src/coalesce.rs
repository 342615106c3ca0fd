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
//! | notification | key |
//! | --- | --- |
//! | `notifications/progress` | the call (see `connection/debounce.rs`) |
//! | `notifications/message` | the `logger` |
//! | `notifications/resources/updated` | the `uri` |
//! | `notifications/tasks/status` | the `taskId` |
//! | any other | none (the method alone) |

use mcp_types::incoming::{NotificationKind, ServerNotification};
use serde_json::value::RawValue;

/// Whether a newer notification of this kind supersedes an older one with
/// the same [`key`] (a bounded queue drops these first when it is full).
pub(crate) fn is_coalescable(kind: NotificationKind) -> bool {
    use NotificationKind as K;
    matches!(
        kind,
        K::Progress
            | K::LoggingMessage
            | K::ResourceUpdated
            | K::LegacyTaskStatus
            | K::ToolListChanged
            | K::PromptListChanged
            | K::ResourceListChanged
    )
}

/// The key, within its method, under which a newer notification replaces
/// an older one (see the table in the module docs); empty when the method
/// has none or the params lack it.
pub(crate) fn key(n: &ServerNotification) -> String {
    /// The one member that keys a log line or a task status.
    fn member(raw: Option<&RawValue>, task: bool) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Keys {
            logger: Option<String>,
            #[serde(rename = "taskId")]
            task_id: Option<String>,
        }
        let keys = serde_json::from_str::<Keys>(raw?.get()).ok()?;
        if task { keys.task_id } else { keys.logger }
    }
    let key = match n {
        ServerNotification::ResourceUpdated(u) => u.uri.clone(),
        ServerNotification::LoggingMessage(p) => member(p.raw(), false),
        ServerNotification::LegacyTaskStatus(p) => member(p.raw(), true),
        _ => None,
    };
    key.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_types::jsonrpc::Notification;

    fn note(method: &str, s: &str) -> ServerNotification {
        ServerNotification::classify(Notification {
            method: method.into(),
            params: RawValue::from_string(s.to_owned()).ok(),
        })
    }

    #[test]
    fn keys_follow_the_table() {
        let log = r#"{"level":"info","logger":"db","data":1}"#;
        assert_eq!(key(&note("notifications/message", log)), "db");
        let up = r#"{"uri":"demo://a"}"#;
        let updated = note("notifications/resources/updated", up);
        assert_eq!(key(&updated), "demo://a");
        let task = r#"{"taskId":"t1","status":"working"}"#;
        assert_eq!(key(&note("notifications/tasks/status", task)), "t1");
        assert_eq!(key(&note("notifications/custom", up)), "");
        let bare = ServerNotification::classify(Notification {
            method: "notifications/message".into(),
            params: None,
        });
        assert_eq!(key(&bare), "");
        assert_eq!(key(&note("notifications/message", "[1]")), "");
    }

    #[test]
    fn list_changes_and_updates_coalesce_and_requests_do_not() {
        use NotificationKind as K;
        for k in [K::Progress, K::LoggingMessage, K::ToolListChanged] {
            assert!(is_coalescable(k));
        }
        assert!(!is_coalescable(K::Cancelled));
        assert!(!is_coalescable(K::TaskStatus));
    }
}

//! Server notifications: [`NotificationKind`] (a method name's row of the
//! method table) and [`ServerNotification`] (a notification classified by
//! it, params raw).

use serde_json::value::RawValue;

use super::Params;
use crate::common::NotificationParams;
use crate::elicitation::ElicitationCompleteNotificationParams;
use crate::jsonrpc::Notification;
use crate::logging::LoggingMessageNotificationParams;
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::resources::ResourceUpdatedNotificationParams;
use crate::subscriptions::SubscriptionsAcknowledgedNotificationParams;
use crate::tasks::ext::DetailedTask;
use crate::tasks::legacy::Task;

/// A notification a server may send, by method (both revisions and the
/// tasks extension).
///
/// ```
/// use mcp_types::incoming::NotificationKind;
/// let kind = NotificationKind::of("notifications/tools/list_changed");
/// assert_eq!(kind, Some(NotificationKind::ToolListChanged));
/// assert_eq!(NotificationKind::ToolListChanged.method(), "notifications/tools/list_changed");
/// assert_eq!(NotificationKind::of("notifications/custom"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotificationKind {
    /// `notifications/cancelled`.
    Cancelled,
    /// `notifications/progress`.
    Progress,
    /// `notifications/message`.
    LoggingMessage,
    /// `notifications/resources/updated`.
    ResourceUpdated,
    /// `notifications/resources/list_changed`.
    ResourceListChanged,
    /// `notifications/tools/list_changed`.
    ToolListChanged,
    /// `notifications/prompts/list_changed`.
    PromptListChanged,
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    SubscriptionsAcknowledged,
    /// `notifications/elicitation/complete` (2025-11-25).
    ElicitationComplete,
    /// `notifications/tasks/status` (2025-11-25 core tasks).
    LegacyTaskStatus,
    /// `notifications/tasks` (tasks extension).
    TaskStatus,
}

kind_rows!(NotificationKind {
    Cancelled => CANCELLED,
    Progress => PROGRESS,
    LoggingMessage => LOGGING_MESSAGE,
    ResourceUpdated => RESOURCE_UPDATED,
    ResourceListChanged => RESOURCE_LIST_CHANGED,
    ToolListChanged => TOOL_LIST_CHANGED,
    PromptListChanged => PROMPT_LIST_CHANGED,
    SubscriptionsAcknowledged => SUBSCRIPTIONS_ACKNOWLEDGED,
    ElicitationComplete => ELICITATION_COMPLETE,
    LegacyTaskStatus => LEGACY_TASK_STATUS,
    TaskStatus => TASK_STATUS,
});

/// `notifications/resources/updated`: its `uri`, read when it was
/// classified (the result cache and the handler both need it), and its
/// params.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ResourceUpdated {
    /// The URI that changed; `None` when the params lack a string `uri`.
    pub uri: Option<String>,
    /// The params, raw.
    pub params: Params<ResourceUpdatedNotificationParams>,
}

impl ResourceUpdated {
    fn read(raw: Option<Box<RawValue>>) -> ResourceUpdated {
        #[derive(serde::Deserialize)]
        struct Uri {
            uri: String,
        }
        let uri = raw
            .as_deref()
            .and_then(|p| serde_json::from_str::<Uri>(p.get()).ok())
            .map(|u| u.uri);
        ResourceUpdated {
            uri,
            params: Params::new(raw),
        }
    }
}

/// A notification from a server, classified by method (see
/// [`ServerNotification::classify`]); the params stay raw.
///
/// ```
/// use mcp_types::incoming::{NotificationKind, ServerNotification};
/// use mcp_types::jsonrpc::Notification;
/// let n = ServerNotification::classify(Notification {
///     method: "notifications/tools/list_changed".into(),
///     params: None,
/// });
/// assert!(matches!(n, ServerNotification::ToolListChanged(_)));
/// assert_eq!(n.kind(), Some(NotificationKind::ToolListChanged));
/// assert_eq!(n.method(), "notifications/tools/list_changed");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/cancelled`.
    Cancelled(Params<CancelledNotificationParams>),
    /// `notifications/progress`.
    Progress(Params<ProgressNotificationParams>),
    /// `notifications/message`.
    LoggingMessage(Params<LoggingMessageNotificationParams>),
    /// `notifications/resources/updated`.
    ResourceUpdated(ResourceUpdated),
    /// `notifications/resources/list_changed`.
    ResourceListChanged(Params<NotificationParams>),
    /// `notifications/tools/list_changed`.
    ToolListChanged(Params<NotificationParams>),
    /// `notifications/prompts/list_changed`.
    PromptListChanged(Params<NotificationParams>),
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    SubscriptionsAcknowledged(Params<SubscriptionsAcknowledgedNotificationParams>),
    /// `notifications/elicitation/complete` (2025-11-25).
    ElicitationComplete(Params<ElicitationCompleteNotificationParams>),
    /// `notifications/tasks/status` (2025-11-25 core tasks).
    LegacyTaskStatus(Params<Task>),
    /// `notifications/tasks` (tasks extension).
    TaskStatus(Params<DetailedTask>),
    /// Any other method, kept as received.
    Unknown(Notification),
}

impl ServerNotification {
    /// Classifies a notification by its method. Nothing is parsed but the
    /// `uri` of `notifications/resources/updated`; an unknown method is
    /// kept as [`ServerNotification::Unknown`].
    pub fn classify(n: Notification) -> ServerNotification {
        use NotificationKind as K;
        use ServerNotification as S;
        let Some(kind) = NotificationKind::of(&n.method) else {
            return S::Unknown(n);
        };
        let p = n.params;
        match kind {
            K::Cancelled => S::Cancelled(Params::new(p)),
            K::Progress => S::Progress(Params::new(p)),
            K::LoggingMessage => S::LoggingMessage(Params::new(p)),
            K::ResourceUpdated => S::ResourceUpdated(ResourceUpdated::read(p)),
            K::ResourceListChanged => S::ResourceListChanged(Params::new(p)),
            K::ToolListChanged => S::ToolListChanged(Params::new(p)),
            K::PromptListChanged => S::PromptListChanged(Params::new(p)),
            K::SubscriptionsAcknowledged => S::SubscriptionsAcknowledged(Params::new(p)),
            K::ElicitationComplete => S::ElicitationComplete(Params::new(p)),
            K::LegacyTaskStatus => S::LegacyTaskStatus(Params::new(p)),
            K::TaskStatus => S::TaskStatus(Params::new(p)),
        }
    }

    /// The kind; `None` for [`ServerNotification::Unknown`].
    pub fn kind(&self) -> Option<NotificationKind> {
        use NotificationKind as K;
        use ServerNotification as S;
        Some(match self {
            S::Cancelled(_) => K::Cancelled,
            S::Progress(_) => K::Progress,
            S::LoggingMessage(_) => K::LoggingMessage,
            S::ResourceUpdated(_) => K::ResourceUpdated,
            S::ResourceListChanged(_) => K::ResourceListChanged,
            S::ToolListChanged(_) => K::ToolListChanged,
            S::PromptListChanged(_) => K::PromptListChanged,
            S::SubscriptionsAcknowledged(_) => K::SubscriptionsAcknowledged,
            S::ElicitationComplete(_) => K::ElicitationComplete,
            S::LegacyTaskStatus(_) => K::LegacyTaskStatus,
            S::TaskStatus(_) => K::TaskStatus,
            S::Unknown(_) => return None,
        })
    }

    /// The method name as received.
    pub fn method(&self) -> &str {
        match (self, self.kind()) {
            (ServerNotification::Unknown(n), _) => &n.method,
            (_, kind) => kind.map_or("", NotificationKind::method),
        }
    }

    /// The params as received, if any.
    pub fn raw(&self) -> Option<&RawValue> {
        use ServerNotification as S;
        match self {
            S::Cancelled(p) => p.raw(),
            S::Progress(p) => p.raw(),
            S::LoggingMessage(p) => p.raw(),
            S::ResourceUpdated(u) => u.params.raw(),
            S::ResourceListChanged(p) | S::ToolListChanged(p) | S::PromptListChanged(p) => p.raw(),
            S::SubscriptionsAcknowledged(p) => p.raw(),
            S::ElicitationComplete(p) => p.raw(),
            S::LegacyTaskStatus(p) => p.raw(),
            S::TaskStatus(p) => p.raw(),
            S::Unknown(n) => n.params.as_deref(),
        }
    }

    /// The notification as received: its method and raw params.
    pub fn into_notification(self) -> Notification {
        use ServerNotification as S;
        let method = self.method().to_owned();
        let params = match self {
            S::Cancelled(p) => p.into_raw(),
            S::Progress(p) => p.into_raw(),
            S::LoggingMessage(p) => p.into_raw(),
            S::ResourceUpdated(u) => u.params.into_raw(),
            S::ResourceListChanged(p) | S::ToolListChanged(p) | S::PromptListChanged(p) => {
                p.into_raw()
            }
            S::SubscriptionsAcknowledged(p) => p.into_raw(),
            S::ElicitationComplete(p) => p.into_raw(),
            S::LegacyTaskStatus(p) => p.into_raw(),
            S::TaskStatus(p) => p.into_raw(),
            S::Unknown(n) => return n,
        };
        Notification { method, params }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::facts::{Kind, METHODS};

    fn raw(s: &str) -> Option<Box<RawValue>> {
        RawValue::from_string(s.to_owned()).ok()
    }

    #[test]
    fn every_kind_is_its_own_row_and_comes_back_from_its_name() {
        for (i, kind) in NotificationKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, i);
            assert_eq!(NotificationKind::of(kind.method()), Some(kind));
            assert_eq!(kind.facts().kind, Kind::Notification);
            let n = ServerNotification::classify(Notification {
                method: kind.method().to_owned(),
                params: raw(r#"{"uri":"demo://a"}"#),
            });
            assert_eq!(n.kind(), Some(kind), "{}", kind.method());
            assert_eq!(n.method(), kind.method());
            assert_eq!(n.raw().map(RawValue::get), Some(r#"{"uri":"demo://a"}"#));
        }
    }

    #[test]
    fn every_notification_a_server_sends_has_a_kind() {
        for row in METHODS.iter().filter(|m| m.kind == Kind::Notification) {
            let by_server = [row.legacy, row.modern]
                .into_iter()
                .flatten()
                .any(|e| e.sender.server_sends());
            assert_eq!(
                NotificationKind::of(row.name).is_some(),
                by_server,
                "{}",
                row.name
            );
        }
    }

    #[test]
    fn unknown_methods_are_kept_with_their_params() {
        let n = ServerNotification::classify(Notification {
            method: "notifications/custom".into(),
            params: raw("[1]"),
        });
        assert!(matches!(&n, ServerNotification::Unknown(_)));
        assert_eq!(n.kind(), None);
        assert_eq!(n.method(), "notifications/custom");
        let back = n.into_notification();
        assert_eq!(back.method, "notifications/custom");
        assert_eq!(back.params.as_deref().map(RawValue::get), Some("[1]"));
    }

    #[test]
    fn params_stay_raw_until_decoded() {
        let n = ServerNotification::classify(Notification {
            method: "notifications/progress".into(),
            params: raw(r#"{"progress":"x"}"#),
        });
        let ServerNotification::Progress(p) = &n else {
            panic!("{n:?}")
        };
        assert!(p.decode().is_err(), "malformed params fail only when read");
        let n = ServerNotification::classify(Notification {
            method: "notifications/resources/updated".into(),
            params: raw(r#"{"uri":7}"#),
        });
        let ServerNotification::ResourceUpdated(u) = n else {
            panic!("not an update")
        };
        assert_eq!(u.uri, None);
        let back = ServerNotification::ResourceUpdated(u).into_notification();
        assert_eq!(back.method, "notifications/resources/updated");
        assert_eq!(
            back.params.as_deref().map(RawValue::get),
            Some(r#"{"uri":7}"#)
        );
    }
}

//! Typed views of what a server sends: its notifications (both revisions and
//! the tasks extension) and, in 2025-11-25, its requests. Dispatch is by
//! method name; an unknown method is kept as data, never an error.

use crate::common::{NotificationParams, PaginatedRequestParams, RequestParams};
use crate::elicitation::{ElicitationCompleteNotificationParams, LegacyElicitRequestParams};
use crate::jsonrpc::{Notification, Request};
use crate::logging::LoggingMessageNotificationParams;
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::resources::ResourceUpdatedNotificationParams;
use crate::sampling::CreateMessageRequestParams;
use crate::subscriptions::SubscriptionsAcknowledgedNotificationParams;
use crate::tasks::TaskIdParams;
use crate::tasks::ext::DetailedTask;
use crate::tasks::legacy::{Task, TaskAugmented};

/// A notification from a server, decoded by method.
///
/// ```
/// use mcp_types::incoming::ServerNotification;
/// use mcp_types::Message;
/// let m = Message::from_slice(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#).unwrap();
/// if let Message::Notification(n) = m {
///     let decoded = ServerNotification::decode(&n).unwrap();
///     assert!(matches!(decoded, ServerNotification::ToolListChanged(_)));
/// }
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/cancelled`.
    Cancelled(CancelledNotificationParams),
    /// `notifications/progress`.
    Progress(ProgressNotificationParams),
    /// `notifications/message`.
    LoggingMessage(LoggingMessageNotificationParams),
    /// `notifications/resources/updated`.
    ResourceUpdated(ResourceUpdatedNotificationParams),
    /// `notifications/resources/list_changed`.
    ResourceListChanged(NotificationParams),
    /// `notifications/tools/list_changed`.
    ToolListChanged(NotificationParams),
    /// `notifications/prompts/list_changed`.
    PromptListChanged(NotificationParams),
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotificationParams),
    /// `notifications/elicitation/complete` (2025-11-25).
    ElicitationComplete(ElicitationCompleteNotificationParams),
    /// `notifications/tasks/status` (2025-11-25 core tasks).
    LegacyTaskStatus(Task),
    /// `notifications/tasks` (tasks extension).
    TaskStatus(DetailedTask),
    /// Any other method, kept as received.
    Unknown(Notification),
}

impl ServerNotification {
    /// Decodes a notification by its method.
    ///
    /// # Errors
    /// When a known method's params do not have the expected shape.
    pub fn decode(n: &Notification) -> Result<ServerNotification, serde_json::Error> {
        use ServerNotification as S;
        Ok(match n.method.as_str() {
            "notifications/cancelled" => S::Cancelled(n.params_as()?),
            "notifications/progress" => S::Progress(n.params_as()?),
            "notifications/message" => S::LoggingMessage(n.params_as()?),
            "notifications/resources/updated" => S::ResourceUpdated(n.params_as()?),
            "notifications/resources/list_changed" => S::ResourceListChanged(n.params_as()?),
            "notifications/tools/list_changed" => S::ToolListChanged(n.params_as()?),
            "notifications/prompts/list_changed" => S::PromptListChanged(n.params_as()?),
            "notifications/subscriptions/acknowledged" => {
                S::SubscriptionsAcknowledged(n.params_as()?)
            }
            "notifications/elicitation/complete" => S::ElicitationComplete(n.params_as()?),
            "notifications/tasks/status" => S::LegacyTaskStatus(n.params_as()?),
            "notifications/tasks" => S::TaskStatus(n.params_as()?),
            _ => S::Unknown(n.clone()),
        })
    }
}

/// A request from a 2025-11-25 server (2026-07-28 servers send none).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum LegacyServerRequest {
    /// `ping`.
    Ping(RequestParams),
    /// `sampling/createMessage`, possibly task-augmented.
    CreateMessage(TaskAugmented<CreateMessageRequestParams>),
    /// `elicitation/create`, possibly task-augmented.
    Elicit(TaskAugmented<LegacyElicitRequestParams>),
    /// `roots/list`.
    ListRoots(RequestParams),
    /// `tasks/get` (for a client-hosted task).
    GetTask(TaskIdParams),
    /// `tasks/result`.
    GetTaskPayload(TaskIdParams),
    /// `tasks/list`.
    ListTasks(PaginatedRequestParams),
    /// `tasks/cancel`.
    CancelTask(TaskIdParams),
    /// Any other method (answer with `-32601`).
    Unknown(Request),
}

impl LegacyServerRequest {
    /// Decodes a request by its method.
    ///
    /// # Errors
    /// When a known method's params do not have the expected shape (answer
    /// with `-32602`).
    pub fn decode(r: &Request) -> Result<LegacyServerRequest, serde_json::Error> {
        use LegacyServerRequest as L;
        Ok(match r.method.as_str() {
            "ping" => L::Ping(r.params_as()?),
            "sampling/createMessage" => L::CreateMessage(r.params_as()?),
            "elicitation/create" => L::Elicit(r.params_as()?),
            "roots/list" => L::ListRoots(r.params_as()?),
            "tasks/get" => L::GetTask(r.params_as()?),
            "tasks/result" => L::GetTaskPayload(r.params_as()?),
            "tasks/list" => L::ListTasks(r.params_as()?),
            "tasks/cancel" => L::CancelTask(r.params_as()?),
            _ => L::Unknown(r.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    fn notification(text: &str) -> Notification {
        match Message::from_slice(text.as_bytes()).unwrap() {
            Message::Notification(n) => n,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decodes_by_method_and_keeps_unknowns() {
        let n = notification(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}"#,
        );
        assert!(
            matches!(ServerNotification::decode(&n).unwrap(), ServerNotification::Progress(p) if p.progress == 2.0)
        );
        let n = notification(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#);
        assert!(matches!(
            ServerNotification::decode(&n).unwrap(),
            ServerNotification::Unknown(_)
        ));
        let n = notification(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"x"}}"#,
        );
        assert!(ServerNotification::decode(&n).is_err());
    }

    #[test]
    fn decodes_legacy_server_requests() {
        let Message::Request(r) = Message::from_slice(
            br#"{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://e.x","elicitationId":"e"}}"#,
        )
        .unwrap() else {
            panic!("not a request")
        };
        assert!(matches!(
            LegacyServerRequest::decode(&r).unwrap(),
            LegacyServerRequest::Elicit(_)
        ));
        let Message::Request(r) =
            Message::from_slice(br#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#).unwrap()
        else {
            panic!("not a request")
        };
        assert!(matches!(
            LegacyServerRequest::decode(&r).unwrap(),
            LegacyServerRequest::ListRoots(_)
        ));
    }
}

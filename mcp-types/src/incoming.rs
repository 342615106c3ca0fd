//! Typed views of what a server sends: its notifications (both revisions and
//! the tasks extension) and, in 2025-11-25, its requests. Dispatch is by
//! method name; an unknown method is kept as data, never an error.

use crate::common::{NotificationParams, PaginatedRequestParams, RequestParams};
use crate::elicitation::{ElicitationCompleteNotificationParams, LegacyElicitRequestParams};
use crate::jsonrpc::{Notification, Request};
use crate::logging::LoggingMessageNotificationParams;
use crate::meta::{Meta, ProgressToken};
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::resources::ResourceUpdatedNotificationParams;
use crate::results::InputRequest;
use crate::sampling::CreateMessageRequestParams;
use crate::subscriptions::SubscriptionsAcknowledgedNotificationParams;
use crate::tasks::TaskIdParams;
use crate::tasks::ext::DetailedTask;
use crate::tasks::legacy::{Task, TaskAugmented};
use serde_json::value::RawValue;

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
        let known = LegacyServerRequest::decode_known(&r.method, r.params.as_deref())?;
        Ok(known.unwrap_or_else(|| LegacyServerRequest::Unknown(r.clone())))
    }

    /// Decodes the params of a known method; `None` for any other method
    /// (nothing is copied).
    ///
    /// ```
    /// use mcp_types::incoming::LegacyServerRequest;
    /// let p = serde_json::value::RawValue::from_string(
    ///     r#"{"_meta":{"progressToken":7}}"#.to_owned(),
    /// ).unwrap();
    /// let r = LegacyServerRequest::decode_known("roots/list", Some(&p)).unwrap().unwrap();
    /// assert!(r.progress_token().is_some());
    /// assert!(LegacyServerRequest::decode_known("x/y", None).unwrap().is_none());
    /// ```
    ///
    /// # Errors
    /// When a known method's params do not have the expected shape (answer
    /// with `-32602`).
    pub fn decode_known(
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Option<LegacyServerRequest>, serde_json::Error> {
        use LegacyServerRequest as L;
        fn p<T: serde::de::DeserializeOwned>(raw: Option<&RawValue>) -> serde_json::Result<T> {
            serde_json::from_str(raw.map_or("{}", RawValue::get))
        }
        Ok(Some(match method {
            "ping" => L::Ping(p(params)?),
            "sampling/createMessage" => L::CreateMessage(p(params)?),
            "elicitation/create" => L::Elicit(p(params)?),
            "roots/list" => L::ListRoots(p(params)?),
            "tasks/get" => L::GetTask(p(params)?),
            "tasks/result" => L::GetTaskPayload(p(params)?),
            "tasks/list" => L::ListTasks(p(params)?),
            "tasks/cancel" => L::CancelTask(p(params)?),
            _ => return Ok(None),
        }))
    }

    /// The request's `_meta` (`None` for an unknown method).
    pub fn meta(&self) -> Option<&Meta> {
        use crate::elicitation::ElicitRequestParams as E;
        use LegacyServerRequest as L;
        Some(match self {
            L::Ping(p) | L::ListRoots(p) => &p.meta,
            L::CreateMessage(p) => &p.params.meta,
            L::Elicit(p) => match &p.params {
                E::Form(f) => &f.meta,
                E::Url(u) => &u.meta,
            },
            L::GetTask(p) | L::GetTaskPayload(p) | L::CancelTask(p) => &p.meta,
            L::ListTasks(p) => &p.meta,
            L::Unknown(_) => return None,
        })
    }

    /// The task this request belongs to: the id in `_meta`
    /// `io.modelcontextprotocol/related-task` (`None` when absent or
    /// malformed).
    pub fn related_task(&self) -> Option<String> {
        let task = self.meta()?.related_task().ok()??;
        Some(task.task_id)
    }

    /// The progress token in `_meta` (`None` when absent or malformed).
    pub fn progress_token(&self) -> Option<ProgressToken> {
        self.meta()?.progress_token().ok()?
    }
}

impl InputRequest {
    /// Decodes a 2026-07-28 input request from its method and raw params
    /// (the params are parsed once).
    ///
    /// # Errors
    /// When a known method's params do not have its shape.
    pub fn decode(method: &str, params: Option<&RawValue>) -> Result<Self, serde_json::Error> {
        let params = params.map(|p| serde_json::from_str(p.get())).transpose()?;
        InputRequest::from_parts(method.to_owned(), params)
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

    #[test]
    fn legacy_requests_expose_their_meta() {
        let raw = RawValue::from_string(
            r#"{"message":"m","requestedSchema":{"type":"object","properties":{}},
            "_meta":{"progressToken":"p","io.modelcontextprotocol/related-task":{"taskId":"t9"}}}"#
                .to_owned(),
        )
        .unwrap();
        let r = LegacyServerRequest::decode_known("elicitation/create", Some(&raw))
            .unwrap()
            .unwrap();
        assert_eq!(r.related_task().as_deref(), Some("t9"));
        assert_eq!(r.progress_token(), Some(ProgressToken::String("p".into())));
        let bare = LegacyServerRequest::decode_known("roots/list", None)
            .unwrap()
            .unwrap();
        assert_eq!((bare.related_task(), bare.progress_token()), (None, None));
        let bad = RawValue::from_string(r#"{"messages":3}"#.to_owned()).unwrap();
        assert!(LegacyServerRequest::decode_known("sampling/createMessage", Some(&bad)).is_err());
    }

    #[test]
    fn input_requests_decode_from_raw_params() {
        let raw = RawValue::from_string(r#"{"x":1}"#.to_owned()).unwrap();
        let r = InputRequest::decode("custom/y", Some(&raw)).unwrap();
        assert!(matches!(r, InputRequest::Unknown { ref method, .. } if method == "custom/y"));
        assert!(matches!(
            InputRequest::decode("roots/list", None).unwrap(),
            InputRequest::ListRoots(_)
        ));
        assert!(InputRequest::decode("elicitation/create", Some(&raw)).is_err());
    }
}

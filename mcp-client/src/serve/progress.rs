//! Progress the client reports for a request the server sent (2025-11-25).
//!
//! When a server request carries `_meta.progressToken`, its handler runs
//! with a [`ProgressReporter`] in scope: [`ProgressReporter::current`]
//! returns it, and [`ProgressReporter::report`] sends
//! `notifications/progress` with the server's token. The token is valid
//! until the request is answered (for a task-augmented request, until the
//! task is terminal); reports after that are refused, never sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use tokio::sync::Notify;

tokio::task_local! {
    static REPORTER: ProgressReporter;
}

/// The most progress notifications queued for sending at once; a report
/// over the limit is refused ([`ProgressError::Busy`]).
pub(crate) const PROGRESS_QUEUE: usize = 256;

/// Why a progress report was not sent.
///
/// ```
/// use mcp_client::ProgressError;
/// let e = ProgressError::NotIncreasing { last: 2.0, got: 1.0 };
/// assert_eq!(e.to_string(), "progress must increase: 1 after 2");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProgressError {
    /// Progress must increase with each notification.
    #[error("progress must increase: {got} after {last}")]
    NotIncreasing {
        /// The last value reported.
        last: f64,
        /// The value refused.
        got: f64,
    },
    /// `progress` or `total` is not a finite number.
    #[error("progress values must be finite numbers")]
    NotFinite,
    /// The request was answered (or its task ended): the token is spent.
    #[error("the request was already answered; its progress token is spent")]
    Finished,
    /// Too many notifications are waiting to be sent.
    #[error("too many progress notifications are queued")]
    Busy,
}

/// The `notifications/progress` params waiting for the driver, shared by
/// every reporter of a connection. The driver sends what is queued before
/// it answers any request, so a report made before a handler returned goes
/// out before that handler's answer.
#[derive(Debug, Default)]
pub(crate) struct ProgressQueue {
    items: Mutex<VecDeque<Value>>,
    /// Wakes the driver when something is queued.
    pub(crate) ready: Notify,
}

impl ProgressQueue {
    /// Takes everything queued, oldest first.
    pub(crate) fn drain(&self) -> VecDeque<Value> {
        std::mem::take(&mut *self.items.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Shared between a reporter's clones.
#[derive(Debug, Default)]
struct ReporterState {
    last: Option<f64>,
    finished: bool,
}

/// Sends `notifications/progress` for the server request being served.
///
/// Obtain it inside a handler with [`ProgressReporter::current`]; it is
/// `None` when the server asked for no progress.
///
/// ```
/// use mcp_client::{Client, HandlerError, ProgressReporter};
/// use mcp_client::mcp_types::content::ContentBlock;
/// use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
/// let builder = Client::builder().sampling(|_p: CreateMessageRequestParams| async move {
///     if let Some(progress) = ProgressReporter::current() {
///         // A refused report (token spent, queue full) is no reason to fail.
///         let _ = progress.report(0.5, Some(1.0), Some("thinking"));
///     }
///     Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("done"), "model"))
/// });
/// # let _ = builder;
/// ```
#[derive(Clone)]
pub struct ProgressReporter {
    token: Value,
    related_task: Option<String>,
    queue: Arc<ProgressQueue>,
    state: Arc<Mutex<ReporterState>>,
}

impl std::fmt::Debug for ProgressReporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressReporter")
            .field("token", &self.token)
            .field("related_task", &self.related_task)
            .finish_non_exhaustive()
    }
}

impl ProgressReporter {
    pub(crate) fn new(
        token: Value,
        related_task: Option<String>,
        queue: Arc<ProgressQueue>,
    ) -> Self {
        ProgressReporter {
            token,
            related_task,
            queue,
            state: Arc::default(),
        }
    }

    /// The reporter of the server request whose handler is running, when
    /// that request carried a progress token. Call it from the handler's
    /// own future (a task the handler spawns does not inherit it; pass the
    /// reporter along instead).
    pub fn current() -> Option<ProgressReporter> {
        REPORTER.try_with(Clone::clone).ok()
    }

    /// The server's progress token.
    pub fn token(&self) -> &Value {
        &self.token
    }

    /// Sends `notifications/progress {progressToken, progress, total?,
    /// message?}`.
    ///
    /// # Errors
    /// [`ProgressError`]: progress not increasing or not finite, the token
    /// spent, or the send queue full.
    pub fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), ProgressError> {
        if !progress.is_finite() || total.is_some_and(|t| !t.is_finite()) {
            return Err(ProgressError::NotFinite);
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.finished {
            return Err(ProgressError::Finished);
        }
        if let Some(last) = state.last
            && progress <= last
        {
            return Err(ProgressError::NotIncreasing {
                last,
                got: progress,
            });
        }
        let mut params = json!({ "progressToken": self.token, "progress": progress });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        if let Some(task) = &self.related_task {
            params["_meta"] = json!({ mcp_types::meta::keys::RELATED_TASK: { "taskId": task } });
        }
        {
            let mut items = self
                .queue
                .items
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if items.len() >= PROGRESS_QUEUE {
                return Err(ProgressError::Busy);
            }
            items.push_back(params);
        }
        self.queue.ready.notify_one();
        state.last = Some(progress);
        Ok(())
    }

    /// Spends the token: later reports are refused (queued ones still go
    /// out, before the answer).
    pub(crate) fn finish(&self) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .finished = true;
    }

    /// Runs `fut` with this reporter in scope.
    pub(crate) async fn scope<F: std::future::Future>(self, fut: F) -> F::Output {
        REPORTER.scope(self, fut).await
    }
}

/// What the driver reads from a served request's `_meta`, in one read of
/// its params (the handler decodes them once more, whole, as its type).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct RequestMeta {
    /// The progress token, when it is a string or an integer.
    pub(crate) progress_token: Option<Value>,
    /// The task the request belongs to (`io.modelcontextprotocol/related-task`).
    pub(crate) related_task: Option<String>,
}

/// Reads a request's `_meta` (nothing when the params have none).
pub(crate) fn meta_of(params: Option<&serde_json::value::RawValue>) -> RequestMeta {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta", default)]
        meta: Option<Value>,
    }
    let Some(meta) = params
        .and_then(|p| serde_json::from_str::<Params>(p.get()).ok())
        .and_then(|p| p.meta)
    else {
        return RequestMeta::default();
    };
    let progress_token = meta
        .get("progressToken")
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
        .cloned();
    let related_task = mcp_core::related_task_id(&meta).map(str::to_owned);
    RequestMeta {
        progress_token,
        related_task,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reports_increase_and_stop_when_finished() {
        let queue = Arc::new(ProgressQueue::default());
        let r = ProgressReporter::new(json!("tok"), Some("t1".into()), queue.clone());
        assert_eq!(ProgressReporter::current().map(|r| r.token().clone()), None);
        let seen = r
            .clone()
            .scope(async { ProgressReporter::current().map(|r| r.token().clone()) })
            .await;
        assert_eq!(seen, Some(json!("tok")));
        assert_eq!(r.report(1.0, Some(2.0), Some("half")), Ok(()));
        assert!(matches!(
            r.report(1.0, None, None),
            Err(ProgressError::NotIncreasing { .. })
        ));
        assert_eq!(
            r.report(f64::NAN, None, None),
            Err(ProgressError::NotFinite)
        );
        let sent = queue.drain().pop_front();
        assert_eq!(
            sent,
            Some(
                json!({"progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half",
                "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}})
            )
        );
        r.report(1.5, None, None).ok();
        r.finish();
        assert_eq!(r.report(2.0, None, None), Err(ProgressError::Finished));
        let queued = queue.drain();
        assert_eq!(queued.len(), 1, "reported before finishing: still sent");
        for i in 0..PROGRESS_QUEUE {
            let fresh = ProgressReporter::new(json!(i), None, queue.clone());
            fresh.report(1.0, None, None).ok();
        }
        let over = ProgressReporter::new(json!("over"), None, queue.clone());
        assert_eq!(over.report(1.0, None, None), Err(ProgressError::Busy));
    }

    #[test]
    fn tokens_and_related_tasks_are_read_from_meta() {
        let raw = |s: &str| serde_json::value::RawValue::from_string(s.into()).ok();
        let p = raw(r#"{"_meta":{"progressToken":7}}"#);
        assert_eq!(meta_of(p.as_deref()).progress_token, Some(json!(7)));
        let p = raw(r#"{"_meta":{"progressToken":1.5}}"#);
        assert_eq!(meta_of(p.as_deref()).progress_token, None);
        let p = raw(
            r#"{"message":"m","_meta":{"progressToken":"a","io.modelcontextprotocol/related-task":{"taskId":"t9"}}}"#,
        );
        let meta = meta_of(p.as_deref());
        assert_eq!(meta.progress_token, Some(json!("a")));
        assert_eq!(meta.related_task.as_deref(), Some("t9"));
        assert_eq!(meta_of(raw("{}").as_deref()), RequestMeta::default());
        assert_eq!(
            meta_of(raw(r#"{"_meta":"x"}"#).as_deref()),
            RequestMeta::default()
        );
        assert_eq!(meta_of(None), RequestMeta::default());
    }
}

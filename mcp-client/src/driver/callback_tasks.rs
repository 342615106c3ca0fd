//! Callback tasks the client serves (2025-11-25) and the progress its
//! handlers report: task-augmented sampling and elicitation become tasks of
//! the task store (`serve/task_store.rs`); `tasks/*` requests are answered
//! from it; a request that carries a progress token runs with a
//! [`ProgressReporter`] in scope.

use std::sync::Arc;
use std::time::Instant;

use futures::future::{Aborted, abortable};
use mcp_types::RequestId;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::tasks::TaskIdParams;
use mcp_types::tasks::legacy::CreateTaskResult;
use serde_json::Value;
use serde_json::value::RawValue;

use super::Driver;
use super::serving::Target;
use crate::handlers::{BoxFuture, HandlerError, Served};
use crate::serve::progress::{self, ProgressQueue, ProgressReporter};
use crate::serve::task_store::{Ended, Store};
use crate::serve::tasks::ServedTaskError;

/// What the served-task machinery wakes the driver for.
pub(super) enum LocalWake {
    /// A task's handler finished.
    TaskDone(String),
    /// A task's TTL ran out.
    TaskExpired(String),
    /// Progress notifications are queued.
    Progress,
}

/// The driver's served-task state.
#[derive(Default)]
pub(super) struct ServedState {
    store: Store,
    /// Created (and its pump started) on first use.
    progress: Option<Arc<ProgressQueue>>,
}

impl ServedState {
    /// Drops every served task, stopping its handler (the session ended).
    pub(super) fn forget_tasks(&mut self) {
        self.store.clear();
    }
}

fn task_requested(params: Option<&RawValue>) -> Option<Option<u64>> {
    #[derive(serde::Deserialize)]
    struct Params {
        task: Option<Value>,
    }
    let p: Params = serde_json::from_str(params?.get()).ok()?;
    let task = p.task.filter(Value::is_object)?;
    Some(task.get("ttl").and_then(Value::as_u64))
}

fn task_id_of(params: Option<&RawValue>) -> Result<String, ServedTaskError> {
    serde_json::from_str::<TaskIdParams>(params.map_or("{}", RawValue::get))
        .map(|p| p.task_id)
        .map_err(|e| ServedTaskError::MalformedParams(e.to_string()))
}

fn encode<T: serde::Serialize>(value: &T) -> Served {
    serde_json::to_value(value)
        .map_err(|e| HandlerError::internal(e.to_string()).into_error_object())
}

/// The `tasks/result` answer: the underlying result with the related-task
/// `_meta`, or the underlying error.
fn with_related_task(task_id: &str, answer: Served) -> Served {
    let mut value = answer?;
    if let Some(obj) = value.as_object_mut() {
        let meta = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                mcp_types::meta::keys::RELATED_TASK.into(),
                serde_json::json!({ "taskId": task_id }),
            );
        }
    }
    Ok(value)
}

impl Driver {
    /// Serves a task-augmented sampling or elicitation request as a task,
    /// or a `tasks/*` request from the store; `false` when `method` is
    /// none of those (or tasks are not served), for the caller to serve.
    pub(super) fn serve_as_task(
        &mut self,
        now: Instant,
        id: &RequestId,
        method: &str,
        raw: Option<&RawValue>,
    ) -> bool {
        let handlers = self.shared.handlers();
        let Some(options) = &handlers.served_tasks else {
            return false;
        };
        let advertised = match method {
            // Served only when `tasks` was advertised (a task handler was
            // installed at connect); otherwise "method not found".
            "tasks/get" | "tasks/list" | "tasks/result" | "tasks/cancel" => {
                if !(handlers.advertised.task_sampling || handlers.advertised.task_elicitation) {
                    return false;
                }
                self.serve_task_method(now, id.clone(), method, raw);
                return true;
            }
            "sampling/createMessage" => handlers.advertised.task_sampling,
            "elicitation/create" => handlers.advertised.task_elicitation,
            _ => false,
        };
        // A request type the client did not declare as task-capable ignores
        // `params.task`: it is served as an ordinary request.
        let Some(ttl) = task_requested(raw).filter(|_| advertised) else {
            return false;
        };
        let Some(fut) = handlers.serve(method, raw) else {
            return false;
        };
        self.start_task(now, id.clone(), options, ttl, raw, fut);
        true
    }

    /// Runs `fut` with a [`ProgressReporter`] in scope when the request
    /// carries a progress token; the token is spent once `fut` is done.
    pub(super) fn with_progress(
        &mut self,
        raw: Option<&RawValue>,
        fut: BoxFuture<Served>,
    ) -> BoxFuture<Served> {
        let Some(token) = progress::token_of(raw) else {
            return fut;
        };
        let reporter = ProgressReporter::new(token, None, self.progress_queue());
        Box::pin(async move {
            let served = reporter.clone().scope(fut).await;
            reporter.finish();
            served
        })
    }

    fn start_task(
        &mut self,
        now: Instant,
        id: RequestId,
        options: &crate::ServedTaskOptions,
        ttl: Option<u64>,
        raw: Option<&RawValue>,
        fut: BoxFuture<Served>,
    ) {
        let (task, granted) = match self.served.store.create(now, options, ttl) {
            Ok(created) => created,
            Err(e) => {
                let _ = self.conn.respond(now, &id, Err(e.to_error_object()));
                return;
            }
        };
        let task_id = task.task_id.clone();
        tracing::debug!(task = %task_id, "serving a task-augmented server request");
        let _ = self
            .conn
            .respond(now, &id, encode(&CreateTaskResult::new(task)));
        let reporter = progress::token_of(raw).map(|token| {
            ProgressReporter::new(token, Some(task_id.clone()), self.progress_queue())
        });
        let (fut, abort) = abortable(fut);
        self.served.store.attach(&task_id, abort, reporter.clone());
        let done = task_id.clone();
        self.handler_io.push(Box::pin(async move {
            let served = match reporter {
                Some(r) => r.clone().scope(fut).await,
                None => fut.await,
            };
            let served = served.unwrap_or_else(|Aborted| {
                Err(HandlerError::internal("the task was stopped").into_error_object())
            });
            (Target::Local(LocalWake::TaskDone(done)), served)
        }));
        self.handler_io.push(Box::pin(async move {
            tokio::time::sleep(granted).await;
            (
                Target::Local(LocalWake::TaskExpired(task_id)),
                Ok(Value::Null),
            )
        }));
    }

    fn serve_task_method(
        &mut self,
        now: Instant,
        id: RequestId,
        method: &str,
        raw: Option<&RawValue>,
    ) {
        self.flush_progress(now);
        let store = &mut self.served.store;
        let answer = match method {
            "tasks/list" => {
                #[derive(serde::Deserialize)]
                struct Page {
                    cursor: Option<String>,
                }
                serde_json::from_str::<Page>(raw.map_or("{}", RawValue::get))
                    .map_err(|_| ServedTaskError::InvalidCursor)
                    .and_then(|p| store.list(p.cursor.as_deref()))
                    .map_err(|e| e.to_error_object())
                    .and_then(|page| encode(&page))
            }
            "tasks/get" => task_id_of(raw)
                .and_then(|t| store.get(&t))
                .map_err(|e| e.to_error_object())
                .and_then(|task| encode(&task)),
            "tasks/result" => {
                match task_id_of(raw).and_then(|t| Ok((store.wait(&t, id.clone())?, t))) {
                    Ok((Some(answer), t)) => with_related_task(&t, answer),
                    Ok((None, _)) => return, // held until the task ends
                    Err(e) => Err(e.to_error_object()),
                }
            }
            _ => match task_id_of(raw).and_then(|t| store.cancel(&t)) {
                Ok(ended) => {
                    let task = encode(&ended.task);
                    self.task_ended(now, ended);
                    task
                }
                Err(e) => Err(e.to_error_object()),
            },
        };
        let _ = self.conn.respond(now, &id, answer);
    }

    /// Sends the status notification and answers the held `tasks/result`s.
    fn task_ended(&mut self, now: Instant, ended: Ended) {
        let Ended {
            task,
            waiters,
            answer,
        } = ended;
        tracing::debug!(task = %task.task_id, status = ?task.status, "served task ended");
        if let Ok(params) = serde_json::to_value(&task)
            && let Err(e) = self
                .conn
                .notify(now, "notifications/tasks/status", Some(params))
        {
            tracing::debug!(error = %e, "could not send a task status notification");
        }
        let answer = with_related_task(&task.task_id, answer);
        for waiter in waiters {
            let _ = self.conn.respond(now, &waiter, answer.clone());
        }
    }

    /// A served-task wake-up.
    pub(super) fn on_local(&mut self, now: Instant, wake: LocalWake, served: Served) {
        self.flush_progress(now);
        match wake {
            LocalWake::TaskDone(task_id) => {
                if let Some(ended) = self.served.store.finish(&task_id, served) {
                    self.task_ended(now, ended);
                }
            }
            LocalWake::TaskExpired(task_id) => {
                let gone: ErrorObject =
                    ServedTaskError::UnknownTask(task_id.clone()).to_error_object();
                for waiter in self.served.store.expire(&task_id, now) {
                    let _ = self.conn.respond(now, &waiter, Err(gone.clone()));
                }
            }
            LocalWake::Progress => {
                self.flush_progress(now);
                if let Some(queue) = self.served.progress.clone() {
                    self.pump_progress(queue);
                }
            }
        }
    }

    /// The queue handlers' progress reporters fill (the pump that wakes
    /// the driver for it starts on first use).
    fn progress_queue(&mut self) -> Arc<ProgressQueue> {
        if let Some(queue) = &self.served.progress {
            return queue.clone();
        }
        let queue = Arc::new(ProgressQueue::default());
        self.served.progress = Some(queue.clone());
        self.pump_progress(queue.clone());
        queue
    }

    fn pump_progress(&mut self, queue: Arc<ProgressQueue>) {
        self.handler_io.push(Box::pin(async move {
            queue.ready.notified().await;
            (Target::Local(LocalWake::Progress), Ok(Value::Null))
        }));
    }

    /// Sends the queued progress notifications. Called before any answer
    /// to the server is written, so progress precedes the answer.
    pub(super) fn flush_progress(&mut self, now: Instant) {
        let Some(queue) = &self.served.progress else {
            return;
        };
        for params in queue.drain() {
            if let Err(e) = self
                .conn
                .notify(now, "notifications/progress", Some(params))
            {
                tracing::debug!(error = %e, "could not send progress");
            }
        }
    }
}

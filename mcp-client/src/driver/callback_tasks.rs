//! Callback tasks the client serves (2025-11-25) and the progress its
//! handlers report. The core keeps the task store (ids, TTL, the live cap,
//! `tasks/get`, `tasks/list`, `tasks/result`, `tasks/cancel`, the status
//! notification; the core's served tasks, `mcp_core::connection::served`); the driver runs each task's
//! handler when the core starts it, stops it when the core stops it, and
//! hands its answer back. A request that carries a progress token runs
//! with a [`ProgressReporter`] in scope.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use futures::future::{AbortHandle, Aborted, abortable};
use mcp_types::NotificationMethod;
use mcp_types::incoming::ServerRequest;
use serde_json::Value;

use super::Driver;
use super::serving::Target;
use crate::handlers::{BoxFuture, HandlerError, Served};
use crate::serve::progress::{self, ProgressQueue, ProgressReporter};

/// What the served-task machinery wakes the driver for.
pub(super) enum LocalWake {
    /// A task's handler finished.
    TaskDone(String),
    /// Progress notifications are queued.
    Progress,
}

/// A served task's handler while it runs.
struct Running {
    abort: AbortHandle,
    reporter: Option<ProgressReporter>,
}

impl Running {
    /// The handler is over (or stopped): its progress token is spent.
    fn end(self) {
        self.abort.abort();
        if let Some(r) = self.reporter {
            r.finish();
        }
    }
}

/// The driver's served-task state.
#[derive(Default)]
pub(super) struct ServedState {
    running: HashMap<String, Running>,
    /// Created (and its pump started) on first use.
    progress: Option<Arc<ProgressQueue>>,
}

impl Driver {
    /// `Event::ServedTaskStarted`: the core answered the server with a
    /// `CreateTaskResult`; the handler runs now, inside the driver.
    #[inline(never)]
    pub(super) fn start_served_task(
        &mut self,
        now: Instant,
        task_id: String,
        request: &ServerRequest,
    ) {
        tracing::debug!(task = %task_id, "serving a task-augmented server request");
        let raw = request.raw();
        let Some(fut) = self.shared.handlers().serve(request) else {
            let refused = HandlerError::not_supported(request.method()).into_error_object();
            self.conn.finish_served_task(now, &task_id, Err(refused));
            return;
        };
        let reporter = progress::meta_of(raw).progress_token.map(|token| {
            ProgressReporter::new(token, Some(task_id.clone()), self.progress_queue())
        });
        let (fut, abort) = abortable(fut);
        let running = Running {
            abort,
            reporter: reporter.clone(),
        };
        self.served.running.insert(task_id.clone(), running);
        self.handler_io.push(Box::pin(async move {
            let served = match reporter {
                Some(r) => r.clone().scope(fut).await,
                None => fut.await,
            };
            let served = served.unwrap_or_else(|Aborted| {
                Err(HandlerError::internal("the task was stopped").into_error_object())
            });
            (Target::Local(LocalWake::TaskDone(task_id)), served)
        }));
    }

    /// `Event::ServedTaskStopped`: cancelled, expired or its session
    /// ended; the handler stops (its future is dropped).
    #[inline(never)]
    pub(super) fn stop_served_task(&mut self, task_id: &str) {
        if let Some(running) = self.served.running.remove(task_id) {
            running.end();
        }
    }

    /// Runs `fut` with a [`ProgressReporter`] in scope when the request
    /// carries a progress token; the token is spent once `fut` is done.
    pub(super) fn with_progress(
        &mut self,
        token: Option<Value>,
        fut: BoxFuture<'static, Served>,
    ) -> BoxFuture<'static, Served> {
        let Some(token) = token else {
            return fut;
        };
        let reporter = ProgressReporter::new(token, None, self.progress_queue());
        Box::pin(async move {
            let served = reporter.clone().scope(fut).await;
            reporter.finish();
            served
        })
    }

    /// A served-task wake-up.
    pub(super) fn on_local(&mut self, now: Instant, wake: LocalWake, served: Served) {
        self.flush_progress(now);
        match wake {
            LocalWake::TaskDone(task_id) => {
                if let Some(running) = self.served.running.remove(&task_id) {
                    running.end();
                }
                if !self.conn.finish_served_task(now, &task_id, served) {
                    tracing::debug!(task = %task_id, "a served task's answer came too late");
                }
            }
            LocalWake::Progress => {
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
            let method = <mcp_types::methods::Progress as NotificationMethod>::METHOD;
            if let Err(e) = self.conn.notify(now, method, Some(params)) {
                tracing::debug!(error = %e, "could not send progress");
            }
        }
    }
}

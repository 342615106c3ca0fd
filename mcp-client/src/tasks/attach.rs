//! Handles for tasks this client did not start through
//! [`Client::call_tool_as_task`]: a task named by id, or by the
//! `io.modelcontextprotocol/related-task` metadata of a result, request or
//! error.
//!
//! The core watches such a task (`Connection::watch_task`): it polls
//! `tasks/get` on the schedule of created tasks (the caller's interval
//! over the server's, never below the floor, within the budget), reports
//! each status, asks for 2026-07-28 `inputRequests` once each, and fetches
//! the outcome (2025-11-25 `tasks/result`; 2026-07-28 the `result`/`error`
//! of `tasks/get`). The handle is the one of a created task; dropping it
//! stops the watch without cancelling the task.

use mcp_types::methods::{ext_tasks, v2025_11_25};
use mcp_types::tasks::TaskIdParams;
use mcp_types::tools::CallToolResult;
use mcp_types::{Era, RequestMethod};
use serde::Serialize;

use crate::client::Client;
use crate::driver::{CallSpec, SpecKind};
use crate::error::{Error, ErrorKind};
use crate::options::CallOptions;
use crate::tasks::TaskHandle;
use crate::tasks::inputs::TaskSink;

impl Client {
    /// A handle for the existing task `task_id` (for example one listed by
    /// [`Client::list_tasks`]). The handle polls it with `tasks/get` at
    /// the interval of [`CallOptions::with_poll_interval`] (else the
    /// server's, never below 50 ms) until it ends, within the timeout of
    /// `opts` (else [`CallOptions::with_max_total`]) when one is set.
    /// Dropping the handle stops watching; it does not cancel the task
    /// ([`TaskHandle::cancel`] does).
    ///
    /// 2025-11-25: input the task needs is requested while the handle waits
    /// on `tasks/result` and served by the registered handlers.
    /// 2026-07-28: each new `inputRequests` entry is answered (once) by the
    /// closure of [`TaskHandle::wait_for_task_with_inputs`] while it waits,
    /// else by the registered handlers, and sent with `tasks/update`; an
    /// entry nobody serves ends the wait with
    /// [`ErrorKind::InputUnanswered`] (the task keeps running).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let mut task = client.attach_task("task-42", Default::default())?;
    /// let result = task.wait().await?;
    /// # let _ = result; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A usage error when the id is empty or longer than 1024 bytes, or
    /// the client is not connected.
    pub fn attach_task(&self, task_id: &str, opts: CallOptions) -> Result<TaskHandle, Error> {
        if task_id.is_empty() || task_id.len() > mcp_core::MAX_TASK_ID {
            return Err(Error::new(ErrorKind::NotInProgress(
                "a task id must be 1 to 1024 bytes",
            )));
        }
        let era = self.era().ok_or_else(Error::closed)?;
        let mut opts = opts;
        // The timeout of `opts` bounds the whole watch, as documented.
        let unbounded = opts.core().filter(|c| c.max_total.is_none());
        if let Some(timeout) = unbounded.and_then(|c| c.timeout.flatten()) {
            opts.set_mut().core.max_total = Some(timeout);
        }
        let (sink, ends) = TaskSink::new();
        // The core sends the polls; the spec names their method and params
        // by the era's marker.
        let method = match era {
            Era::Legacy => v2025_11_25::GetTask::METHOD,
            _ => ext_tasks::GetTask::METHOD,
        };
        let params =
            serde_json::to_value(TaskIdParams::new(task_id)).map_err(mcp_core::UsageError::from)?;
        let spec = CallSpec {
            method: method.into(),
            params: Some(Box::new(params)),
            opts,
            kind: SpecKind::Watch {
                sink,
                task_id: task_id.to_owned(),
            },
        };
        self.start_task_handle(
            spec,
            &format!("task {task_id}"),
            ends,
            Some(task_id.to_owned()),
        )
    }

    /// A handle for the task that `message` (a result, a server request's
    /// params, an error's data, or a `_meta` object) names in
    /// `_meta["io.modelcontextprotocol/related-task"]`; see
    /// [`Client::attach_task`].
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client, result: mcp_client::mcp_types::tools::CallToolResult)
    /// # -> Result<(), mcp_client::Error> {
    /// if let Some(mut task) = client.related_task(&result, Default::default())? {
    ///     let outcome = task.wait().await?;
    ///     # let _ = outcome;
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::attach_task`]; a usage error when `message` does not
    /// serialize.
    pub fn related_task(
        &self,
        message: &impl Serialize,
        opts: CallOptions,
    ) -> Result<Option<TaskHandle>, Error> {
        let value = serde_json::to_value(message).map_err(mcp_core::UsageError::from)?;
        match mcp_core::related_task_id(&value) {
            Some(id) => self.attach_task(id, opts).map(Some),
            None => Ok(None),
        }
    }

    /// Waits for the task that `message` names in its related-task
    /// metadata and returns its result.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client, result: serde_json::Value)
    /// # -> Result<(), mcp_client::Error> {
    /// let outcome = client.wait_for_related_task(&result, Default::default()).await?;
    /// # let _ = outcome; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A usage error when `message` names no task; else as
    /// [`TaskHandle::wait`].
    pub async fn wait_for_related_task(
        &self,
        message: &impl Serialize,
        opts: CallOptions,
    ) -> Result<CallToolResult, Error> {
        let mut task = self.related_task(message, opts)?.ok_or_else(|| {
            Error::new(ErrorKind::NotInProgress(
                "the message names no task in io.modelcontextprotocol/related-task",
            ))
        })?;
        task.wait().await
    }
}

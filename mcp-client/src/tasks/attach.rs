//! Handles for tasks this client did not start through
//! [`Client::call_tool_as_task`]: a task named by id, or by the
//! `io.modelcontextprotocol/related-task` metadata of a result, request or
//! error.
//!
//! Such a handle is fed by a small poller on its own Tokio task: it sends
//! `tasks/get` on the schedule the core's [`decide`] gives (the caller's
//! interval over the server's, never below the floor, within the budget),
//! publishes each status to the handle, and fetches the outcome (2025-11-25
//! `tasks/result`; 2026-07-28 the `result`/`error` of `tasks/get`, after
//! answering its `inputRequests` with `tasks/update`).

use std::collections::HashSet;
use std::time::Instant;

use mcp_core::RequestError;
use mcp_core::tasks::{PollDecision, PollOptions, TaskSnapshot, TaskStatus, decide};
use mcp_types::Era;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::tools::CallToolResult;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::client::Client;
use crate::error::{Error, ErrorKind};
use crate::options::CallOptions;
use crate::tasks::inputs::TaskSink;
use crate::tasks::{Source, TaskHandle};

/// Stops the poller when the handle goes away.
#[derive(Debug)]
pub(crate) struct PollerGuard(tokio::task::AbortHandle);

impl Drop for PollerGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The longest task id accepted from the caller.
const MAX_TASK_ID: usize = 1024;

impl Client {
    /// A handle for the existing task `task_id` (for example one listed by
    /// [`Client::list_tasks`]). The handle polls it with `tasks/get` at
    /// the interval of [`CallOptions::with_poll_interval`] (else the
    /// server's, never below 50 ms) until it ends, within the timeout of
    /// `opts` when one is set. Dropping the handle stops watching; it does
    /// not cancel the task ([`TaskHandle::cancel`] does).
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
        if task_id.is_empty() || task_id.len() > MAX_TASK_ID {
            return Err(Error::new(ErrorKind::NotInProgress(
                "a task id must be 1 to 1024 bytes",
            )));
        }
        let era = self.era().ok_or_else(Error::closed)?;
        let (sink, ends) = TaskSink::new();
        let (reply, outcome) = oneshot::channel();
        let mut poll = PollOptions::default();
        poll.interval = opts.core.poll_interval;
        poll.deadline = opts
            .core
            .timeout
            .flatten()
            .and_then(|t| Instant::now().checked_add(t));
        let poller = Poller {
            client: self.clone(),
            task_id: task_id.to_owned(),
            legacy: era == Era::Legacy,
            poll,
            sink,
            answered: HashSet::new(),
        };
        let task = tokio::spawn(async move {
            let r = poller.run().await;
            let _ = reply.send(r);
        });
        let source = Source::Attached {
            task_id: task_id.to_owned(),
            outcome: Some(outcome),
            _poller: PollerGuard(task.abort_handle()),
        };
        let name = format!("task {task_id}");
        Ok(TaskHandle::new(self.clone(), &name, source, ends))
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
        match mcp_core::tasks::related_task_id(&value) {
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

struct Poller {
    client: Client,
    task_id: String,
    legacy: bool,
    poll: PollOptions,
    sink: TaskSink,
    /// Input keys already answered (the spec asks not to answer twice).
    answered: HashSet<String>,
}

/// The most input keys one attached task may ask for.
const MAX_INPUT_KEYS: usize = 256;

impl Poller {
    async fn run(mut self) -> Result<CallToolResult, Error> {
        let started = Instant::now();
        let params = json!({ "taskId": self.task_id });
        let mut polls = 0u32;
        loop {
            let detailed: Value = self
                .client
                .request_as("tasks/get", Some(params.clone()), CallOptions::new())
                .await?;
            let mut snapshot = snapshot_of(&detailed)?;
            if snapshot.task_id != self.task_id {
                return Err(invalid("tasks/get answered for another task"));
            }
            polls = polls.saturating_add(1);
            snapshot.polls = polls;
            self.sink.publish(snapshot.clone());
            match (&snapshot.status, self.legacy) {
                (TaskStatus::Cancelled, _) => return Err(RequestError::TaskCancelled.into()),
                (TaskStatus::Completed | TaskStatus::Failed | TaskStatus::InputRequired, true) => {
                    return self
                        .client
                        .request_as("tasks/result", Some(params), CallOptions::new())
                        .await;
                }
                (TaskStatus::Completed, false) => {
                    let result = detailed
                        .get("result")
                        .cloned()
                        .ok_or_else(|| invalid("completed task without result"))?;
                    return serde_json::from_value(result)
                        .map_err(|e| Error::decode("tasks/get", e));
                }
                (TaskStatus::Failed, false) => {
                    let error: ErrorObject = detailed
                        .get("error")
                        .cloned()
                        .and_then(|e| serde_json::from_value(e).ok())
                        .ok_or_else(|| invalid("failed task without error"))?;
                    return Err(RequestError::Remote(error).into());
                }
                (TaskStatus::InputRequired, false) => self.answer_inputs(&detailed).await?,
                _ => {}
            }
            // input_required (2026-07-28) keeps the normal pace.
            let mut pace = snapshot;
            pace.status = TaskStatus::Working;
            match decide(&pace, Instant::now(), &self.poll) {
                PollDecision::PollAt(at) => tokio::time::sleep_until(at.into()).await,
                _ => return Err(RequestError::Timeout(started.elapsed()).into()),
            }
        }
    }
}

impl Poller {
    /// Serves the new `inputRequests` of a 2026-07-28 task and sends the
    /// answers with `tasks/update`.
    async fn answer_inputs(&mut self, detailed: &Value) -> Result<(), Error> {
        let Some(requests) = detailed.get("inputRequests").and_then(Value::as_object) else {
            return Err(invalid("input_required task without inputRequests"));
        };
        let mut responses = Map::new();
        for (key, request) in requests {
            if self.answered.contains(key) {
                continue;
            }
            if self.answered.len() >= MAX_INPUT_KEYS {
                return Err(invalid("too many input requests"));
            }
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let params = request
                .get("params")
                .map(serde_json::value::to_raw_value)
                .transpose()
                .map_err(|e| Error::decode("tasks/get", e))?;
            let params = params.as_deref();
            let serve = self
                .sink
                .forward_first(method, params)
                .or_else(|| self.client.inner.shared.handlers().serve(method, params))
                .or_else(|| self.sink.forward(method, params));
            let Some(serve) = serve else {
                let method = method.to_owned();
                return Err(ErrorKind::InputUnanswered { method }.into());
            };
            match serve.await {
                Ok(answer) => {
                    self.answered.insert(key.clone());
                    responses.insert(key.clone(), answer);
                }
                Err(error) => {
                    let method = method.to_owned();
                    return Err(ErrorKind::Handler { method, error }.into());
                }
            }
        }
        if !responses.is_empty() {
            let params = json!({ "taskId": self.task_id, "inputResponses": responses });
            let _: Value = self
                .client
                .request_as("tasks/update", Some(params), CallOptions::new())
                .await?;
        }
        Ok(())
    }
}

fn snapshot_of(v: &Value) -> Result<TaskSnapshot, Error> {
    let text = serde_json::to_string(v).map_err(|e| Error::decode("tasks/get", e))?;
    TaskSnapshot::from_flat(text.as_bytes()).map_err(|e| Error::decode("tasks/get", e))
}

fn invalid(reason: &str) -> Error {
    RequestError::Peer(mcp_core::PeerMisbehaved::InvalidResult {
        method: "tasks/get".into(),
        reason: reason.into(),
    })
    .into()
}

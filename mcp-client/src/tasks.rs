//! [`TaskHandle`]: a tool call that runs as a task (the 2025-11-25 core
//! tasks and the 2026-07-28 tasks extension).
//!
//! The core polls the task (`tasks/get`, at the server's interval, never
//! below 50 ms, within the call's budget) and fetches the outcome; the
//! handle watches the status, answers input, cancels, and waits.

use std::time::Duration;

use mcp_core::RequestError;
use mcp_core::tasks::TaskSnapshot;
use mcp_types::tasks::legacy::ListTasksResult;
use mcp_types::tools::CallToolResult;
use serde_json::{Map, Value, json};
use tokio::sync::{oneshot, watch};

use crate::client::{CancelGuard, Client, unexpected};
use crate::driver::{CallSpec, Command, SpecKind};
use crate::error::Error;
use crate::options::CallOptions;
use crate::router::Outcome;

/// A tool call running as a task.
///
/// Dropping the handle before the task ends cancels it (`tasks/cancel`).
///
/// ```no_run
/// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
/// let mut task = client
///     .call_tool_as_task("long_task", serde_json::json!({"steps": 3}), Default::default())
///     .await?;
/// println!("task {:?} is {:?}", task.task_id(), task.status().map(|s| s.status));
/// let result = task.wait().await?;
/// # let _ = result; Ok(()) }
/// ```
#[derive(Debug)]
pub struct TaskHandle {
    client: Client,
    token: u64,
    status: watch::Receiver<Option<TaskSnapshot>>,
    outcome: Option<oneshot::Receiver<Result<Outcome, Error>>>,
    finished: Option<Result<CallToolResult, ()>>,
    guard: CancelGuard,
}

impl Client {
    /// Calls a tool as a task: in 2025-11-25 the request is task-augmented
    /// (`params.task`); in 2026-07-28 the server decides. Returns once the
    /// server created the task (or already answered).
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        opts: CallOptions,
    ) -> Result<TaskHandle, Error> {
        let opts = if self.era() == Some(mcp_types::Era::Legacy) && opts.core.task_ttl.is_none() {
            opts.as_task(None)
        } else {
            opts
        };
        let (tx, mut status) = watch::channel(None);
        let spec = CallSpec {
            method: "tools/call".into(),
            params: Some(json!({ "name": name, "arguments": arguments })),
            opts,
            kind: SpecKind::Task(tx),
        };
        let token = self.token();
        let (reply, mut outcome) = oneshot::channel();
        self.inner
            .commands
            .send(Command::Start {
                token,
                spec: Box::new(spec),
                reply,
            })
            .map_err(|_| Error::closed())?;
        let guard = CancelGuard::new(token, self.inner.commands.clone());
        let mut finished = None;
        tokio::select! {
            changed = status.changed() => {
                if changed.is_err() {
                    finished = Some(decode_outcome((&mut outcome).await)?);
                }
            }
            r = &mut outcome => finished = Some(decode_outcome(r)?),
        }
        let mut handle = TaskHandle {
            client: self.clone(),
            token,
            status,
            outcome: Some(outcome),
            finished: None,
            guard,
        };
        if let Some(result) = finished {
            handle.outcome = None;
            handle.finished = Some(Ok(result));
            handle.guard.disarm();
        }
        Ok(handle)
    }

    /// `tasks/list` (2025-11-25): one page of the tasks the server keeps
    /// for this session.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<ListTasksResult, Error> {
        let params = cursor.map(|c| json!({ "cursor": c }));
        self.request_as("tasks/list", params, CallOptions::new())
            .await
    }
}

fn decode_outcome(
    r: Result<Result<Outcome, Error>, oneshot::error::RecvError>,
) -> Result<CallToolResult, Error> {
    match r.map_err(|_| Error::closed())?? {
        Outcome::Done(c) => c.decode().map_err(|e| Error::decode("tools/call", e)),
        other => Err(unexpected("tools/call", &other)),
    }
}

impl TaskHandle {
    /// The task's id (`None` when the server answered without a task).
    pub fn task_id(&self) -> Option<String> {
        self.status.borrow().as_ref().map(|s| s.task_id.clone())
    }

    /// The last observed status.
    pub fn status(&self) -> Option<TaskSnapshot> {
        self.status.borrow().clone()
    }

    /// Waits for the next status change; `None` once the task is over.
    pub async fn changed(&mut self) -> Option<TaskSnapshot> {
        self.status.changed().await.ok()?;
        self.status.borrow_and_update().clone()
    }

    /// Fetches the task's status now (`tasks/get`), decoded.
    ///
    /// # Errors
    /// See [`Error`]; a usage error when there is no task.
    pub async fn get(&self) -> Result<TaskSnapshot, Error> {
        let raw = self.get_detailed().await?;
        let text = serde_json::to_string(&raw).map_err(|e| Error::decode("tasks/get", e))?;
        let raw = serde_json::value::RawValue::from_string(text)
            .map_err(|e| Error::decode("tasks/get", e))?;
        TaskSnapshot::from_flat(&raw).map_err(|e| Error::decode("tasks/get", e))
    }

    /// Fetches the full `tasks/get` result (2026-07-28: a `DetailedTask`
    /// with the outcome or the input requests; 2025-11-25: a `Task`).
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn get_detailed(&self) -> Result<Value, Error> {
        let id = self.task_id().ok_or_else(no_task)?;
        self.client
            .request_as(
                "tasks/get",
                Some(json!({ "taskId": id })),
                CallOptions::new(),
            )
            .await
    }

    /// Answers input requests of the task (2026-07-28 `tasks/update`),
    /// keyed as the server keyed them. Registered handlers answer
    /// automatically; this is for answers the application gives itself.
    ///
    /// # Errors
    /// See [`Error`]; a usage error in the legacy era.
    pub async fn update(&self, responses: Map<String, Value>) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        self.client
            .inner
            .commands
            .send(Command::TaskInput {
                token: self.token,
                responses,
                reply,
            })
            .map_err(|_| Error::closed())?;
        rx.await.map_err(|_| Error::closed())?
    }

    /// Cancels the task (`tasks/cancel`) and waits for the call to end.
    ///
    /// # Errors
    /// The call's error ([`Error::is_cancelled`]), or another one if the
    /// task ended first.
    pub async fn cancel(mut self) -> Result<CallToolResult, Error> {
        let _ = self
            .client
            .inner
            .commands
            .send(Command::Cancel { token: self.token });
        self.wait().await
    }

    /// Waits for the task's result (`wait` and `result` are the same call).
    ///
    /// # Errors
    /// See [`Error`]; [`Error::is_cancelled`] when the task was cancelled.
    pub async fn wait(&mut self) -> Result<CallToolResult, Error> {
        if let Some(Ok(r)) = &self.finished {
            return Ok(r.clone());
        }
        let rx = self.outcome.take().ok_or_else(Error::closed)?;
        let r = decode_outcome(rx.await);
        self.guard.disarm();
        if let Ok(result) = &r {
            self.finished = Some(Ok(result.clone()));
        }
        r
    }

    /// Waits at most `budget`; on expiry the task keeps running and the
    /// handle can wait again.
    ///
    /// # Errors
    /// [`Error::is_timeout`] when the budget ran out; else as [`TaskHandle::wait`].
    pub async fn wait_timeout(&mut self, budget: Duration) -> Result<CallToolResult, Error> {
        if let Some(Ok(r)) = &self.finished {
            return Ok(r.clone());
        }
        let rx = self.outcome.as_mut().ok_or_else(Error::closed)?;
        match tokio::time::timeout(budget, rx).await {
            Ok(r) => {
                self.outcome = None;
                self.guard.disarm();
                let r = decode_outcome(r);
                if let Ok(result) = &r {
                    self.finished = Some(Ok(result.clone()));
                }
                r
            }
            Err(_) => Err(RequestError::Timeout(budget).into()),
        }
    }

    /// The task's result: the same as [`TaskHandle::wait`].
    ///
    /// # Errors
    /// As [`TaskHandle::wait`].
    pub async fn result(&mut self) -> Result<CallToolResult, Error> {
        self.wait().await
    }
}

fn no_task() -> Error {
    Error::new(crate::error::ErrorKind::NotInProgress(
        "the server answered without creating a task",
    ))
}

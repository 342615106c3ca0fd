//! Watching a task this client did not start: one named by id (listed by
//! `tasks/list`, or named in related-task metadata).
//!
//! # For the driver
//!
//! * Command: [`Connection::watch_task`](crate::Connection::watch_task)`(now, task_id, opts)` returns a
//!   call id. The first `tasks/get` goes out at once; later polls are due
//!   at [`Timer::TaskPoll`](crate::Timer::TaskPoll)`(call)` (nothing to do
//!   beyond the usual `poll_timeout` / `handle_timeout`).
//! * Events, keyed by that call id: [`Event::TaskStatus`](crate::Event::TaskStatus) for each
//!   observation (the first one included; there is no `TaskCreated`);
//!   2026-07-28 [`Event::TaskInputRequested`](crate::Event::TaskInputRequested) for each new input key
//!   (answer with [`Connection::answer_task_input`](crate::Connection::answer_task_input)); then exactly one of
//!   [`Event::Response`](crate::Event::Response) (the task's result: `tasks/result` in 2025-11-25,
//!   the `result` of `tasks/get` in 2026-07-28; decode it as the result of
//!   the request that created the task, usually `CallToolResult`) or
//!   [`Event::RequestFailed`](crate::Event::RequestFailed) (`TaskCancelled`, the task's own error as
//!   `Remote`, `Timeout` when the budget is spent, an invalid `tasks/get`).
//! * Stop watching without touching the task: [`Connection::unwatch_task`](crate::Connection::unwatch_task);
//!   cancel the task itself (`tasks/cancel`): [`Connection::cancel`](crate::Connection::cancel).
//!
//! The schedule is the one of tasks the client created (`tasks::decide`):
//! the caller's interval over the server's, never below the floor, clamped
//! to the budget; a pushed terminal status pulls the next poll forward.

use std::time::Instant;

use mcp_types::methods::ext_tasks;
use mcp_types::{Era, RequestId, RequestMethod};
use serde_json::{Map, Value};

use super::{CallKind, Connection, Role, TaskWatch};
use crate::config::RequestOptions;
use crate::error::UsageError;
use crate::lifecycle::State;
use crate::tasks::{MAX_TASK_ID, TaskSnapshot, TaskStatus};

impl Connection {
    /// Starts watching the existing task `task_id`: polls it with
    /// `tasks/get` until it ends, then fetches its outcome (see the
    /// [module docs](self) for the events). The watch's budget is
    /// `opts.max_total` (else [`Config::max_total`](crate::Config::max_total));
    /// `opts.timeout` bounds each `tasks/get`; `opts.poll_interval` wins
    /// over the server's interval.
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::{Connection, RequestOptions, UsageError};
    ///
    /// // `now` comes from the driver's clock.
    /// fn attach(conn: &mut Connection, now: Instant) -> Result<(), UsageError> {
    ///     // An empty id is refused before anything is sent.
    ///     assert!(conn.watch_task(now, "", RequestOptions::default()).is_err());
    ///     let call = conn.watch_task(now, "task-42", RequestOptions::default())?;
    ///     // ... drain: a `tasks/get` for task-42 goes out at once.
    ///     # let _ = call;
    ///     Ok(())
    /// }
    /// # let _ = attach;
    /// ```
    ///
    /// # Errors
    /// [`UsageError::InvalidTaskId`] for an empty id or one over
    /// [`MAX_TASK_ID`] bytes; [`UsageError::NotReady`] /
    /// [`UsageError::Closed`] when the connection is not ready.
    pub fn watch_task(
        &mut self,
        now: Instant,
        task_id: &str,
        mut opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        self.promote_quick();
        if task_id.is_empty() || task_id.len() > MAX_TASK_ID {
            return Err(UsageError::InvalidTaskId { max: MAX_TASK_ID });
        }
        match self.state {
            State::Ready => {}
            State::Closed => return Err(UsageError::Closed),
            _ => return Err(UsageError::NotReady),
        }
        let mut params = Map::new();
        params.insert("taskId".into(), Value::String(task_id.to_owned()));
        let method = ext_tasks::GetTask::METHOD;
        let facts = mcp_types::methods::facts::lookup(method);
        let mut call = self.new_call(
            now,
            method,
            facts,
            params.into(),
            &mut opts,
            CallKind::Watch,
        );
        let placeholder = TaskSnapshot::new(task_id, TaskStatus::Working);
        call.task = Some(Box::new(TaskWatch::new(
            placeholder,
            self.era == Some(Era::Legacy),
            false,
        )));
        let key = self.wires.reserve();
        self.calls.insert(key, call);
        self.send_task_request(now, key, method, Map::new(), Role::TaskGet);
        Ok(RequestId::Number(key))
    }

    /// Stops a watch started with [`Connection::watch_task`] without
    /// cancelling the task: no event follows, nothing is sent, and a late
    /// `tasks/get` answer is absorbed.
    ///
    /// # Errors
    /// [`UsageError::UnknownCall`] when `call` is not a watch in progress.
    pub fn unwatch_task(&mut self, now: Instant, call: &RequestId) -> Result<(), UsageError> {
        self.promote_quick();
        let _ = now;
        let key = self.call_key(call)?;
        if !matches!(self.calls.get(key).map(|c| &c.kind), Some(CallKind::Watch)) {
            return Err(UsageError::UnknownCall(call.clone()));
        }
        self.remove_call(key);
        Ok(())
    }
}

//! Driving a task created by a call: starting it in the era's shape,
//! polling, outcomes, input.

use std::time::Instant;

use mcp_types::incoming::ServerRequest;
use mcp_types::methods::{ext_tasks, v2025_11_25};
use mcp_types::raw::RawJson;
use mcp_types::results::RawInputRequired;
use mcp_types::{Era, RequestId, RequestMethod};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::{Connection, Role, TaskWatch};
use crate::config::RequestOptions;
use crate::error::{PeerMisbehaved, RequestError, UsageError};
use crate::event::{Completed, Event};
use crate::mrtr::InputRequest;
use crate::tasks::{PollDecision, PollOptions, TaskSnapshot, TaskStatus, decide};
use crate::timers::Timer;
use crate::wire;

/// The most input keys one task may ask for over its life.
pub(super) const MAX_INPUT_KEYS: usize = 256;

impl Connection {
    /// Sends a request that runs as a task where the server allows it
    /// (`tools/call`): in 2025-11-25 the request is task-augmented
    /// (`params.task`, with the ttl of
    /// [`RequestOptions::with_task`](crate::RequestOptions::with_task) if
    /// one is set); in 2026-07-28 the server decides (the tasks extension
    /// is declared with the client's features). The call then reports
    /// [`Event::TaskCreated`] and is driven like
    /// any task call (see [`Connection::wait_task`]), or completes at once
    /// when the server answers without a task.
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::{Connection, RequestOptions, UsageError};
    ///
    /// fn start(conn: &mut Connection, now: Instant) -> Result<(), UsageError> {
    ///     let params = mcp_core::call_tool_params("long_task", serde_json::json!({"steps": 3}));
    ///     let call = conn.start_task(now, "tools/call", Some(params.into()), RequestOptions::default())?;
    ///     # let _ = call;
    ///     Ok(())
    /// }
    /// # let _ = start;
    /// ```
    ///
    /// # Errors
    /// As [`Connection::send_request`].
    pub fn start_task(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        self.promote_quick();
        let mut opts = opts;
        if self.era == Some(Era::Legacy) && opts.task_ttl.is_none() {
            opts.task_ttl = Some(None);
        }
        self.send_request(now, method, params, opts)
    }

    #[inline(never)]
    pub(super) fn on_task_created(
        &mut self,
        now: Instant,
        key: i64,
        task: TaskSnapshot,
        legacy: bool,
    ) {
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        c.task = Some(Box::new(TaskWatch::new(task.clone(), legacy, true)));
        self.events.push_back(Event::TaskCreated {
            id: RequestId::Number(key),
            task,
        });
        self.schedule_poll(now, key);
    }

    /// Arms the next poll of a call's task, or ends the call when its
    /// budget is spent, or ends the handle's wait at its poll cap.
    pub(super) fn schedule_poll(&mut self, now: Instant, key: i64) {
        let Some(c) = self.calls.get(key) else {
            return;
        };
        let Some(w) = c.task.as_ref().filter(|w| !w.capped) else {
            return;
        };
        let mut snapshot = w.snapshot.clone();
        if snapshot.status == TaskStatus::InputRequired {
            // Inputs were surfaced; keep observing at the normal pace.
            snapshot.status = TaskStatus::Working;
        }
        let mut opts = PollOptions::default();
        opts.interval = c.opts.poll_interval;
        opts.deadline = c.total_deadline;
        opts.max_polls = w.wait.as_ref().and_then(|wait| wait.max_polls);
        match decide(&snapshot, now, &opts) {
            PollDecision::PollAt(at) => {
                self.timers.set(Timer::TaskPoll(RequestId::Number(key)), at)
            }
            PollDecision::BudgetExhausted => {
                let elapsed = now.saturating_duration_since(c.started);
                self.fail_call(key, RequestError::Timeout(elapsed));
            }
            PollDecision::PollCapReached => {
                let cap = opts.max_polls.unwrap_or_default();
                self.stop_at_poll_cap(key, cap);
            }
            PollDecision::Terminal | PollDecision::InputRequired => {}
        }
    }

    /// A `tasks/get` result (or a task notification) for a call's task.
    #[inline(never)]
    pub(super) fn on_task_observed(&mut self, now: Instant, key: i64, raw: &[u8]) {
        let snapshot = match TaskSnapshot::from_flat(raw) {
            Ok(s) => s,
            Err(e) => {
                let method = ext_tasks::GetTask::METHOD.to_owned();
                return self.fail_call(
                    key,
                    RequestError::Peer(PeerMisbehaved::InvalidResult {
                        method,
                        reason: e.to_string(),
                    }),
                );
            }
        };
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let Some(w) = c.task.as_mut() else {
            return;
        };
        if snapshot.task_id != w.snapshot.task_id {
            return self.task_invalid(key, "tasks/get answered for another task");
        }
        let mut snapshot = snapshot;
        snapshot.polls = w.snapshot.polls.saturating_add(1);
        w.snapshot = snapshot.clone();
        let legacy = w.legacy;
        self.report_task(key, snapshot.clone());
        let outcome: Option<wire::TaskOutcome> = if legacy {
            None
        } else {
            mcp_types::raw::parse(raw).ok()
        };
        match (&snapshot.status, legacy) {
            (TaskStatus::Completed | TaskStatus::Failed | TaskStatus::InputRequired, true) => {
                // 2025-11-25: tasks/result returns the outcome (and, for
                // input_required, lets the server send its requests).
                self.timers.cancel(&Timer::TaskPoll(RequestId::Number(key)));
                let method = v2025_11_25::GetTaskPayload::METHOD;
                self.send_task_request(now, key, method, Map::new(), Role::TaskResult);
            }
            (TaskStatus::Completed, false) => match outcome.and_then(|o| o.result) {
                Some(result) => self.on_task_result(key, result.into()),
                None => self.task_invalid(key, "completed task without result"),
            },
            (TaskStatus::Failed, false) => match outcome.and_then(|o| o.error) {
                Some(error) => self.fail_call(key, RequestError::Remote(error)),
                None => self.task_invalid(key, "failed task without error"),
            },
            (TaskStatus::Cancelled, _) => self.fail_call(key, RequestError::TaskCancelled),
            (TaskStatus::InputRequired, false) => {
                // A malformed map surfaces nothing, and the task is polled
                // again, as when the whole outcome is unreadable.
                let requests = (outcome.and_then(|o| o.input_requests))
                    .and_then(|raw| RawInputRequired::requests_from_raw(&raw).ok())
                    .unwrap_or_default();
                self.surface_task_inputs(key, requests);
                self.schedule_poll(now, key);
            }
            _ => self.schedule_poll(now, key),
        }
    }

    fn task_invalid(&mut self, key: i64, reason: &str) {
        self.fail_call(
            key,
            RequestError::Peer(PeerMisbehaved::InvalidResult {
                method: ext_tasks::GetTask::METHOD.into(),
                reason: reason.into(),
            }),
        );
    }

    fn surface_task_inputs(&mut self, key: i64, requests: Vec<InputRequest>) {
        let Some(w) = self.task_mut(key) else {
            return;
        };
        let mut fresh = Vec::new();
        for r in requests {
            if w.surfaced.contains(&r.key) {
                continue;
            }
            // The surfaced keys are remembered for the task's life: a server
            // that keeps inventing keys must not grow that set without end.
            if w.surfaced.len() >= MAX_INPUT_KEYS {
                return self.task_invalid(key, "too many input requests");
            }
            if w.surfaced.insert(r.key.clone()) {
                fresh.push(r);
            }
        }
        for r in fresh {
            self.events.push_back(Event::TaskInputRequested {
                id: RequestId::Number(key),
                key: r.key,
                request: ServerRequest::classify(r.method, r.params),
            });
        }
    }

    /// The underlying result of a task: the call completes with it.
    #[inline(never)]
    pub(super) fn on_task_result(&mut self, key: i64, result: RawJson) {
        self.conclude_task(key, Ok(()));
        let Some(c) = self.remove_call(key) else {
            return;
        };
        self.events.push_back(Event::Response(Completed {
            id: RequestId::Number(key),
            method: c.method,
            result,
            cached: false,
        }));
    }

    /// A pushed task status (`notifications/tasks/status`, `notifications/tasks`):
    /// merged into the task's record (task_wait.rs) when it matches a
    /// watched task not yet polled terminal, and reported as
    /// `Event::TaskStatus` when that changes the record (a push after a
    /// reported end changes nothing). Polling stays in charge of the
    /// outcome, but a pushed terminal or `input_required` status pulls the
    /// next scheduled poll forward to `now`, so the outcome (or the inputs)
    /// is fetched at once instead of after the poll interval. The snapshot
    /// carries the poll count so far.
    pub(super) fn on_task_notification(&mut self, now: Instant, params: Option<&RawValue>) {
        let Some(mut snapshot) =
            params.and_then(|p| TaskSnapshot::from_flat(p.get().as_bytes()).ok())
        else {
            return;
        };
        let key = self.calls.iter().find_map(|(k, c)| {
            c.task
                .as_ref()
                .filter(|w| {
                    w.snapshot.task_id == snapshot.task_id && !w.snapshot.status.is_terminal()
                })
                .map(|w| (k, w.snapshot.polls))
        });
        if let Some((key, polls)) = key {
            snapshot.polls = polls;
            let settled =
                snapshot.status.is_terminal() || snapshot.status == TaskStatus::InputRequired;
            let poll = Timer::TaskPoll(RequestId::Number(key));
            // Only a poll that is waiting for its time: one in flight
            // answers soon anyway.
            if settled && self.timers.get(&poll).is_some_and(|at| at > now) {
                self.timers.set(poll, now);
            }
            self.report_task(key, snapshot);
        }
    }

    /// Answers input requests of a task with `tasks/update` (2026-07-28
    /// tasks extension); a partial set is allowed.
    ///
    /// # Errors
    /// [`UsageError::UnknownCall`] when the call has no task;
    /// [`UsageError::WrongEra`] on a 2025-11-25 connection (answer the
    /// server's requests with `respond` there).
    pub fn answer_task_input(
        &mut self,
        now: Instant,
        call: &RequestId,
        responses: Map<String, Value>,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let key = self.call_key(call)?;
        if self.era != Some(Era::Modern) {
            return Err(UsageError::WrongEra {
                method: ext_tasks::UpdateTask::METHOD.into(),
                era: self.era.unwrap_or(Era::Legacy),
            });
        }
        if self.task_mut(key).is_none() {
            return Err(UsageError::UnknownCall(call.clone()));
        }
        let mut params = Map::new();
        params.insert("inputResponses".into(), json!(responses));
        let method = ext_tasks::UpdateTask::METHOD;
        self.send_task_request(now, key, method, params, Role::TaskAck);
        Ok(())
    }
}

//! What a task handle learns and waits for: the reports of a call's task
//! (polls and pushes merged into one record, the terminal state kept, the
//! call's end concluded into a state), and the handle's wait.
//!
//! # For the driver
//!
//! * Command: [`Connection::wait_task`]`(now, call, wait)` for a call
//!   that has a task (created by [`Connection::start_task`] or watched by
//!   [`Connection::watch_task`]). One wait per call: a new one replaces
//!   the last.
//! * Output: [`Event::TaskWaitOver`] `{ id,
//!   end }` once, when the task reaches a state of the wait, ends in
//!   another, or (with a poll cap) is still open after the last allowed
//!   `tasks/get`; at once when that is already so. A wait that does not
//!   end before the call does gets no event: the call's
//!   `Event::Response` / `Event::RequestFailed` ends it.
//! * Every [`Event::TaskStatus`] carries the
//!   record's latest snapshot: the terminal one stays once seen, and when
//!   the call ends before the task was seen to (the outcome of a task
//!   still reported working, a local cancel, a failed task), its
//!   concluded state is reported before the call's end.
//! * A poll cap that is reached stops polling (no timer, nothing sent);
//!   the task runs on. The next `wait_task` without that cap resumes it.

use std::collections::HashSet;
use std::time::Instant;

use mcp_types::RequestId;

use super::{Connection, TaskWatch};
use crate::error::{RequestError, UsageError};
use crate::event::Event;
use crate::tasks::{
    TaskRecord, TaskSnapshot, TaskStatus, TaskWait, TaskWaitEnd, poll_cap_reached, polls_continue,
};
use crate::timers::Timer;

impl TaskWatch {
    /// A call's task, as first known: `created` when the server reported
    /// it (the creation is its first report), else a placeholder that is
    /// only polled.
    pub(super) fn new(snapshot: TaskSnapshot, legacy: bool, created: bool) -> Self {
        let mut record = TaskRecord::default();
        if created {
            record.observe(snapshot.clone());
        }
        TaskWatch {
            snapshot,
            record,
            surfaced: HashSet::new(),
            legacy,
            wait: None,
            capped: false,
        }
    }

    /// Whether the client polls this task further on its own.
    fn polls_continue(&self) -> bool {
        let era = if self.legacy {
            mcp_types::Era::Legacy
        } else {
            mcp_types::Era::Modern
        };
        polls_continue(&self.snapshot, era)
    }
}

impl Connection {
    /// Waits for a call's task as `wait` says (see the [module
    /// docs](self)): the answer is one
    /// [`Event::TaskWaitOver`], now when the
    /// task already is where the wait ends, or none when the call ends
    /// first. It replaces the call's previous wait, and resumes polling
    /// that a poll cap stopped when this wait allows more polls.
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::{Connection, TaskStates, TaskWait, UsageError};
    /// use mcp_types::RequestId;
    ///
    /// // `call` is a task call; `now` comes from the driver's clock.
    /// fn until_ended(conn: &mut Connection, now: Instant, call: &RequestId) -> Result<(), UsageError> {
    ///     conn.wait_task(now, call, TaskWait::until(TaskStates::terminal()))?;
    ///     // ... drain: Event::TaskWaitOver { id: call, end } when it is over.
    ///     Ok(())
    /// }
    /// # let _ = until_ended;
    /// ```
    ///
    /// # Errors
    /// [`UsageError::UnknownCall`] when `call` is not in progress or has
    /// no task (yet).
    pub fn wait_task(
        &mut self,
        now: Instant,
        call: &RequestId,
        wait: TaskWait,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let key = self.call_key(call)?;
        let Some(w) = self.task_mut(key) else {
            return Err(UsageError::UnknownCall(call.clone()));
        };
        let cap = wait.max_polls;
        w.wait = Some(wait);
        if self.check_task_wait(key) {
            return Ok(());
        }
        let Some(w) = self.task_mut(key) else {
            return Ok(());
        };
        if let Some(max_polls) = cap
            && w.polls_continue()
            && poll_cap_reached(&w.snapshot, max_polls)
        {
            self.stop_at_poll_cap(key, max_polls);
            return Ok(());
        }
        if std::mem::take(&mut w.capped) {
            self.schedule_poll(now, key);
        }
        Ok(())
    }

    /// The task of call `key`, when the call is in progress and has one.
    pub(super) fn task_mut(&mut self, key: i64) -> Option<&mut TaskWatch> {
        self.calls.get_mut(key).and_then(|c| c.task.as_deref_mut())
    }

    /// Reports one observation of a call's task (a poll, a push, the
    /// creation) as the record merges it, then settles the wait it ends.
    pub(super) fn report_task(&mut self, key: i64, snapshot: TaskSnapshot) {
        let Some(w) = self.task_mut(key) else {
            return;
        };
        let before = w.record.latest().cloned();
        w.record.observe(snapshot);
        let Some(latest) = w.record.latest().filter(|l| Some(*l) != before.as_ref()) else {
            return;
        };
        let task = latest.clone();
        self.events.push_back(Event::TaskStatus {
            id: RequestId::Number(key),
            task,
        });
        self.check_task_wait(key);
    }

    /// The call is ending with `outcome` (`Ok`: its result): the task's
    /// state this implies (completed; cancelled; failed for the task's
    /// own error) is reported first, unless a terminal one was seen.
    pub(super) fn conclude_task(&mut self, key: i64, outcome: Result<(), &RequestError>) {
        let status = match outcome {
            Ok(()) => TaskStatus::Completed,
            Err(RequestError::Cancelled | RequestError::TaskCancelled) => TaskStatus::Cancelled,
            Err(RequestError::Remote(_)) => TaskStatus::Failed,
            Err(_) => return,
        };
        let Some(w) = self.task_mut(key) else {
            return;
        };
        let Some(latest) = w.record.latest() else {
            return;
        };
        let mut concluded = latest.clone();
        concluded.status = status;
        concluded.status_message = None;
        self.report_task(key, concluded);
    }

    /// Ends the call's wait if the record's latest state ends it; whether
    /// it did.
    fn check_task_wait(&mut self, key: i64) -> bool {
        let Some(w) = self.task_mut(key) else {
            return false;
        };
        let end = match (&w.wait, w.record.latest()) {
            (Some(wait), Some(latest)) => wait.end_for(latest),
            _ => None,
        };
        let Some(end) = end else {
            return false;
        };
        w.wait = None;
        self.events.push_back(Event::TaskWaitOver {
            id: RequestId::Number(key),
            end,
        });
        true
    }

    /// The poll cap of the call's wait is reached: polling stops and the
    /// wait ends.
    pub(super) fn stop_at_poll_cap(&mut self, key: i64, max_polls: u32) {
        let Some(w) = self.task_mut(key) else {
            return;
        };
        w.capped = true;
        w.wait = None;
        let task = w.snapshot.clone();
        self.timers.cancel(&Timer::TaskPoll(RequestId::Number(key)));
        self.events.push_back(Event::TaskWaitOver {
            id: RequestId::Number(key),
            end: TaskWaitEnd::PollCapReached { task, max_polls },
        });
    }
}

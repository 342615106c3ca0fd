//! Waiting on a [`TaskHandle`]: until chosen states, answering input with a
//! closure, and a callback on every status change.
//!
//! The decisions are the core's: whether a state set is reached, or the
//! task ended elsewhere (`Connection::wait_task`, answered by
//! `Event::TaskWaitOver`; once the call is over, the same rule,
//! [`TaskWait::end_for`], on the terminal state the core reported), and
//! what counts as a change ([`TaskSnapshot::same_state`]). This module
//! only asks and awaits.

use std::future::Future;
use std::sync::{Arc, Mutex};

use mcp_core::{TaskSnapshot, TaskStates, TaskWait, TaskWaitEnd};
use mcp_types::tasks::TaskStatus;
use mcp_types::tools::CallToolResult;
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::handlers::HandlerResult;
use crate::tasks::inputs::TaskInputRequest;
use crate::tasks::{Step, TaskHandle, no_task};

impl TaskHandle {
    /// Waits until the task is in one of `states` and returns that status.
    ///
    /// Any terminal state: [`TaskStates::terminal`]; also pausing on input:
    /// `TaskStates::terminal().with(TaskStatus::InputRequired)`. A state
    /// already reached (or the cached terminal state) returns at once.
    /// When the set holds `input_required`, the task's input requests go
    /// to the handle before the registered handlers (until
    /// [`TaskHandle::wait`]) and are kept for
    /// [`TaskHandle::wait_for_task_with_inputs`]; otherwise the handlers
    /// answer (also requests kept earlier) and what they do not serve is
    /// refused.
    ///
    /// ```no_run
    /// use mcp_client::{TaskStates, TaskStatus};
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let args = serde_json::json!({"steps": 4, "confirm": true});
    /// let mut task = client.call_tool_as_task("long_task", args, Default::default()).await?;
    /// let seen = task
    ///     .wait_for(TaskStates::terminal().with(TaskStatus::InputRequired))
    ///     .await?;
    /// if seen.status == TaskStatus::InputRequired {
    ///     println!("the task waits for input: {:?}", seen.status_message);
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::TaskEnded`] when the task ended in a state outside
    /// `states`; the call's error when it failed otherwise (timeout,
    /// connection lost); a usage error when the server created no task.
    pub async fn wait_for(&mut self, states: TaskStates) -> Result<TaskSnapshot, Error> {
        let hold = states.contains(&TaskStatus::InputRequired);
        self.inputs_first.set(hold);
        let wait = TaskWait::until(states);
        self.begin_wait(wait.clone());
        loop {
            if !hold {
                self.release_held();
            }
            if self.is_finished() {
                // The core is done with the call: the same rule on the
                // terminal state it reported last.
                self.absorb();
                if let Some(e) = self.own_end() {
                    return Err(e);
                }
                if let Some(end) = self.status().and_then(|s| wait.end_for(&s)) {
                    return wait_result(end);
                }
                // Over without reaching (or without knowing) a state.
                return match self.cached() {
                    Some(Err(e)) => Err(e),
                    _ if self.status().is_none() => Err(no_task()),
                    _ => Err(Error::new(ErrorKind::NotInProgress(
                        "the task's call ended before its state was known",
                    ))),
                };
            }
            match self.step().await {
                Step::WaitOver(Some(end)) => return wait_result(end),
                // Kept for the caller, or served by the registered
                // handlers on the next turn.
                Step::Input(item) => self.held.push_back(item),
                Step::Status | Step::WaitOver(None) | Step::Done => {}
            }
        }
    }

    /// Waits for the result, answering every input request of the task
    /// with `answer` (requests kept by an earlier
    /// [`TaskHandle::wait_for`] first), then resuming.
    ///
    /// While this waits, `answer` goes before the registered handlers (the
    /// client must still advertise the capability, by registering a handler
    /// on the builder, for a server to ask); [`TaskHandle::wait`] lets the
    /// registered handlers answer instead. 2025-11-25: the server sends its requests while the client waits on
    /// `tasks/result`, naming the task in
    /// `_meta["io.modelcontextprotocol/related-task"]`; the answer is the
    /// response. 2026-07-28: `tasks/get` lists `inputRequests`; each answer
    /// goes back in `tasks/update` and polling resumes. An answer is checked
    /// as a registered handler's would be (a form's content against its
    /// `requestedSchema`, the shape of a sampling, elicitation or roots
    /// result); an invalid one is sent as an internal error instead.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let args = serde_json::json!({"steps": 4, "confirm": true});
    /// let mut task = client.call_tool_as_task("long_task", args, Default::default()).await?;
    /// let result = task
    ///     .wait_for_task_with_inputs(|request| async move {
    ///         assert_eq!(request.method, "elicitation/create");
    ///         Ok(serde_json::json!({"action": "accept", "content": {"confirm": true}}))
    ///     })
    ///     .await?;
    /// # let _ = result; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`TaskHandle::wait`]; an answer that is an error is sent as the
    /// JSON-RPC error (2025-11-25) or ends the call with
    /// [`ErrorKind::Handler`] (2026-07-28).
    pub async fn wait_for_task_with_inputs<F, Fut>(
        &mut self,
        mut answer: F,
    ) -> Result<CallToolResult, Error>
    where
        F: FnMut(TaskInputRequest) -> Fut,
        Fut: Future<Output = HandlerResult<Value>>,
    {
        self.inputs_first.set(true);
        // Polling goes on (a poll cap reached earlier no longer applies).
        self.begin_wait(TaskWait::outcome());
        loop {
            if let Some(r) = self.cached() {
                while let Some(item) = self.held.pop_front() {
                    item.refuse();
                }
                return r;
            }
            if let Some(item) = self.held.pop_front() {
                let reply = answer(item.request.clone()).await;
                item.answer(reply);
                continue;
            }
            if self.is_finished() {
                return Err(Error::closed());
            }
            if let Step::Input(item) = self.step().await {
                self.held.push_back(item);
            }
        }
    }

    /// Calls `callback` with every status change the client observes:
    /// polls, and `notifications/tasks/status` (2025-11-25) or
    /// `notifications/tasks` (2026-07-28) when the server pushes them.
    /// Polling stays the source of truth; a push after the terminal state
    /// is never reported. The current status, if any, is reported first.
    ///
    /// The current status is reported at once, from this call. Later ones
    /// are reported where they arrive: in the connection's driver (for an
    /// attached task, its poller), so keep the callback short: the
    /// connection waits for it, as for a progress callback. The end is
    /// reported from a wait of the handle when it was learnt there (a local
    /// cancel, a failure, a timeout). Each change is reported once.
    /// Installing another callback replaces this one.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let mut task = client
    ///     .call_tool_as_task("long_task", serde_json::json!({"steps": 3}), Default::default())
    ///     .await?;
    /// task.on_status_change(|s| println!("{}: {:?} {:?}", s.task_id, s.status, s.status_message));
    /// task.wait().await?;
    /// # Ok(()) }
    /// ```
    pub fn on_status_change<F>(&mut self, callback: F)
    where
        F: FnMut(&TaskSnapshot) + Send + 'static,
    {
        let shared = Arc::new(Mutex::new(Watched {
            last: None,
            callback: Box::new(callback),
        }));
        if let Some(terminal) = self.status().filter(|s| s.status.is_terminal()) {
            // Over already: report the end once.
            self.observer.set(None);
            report(&shared, terminal);
            return;
        }
        // Installed before the current status is read: a status published
        // in between is reported once (a repeat of the last report is not a
        // change).
        let feed = Arc::clone(&shared);
        self.observer
            .set(Some(Box::new(move |snapshot| report(&feed, snapshot))));
        let current = self.status.borrow().clone();
        if let Some(snapshot) = current {
            report(&shared, snapshot);
        }
    }
}

/// The status callback and what it was told last.
struct Watched {
    last: Option<TaskSnapshot>,
    callback: Box<dyn FnMut(&TaskSnapshot) + Send>,
}

/// Reports `snapshot` if it is a change from the last report (a status the
/// install read before a later one was reported is none: nothing follows
/// the end).
fn report(shared: &Mutex<Watched>, snapshot: TaskSnapshot) {
    let mut w = shared
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let stale = |l: &TaskSnapshot| l.same_state(&snapshot) || l.status.is_terminal();
    if w.last.as_ref().is_some_and(stale) {
        return;
    }
    (w.callback)(&snapshot);
    w.last = Some(snapshot);
}

/// What a wait for states returns for the core's answer.
fn wait_result(end: TaskWaitEnd) -> Result<TaskSnapshot, Error> {
    match end {
        TaskWaitEnd::Reached(s) => Ok(s),
        TaskWaitEnd::EndedElsewhere(s) => Err(ErrorKind::TaskEnded { status: s.status }.into()),
        TaskWaitEnd::PollCapReached { max_polls, .. } => {
            Err(ErrorKind::TaskPollCap { max_polls }.into())
        }
        // A kind this version does not know: the call goes on.
        _ => Err(Error::new(ErrorKind::NotInProgress(
            "the task's wait ended in a way this version does not know",
        ))),
    }
}

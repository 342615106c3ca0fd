//! Tasks: status, snapshots of both generations, and pure poll decisions.
//!
//! Two generations share this module: 2025-11-25 core tasks (`params.task`,
//! `CreateTaskResult{task}`, `ttl`/`pollInterval`) and the 2026-07-28
//! extension `io.modelcontextprotocol/tasks` (flat `resultType:"task"`
//! results, `ttlMs`/`pollIntervalMs`, `tasks/get` carrying the outcome).
//!
//! The poll decision (private, `decide`) is a pure function of the task,
//! `now` and the options: the interval comes from the caller, else the
//! server, else the default; it is never below [`POLL_FLOOR`]; the wake-up
//! is clamped to the remaining budget; terminal states stop polling and
//! `input_required` is surfaced, never spun on. A driver sees it only as
//! [`Timer::TaskPoll`](crate::Timer::TaskPoll).
//!
//! The module is private. The crate root exports what a driver sees: the
//! snapshot a [`Event::TaskStatus`](crate::Event::TaskStatus) carries, and
//! what a task handle waits for ([`TaskWait`], answered by
//! [`Event::TaskWaitOver`](crate::Event::TaskWaitOver) with a
//! [`TaskWaitEnd`]). The record of what was seen of a task (`TaskRecord`:
//! pushes and polls merged, the terminal state kept) lives in the
//! connection, one per task call.

use std::time::{Duration, Instant};

use serde::Deserialize;

mod watch;

#[cfg(test)]
mod tests;

pub(crate) use watch::TaskRecord;
pub use watch::{MAX_TASK_ID, TaskStates, TaskWait, TaskWaitEnd, related_task_id};

/// The smallest interval between two polls of one task.
pub const POLL_FLOOR: Duration = Duration::from_millis(50);

/// The interval used when neither the caller nor the server gives one.
pub(crate) const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

pub(crate) use mcp_types::tasks::TaskStatus;

/// What the client knows about a task after its last observation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskSnapshot {
    /// The task id.
    pub task_id: String,
    /// The status.
    pub status: TaskStatus,
    /// The server's status message.
    pub status_message: Option<String>,
    /// The server's suggested poll interval.
    pub poll_interval: Option<Duration>,
    /// The task's time to live; `None` is unlimited.
    pub ttl: Option<Duration>,
    /// How many `tasks/get` polls the client has sent for this task so far
    /// (kept by the connection; `0` for a snapshot read from the wire).
    pub polls: u32,
}

impl TaskSnapshot {
    /// A snapshot with an id and a status.
    pub fn new(task_id: impl Into<String>, status: TaskStatus) -> Self {
        TaskSnapshot {
            task_id: task_id.into(),
            status,
            status_message: None,
            poll_interval: None,
            ttl: None,
            polls: 0,
        }
    }

    /// Sets the server's poll interval.
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = Some(interval);
        self
    }

    /// Whether `other` reports the same state: the same status and status
    /// message (the poll count and the intervals may differ). A report
    /// that is not the same state is a change.
    ///
    /// ```
    /// use mcp_core::TaskSnapshot;
    /// use mcp_types::tasks::TaskStatus;
    /// let a = TaskSnapshot::new("t", TaskStatus::Working);
    /// let mut b = a.clone();
    /// b.polls = 3;
    /// assert!(a.same_state(&b));
    /// b.status_message = Some("half way".into());
    /// assert!(!a.same_state(&b));
    /// ```
    pub fn same_state(&self, other: &TaskSnapshot) -> bool {
        self.status == other.status && self.status_message == other.status_message
    }

    /// Reads a flat task object: a 2026-07-28 `CreateTaskResult` or
    /// `tasks/get` result, or a 2025-11-25 `Task` / `tasks/get` result.
    ///
    /// # Errors
    /// When the object lacks `taskId` or `status`.
    pub fn from_flat(raw: &[u8]) -> Result<TaskSnapshot, serde_json::Error> {
        let w: WireTask = mcp_types::raw::parse(raw)?;
        Ok(w.into())
    }

    /// Reads a 2025-11-25 `CreateTaskResult` (`{task: {...}}`).
    ///
    /// # Errors
    /// When the object lacks `task`, `taskId` or `status`.
    pub fn from_legacy_create(raw: &[u8]) -> Result<TaskSnapshot, serde_json::Error> {
        #[derive(Deserialize)]
        struct Create {
            task: WireTask,
        }
        let w: Create = mcp_types::raw::parse(raw)?;
        Ok(w.task.into())
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireTask {
    task_id: String,
    status: String,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default, alias = "pollInterval")]
    poll_interval_ms: Option<u64>,
    #[serde(default, alias = "ttl")]
    ttl_ms: Option<u64>,
}

impl From<WireTask> for TaskSnapshot {
    fn from(w: WireTask) -> Self {
        TaskSnapshot {
            task_id: w.task_id,
            status: TaskStatus::parse(&w.status),
            status_message: w.status_message,
            poll_interval: w.poll_interval_ms.map(Duration::from_millis),
            ttl: w.ttl_ms.map(Duration::from_millis),
            polls: 0,
        }
    }
}

/// The caller's side of a poll decision.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) struct PollOptions {
    /// An interval the caller insists on (wins over the server's).
    pub(crate) interval: Option<Duration>,
    /// The interval when neither side gives one (default 1 s).
    pub(crate) default_interval: Option<Duration>,
    /// The end of the caller's budget for this task.
    pub(crate) deadline: Option<Instant>,
    /// The most `tasks/get` polls the caller allows (see [`poll_cap_reached`]).
    pub(crate) max_polls: Option<u32>,
}

/// Builders for the unit tests (the core fills the fields itself).
#[cfg(test)]
impl PollOptions {
    /// Sets the caller's interval.
    #[must_use]
    pub(crate) fn with_interval(mut self, interval: Duration) -> Self {
        self.interval = Some(interval);
        self
    }

    /// Sets the end of the budget.
    #[must_use]
    pub(crate) fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Caps the number of `tasks/get` polls.
    #[must_use]
    pub(crate) fn with_max_polls(mut self, max_polls: u32) -> Self {
        self.max_polls = Some(max_polls);
        self
    }
}

/// What to do next about a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PollDecision {
    /// Poll `tasks/get` at this instant.
    PollAt(Instant),
    /// The task is terminal: stop polling and fetch or report the outcome.
    Terminal,
    /// The task waits for input: surface it, do not spin.
    InputRequired,
    /// The caller's budget is spent.
    BudgetExhausted,
    /// The caller's poll cap is reached and the task is not over.
    PollCapReached,
}

/// Whether a task that is still open has used its `max_polls` polls: one
/// more poll would exceed the cap. Terminal tasks never reach the cap.
pub(crate) fn poll_cap_reached(task: &TaskSnapshot, max_polls: u32) -> bool {
    !task.status.is_terminal() && task.polls >= max_polls
}

/// Whether the client will poll `task` again: never once terminal, and
/// not for a 2025-11-25 task at `input_required` (the client then waits on
/// `tasks/result`, which carries the server's input requests).
pub(crate) fn polls_continue(task: &TaskSnapshot, era: mcp_types::Era) -> bool {
    let parked = era == mcp_types::Era::Legacy && task.status == TaskStatus::InputRequired;
    !(task.status.is_terminal() || parked)
}

/// Decides the next step for a task (pure).
pub(crate) fn decide(task: &TaskSnapshot, now: Instant, options: &PollOptions) -> PollDecision {
    if task.status.is_terminal() {
        return PollDecision::Terminal;
    }
    if task.status == TaskStatus::InputRequired {
        return PollDecision::InputRequired;
    }
    if options.deadline.is_some_and(|d| now >= d) {
        return PollDecision::BudgetExhausted;
    }
    if options.max_polls.is_some_and(|m| poll_cap_reached(task, m)) {
        return PollDecision::PollCapReached;
    }
    let interval = options
        .interval
        .or(task.poll_interval)
        .or(options.default_interval)
        .unwrap_or(DEFAULT_POLL_INTERVAL)
        .max(POLL_FLOOR);
    let at = now.checked_add(interval).unwrap_or(now);
    PollDecision::PollAt(options.deadline.map_or(at, |d| at.min(d)))
}

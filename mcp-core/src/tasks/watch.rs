//! Watching one task: state sets to wait for, a record that deduplicates
//! observations and keeps the terminal state once seen, and the
//! related-task metadata that points at a task.
//!
//! All of it is pure: the facade feeds observations (polls, pushed
//! notifications, the call's end) and asks what to report and whether a
//! wait is over.

use mcp_types::meta::keys::RELATED_TASK;
use serde_json::Value;

use super::{TaskSnapshot, TaskStatus};

/// A set of task states to wait for.
///
/// ```
/// use mcp_core::tasks::{TaskStates, TaskStatus};
/// let until_input = TaskStates::terminal().with(TaskStatus::InputRequired);
/// assert!(until_input.contains(&TaskStatus::InputRequired));
/// assert!(until_input.contains(&TaskStatus::Cancelled));
/// assert!(!until_input.contains(&TaskStatus::Working));
/// let only: TaskStates = [TaskStatus::Completed].into_iter().collect();
/// assert!(!only.contains(&TaskStatus::Failed));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TaskStates(u8);

const fn bit(status: &TaskStatus) -> u8 {
    match status {
        TaskStatus::Working => 1,
        TaskStatus::InputRequired => 2,
        TaskStatus::Completed => 4,
        TaskStatus::Failed => 8,
        TaskStatus::Cancelled => 16,
        TaskStatus::Unknown(_) => 0,
    }
}

impl TaskStates {
    /// No state.
    pub const fn empty() -> Self {
        TaskStates(0)
    }

    /// The terminal states: `completed`, `failed`, `cancelled`.
    pub const fn terminal() -> Self {
        TaskStates(4 | 8 | 16)
    }

    /// Adds a state (an unknown status is never matched).
    #[must_use]
    pub fn with(self, status: TaskStatus) -> Self {
        TaskStates(self.0 | bit(&status))
    }

    /// Whether `status` is in the set.
    pub fn contains(&self, status: &TaskStatus) -> bool {
        let b = bit(status);
        b != 0 && self.0 & b == b
    }

    /// Whether the set holds every terminal state (a wait for it always
    /// ends with the task).
    pub fn covers_terminal(&self) -> bool {
        self.0 & Self::terminal().0 == Self::terminal().0
    }
}

impl FromIterator<TaskStatus> for TaskStates {
    fn from_iter<I: IntoIterator<Item = TaskStatus>>(iter: I) -> Self {
        iter.into_iter().fold(TaskStates::empty(), TaskStates::with)
    }
}

/// What an observation meant to a [`TaskRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// The status or its message changed: report it.
    Changed,
    /// Same status and message (the poll count or interval may differ).
    Unchanged,
    /// Ignored: another task, or the task is already terminal (a late or
    /// stale observation never moves a terminal task).
    Ignored,
}

/// Where a wait for a [`TaskStates`] set stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitStep {
    /// The task is in one of the states.
    Reached(TaskSnapshot),
    /// The task ended in a state outside the set.
    EndedElsewhere(TaskSnapshot),
    /// Keep waiting.
    Pending,
}

/// What the client has seen of one task: the latest snapshot, and the
/// terminal one kept for good once seen.
///
/// ```
/// use mcp_core::tasks::{Observed, TaskRecord, TaskSnapshot, TaskStatus};
/// let mut r = TaskRecord::new();
/// assert_eq!(r.observe(TaskSnapshot::new("t", TaskStatus::Working)), Observed::Changed);
/// assert_eq!(r.observe(TaskSnapshot::new("t", TaskStatus::Working)), Observed::Unchanged);
/// assert_eq!(r.observe(TaskSnapshot::new("t", TaskStatus::Completed)), Observed::Changed);
/// // A stale push after the end changes nothing.
/// assert_eq!(r.observe(TaskSnapshot::new("t", TaskStatus::Working)), Observed::Ignored);
/// assert_eq!(r.terminal().map(|s| &s.status), Some(&TaskStatus::Completed));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskRecord {
    latest: Option<TaskSnapshot>,
}

impl TaskRecord {
    /// A record with nothing seen.
    pub fn new() -> Self {
        TaskRecord::default()
    }

    /// Records an observation (a poll, a pushed status, the creation).
    pub fn observe(&mut self, snapshot: TaskSnapshot) -> Observed {
        let Some(latest) = &mut self.latest else {
            self.latest = Some(snapshot);
            return Observed::Changed;
        };
        if latest.task_id != snapshot.task_id {
            return Observed::Ignored;
        }
        if latest.status.is_terminal() {
            // The state is final; only the poll count keeps counting.
            latest.polls = latest.polls.max(snapshot.polls);
            return Observed::Ignored;
        }
        let changed =
            latest.status != snapshot.status || latest.status_message != snapshot.status_message;
        let polls = latest.polls.max(snapshot.polls);
        *latest = snapshot;
        latest.polls = polls;
        if changed {
            Observed::Changed
        } else {
            Observed::Unchanged
        }
    }

    /// Records that the call behind the task ended with `status` (the
    /// outcome arrived); keeps an already-seen terminal state.
    pub fn conclude(&mut self, status: TaskStatus) -> Observed {
        match &self.latest {
            Some(l) if l.status.is_terminal() => Observed::Ignored,
            Some(l) => {
                let mut s = l.clone();
                s.status = status;
                s.status_message = None;
                self.observe(s)
            }
            None => Observed::Ignored,
        }
    }

    /// The latest snapshot.
    pub fn latest(&self) -> Option<&TaskSnapshot> {
        self.latest.as_ref()
    }

    /// The terminal snapshot, once seen.
    pub fn terminal(&self) -> Option<&TaskSnapshot> {
        self.latest.as_ref().filter(|s| s.status.is_terminal())
    }

    /// Where a wait for `states` stands.
    pub fn wait_step(&self, states: &TaskStates) -> WaitStep {
        match &self.latest {
            Some(s) if states.contains(&s.status) => WaitStep::Reached(s.clone()),
            Some(s) if s.status.is_terminal() => WaitStep::EndedElsewhere(s.clone()),
            _ => WaitStep::Pending,
        }
    }
}

/// The task id in `io.modelcontextprotocol/related-task`, read from a
/// result or notification (its `_meta`), an error's `data`, or a `_meta`
/// object itself.
///
/// ```
/// use mcp_core::tasks::related_task_id;
/// let result = serde_json::json!({
///     "content": [],
///     "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-7"}}
/// });
/// assert_eq!(related_task_id(&result), Some("t-7"));
/// assert_eq!(related_task_id(&serde_json::json!({"content": []})), None);
/// ```
pub fn related_task_id(value: &Value) -> Option<&str> {
    let direct = value.get(RELATED_TASK);
    let nested = || value.get("_meta").and_then(|m| m.get(RELATED_TASK));
    direct
        .or_else(nested)?
        .get("taskId")?
        .as_str()
        .filter(|id| !id.is_empty() && id.len() <= MAX_TASK_ID)
}

/// The longest task id accepted from a peer.
const MAX_TASK_ID: usize = 1024;

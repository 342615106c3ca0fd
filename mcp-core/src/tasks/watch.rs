//! Watching one task: state sets to wait for, what a handle waits for
//! ([`TaskWait`]) and how such a wait ends ([`TaskWaitEnd`]), a record that
//! merges observations and keeps the terminal state once seen, and the
//! related-task metadata that points at a task.
//!
//! All of it is pure: the connection feeds the record (polls, pushed
//! notifications, the call's end) and asks it whether a wait is over.

use mcp_types::meta::keys::RELATED_TASK;
use serde_json::Value;

use super::{TaskSnapshot, TaskStatus};

/// A set of task states to wait for.
///
/// ```
/// use mcp_core::TaskStates;
/// use mcp_types::tasks::TaskStatus;
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

/// What a task handle waits for, given to
/// [`Connection::wait_task`](crate::Connection::wait_task): one of the
/// task's states, or only the call's outcome, with or without a cap on
/// the number of `tasks/get` polls.
///
/// ```
/// use mcp_core::{TaskSnapshot, TaskStates, TaskWait, TaskWaitEnd};
/// use mcp_types::tasks::TaskStatus;
/// let wait = TaskWait::until(TaskStates::terminal().with(TaskStatus::InputRequired));
/// let working = TaskSnapshot::new("t", TaskStatus::Working);
/// assert_eq!(wait.end_for(&working), None);
/// let asks = TaskSnapshot::new("t", TaskStatus::InputRequired);
/// assert!(matches!(wait.end_for(&asks), Some(TaskWaitEnd::Reached(_))));
/// // Waiting for the outcome alone ends with the call, never on a state.
/// let done = TaskSnapshot::new("t", TaskStatus::Completed);
/// assert_eq!(TaskWait::outcome().with_max_polls(3).end_for(&done), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskWait {
    /// The states that end the wait; empty: only the call's outcome does.
    pub until: TaskStates,
    /// The most `tasks/get` polls in all (those already sent count); the
    /// wait ends with [`TaskWaitEnd::PollCapReached`] when the task is
    /// still open then, and polling stops until the next wait.
    pub max_polls: Option<u32>,
}

impl TaskWait {
    /// A wait for the call's outcome only (the `Event::Response` or
    /// `Event::RequestFailed` of the call); it also resumes polling that
    /// an earlier poll cap stopped.
    pub fn outcome() -> Self {
        TaskWait::default()
    }

    /// A wait until the task is in one of `states`.
    pub fn until(states: TaskStates) -> Self {
        TaskWait {
            until: states,
            max_polls: None,
        }
    }

    /// Caps the number of `tasks/get` polls.
    #[must_use]
    pub fn with_max_polls(mut self, max_polls: u32) -> Self {
        self.max_polls = Some(max_polls);
        self
    }

    /// How this wait ends on the task's state `task`, if it does: the task
    /// is in one of the states, or ended in another one. A wait for the
    /// outcome alone never ends on a state. (The connection applies this to
    /// each report; a handle applies it to the terminal state it keeps
    /// once the call is over.)
    pub fn end_for(&self, task: &TaskSnapshot) -> Option<TaskWaitEnd> {
        if self.until == TaskStates::empty() {
            return None;
        }
        if self.until.contains(&task.status) {
            Some(TaskWaitEnd::Reached(task.clone()))
        } else if task.status.is_terminal() {
            Some(TaskWaitEnd::EndedElsewhere(task.clone()))
        } else {
            None
        }
    }
}

/// How a [`TaskWait`] ended (carried by
/// [`Event::TaskWaitOver`](crate::Event::TaskWaitOver)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskWaitEnd {
    /// The task is in one of the states waited for.
    Reached(TaskSnapshot),
    /// The task ended in a state outside the set.
    EndedElsewhere(TaskSnapshot),
    /// The cap on `tasks/get` polls is reached and the task is still open;
    /// polling stopped (the task runs on) until the next wait.
    PollCapReached {
        /// The task as last polled.
        task: TaskSnapshot,
        /// The cap.
        max_polls: u32,
    },
}

/// What an observation meant to a [`TaskRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Observed {
    /// The status or its message changed.
    Changed,
    /// Same status and message (the poll count or interval may differ).
    Unchanged,
    /// Ignored: another task, or the task is already terminal (a late or
    /// stale observation never moves a terminal task).
    Ignored,
}

/// What the client has seen of one task: the latest snapshot (pushes and
/// polls merged, the poll count never lowered), and the terminal one kept
/// for good once seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskRecord {
    latest: Option<TaskSnapshot>,
}

impl TaskRecord {
    /// Records an observation (a poll, a pushed status, the creation).
    pub(crate) fn observe(&mut self, snapshot: TaskSnapshot) -> Observed {
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
        let changed = !latest.same_state(&snapshot);
        let polls = latest.polls.max(snapshot.polls);
        *latest = snapshot;
        latest.polls = polls;
        if changed {
            Observed::Changed
        } else {
            Observed::Unchanged
        }
    }

    /// The latest snapshot.
    pub(crate) fn latest(&self) -> Option<&TaskSnapshot> {
        self.latest.as_ref()
    }

    /// The terminal snapshot, once seen.
    #[cfg(test)]
    pub(crate) fn terminal(&self) -> Option<&TaskSnapshot> {
        self.latest.as_ref().filter(|s| s.status.is_terminal())
    }
}

/// The task id in `io.modelcontextprotocol/related-task`, read from a
/// result or notification (its `_meta`), an error's `data`, or a `_meta`
/// object itself.
///
/// ```
/// use mcp_core::related_task_id;
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

/// The longest task id accepted from a peer or a caller.
pub const MAX_TASK_ID: usize = 1024;

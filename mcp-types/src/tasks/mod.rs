//! Tasks, in two wire-incompatible generations.
//!
//! * [`legacy`]: the experimental core tasks of 2025-11-25 (`params.task`,
//!   `CreateTaskResult {task: {...}}`, `tasks/get|result|list|cancel`,
//!   `notifications/tasks/status`, `ttl` / `pollInterval`, a tool result
//!   with `isError: true` makes the task `failed`).
//! * [`ext`]: the 2026-07-28 extension `io.modelcontextprotocol/tasks`
//!   (flat `resultType: "task"` result, `tasks/get|update|cancel`,
//!   `notifications/tasks` on a listen stream, `ttlMs` / `pollIntervalMs`,
//!   a tool result with `isError: true` makes the task `completed`).
//!
//! The status set and the `{taskId}` params are shared.

use serde::{Deserialize, Serialize};

use crate::macros::open_enum;
use crate::meta::Meta;

pub mod ext;
pub mod legacy;

open_enum! {
    /// The state of a task.
    pub enum TaskStatus {
        /// Running.
        Working = "working",
        /// Waiting for input from the requester.
        InputRequired = "input_required",
        /// Finished with a result (terminal).
        Completed = "completed",
        /// Finished with an error (terminal).
        Failed = "failed",
        /// Cancelled (terminal).
        Cancelled = "cancelled",
    }
}

impl TaskStatus {
    /// Whether the status never changes again.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// Params naming one task: `tasks/get`, `tasks/result` (legacy),
/// `tasks/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// Request metadata (2026-07-28: required, filled by the core).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The task.
    pub task_id: String,
}

impl TaskIdParams {
    /// Params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskIdParams {
            meta: Meta::new(),
            task_id: task_id.into(),
        }
    }
}

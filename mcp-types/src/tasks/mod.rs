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

/// The ISO 8601 UTC timestamp tasks carry in `createdAt` and
/// `lastUpdatedAt`, with milliseconds, for a time given as milliseconds
/// since the Unix epoch (no clock is read here).
///
/// ```
/// use mcp_types::tasks::timestamp;
/// assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
/// assert_eq!(timestamp(1_764_028_800_123), "2025-11-25T00:00:00.123Z");
/// assert_eq!(timestamp(951_782_400_000), "2000-02-29T00:00:00.000Z");
/// assert_eq!(timestamp(1_795_996_284_123), "2026-11-29T23:51:24.123Z");
/// ```
pub fn timestamp(unix_millis: u64) -> String {
    let secs = unix_millis / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        unix_millis % 1000
    )
}

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

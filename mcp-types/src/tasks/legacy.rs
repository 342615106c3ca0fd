//! 2025-11-25 core tasks (experimental).

use serde::{Deserialize, Serialize};

use crate::common::{Cursor, JsonObject};
use crate::meta::Meta;
use crate::tasks::TaskStatus;

/// `params.task`: asks the receiver to run the request as a task.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct TaskMetadata {
    /// Requested retention in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

impl TaskMetadata {
    /// Task metadata with an optional TTL.
    pub fn new(ttl: Option<u64>) -> Self {
        TaskMetadata { ttl }
    }
}

/// Request params that may be task-augmented (`tools/call`,
/// `sampling/createMessage`, `elicitation/create` in 2025-11-25): the
/// method's own params plus an optional `task` member.
///
/// ```
/// use mcp_types::tasks::legacy::{TaskAugmented, TaskMetadata};
/// use mcp_types::tools::CallToolRequestParams;
/// let p = TaskAugmented::new(CallToolRequestParams::new("slow"))
///     .with_task(TaskMetadata::new(Some(60_000)));
/// assert_eq!(serde_json::to_value(&p).unwrap(),
///     serde_json::json!({"name": "slow", "task": {"ttl": 60000}}));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct TaskAugmented<P> {
    /// The method's params.
    #[serde(flatten)]
    pub params: P,
    /// Present when the request is to run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

impl<P> TaskAugmented<P> {
    /// Plain (not task-augmented) params.
    pub fn new(params: P) -> Self {
        TaskAugmented { params, task: None }
    }

    /// Runs the request as a task.
    #[must_use]
    pub fn with_task(mut self, task: TaskMetadata) -> Self {
        self.task = Some(task);
        self
    }
}

impl<P> From<P> for TaskAugmented<P> {
    fn from(params: P) -> Self {
        TaskAugmented::new(params)
    }
}

/// A task (2025-11-25 shape: `ttl`, `pollInterval`). Also the result of
/// `tasks/get` and `tasks/cancel`, and the params of
/// `notifications/tasks/status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// `_meta` (when used as a result or notification params).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The task id.
    pub task_id: String,
    /// The status.
    pub status: TaskStatus,
    /// A human-readable status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Retention from creation in milliseconds; `null` means unlimited.
    #[serde(default)]
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

impl Task {
    /// A task.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        ttl: Option<u64>,
    ) -> Self {
        let created_at = created_at.into();
        Task {
            meta: Meta::new(),
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl,
            poll_interval: None,
        }
    }
}

/// The result of a task-augmented request: `{task: {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The created task.
    pub task: Task,
}

impl CreateTaskResult {
    /// A created task.
    pub fn new(task: Task) -> Self {
        CreateTaskResult {
            meta: Meta::new(),
            task,
        }
    }
}

/// Result of `tasks/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
}

impl ListTasksResult {
    /// A page of tasks.
    pub fn new(tasks: Vec<Task>) -> Self {
        ListTasksResult {
            meta: Meta::new(),
            tasks,
            next_cursor: None,
        }
    }
}

/// Result of `tasks/result`: exactly the underlying request's result (for
/// example a `CallToolResult`), decoded later with that type.
pub type GetTaskPayloadResult = JsonObject;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::HasMeta;
    use crate::tools::CallToolRequestParams;

    #[test]
    fn task_augmentation_is_flat_and_keeps_meta() {
        let json = serde_json::json!({
            "_meta": {"progressToken": 1}, "name": "t", "arguments": {"a": 1}, "task": {"ttl": 5}
        });
        let p: TaskAugmented<CallToolRequestParams> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(p.task, Some(TaskMetadata::new(Some(5))));
        assert!(p.meta().contains("progressToken"));
        assert_eq!(serde_json::to_value(&p).unwrap(), json);
    }

    #[test]
    fn ttl_null_is_written_as_null() {
        let t = Task::new("t", TaskStatus::Working, "2025-11-25T00:00:00Z", None);
        assert_eq!(
            serde_json::to_value(&t).unwrap()["ttl"],
            serde_json::Value::Null
        );
    }
}

//! The 2026-07-28 tasks extension, `io.modelcontextprotocol/tasks`.
//!
//! Declared per request in `clientCapabilities.extensions`. A `tools/call`
//! may then answer with a flat [`CreateTaskResult`] (`resultType: "task"`);
//! the client polls `tasks/get` ([`DetailedTask`]), answers input with
//! `tasks/update` ([`UpdateTaskRequestParams`]) and cancels with
//! `tasks/cancel`; both acknowledge with an empty result. Status pushes
//! arrive as `notifications/tasks` (params: a [`DetailedTask`]) on a
//! `subscriptions/listen` stream whose filter names `taskIds`.

use serde::{Deserialize, Serialize};

use crate::common::JsonObject;
use crate::jsonrpc::ErrorObject;
use crate::meta::Meta;
use crate::results::{InputRequests, InputResponses, ResultType};
use crate::tasks::TaskStatus;

pub use crate::meta::TASKS_EXTENSION as EXTENSION_ID;

/// The fields every task carries (extension shape: `ttlMs`, `pollIntervalMs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task id (also the `Mcp-Name` of task requests over HTTP).
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
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval in milliseconds (may change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// A task.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        ttl_ms: Option<u64>,
    ) -> Self {
        let created_at = created_at.into();
        Task {
            task_id: task_id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl_ms,
            poll_interval_ms: None,
        }
    }
}

/// The flat `resultType: "task"` answer to a task-augmented request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// Always `task`.
    #[serde(default = "task_type")]
    pub result_type: ResultType,
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
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

fn task_type() -> ResultType {
    ResultType::Task
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        CreateTaskResult {
            meta: Meta::new(),
            result_type: ResultType::Task,
            task_id: task.task_id,
            status: task.status,
            status_message: task.status_message,
            created_at: task.created_at,
            last_updated_at: task.last_updated_at,
            ttl_ms: task.ttl_ms,
            poll_interval_ms: task.poll_interval_ms,
        }
    }

    /// The task fields.
    pub fn task(&self) -> Task {
        Task {
            task_id: self.task_id.clone(),
            status: self.status.clone(),
            status_message: self.status_message.clone(),
            created_at: self.created_at.clone(),
            last_updated_at: self.last_updated_at.clone(),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
        }
    }
}

/// What a task's status carries besides the common fields.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TaskDetail {
    /// `working`.
    Working,
    /// `input_required`: every outstanding input request.
    InputRequired(InputRequests),
    /// `completed`: the original method's result (e.g. a `CallToolResult`,
    /// including one with `isError: true`).
    Completed(JsonObject),
    /// `failed`: the JSON-RPC error.
    Failed(ErrorObject),
    /// `cancelled`.
    Cancelled,
    /// A status this crate does not know.
    Unknown,
}

/// A task with its status detail: the result of `tasks/get` (with
/// `resultType: "complete"`) and the params of `notifications/tasks`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "DetailedTaskWire", into = "DetailedTaskWire")]
#[non_exhaustive]
pub struct DetailedTask {
    /// `_meta`.
    pub meta: Meta,
    /// `resultType` (`complete` on `tasks/get`; absent in notifications).
    pub result_type: Option<ResultType>,
    /// The common task fields; `task.status` agrees with `detail`.
    pub task: Task,
    /// The status-specific member.
    pub detail: TaskDetail,
}

impl DetailedTask {
    /// A detailed task; `task.status` is set from `detail`.
    pub fn new(mut task: Task, detail: TaskDetail) -> Self {
        task.status = match &detail {
            TaskDetail::Working => TaskStatus::Working,
            TaskDetail::InputRequired(_) => TaskStatus::InputRequired,
            TaskDetail::Completed(_) => TaskStatus::Completed,
            TaskDetail::Failed(_) => TaskStatus::Failed,
            TaskDetail::Cancelled => TaskStatus::Cancelled,
            TaskDetail::Unknown => task.status,
        };
        DetailedTask {
            meta: Meta::new(),
            result_type: None,
            task,
            detail,
        }
    }

    /// Marks this as a `tasks/get` result (`resultType: "complete"`).
    #[must_use]
    pub fn as_get_result(mut self) -> Self {
        self.result_type = Some(ResultType::Complete);
        self
    }
}

#[derive(Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DetailedTaskWire {
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    meta: Meta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result_type: Option<ResultType>,
    #[serde(flatten)]
    task: Task,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input_requests: Option<InputRequests>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject>,
}

impl TryFrom<DetailedTaskWire> for DetailedTask {
    type Error = String;

    fn try_from(w: DetailedTaskWire) -> Result<Self, String> {
        let missing = |field: &str| format!("task status {} without `{field}`", w.task.status);
        let detail = match &w.task.status {
            TaskStatus::Working => TaskDetail::Working,
            TaskStatus::InputRequired => TaskDetail::InputRequired(
                w.input_requests
                    .clone()
                    .ok_or_else(|| missing("inputRequests"))?,
            ),
            TaskStatus::Completed => {
                TaskDetail::Completed(w.result.clone().ok_or_else(|| missing("result"))?)
            }
            TaskStatus::Failed => {
                TaskDetail::Failed(w.error.clone().ok_or_else(|| missing("error"))?)
            }
            TaskStatus::Cancelled => TaskDetail::Cancelled,
            TaskStatus::Unknown(_) => TaskDetail::Unknown,
        };
        Ok(DetailedTask {
            meta: w.meta,
            result_type: w.result_type,
            task: w.task,
            detail,
        })
    }
}

impl From<DetailedTask> for DetailedTaskWire {
    fn from(d: DetailedTask) -> Self {
        let (mut input_requests, mut result, mut error) = (None, None, None);
        match d.detail {
            TaskDetail::InputRequired(r) => input_requests = Some(r),
            TaskDetail::Completed(r) => result = Some(r),
            TaskDetail::Failed(e) => error = Some(e),
            TaskDetail::Working | TaskDetail::Cancelled | TaskDetail::Unknown => {}
        }
        DetailedTaskWire {
            meta: d.meta,
            result_type: d.result_type,
            task: d.task,
            input_requests,
            result,
            error,
        }
    }
}

/// Params of `tasks/update`: answers to some or all outstanding input
/// requests of an `input_required` task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskRequestParams {
    /// Request metadata (required, filled by the core).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The task.
    pub task_id: String,
    /// Answers by input-request key.
    pub input_responses: InputResponses,
}

impl UpdateTaskRequestParams {
    /// An update for `task_id`.
    pub fn new(task_id: impl Into<String>, input_responses: InputResponses) -> Self {
        UpdateTaskRequestParams {
            meta: Meta::new(),
            task_id: task_id.into(),
            input_responses,
        }
    }
}

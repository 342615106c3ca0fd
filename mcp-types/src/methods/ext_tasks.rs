//! Methods of the tasks extension (`io.modelcontextprotocol/tasks`) on
//! 2026-07-28. `tools/call` itself is [`v2026_07_28::CallTool`](super::v2026_07_28::CallTool);
//! its `resultType: "task"` answer decodes as
//! [`CreateTaskResult`](crate::tasks::ext::CreateTaskResult).

use crate::results::EmptyResult;
use crate::tasks::TaskIdParams;
use crate::tasks::ext::{DetailedTask, UpdateTaskRequestParams};

request!(
    /// `tasks/get`: the task with its detail (`resultType: "complete"`).
    GetTask = TASKS_GET, TaskIdParams => DetailedTask
);
request!(
    /// `tasks/update`: answers input requests; acknowledged with an empty result.
    UpdateTask = TASKS_UPDATE, UpdateTaskRequestParams => EmptyResult
);
request!(
    /// `tasks/cancel`: acknowledged with an empty result.
    CancelTask = TASKS_CANCEL, TaskIdParams => EmptyResult
);

notification!(
    /// `notifications/tasks`: a status push on a listen stream.
    TaskStatus = TASK_STATUS, DetailedTask
);

//! Fixtures shared by the integration tests (through `tests/common`) and
//! the crate's unit tests (included under `#[cfg(test)]` from `lib.rs`).

use mcp_types::tasks::TaskStatus;
use proptest::prelude::*;
use serde_json::{Value, json};

/// A tool with three valid `x-mcp-header` annotations, one nested.
pub(crate) fn weather_tool() -> Value {
    json!({"name": "get_weather", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "days": {"type": "integer", "x-mcp-header": "Days"},
        "opts": {"type": "object", "properties": {"metric": {"type": "boolean", "x-mcp-header": "Metric"}}}
    }}})
}

/// Every task status, an unknown one included.
pub(crate) fn task_status() -> impl Strategy<Value = TaskStatus> {
    prop_oneof![
        Just(TaskStatus::Working),
        Just(TaskStatus::InputRequired),
        Just(TaskStatus::Completed),
        Just(TaskStatus::Failed),
        Just(TaskStatus::Cancelled),
        Just(TaskStatus::Unknown("later".into())),
    ]
}

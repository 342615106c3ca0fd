//! Run a long tool call as a task: the server answers at once with a task
//! id, the client polls it, and you watch its status, wait for the result,
//! or cancel it.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example tasks
//! ```
//!
//! Tasks exist in both eras with different wire forms (2025-11-25 core
//! tasks, the 2026-07-28 tasks extension); `TaskHandle` hides that. The
//! example runs once per era against the demo server's `long_task` tool.

mod support;

use std::time::Duration;

use mcp_client::{CallOptions, Client, EraPreference, ServerCommand, TaskStatus};
use serde_json::json;
use support::{Failure, demo_server, expect};

#[tokio::main]
async fn main() -> Result<(), Failure> {
    for era in [EraPreference::LegacyOnly, EraPreference::ModernOnly] {
        let client = Client::builder()
            .stdio(ServerCommand::new(demo_server()?).arg("--stdio"))
            .era(era)
            .connect()
            .await?;
        println!("== {:?} ==", client.era());

        // Start the task; this returns once the server created it.
        let options = CallOptions::new().with_poll_interval(Duration::from_millis(50));
        let args = json!({ "steps": 3, "step_ms": 50 });
        let mut task = client.call_tool_as_task("long_task", args, options).await?;
        println!("task {:?}", task.task_id());
        expect(task.task_id().is_some(), "the server made a task")?;

        // Status changes arrive as the client polls (`tasks/get`).
        while let Some(snapshot) = task.changed().await {
            println!(
                "  status {:?} {:?}",
                snapshot.status, snapshot.status_message
            );
            if snapshot.status != TaskStatus::Working {
                break;
            }
        }
        let result = task.wait().await?;
        let text = result.content.first().and_then(|b| b.as_text());
        println!("  result {text:?}");
        expect(
            text == Some("long_task finished 3 steps"),
            "the task's result",
        )?;

        // A task you no longer want: `cancel` tells the server (dropping
        // the handle does too) and returns the task's final result.
        let args = json!({ "steps": 100, "step_ms": 1000 });
        let task = client
            .call_tool_as_task("long_task", args, CallOptions::new())
            .await?;
        let id = task.task_id();
        let outcome = task.cancel().await;
        println!(
            "  cancelled {id:?}: {:?}",
            outcome.as_ref().map(|r| r.is_error())
        );
        let err = outcome
            .err()
            .ok_or("a cancelled task has no normal result")?;
        expect(
            err.is_cancelled(),
            "Error::is_cancelled after TaskHandle::cancel",
        )?;

        client.close().await;
    }
    Ok(())
}

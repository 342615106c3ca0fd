//! `tasks list|get|result|cancel|update`.
//!
//! 2025-11-25 tasks belong to a session, so a one-shot run sees only the
//! tasks it started; 2026-07-28 task ids are valid across connections.

use mcp_client::{CallOptions, Client};
use serde_json::{Value, json};

use crate::args::TasksCmd;
use crate::exit::{CliError, Exit};
use crate::render::Out;

/// Runs a `tasks` subcommand.
pub(super) async fn run(client: &Client, cmd: &TasksCmd, out: &Out) -> Result<Exit, CliError> {
    match cmd {
        TasksCmd::List => {
            let mut tasks = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let page = client.list_tasks(cursor.as_deref()).await?;
                let page = serde_json::to_value(&page).unwrap_or(Value::Null);
                tasks.extend(page["tasks"].as_array().cloned().unwrap_or_default());
                match page["nextCursor"].as_str() {
                    Some(next) if Some(next) != cursor.as_deref() && tasks.len() < 10_000 => {
                        cursor = Some(next.to_owned());
                    }
                    _ => break,
                }
            }
            if out.json {
                out.json_doc(&json!({ "tasks": tasks }));
            } else if tasks.is_empty() {
                out.line("no tasks");
            } else {
                for t in &tasks {
                    out.line(&task_line(t));
                }
            }
            Ok(Exit::Ok)
        }
        TasksCmd::Get { id } => {
            let task = raw(client, "tasks/get", id).await?;
            if out.json {
                out.json_doc(&task);
            } else {
                out.line(&task_line(&task));
            }
            Ok(Exit::Ok)
        }
        TasksCmd::Result { id } => {
            let mut handle = client.attach_task(id, CallOptions::new())?;
            let result = handle.wait().await?;
            super::features::tool_result(&format!("task {id}"), &result, out)
        }
        TasksCmd::Update { id, responses } => {
            let responses = crate::tool_args::read_json_object(responses)?;
            let params = json!({ "taskId": id, "inputResponses": responses });
            let _: Value = client
                .request_as("tasks/update", Some(params), CallOptions::new())
                .await?;
            if out.json {
                out.json_doc(&json!({ "updated": id }));
            } else {
                out.line(&format!("task {id} updated"));
            }
            Ok(Exit::Ok)
        }
        TasksCmd::Cancel { id } => {
            let task = raw(client, "tasks/cancel", id).await?;
            if out.json {
                out.json_doc(&task);
            } else {
                out.line(&task_line(&task));
            }
            Ok(Exit::Ok)
        }
    }
}

async fn raw(client: &Client, method: &str, id: &str) -> Result<Value, CliError> {
    let params = json!({ "taskId": id });
    Ok(client
        .request_as::<Value>(method, Some(params), CallOptions::new())
        .await?)
}

/// `ID  STATUS  message`, from a task object (flat or under `task`).
fn task_line(t: &Value) -> String {
    let t = t.get("task").unwrap_or(t);
    let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
    format!("{}  {}  {}", s("taskId"), s("status"), s("statusMessage"))
        .trim_end()
        .to_owned()
}

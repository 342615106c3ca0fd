//! Client-owned callback tasks (2025-11-25): the `callback_task` tool asks
//! the client for sampling or elicitation as a task (`params.task`), then
//! drives the client's task endpoints (`tasks/cancel`, `tasks/result`,
//! `tasks/get`, `tasks/list`) and reports what it saw, including the
//! `notifications/progress` and `notifications/tasks/status` the client
//! sent. With `task: false` the request is a plain one (progress only).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;

use crate::interact::{CallCtx, ToolError};
use crate::tools::tool_error;

/// Progress notifications kept per watched token.
const MAX_PROGRESS: usize = 64;
/// Task status notifications remembered (most recent first out).
const MAX_STATUS: usize = 64;

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

#[derive(Default)]
struct Seen {
    progress: HashMap<String, Vec<Value>>,
    status: VecDeque<Value>,
}

static SEEN: LazyLock<Mutex<Seen>> = LazyLock::new(Mutex::default);
/// Bumped after each notification [`observe`] records.
static SEEN_CHANGED: LazyLock<watch::Sender<u64>> = LazyLock::new(|| watch::Sender::new(0));
/// How long the tool waits for notifications the client may still be
/// sending (over HTTP its notification POSTs may trail its answers).
const TRAILING: Duration = Duration::from_secs(2);

fn seen() -> std::sync::MutexGuard<'static, Seen> {
    SEEN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Waits, at most [`TRAILING`], until `holds` is true of what was seen,
/// checking now and after each recorded notification (no polling).
async fn wait_seen(mut holds: impl FnMut(&Seen) -> bool) {
    let mut changed = SEEN_CHANGED.subscribe();
    let wait = async {
        loop {
            changed.borrow_and_update();
            if holds(&seen()) {
                return;
            }
            // The sender is a static: it never closes.
            if changed.changed().await.is_err() {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(TRAILING, wait).await;
}

/// Records the client notifications the tool watches for (called for
/// every legacy client notification).
pub(crate) fn observe(method: &str, params: &Value) {
    match method {
        "notifications/progress" => {
            let Some(token) = params.get("progressToken").and_then(Value::as_str) else {
                return;
            };
            if let Some(list) = seen().progress.get_mut(token)
                && list.len() < MAX_PROGRESS
            {
                list.push(params.clone());
            }
        }
        "notifications/tasks/status" => {
            let mut s = seen();
            if s.status.len() >= MAX_STATUS {
                s.status.pop_front();
            }
            s.status.push_back(params.clone());
        }
        _ => return,
    }
    SEEN_CHANGED.send_modify(|n| *n = n.wrapping_add(1));
}

/// The tool's definition.
pub(crate) fn definition() -> Value {
    json!({
        "name": "callback_task",
        "description": "2025-11-25: asks the client for `kind` (sampling or elicitation) as a \
            task (or plainly with `task: false`), optionally cancels it, waits for the \
            result with tasks/result and reports the task as seen through tasks/get and \
            tasks/list, plus the client's progress and status notifications. With \
            `abandon_after_ms` it sends a plain request, cancels it with \
            notifications/cancelled after that long and reports whether the client \
            answered it anyway.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "kind": { "type": "string", "enum": ["sampling", "elicitation"], "default": "sampling" },
                "task": { "type": "boolean", "default": true },
                "ttl_ms": { "type": "integer", "minimum": 0 },
                "cancel": { "type": "boolean", "default": false },
                "progress": { "type": "boolean", "default": false },
                "expect_progress": { "type": "integer", "minimum": 0, "maximum": 64, "default": 0 },
                "abandon_after_ms": { "type": "integer", "minimum": 0, "maximum": 10000 }
            }
        }
    })
}

fn error_json(e: &mcp_types::jsonrpc::ErrorObject) -> Value {
    json!({ "code": e.code.0, "message": e.message })
}

/// Runs the tool.
pub(crate) async fn callback_task(ctx: &mut CallCtx, args: &Value) -> Result<Value, ToolError> {
    let Some(session) = ctx.session().cloned() else {
        return Ok(tool_error("callback_task needs a 2025-11-25 session"));
    };
    let flag = |k: &str, d: bool| args.get(k).and_then(Value::as_bool).unwrap_or(d);
    let sampling = args.get("kind").and_then(Value::as_str) != Some("elicitation");
    let as_task = flag("task", true);
    let (method, cap, mut params) = if sampling {
        (
            "sampling/createMessage",
            "/tasks/requests/sampling/createMessage",
            json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": "Say hi" } }],
                "maxTokens": 50
            }),
        )
    } else {
        (
            "elicitation/create",
            "/tasks/requests/elicitation/create",
            json!({
                "mode": "form",
                "message": "What is your name?",
                "requestedSchema": { "type": "object",
                    "properties": { "name": { "type": "string" } }, "required": ["name"] }
            }),
        )
    };
    if as_task && session.client_capabilities().pointer(cap).is_none() {
        return Err(ToolError::MissingCapability(
            json!({ "tasks": { "requests": {} } }),
        ));
    }
    if as_task {
        params["task"] = match args.get("ttl_ms").and_then(Value::as_u64) {
            Some(ttl) => json!({ "ttl": ttl }),
            None => json!({}),
        };
    }
    let token = flag("progress", false).then(|| {
        let t = format!("cb-{}", NEXT_TOKEN.fetch_add(1, Ordering::Relaxed));
        seen().progress.insert(t.clone(), Vec::new());
        params["_meta"] = json!({ "progressToken": t });
        t
    });
    let mut report = json!({});
    if let Some(after) = args.get("abandon_after_ms").and_then(Value::as_u64) {
        // A plain request the server gives up on: it cancels the request
        // and reports whether the client answered it anyway.
        let after = Duration::from_millis(after.min(10_000));
        let grace = Duration::from_millis(300);
        match session
            .request_then_cancel(method, params, &ctx.sink, after, grace)
            .await
        {
            Ok(Ok(result)) => report["result"] = result,
            Ok(Err(e)) => report["error"] = error_json(&e),
            Err(late) => {
                report["cancelled"] = json!(true);
                report["answered_after_cancel"] = json!(late);
            }
        }
        return Ok(json!({
            "content": [{ "type": "text", "text": report.to_string() }],
            "structuredContent": report
        }));
    }
    let first = session.request(method, params, &ctx.sink).await;
    let task_id = match (&first, as_task) {
        (Ok(created), true) => {
            report["created"] = created.clone();
            created
                .pointer("/task/taskId")
                .and_then(Value::as_str)
                .map(str::to_owned)
        }
        (Ok(result), false) => {
            report["result"] = result.clone();
            None
        }
        (Err(e), _) => {
            report["error"] = error_json(e);
            None
        }
    };
    if let Some(id) = &task_id {
        let by_id = json!({ "taskId": id });
        if flag("cancel", false) {
            report["cancel"] = match session
                .request("tasks/cancel", by_id.clone(), &ctx.sink)
                .await
            {
                Ok(v) => v,
                Err(e) => json!({ "error": error_json(&e) }),
            };
        }
        match session
            .request("tasks/result", by_id.clone(), &ctx.sink)
            .await
        {
            Ok(v) => report["result"] = v,
            Err(e) => report["error"] = error_json(&e),
        }
        report["get"] = match session.request("tasks/get", by_id.clone(), &ctx.sink).await {
            Ok(v) => v,
            Err(e) => json!({ "error": error_json(&e) }),
        };
        if let Ok(list) = session.request("tasks/list", json!({}), &ctx.sink).await {
            let listed = list["tasks"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["taskId"] == json!(id)));
            report["listed"] = json!(listed);
        }
        let bogus = json!({ "taskId": format!("{id}-nope") });
        if let Err(e) = session.request("tasks/get", bogus, &ctx.sink).await {
            report["unknownTaskError"] = json!(e.code.0);
        }
        // Over HTTP the client's notification POSTs may trail its answers.
        let ours = |seen: &Seen| -> Vec<Value> {
            let mine = seen.status.iter().filter(|s| s["taskId"] == json!(id));
            mine.cloned().collect()
        };
        let terminal = |statuses: &[Value]| {
            statuses.iter().any(|s| {
                matches!(
                    s["status"].as_str(),
                    Some("completed" | "failed" | "cancelled")
                )
            })
        };
        wait_seen(|seen| terminal(&ours(seen))).await;
        let statuses = ours(&seen());
        if terminal(&statuses) {
            report["statusNotifications"] = json!(statuses);
        }
    }
    if let Some(token) = token {
        let want = args
            .get("expect_progress")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        wait_seen(|seen| seen.progress.get(&token).map_or(0, Vec::len) as u64 >= want).await;
        report["progress"] = json!(seen().progress.remove(&token).unwrap_or_default());
    }
    let text = report.to_string();
    Ok(json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": report
    }))
}

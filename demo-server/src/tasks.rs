//! The task store shared by both task generations: the 2025-11-25 core tasks
//! (`tasks/get|result|list|cancel`, `notifications/tasks/status`) and the
//! 2026-07-28 extension `io.modelcontextprotocol/tasks` (`tasks/get|update|cancel`,
//! `notifications/tasks` on listen streams).

use std::collections::HashMap;
use std::sync::Mutex;

use mcp_types::Era;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::server::{Event, lock};
use crate::support::{RpcError, now_millis};
use mcp_types::tasks::timestamp as iso8601;

/// Longest task lifetime the server grants.
pub(crate) const MAX_TTL_MS: u64 = 3_600_000;
/// Default task lifetime.
pub(crate) const DEFAULT_TTL_MS: u64 = 300_000;
/// Suggested polling interval.
pub(crate) const POLL_MS: u64 = 50;

/// A task's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

struct Entry {
    era: Era,
    owner: Option<String>,
    status: TaskStatus,
    message: String,
    created: u64,
    updated: u64,
    ttl_ms: u64,
    outcome: Option<Result<Value, ErrorObject>>,
    input_requests: Map<String, Value>,
    waiting: HashMap<String, oneshot::Sender<Value>>,
    cancel: CancellationToken,
    done: watch::Sender<bool>,
}

/// All tasks of the server.
pub(crate) struct TaskStore {
    tasks: Mutex<HashMap<String, Entry>>,
    order: Mutex<Vec<String>>,
    events: broadcast::Sender<Event>,
}

impl TaskStore {
    pub(crate) fn new(events: broadcast::Sender<Event>) -> TaskStore {
        TaskStore {
            tasks: Mutex::new(HashMap::new()),
            order: Mutex::new(Vec::new()),
            events,
        }
    }

    fn changed(&self, id: &str) {
        let _ = self.events.send(Event::TaskChanged(id.to_owned()));
    }

    /// Creates a working task and returns its cancellation token.
    pub(crate) fn create(
        &self,
        id: &str,
        era: Era,
        owner: Option<String>,
        ttl_ms: Option<u64>,
    ) -> CancellationToken {
        self.purge_expired();
        let now = now_millis();
        let cancel = CancellationToken::new();
        let (done, _) = watch::channel(false);
        let entry = Entry {
            era,
            owner,
            status: TaskStatus::Working,
            message: "The operation is in progress.".into(),
            created: now,
            updated: now,
            ttl_ms: ttl_ms.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS),
            outcome: None,
            input_requests: Map::new(),
            waiting: HashMap::new(),
            cancel: cancel.clone(),
            done,
        };
        lock(&self.tasks).insert(id.to_owned(), entry);
        lock(&self.order).push(id.to_owned());
        cancel
    }

    fn purge_expired(&self) {
        let now = now_millis();
        let mut tasks = lock(&self.tasks);
        tasks.retain(|_, e| !(e.status.is_terminal() && e.created + e.ttl_ms < now));
        lock(&self.order).retain(|id| tasks.contains_key(id));
    }

    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        lock(&self.tasks).get_mut(id).map(f)
    }

    fn mutate<T>(&self, id: &str, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let out = self.with(id, f);
        if out.is_some() {
            self.changed(id);
        }
        out
    }

    /// Sets a non-terminal status (ignored once terminal).
    pub(crate) fn set_status(&self, id: &str, status: TaskStatus, message: &str) {
        self.mutate(id, |e| {
            if !e.status.is_terminal() {
                e.status = status;
                e.message = message.to_owned();
                e.updated = now_millis();
            }
        });
    }

    /// Records the final outcome; the status follows the task generation's
    /// rules (a tool result with `isError` is `failed` in 2025-11-25 and
    /// `completed` in the extension). Returns whether the status changed.
    pub(crate) fn finish(&self, id: &str, outcome: Option<Result<Value, ErrorObject>>) -> bool {
        let changed = self
            .with(id, |e| {
                if e.status.is_terminal() {
                    return false;
                }
                let (status, message) = match &outcome {
                    None => (TaskStatus::Cancelled, "The task was cancelled."),
                    Some(Err(_)) => (TaskStatus::Failed, "The task failed."),
                    Some(Ok(v)) => {
                        let is_error = v.get("isError").and_then(Value::as_bool) == Some(true);
                        if is_error && e.era == Era::Legacy {
                            (TaskStatus::Failed, "The tool reported an error.")
                        } else {
                            (TaskStatus::Completed, "The task completed.")
                        }
                    }
                };
                e.status = status;
                e.message = message.into();
                e.outcome = outcome;
                e.updated = now_millis();
                e.input_requests.clear();
                e.waiting.clear();
                e.done.send_replace(true);
                true
            })
            .unwrap_or(false);
        if changed {
            self.changed(id);
        }
        changed
    }

    /// Registers an outstanding input request; resolves with the answer.
    pub(crate) fn request_input(
        &self,
        id: &str,
        key: &str,
        request: Value,
    ) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.mutate(id, |e| {
            e.input_requests.insert(key.to_owned(), request);
            e.waiting.insert(key.to_owned(), tx);
            e.status = TaskStatus::InputRequired;
            e.message = "Waiting for input from the client.".into();
            e.updated = now_millis();
        });
        rx
    }

    /// `tasks/update`: delivers answers to outstanding keys, ignoring others.
    pub(crate) fn update(&self, id: &str, responses: &Map<String, Value>) -> Result<(), RpcError> {
        self.mutate(id, |e| {
            for (key, value) in responses {
                if let Some(tx) = e.waiting.remove(key) {
                    e.input_requests.remove(key);
                    let _ = tx.send(value.clone());
                }
            }
            if e.waiting.is_empty() && e.status == TaskStatus::InputRequired {
                e.status = TaskStatus::Working;
                e.message = "Working".into();
                e.updated = now_millis();
            }
        })
        .ok_or_else(|| unknown(id))
    }

    /// Requests cancellation. Legacy: `-32602` when already terminal, and
    /// the task is `cancelled` before this returns.
    pub(crate) fn cancel(&self, id: &str, era: Era) -> Result<(), RpcError> {
        let token = self
            .with(id, |e| {
                if e.status.is_terminal() {
                    return Err(RpcError::invalid_params(format!(
                        "Task {id} is already {}",
                        e.status.as_str()
                    )));
                }
                Ok(e.cancel.clone())
            })
            .ok_or_else(|| unknown(id))?;
        let token = match token {
            Ok(t) => t,
            Err(e) if era == Era::Legacy => return Err(e),
            Err(_) => return Ok(()),
        };
        token.cancel();
        self.finish(id, None);
        Ok(())
    }

    /// Cancels every unfinished task of a legacy session that ended.
    pub(crate) fn cancel_owned(&self, owner: &str) {
        let ids: Vec<String> = lock(&self.tasks)
            .iter()
            .filter(|(_, e)| e.owner.as_deref() == Some(owner) && !e.status.is_terminal())
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            let _ = self.cancel(&id, Era::Legacy);
        }
    }

    /// A watch that turns `true` when the task is terminal.
    pub(crate) fn done(&self, id: &str) -> Option<watch::Receiver<bool>> {
        self.with(id, |e| e.done.subscribe())
    }

    /// The stored outcome of a terminal task.
    pub(crate) fn outcome(&self, id: &str) -> Option<Option<Result<Value, ErrorObject>>> {
        self.with(id, |e| e.outcome.clone())
    }

    /// Whether `id` exists, belongs to `era` and (legacy) to `owner`.
    pub(crate) fn visible(&self, id: &str, era: Era, owner: Option<&str>) -> bool {
        self.with(id, |e| {
            e.era == era && (era == Era::Modern || e.owner.as_deref() == owner)
        })
        .unwrap_or(false)
    }

    /// The owner session of a task.
    pub(crate) fn owner(&self, id: &str) -> Option<String> {
        self.with(id, |e| e.owner.clone()).flatten()
    }

    /// The 2025-11-25 `Task` object.
    pub(crate) fn legacy_json(&self, id: &str) -> Option<Value> {
        self.with(id, |e| {
            let mut t = json!({
                "taskId": id,
                "status": e.status.as_str(),
                "statusMessage": e.message,
                "createdAt": iso8601(e.created),
                "lastUpdatedAt": iso8601(e.updated),
                "ttl": e.ttl_ms,
                "pollInterval": POLL_MS,
            });
            if e.status == TaskStatus::Failed
                && let Some(Err(err)) = &e.outcome
            {
                t["statusMessage"] = json!(err.message);
            }
            t
        })
    }

    /// The extension's `DetailedTask` (without `resultType`).
    pub(crate) fn modern_json(&self, id: &str) -> Option<Value> {
        self.with(id, |e| {
            let mut t = json!({
                "taskId": id,
                "status": e.status.as_str(),
                "statusMessage": e.message,
                "createdAt": iso8601(e.created),
                "lastUpdatedAt": iso8601(e.updated),
                "ttlMs": e.ttl_ms,
                "pollIntervalMs": POLL_MS,
            });
            match (&e.status, &e.outcome) {
                (TaskStatus::Completed, Some(Ok(v))) => t["result"] = v.clone(),
                (TaskStatus::Failed, Some(Err(err))) => t["error"] = json!(err),
                (TaskStatus::InputRequired, _) => {
                    t["inputRequests"] = Value::Object(e.input_requests.clone());
                }
                _ => {}
            }
            t
        })
    }

    /// The ids of legacy tasks owned by `owner`, oldest first.
    pub(crate) fn legacy_ids(&self, owner: &str) -> Vec<String> {
        let tasks = lock(&self.tasks);
        lock(&self.order)
            .iter()
            .filter(|id| {
                tasks
                    .get(*id)
                    .is_some_and(|e| e.era == Era::Legacy && e.owner.as_deref() == Some(owner))
            })
            .cloned()
            .collect()
    }
}

/// The error for an unknown task id.
pub(crate) fn unknown(id: &str) -> RpcError {
    RpcError::invalid_params(format!("Unknown task: {id}"))
}

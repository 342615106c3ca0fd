//! The context a tool runs in: progress, logging, cancellation, and asking
//! the client for input in whichever way the era uses (a server-to-client
//! request in 2025-11-25, an `input_required` round or a task input request
//! in 2026-07-28).

use std::sync::Arc;
use std::time::Duration;

use mcp_types::Era;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::dispatch::{Frame, Sink, notification};
use crate::legacy::Session;
use crate::server::Server;
use crate::support::{RpcError, log_rank};
use crate::tasks::TaskStatus;

/// Why a tool stopped without a result.
#[derive(Debug)]
pub(crate) enum ToolError {
    /// A JSON-RPC error for the caller.
    Rpc(RpcError),
    /// Modern era: the answer to `key` is needed first.
    NeedInput { key: String, request: Value },
    /// The client did not declare a capability; carries the
    /// `requiredCapabilities` object (e.g. `{"elicitation":{"url":{}}}`).
    MissingCapability(Value),
    /// The request or task was cancelled.
    Cancelled,
}

impl From<RpcError> for ToolError {
    fn from(e: RpcError) -> Self {
        ToolError::Rpc(e)
    }
}

/// How the tool obtains client input.
pub(crate) enum Input {
    /// 2025-11-25: send a request to the client of this session.
    Legacy(Arc<Session>),
    /// 2026-07-28 request: answers from `requestState` and `inputResponses`.
    Modern {
        caps: Value,
        known: Map<String, Value>,
        consumed: Map<String, Value>,
    },
    /// 2026-07-28 task: surface input requests through `tasks/get`.
    Task { caps: Value },
}

/// The context of one tool execution.
pub(crate) struct CallCtx {
    pub(crate) server: Arc<Server>,
    pub(crate) era: Era,
    pub(crate) sink: Sink,
    pub(crate) progress_token: Option<Value>,
    pub(crate) log_min: Option<usize>,
    pub(crate) cancel: CancellationToken,
    pub(crate) input: Input,
    /// The task this execution belongs to, if any.
    pub(crate) task_id: Option<String>,
}

/// Checks that `caps` allows the input request; else the capabilities it needs.
pub(crate) fn check_capability(
    caps: &Value,
    method: &str,
    params: &Value,
) -> Result<(), ToolError> {
    let (cap, sub) = match method {
        "sampling/createMessage" => ("sampling", None),
        "roots/list" => ("roots", None),
        _ => match params.get("mode").and_then(Value::as_str) {
            Some("url") => ("elicitation", Some("url")),
            _ => ("elicitation", Some("form")),
        },
    };
    let declared = caps.get(cap);
    let ok = match (declared, sub) {
        (None, _) => false,
        (Some(_), None) => true,
        // An empty elicitation object means form support (2025-06-18 style).
        (Some(d), Some("form")) => d.get("form").is_some() || d.get("url").is_none(),
        (Some(d), Some(s)) => d.get(s).is_some(),
    };
    if ok {
        return Ok(());
    }
    let required = match sub {
        Some(s) => json!({ cap: { s: {} } }),
        None => json!({ cap: {} }),
    };
    Err(ToolError::MissingCapability(required))
}

impl CallCtx {
    fn related_meta(&self) -> Option<Value> {
        match (&self.task_id, self.era) {
            (Some(id), Era::Legacy) => {
                Some(json!({ "io.modelcontextprotocol/related-task": { "taskId": id } }))
            }
            _ => None,
        }
    }

    /// Sends `notifications/progress` when the caller asked for progress.
    pub(crate) fn progress(&self, progress: u64, total: Option<u64>, message: &str) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params =
            json!({ "progressToken": token, "progress": progress, "message": message });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(meta) = self.related_meta() {
            params["_meta"] = meta;
        }
        let _ = self.sink.send(Frame::Notice(notification(
            "notifications/progress",
            params,
        )));
    }

    /// Sends `notifications/message` when `level` passes the caller's threshold.
    pub(crate) fn log(&self, level: &str, data: Value) {
        let (Some(min), Some(rank)) = (self.log_min, log_rank(level)) else {
            return;
        };
        if rank < min {
            return;
        }
        let mut params = json!({ "level": level, "logger": "demo-server", "data": data });
        if let Some(meta) = self.related_meta() {
            params["_meta"] = meta;
        }
        let _ = self
            .sink
            .send(Frame::Notice(notification("notifications/message", params)));
    }

    /// Sends a notification on the request's stream.
    pub(crate) fn notify(&self, method: &str, params: Value) {
        let _ = self.sink.send(Frame::Notice(notification(method, params)));
    }

    /// The legacy session the request belongs to, if any.
    pub(crate) fn session(&self) -> Option<&Arc<Session>> {
        match &self.input {
            Input::Legacy(s) => Some(s),
            _ => None,
        }
    }

    /// Sleeps `ms` milliseconds unless cancelled first.
    pub(crate) async fn sleep(&self, ms: u64) -> Result<(), ToolError> {
        tokio::select! {
            () = self.cancel.cancelled() => Err(ToolError::Cancelled),
            () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
        }
    }

    /// Asks the client for input (`method` is `elicitation/create`,
    /// `sampling/createMessage` or `roots/list`) and returns its answer.
    pub(crate) async fn ask(
        &mut self,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, ToolError> {
        let request = json!({ "method": method, "params": &params });
        let related = self.related_meta();
        match &mut self.input {
            Input::Legacy(session) => {
                check_capability(&session.client_capabilities(), method, &params)?;
                let mut params = params;
                if let Some(meta) = related {
                    params["_meta"] = meta;
                }
                if let Some(id) = &self.task_id {
                    self.server.tasks.set_status(
                        id,
                        TaskStatus::InputRequired,
                        "Waiting for the client",
                    );
                }
                let answer = tokio::select! {
                    () = self.cancel.cancelled() => return Err(ToolError::Cancelled),
                    r = session.request(method, params, &self.sink) => r,
                };
                if let Some(id) = &self.task_id {
                    self.server
                        .tasks
                        .set_status(id, TaskStatus::Working, "Working");
                }
                answer.map_err(|e| {
                    ToolError::Rpc(RpcError::internal(format!(
                        "the client answered {method} with an error: {}",
                        e.message
                    )))
                })
            }
            Input::Modern {
                caps,
                known,
                consumed,
            } => {
                if let Some(v) = known.get(key) {
                    consumed.insert(key.to_owned(), v.clone());
                    return Ok(v.clone());
                }
                check_capability(caps, method, &params)?;
                Err(ToolError::NeedInput {
                    key: key.to_owned(),
                    request,
                })
            }
            Input::Task { caps } => {
                check_capability(caps, method, &params)?;
                let Some(id) = self.task_id.clone() else {
                    return Err(ToolError::Rpc(RpcError::internal(
                        "task input without a task",
                    )));
                };
                let rx = self.server.tasks.request_input(&id, key, request);
                tokio::select! {
                    () = self.cancel.cancelled() => Err(ToolError::Cancelled),
                    r = rx => r.map_err(|_| ToolError::Cancelled),
                }
            }
        }
    }
}

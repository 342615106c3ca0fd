//! Pending elicitations of held connections, answered by a later command
//! (`mcp elicitation list|respond`), for agents driving the CLI.
//!
//! When a server asks a held connection for input, the question is kept
//! under a number and announced on the stderr of the command that caused
//! it; that command waits until `mcp elicitation respond N ...` answers
//! it (accept with `key=value` / `--args`, or `--decline` / `--cancel`).
//! Form answers are typed and checked against the requested schema, as
//! tool arguments are.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_client::{HandlerResult, UrlElicitation};
use mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::exit::CliError;
use crate::render::Frame;

/// At most this many questions wait at once; more are declined.
const MAX_PENDING: usize = 64;

/// One waiting question.
struct Waiting {
    /// `form` or `url`.
    kind: &'static str,
    message: String,
    /// The requested schema (form) or the URL (url).
    detail: Value,
    answer: oneshot::Sender<ElicitResult>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    waiting: BTreeMap<u64, Waiting>,
    /// The output of the command running now, for announcements.
    notify: Option<mpsc::UnboundedSender<Frame>>,
}

/// The holder's pending questions, shared by its connections.
#[derive(Clone, Default)]
pub(crate) struct Pending {
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pending")
    }
}

/// How `respond` answers.
#[derive(Debug)]
pub(crate) enum Response {
    /// Accept with these values (a form) or as visited (a URL).
    Accept(serde_json::Map<String, Value>, Vec<String>),
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends announcements to this command's output (`None`: nowhere).
    pub(crate) fn set_output(&self, tx: Option<mpsc::UnboundedSender<Frame>>) {
        self.lock().notify = tx;
    }

    async fn ask(&self, kind: &'static str, message: String, detail: Value) -> ElicitResult {
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut inner = self.lock();
            if inner.waiting.len() >= MAX_PENDING {
                return ElicitResult::decline();
            }
            inner.next += 1;
            let id = inner.next;
            let hint = match kind {
                "url" => format!(
                    "open {} then `mcp elicitation respond {id}`",
                    detail.as_str().unwrap_or("")
                ),
                _ => format!(
                    "`mcp elicitation respond {id} KEY=VALUE...` (fields: {})",
                    fields(&detail)
                ),
            };
            let note = format!(
                "mcp: elicitation {id} pending: {message}; answer with {hint}, or --decline"
            );
            if let Some(out) = &inner.notify {
                let _ = out.send(Frame::Err(note));
            }
            inner.waiting.insert(
                id,
                Waiting {
                    kind,
                    message,
                    detail,
                    answer: tx,
                },
            );
            id
        };
        let answer = rx.await.unwrap_or_else(|_| ElicitResult::cancel());
        self.lock().waiting.remove(&id);
        answer
    }

    /// Serves a form elicitation by waiting for `respond`.
    pub(crate) async fn form(
        &self,
        params: ElicitRequestFormParams,
    ) -> HandlerResult<ElicitResult> {
        let schema = serde_json::to_value(&params.requested_schema).unwrap_or(Value::Null);
        Ok(self.ask("form", params.message, schema).await)
    }

    /// Serves a URL elicitation by waiting for `respond`.
    pub(crate) async fn url(&self, request: UrlElicitation) -> HandlerResult<ElicitResult> {
        Ok(self
            .ask("url", request.message, Value::String(request.url))
            .await)
    }

    /// The waiting questions, oldest first (questions whose call is gone
    /// are dropped).
    pub(crate) fn list(&self) -> Vec<Value> {
        let mut inner = self.lock();
        inner.waiting.retain(|_, w| !w.answer.is_closed());
        inner
            .waiting
            .iter()
            .map(|(id, w)| {
                let key = if w.kind == "url" {
                    "url"
                } else {
                    "requestedSchema"
                };
                json!({ "id": id, "mode": w.kind, "message": w.message, key: w.detail })
            })
            .collect()
    }

    /// Answers question `id`.
    pub(crate) fn respond(&self, id: u64, response: Response) -> Result<(), CliError> {
        let mut inner = self.lock();
        let Some(w) = inner.waiting.get(&id) else {
            return Err(CliError::usage(format!("no pending elicitation {id}")));
        };
        let result = match response {
            Response::Decline => ElicitResult::decline(),
            Response::Cancel => ElicitResult::cancel(),
            Response::Accept(_, _) if w.kind == "url" => ElicitResult::accept_url(),
            Response::Accept(json, pairs) => {
                let schema = w.detail.as_object().cloned().unwrap_or_default();
                let values = crate::tool_args::build(
                    &format!("elicitation {id}"),
                    &schema,
                    Some(json),
                    &pairs,
                )?;
                let content = serde_json::from_value(values)
                    .map_err(|e| CliError::usage(format!("elicitation {id}: {e}")))?;
                ElicitResult::accept(content)
            }
        };
        if let Some(w) = inner.waiting.remove(&id) {
            let _ = w.answer.send(result);
        }
        Ok(())
    }
}

/// `name (string, required), colour (string)`.
fn fields(schema: &Value) -> String {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema["properties"]
        .as_object()
        .map(|p| {
            p.iter()
                .map(|(k, v)| {
                    let t = v["type"].as_str().unwrap_or("any");
                    let req = if required.contains(&k.as_str()) {
                        ", required"
                    } else {
                        ""
                    };
                    format!("{k} ({t}{req})")
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

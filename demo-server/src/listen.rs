//! `subscriptions/listen` (2026-07-28): the acknowledgement, then the
//! notifications the client opted in to, each tagged with the subscription id.

use std::collections::HashSet;
use std::sync::Arc;

use http::StatusCode;
use mcp_types::{Era, ErrorCode};
use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::dispatch::{Frame, Incoming, Outcome, Sink, notification};
use crate::modern::{ModernMeta, TASKS_EXT};
use crate::resources;
use crate::server::{Event, Server};
use crate::support::RpcError;

/// `_meta` key of the subscription id.
pub(crate) const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: HashSet<String>,
    tasks: HashSet<String>,
}

fn flag(f: &Map<String, Value>, key: &str) -> bool {
    f.get(key).and_then(Value::as_bool) == Some(true)
}

fn strings(f: &Map<String, Value>, key: &str) -> Result<Vec<String>, RpcError> {
    match f.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| RpcError::invalid_params(format!("{key} must hold strings")))
            })
            .collect(),
        Some(_) => Err(RpcError::invalid_params(format!("{key} must be an array"))),
    }
}

fn parse_filter(
    server: &Server,
    meta: &ModernMeta,
    p: &Value,
) -> Result<(Filter, Value), RpcError> {
    let empty = Map::new();
    let f = match p.get("notifications") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(RpcError::invalid_params("notifications must be an object")),
    };
    let task_ids = strings(f, "taskIds")?;
    if f.contains_key("taskIds") && !meta.has_tasks() {
        return Err(RpcError::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(json!({ "requiredCapabilities": { "extensions": { TASKS_EXT: {} } } }))
        .with_status(StatusCode::BAD_REQUEST));
    }
    let uris: Vec<String> = strings(f, "resourceSubscriptions")?
        .into_iter()
        .filter(|u| resources::exists(u))
        .collect();
    let tasks: Vec<String> = task_ids
        .into_iter()
        .filter(|id| server.tasks.visible(id, Era::Modern, None))
        .collect();
    let filter = Filter {
        tools: flag(f, "toolsListChanged"),
        prompts: flag(f, "promptsListChanged"),
        resources: flag(f, "resourcesListChanged"),
        uris: uris.iter().cloned().collect(),
        tasks: tasks.iter().cloned().collect(),
    };
    let mut granted = Map::new();
    for (key, on) in [
        ("toolsListChanged", filter.tools),
        ("promptsListChanged", filter.prompts),
        ("resourcesListChanged", filter.resources),
    ] {
        if on {
            granted.insert(key.into(), json!(true));
        }
    }
    if f.contains_key("resourceSubscriptions") {
        granted.insert("resourceSubscriptions".into(), json!(uris));
    }
    if f.contains_key("taskIds") {
        granted.insert("taskIds".into(), json!(tasks));
    }
    Ok((filter, Value::Object(granted)))
}

fn render(server: &Server, filter: &Filter, event: &Event) -> Option<(&'static str, Value)> {
    match event {
        Event::ToolsListChanged if filter.tools => {
            Some(("notifications/tools/list_changed", json!({})))
        }
        Event::PromptsListChanged if filter.prompts => {
            Some(("notifications/prompts/list_changed", json!({})))
        }
        Event::ResourcesListChanged if filter.resources => {
            Some(("notifications/resources/list_changed", json!({})))
        }
        Event::ResourceUpdated(uri) if filter.uris.contains(uri) => {
            Some(("notifications/resources/updated", json!({ "uri": uri })))
        }
        Event::TaskChanged(id) if filter.tasks.contains(id) => {
            Some(("notifications/tasks", server.tasks.modern_json(id)?))
        }
        _ => None,
    }
}

fn tagged(method: &str, mut params: Value, sub: &Value) -> Frame {
    if let Value::Object(m) = &mut params {
        let meta = m.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.insert(META_SUBSCRIPTION.into(), sub.clone());
        }
    }
    Frame::Notice(notification(method, params))
}

/// Serves one listen request until the client cancels it or the server
/// shuts down (then it ends with a `complete` result).
pub(crate) async fn listen(
    server: &Arc<Server>,
    meta: &ModernMeta,
    req: &Incoming,
    sink: &Sink,
    cancel: &CancellationToken,
) -> Outcome {
    let (filter, granted) = match parse_filter(server, meta, &req.params) {
        Ok(f) => f,
        Err(e) => return Outcome::Reply(Err(e)),
    };
    let sub = serde_json::to_value(&req.id).unwrap_or(Value::Null);
    // Subscribe before acknowledging so nothing after the ack is missed.
    let mut rx = server.events.subscribe();
    let ack = json!({ "notifications": granted });
    if sink
        .send(tagged(
            "notifications/subscriptions/acknowledged",
            ack,
            &sub,
        ))
        .is_err()
    {
        return Outcome::Silent;
    }
    loop {
        let event = tokio::select! {
            () = cancel.cancelled() => return Outcome::Silent,
            () = server.shutdown.cancelled() => break,
            e = rx.recv() => e,
        };
        let event = match event {
            Ok(e) => e,
            Err(RecvError::Lagged(_)) => continue,
            Err(RecvError::Closed) => break,
        };
        if let Some((method, params)) = render(server, &filter, &event)
            && sink.send(tagged(method, params, &sub)).is_err()
        {
            return Outcome::Silent;
        }
    }
    Outcome::Reply(Ok(json!({
        "resultType": "complete",
        "_meta": { META_SUBSCRIPTION: sub, "io.modelcontextprotocol/serverInfo": server.info() }
    })))
}

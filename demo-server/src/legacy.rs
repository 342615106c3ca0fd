//! The 2025-11-25 era: sessions, `initialize`, server-to-client requests,
//! unsolicited notifications, core tasks.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_types::jsonrpc::{ErrorObject, Request};
use mcp_types::{Era, ErrorCode, Message, ProtocolVersion, RequestId};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::dispatch::{Frame, Incoming, Outcome, Sink, cancelled_id, notification};
use crate::interact::{CallCtx, Input, ToolError};
use crate::resume::Logs;
use crate::server::{Event, Server, lock};
use crate::support::{Reply, RpcError, log_rank, paginate, params_object, required_str};
use crate::tasks::unknown;
use crate::tools::SECRET;
use crate::{prompts, resources, tools};

/// How long the server waits for the client to answer its request.
const CLIENT_ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// The negotiated state of a session.
struct State {
    client_caps: Value,
    log_min: usize,
    subscriptions: HashSet<String>,
    url_done: bool,
}

type Pending = HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>;

/// One legacy session: a stdio connection after `initialize`, or an HTTP
/// `Mcp-Session-Id`.
pub(crate) struct Session {
    pub(crate) id: String,
    state: Mutex<State>,
    pending: Mutex<Pending>,
    next_id: AtomicI64,
    /// Unsolicited messages (list changes, updates, task status).
    pub(crate) outbound: Sink,
    /// HTTP only: the receiving end of `outbound`, taken by the GET stream.
    pub(crate) mailbox: Mutex<Option<mpsc::UnboundedReceiver<Frame>>>,
    /// Requests in flight, for `notifications/cancelled`.
    pub(crate) inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    pub(crate) closed: CancellationToken,
    /// Logged POST streams, for resumption.
    pub(crate) logs: Logs,
    streams: AtomicU64,
}

impl Session {
    /// A session whose unsolicited messages go to `outbound`; with
    /// `mailbox`, they wait there for a GET stream.
    pub(crate) fn new(
        id: String,
        client_caps: Value,
        outbound: Sink,
        mailbox: Option<mpsc::UnboundedReceiver<Frame>>,
    ) -> Arc<Session> {
        Arc::new(Session {
            id,
            state: Mutex::new(State {
                client_caps,
                log_min: 1, // info
                subscriptions: HashSet::new(),
                url_done: false,
            }),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            outbound,
            mailbox: Mutex::new(mailbox),
            inflight: Mutex::new(HashMap::new()),
            closed: CancellationToken::new(),
            logs: Logs::default(),
            streams: AtomicU64::new(1),
        })
    }

    /// The capabilities the client declared at `initialize`.
    pub(crate) fn client_capabilities(&self) -> Value {
        lock(&self.state).client_caps.clone()
    }

    /// Marks the URL-elicitation demo as done; returns whether it already was.
    pub(crate) fn mark_url_done(&self) -> bool {
        std::mem::replace(&mut lock(&self.state).url_done, true)
    }

    /// A fresh stream number, unique within the session.
    pub(crate) fn next_stream(&self) -> u64 {
        self.streams.fetch_add(1, Ordering::Relaxed)
    }

    /// Ends the session.
    pub(crate) fn close(&self) {
        self.closed.cancel();
        for (_, t) in lock(&self.inflight).drain() {
            t.cancel();
        }
        lock(&self.pending).clear();
    }

    /// Sends a request to the client on `sink` and waits for its answer.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        sink: &Sink,
    ) -> Result<Value, ErrorObject> {
        let id = RequestId::String(format!(
            "srv-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let msg = Message::Request(Request {
            id: id.clone(),
            method: method.to_owned(),
            params: mcp_types::jsonrpc::to_raw(&params).ok(),
        });
        let failed = |m: &str| ErrorObject::new(ErrorCode::INTERNAL_ERROR, m);
        if sink.send(Frame::Notice(msg)).is_err() {
            lock(&self.pending).remove(&id);
            return Err(failed("the stream to the client is closed"));
        }
        let out = tokio::select! {
            r = rx => r.unwrap_or_else(|_| Err(failed("session closed"))),
            () = tokio::time::sleep(CLIENT_ANSWER_TIMEOUT) => Err(failed("the client did not answer")),
            () = self.closed.cancelled() => Err(failed("session closed")),
        };
        lock(&self.pending).remove(&id);
        out
    }

    /// Sends a request and, when no answer came within `after`, cancels it
    /// with `notifications/cancelled`, then listens for `grace` more.
    /// `Ok` is an answer in time; `Err(late)` says whether the client
    /// answered the cancelled request anyway (it should not).
    pub(crate) async fn request_then_cancel(
        &self,
        method: &str,
        params: Value,
        sink: &Sink,
        after: Duration,
        grace: Duration,
    ) -> Result<Result<Value, ErrorObject>, bool> {
        let id = RequestId::String(format!(
            "srv-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, mut rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let msg = Message::Request(Request {
            id: id.clone(),
            method: method.to_owned(),
            params: mcp_types::jsonrpc::to_raw(&params).ok(),
        });
        if sink.send(Frame::Notice(msg)).is_err() {
            lock(&self.pending).remove(&id);
            return Err(false);
        }
        tokio::select! {
            r = &mut rx => {
                lock(&self.pending).remove(&id);
                return Ok(r.unwrap_or_else(|_| Err(ErrorObject::new(ErrorCode::INTERNAL_ERROR, "session closed"))));
            }
            () = tokio::time::sleep(after) => {}
        }
        let cancel = notification(
            "notifications/cancelled",
            json!({ "requestId": id, "reason": "the demo server gave up waiting" }),
        );
        let _ = sink.send(Frame::Notice(cancel));
        let late = tokio::select! {
            r = &mut rx => r.is_ok(),
            () = tokio::time::sleep(grace) => false,
        };
        lock(&self.pending).remove(&id);
        Err(late)
    }

    /// Routes a response from the client; `false` when nothing waited for it.
    pub(crate) fn deliver(&self, id: &RequestId, answer: Result<Value, ErrorObject>) -> bool {
        match lock(&self.pending).remove(id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Relays server events to this session until it closes.
    pub(crate) fn spawn_forwarder(self: &Arc<Self>, server: &Arc<Server>) {
        let mut rx = server.events.subscribe();
        let me = Arc::clone(self);
        let server = Arc::clone(server);
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    () = me.closed.cancelled() => return,
                    e = rx.recv() => e,
                };
                let msg = match event {
                    Ok(Event::ToolsListChanged) => {
                        notification("notifications/tools/list_changed", json!({}))
                    }
                    Ok(Event::PromptsListChanged) => {
                        notification("notifications/prompts/list_changed", json!({}))
                    }
                    Ok(Event::ResourcesListChanged) => {
                        notification("notifications/resources/list_changed", json!({}))
                    }
                    Ok(Event::ResourceUpdated(uri)) => {
                        if !lock(&me.state).subscriptions.contains(&uri) {
                            continue;
                        }
                        notification("notifications/resources/updated", json!({ "uri": uri }))
                    }
                    Ok(Event::TaskChanged(id)) => {
                        if server.tasks.owner(&id).as_deref() != Some(me.id.as_str()) {
                            continue;
                        }
                        let Some(task) = server.tasks.legacy_json(&id) else {
                            continue;
                        };
                        notification("notifications/tasks/status", task)
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                if me.outbound.send(Frame::Notice(msg)).is_err() {
                    return;
                }
            }
        });
    }
}

/// The legacy capabilities the server declares.
pub(crate) fn capabilities() -> Value {
    json!({
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "logging": {},
        "completions": {},
        "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } },
        "extensions": { crate::skills::capability().0: crate::skills::capability().1 }
    })
}

/// Validates `initialize` params; returns the version to answer with and
/// the client's capabilities.
pub(crate) fn negotiate(params: &Value) -> Result<(ProtocolVersion, Value), RpcError> {
    let requested = required_str(params, "protocolVersion")?;
    let caps = params.get("capabilities").cloned().unwrap_or(json!({}));
    if !caps.is_object() {
        return Err(RpcError::invalid_params("capabilities must be an object"));
    }
    let requested = ProtocolVersion::parse(requested);
    let version = match requested.era() {
        Some(Era::Legacy) => requested,
        _ => ProtocolVersion::LATEST_LEGACY,
    };
    Ok((version, caps))
}

/// The `InitializeResult`.
pub(crate) fn initialize_result(server: &Server, version: &ProtocolVersion) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": server.info(),
        "instructions": server.instructions()
    })
}

/// Handles one request of an initialized session.
pub(crate) async fn handle(
    server: &Arc<Server>,
    session: &Arc<Session>,
    req: &Incoming,
    sink: &Sink,
    cancel: &CancellationToken,
) -> Outcome {
    let p = &req.params;
    if let Err(e) = params_object(p) {
        return Outcome::Reply(Err(e));
    }
    let page = server.opts.page_size;
    let reply: Reply = match req.method.as_str() {
        "initialize" => Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Session already initialized",
        )),
        "ping" => Ok(json!({})),
        "tools/list" => {
            paginate(server.catalog.tools(Era::Legacy), "tools", p, page).map(Value::Object)
        }
        "tools/call" => return call_tool(server, session, req, sink, cancel).await,
        "resources/list" => {
            paginate(&server.catalog.resources, "resources", p, page).map(Value::Object)
        }
        "resources/templates/list" => {
            paginate(&server.catalog.templates, "resourceTemplates", p, page).map(Value::Object)
        }
        "resources/read" if p.get("uri").and_then(Value::as_str) == Some(SECRET) => {
            return read_secret(server, session, sink, cancel).await;
        }
        "resources/read" => {
            required_str(p, "uri").and_then(|uri| resources::read(server, Era::Legacy, uri))
        }
        "resources/subscribe" | "resources/unsubscribe" => required_str(p, "uri").and_then(|uri| {
            resources::check_subscribable(Era::Legacy, uri)?;
            let mut st = lock(&session.state);
            if req.method == "resources/subscribe" {
                st.subscriptions.insert(uri.to_owned());
            } else {
                st.subscriptions.remove(uri);
            }
            Ok(json!({}))
        }),
        "prompts/list" => paginate(&server.catalog.prompts, "prompts", p, page).map(Value::Object),
        "skills/list" => crate::skills::list(p, page),
        "skills/get" => crate::skills::get(p),
        "resources/directory/read" => crate::skills::directory_read(p, page),
        "prompts/get" => prompts::get(p),
        "completion/complete" => prompts::complete(p),
        // The LLM-server pattern (llm.rs): the client asks the server's model.
        "sampling/createMessage" => crate::llm::create_message(p),
        "logging/setLevel" => required_str(p, "level").and_then(|level| {
            let rank = log_rank(level)
                .ok_or_else(|| RpcError::invalid_params(format!("Invalid log level {level:?}")))?;
            lock(&session.state).log_min = rank;
            Ok(json!({}))
        }),
        "tasks/get" => task_id(server, session, p)
            .and_then(|id| server.tasks.legacy_json(&id).ok_or_else(|| unknown(&id))),
        "tasks/result" => return task_result(server, session, p).await.into(),
        "tasks/list" => {
            let items: Vec<Value> = server
                .tasks
                .legacy_ids(&session.id)
                .iter()
                .filter_map(|id| server.tasks.legacy_json(id))
                .collect();
            paginate(&items, "tasks", p, page).map(Value::Object)
        }
        "tasks/cancel" => task_id(server, session, p).and_then(|id| {
            server.tasks.cancel(&id, Era::Legacy)?;
            server.tasks.legacy_json(&id).ok_or_else(|| unknown(&id))
        }),
        other => Err(RpcError::method_not_found(other)),
    };
    Outcome::Reply(reply)
}

fn task_id(server: &Server, session: &Session, p: &Value) -> Result<String, RpcError> {
    let id = required_str(p, "taskId")?;
    if server.tasks.visible(id, Era::Legacy, Some(&session.id)) {
        Ok(id.to_owned())
    } else {
        Err(unknown(id))
    }
}

async fn task_result(server: &Server, session: &Session, p: &Value) -> Reply {
    let id = task_id(server, session, p)?;
    let mut done = server.tasks.done(&id).ok_or_else(|| unknown(&id))?;
    tokio::select! {
        r = done.wait_for(|d| *d) => { r.map_err(|_| unknown(&id))?; }
        () = session.closed.cancelled() => return Err(RpcError::internal("session closed")),
    }
    let related = json!({ "io.modelcontextprotocol/related-task": { "taskId": id } });
    match server.tasks.outcome(&id) {
        Some(Some(Ok(mut v))) => {
            v["_meta"] = related;
            Ok(v)
        }
        Some(Some(Err(e))) => Err(RpcError {
            error: e.with_data(related),
            status: http::StatusCode::OK,
        }),
        Some(None) => {
            Err(RpcError::internal(format!("Task {id} was cancelled")).with_data(related))
        }
        None => Err(unknown(&id)),
    }
}

async fn read_secret(
    server: &Arc<Server>,
    session: &Arc<Session>,
    sink: &Sink,
    cancel: &CancellationToken,
) -> Outcome {
    let mut ctx = CallCtx {
        server: Arc::clone(server),
        era: Era::Legacy,
        sink: sink.clone(),
        progress_token: None,
        log_min: log_min(session),
        cancel: cancel.clone(),
        input: Input::Legacy(Arc::clone(session)),
        task_id: None,
    };
    match tools::read_secret(&mut ctx).await {
        Ok(v) => Outcome::Reply(Ok(v)),
        Err(ToolError::Rpc(e)) => Outcome::Reply(Err(e)),
        Err(ToolError::MissingCapability(cap)) => Outcome::Reply(Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            format!("Reading {SECRET} needs the client capabilities {cap}"),
        ))),
        Err(ToolError::NeedInput { .. }) => {
            Outcome::Reply(Err(RpcError::internal("unexpected input round")))
        }
        Err(ToolError::Cancelled) => Outcome::Silent,
    }
}

fn log_min(session: &Session) -> Option<usize> {
    Some(lock(&session.state).log_min)
}

async fn call_tool(
    server: &Arc<Server>,
    session: &Arc<Session>,
    req: &Incoming,
    sink: &Sink,
    cancel: &CancellationToken,
) -> Outcome {
    let p = &req.params;
    let name = match required_str(p, "name") {
        Ok(n) => n.to_owned(),
        Err(e) => return Outcome::Reply(Err(e)),
    };
    if server.catalog.tool(Era::Legacy, &name).is_none() {
        return Outcome::Reply(Err(RpcError::invalid_params(format!(
            "Unknown tool: {name}"
        ))));
    }
    let args = p.get("arguments").cloned().unwrap_or(json!({}));
    let progress_token = p.get("_meta").and_then(|m| m.get("progressToken")).cloned();
    if let Some(task) = p.get("task") {
        if name != "long_task" {
            return Outcome::Reply(Err(RpcError::method_not_found(&format!(
                "task augmentation of tool {name}"
            ))));
        }
        let ttl = task.get("ttl").and_then(Value::as_u64);
        let id = server.fresh_id();
        let token = server
            .tasks
            .create(&id, Era::Legacy, Some(session.id.clone()), ttl);
        let mut ctx = CallCtx {
            server: Arc::clone(server),
            era: Era::Legacy,
            sink: session.outbound.clone(),
            progress_token,
            log_min: log_min(session),
            cancel: token,
            input: Input::Legacy(Arc::clone(session)),
            task_id: Some(id.clone()),
        };
        let server2 = Arc::clone(server);
        let id2 = id.clone();
        tokio::spawn(async move {
            let r = tools::call(&mut ctx, &name, &args).await;
            server2.tasks.finish(&id2, outcome_of(r));
        });
        let task = server.tasks.legacy_json(&id).unwrap_or(json!({}));
        return Outcome::Reply(Ok(json!({
            "task": task,
            "_meta": { "io.modelcontextprotocol/model-immediate-response":
                "The long task is running; its result will follow." }
        })));
    }
    let mut ctx = CallCtx {
        server: Arc::clone(server),
        era: Era::Legacy,
        sink: sink.clone(),
        progress_token,
        log_min: log_min(session),
        cancel: cancel.clone(),
        input: Input::Legacy(Arc::clone(session)),
        task_id: None,
    };
    match tools::call(&mut ctx, &name, &args).await {
        Ok(v) => Outcome::Reply(Ok(v)),
        Err(ToolError::Rpc(e)) => Outcome::Reply(Err(e)),
        Err(ToolError::MissingCapability(cap)) => Outcome::Reply(Ok(tools::tool_error(format!(
            "This tool needs the client capabilities {cap}, which the client did not declare"
        )))),
        Err(ToolError::NeedInput { .. }) => Outcome::Reply(Err(RpcError::internal(
            "unexpected input round in legacy era",
        ))),
        Err(ToolError::Cancelled) => Outcome::Silent,
    }
}

/// The stored outcome of a tool run as a task (`None` = cancelled).
pub(crate) fn outcome_of(r: Result<Value, ToolError>) -> Option<Result<Value, ErrorObject>> {
    match r {
        Ok(v) => Some(Ok(v)),
        Err(ToolError::Rpc(e)) => Some(Err(e.error)),
        Err(ToolError::MissingCapability(cap)) => Some(Ok(tools::tool_error(format!(
            "This tool needs the client capabilities {cap}"
        )))),
        Err(ToolError::NeedInput { .. }) => Some(Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            "unexpected input round",
        ))),
        Err(ToolError::Cancelled) => None,
    }
}

/// Handles a legacy notification from the client.
pub(crate) fn notify(session: &Session, method: &str, params: &Value) {
    if method == "notifications/cancelled"
        && let Some(t) = cancelled_id(params).and_then(|id| lock(&session.inflight).remove(&id))
    {
        t.cancel();
    }
    crate::callbacks::observe(method, params);
    // notifications/initialized and roots/list_changed need no action.
}

/// Errors of the legacy era before `initialize`.
pub(crate) fn not_initialized(method: &str) -> RpcError {
    if is_legacy_method(method) {
        RpcError::new(ErrorCode::INVALID_REQUEST, "Server not initialized")
    } else {
        RpcError::method_not_found(method)
    }
}

fn is_legacy_method(method: &str) -> bool {
    matches!(
        method,
        "ping"
            | "tools/list"
            | "tools/call"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
            | "logging/setLevel"
            | "tasks/get"
            | "tasks/result"
            | "tasks/list"
            | "tasks/cancel"
            | "skills/list"
            | "skills/get"
            | "resources/directory/read"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_legacy_versions_and_counters_others() {
        let (v, _) =
            negotiate(&json!({"protocolVersion": "2025-06-18", "capabilities": {}})).unwrap();
        assert_eq!(v, ProtocolVersion::V2025_06_18);
        let (v, _) = negotiate(&json!({"protocolVersion": "2099-01-01"})).unwrap();
        assert_eq!(v, ProtocolVersion::LATEST_LEGACY);
        assert!(negotiate(&json!({})).is_err());
    }
}

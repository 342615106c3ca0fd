//! The 2026-07-28 era: per-request `_meta`, `server/discover`, `resultType`,
//! caching hints, `input_required` rounds and the tasks extension.

use std::sync::Arc;

use http::StatusCode;
use mcp_types::{Era, ErrorCode, ProtocolVersion};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::dispatch::{Incoming, Outcome, Sink};
use crate::interact::{CallCtx, Input, ToolError};
use crate::server::Server;
use crate::support::{Reply, RpcError, log_rank, paginate, params_object, required_str};
use crate::tasks::unknown;
use crate::tools::{Job, SECRET};
use crate::{legacy, listen, prompts, resources, tools};

/// `_meta` key of the protocol version.
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities.
pub(crate) const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the log level.
pub(crate) const META_LOG: &str = "io.modelcontextprotocol/logLevel";
/// The tasks extension id.
pub(crate) const TASKS_EXT: &str = "io.modelcontextprotocol/tasks";

/// What a modern request says about itself in `_meta`.
#[derive(Clone, Debug)]
pub(crate) struct ModernMeta {
    pub(crate) caps: Value,
    pub(crate) log_min: Option<usize>,
    pub(crate) progress_token: Option<Value>,
}

impl ModernMeta {
    /// Whether the request declared the tasks extension.
    pub(crate) fn has_tasks(&self) -> bool {
        self.caps
            .get("extensions")
            .and_then(|e| e.get(TASKS_EXT))
            .is_some()
    }
}

/// The versions the server names in `supportedVersions` and `-32022`.
pub(crate) fn supported_versions(server: &Server) -> Vec<ProtocolVersion> {
    let mut out = Vec::new();
    if server.opts.eras.modern() {
        out.push(ProtocolVersion::LATEST_MODERN);
    }
    if server.opts.eras.legacy() {
        out.push(ProtocolVersion::LATEST_LEGACY);
    }
    out
}

/// `-32022` for `requested`, HTTP 400.
pub(crate) fn unsupported_version(server: &Server, requested: &str) -> RpcError {
    RpcError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version: {requested}"),
    )
    .with_data(json!({ "supported": supported_versions(server), "requested": requested }))
    .with_status(StatusCode::BAD_REQUEST)
}

/// The error a modern-only server gives `initialize`: `-32022`, naming
/// the versions it supports.
pub(crate) fn refuse_initialize(server: &Server, params: &Value) -> RpcError {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("(none)");
    let mut e = unsupported_version(server, requested);
    e.error.message = format!(
        "Unsupported protocol version {requested}: this server speaks only 2026-07-28, \
         which has no initialize; send server/discover"
    );
    e
}

fn malformed(message: &str) -> RpcError {
    RpcError::invalid_params(message).with_status(StatusCode::BAD_REQUEST)
}

/// Validates the `_meta` of a modern request.
pub(crate) fn parse_meta(server: &Server, params: &Value) -> Result<ModernMeta, RpcError> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(malformed("Missing required params._meta"));
    };
    let Some(version) = meta.get(META_VERSION).and_then(Value::as_str) else {
        return Err(malformed(&format!("Missing required _meta {META_VERSION}")));
    };
    let parsed = ProtocolVersion::parse(version);
    if parsed.era() != Some(Era::Modern) || !server.opts.eras.modern() {
        return Err(unsupported_version(server, version));
    }
    let Some(caps) = meta.get(META_CAPS).filter(|c| c.is_object()) else {
        return Err(malformed(&format!("Missing required _meta {META_CAPS}")));
    };
    let log_min = match meta.get(META_LOG) {
        None | Some(Value::Null) => None,
        Some(level) => Some(
            level
                .as_str()
                .and_then(log_rank)
                .ok_or_else(|| RpcError::invalid_params(format!("Invalid log level {level}")))?,
        ),
    };
    Ok(ModernMeta {
        caps: caps.clone(),
        log_min,
        progress_token: meta.get("progressToken").cloned(),
    })
}

/// Adds `resultType: complete`, `serverInfo` and, when `cacheable`, caching hints.
pub(crate) fn complete(server: &Server, mut v: Value, cacheable: bool) -> Value {
    if let Value::Object(m) = &mut v {
        m.insert("resultType".into(), json!("complete"));
        let meta = m.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.insert("io.modelcontextprotocol/serverInfo".into(), server.info());
        }
        if cacheable {
            let ttl = u64::try_from(server.opts.cache_ttl.as_millis()).unwrap_or(u64::MAX);
            m.insert("ttlMs".into(), json!(ttl));
            m.insert("cacheScope".into(), json!("public"));
        }
    }
    v
}

/// The capabilities the server advertises in `server/discover`.
pub(crate) fn capabilities() -> Value {
    json!({
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "logging": {},
        "completions": {},
        "extensions": {
            TASKS_EXT: {},
            crate::skills::capability().0: crate::skills::capability().1
        }
    })
}

/// Handles one modern request.
pub(crate) async fn handle(
    server: &Arc<Server>,
    meta: &ModernMeta,
    req: &Incoming,
    sink: &Sink,
    cancel: &CancellationToken,
) -> Outcome {
    let p = &req.params;
    if let Err(e) = params_object(p) {
        return Outcome::Reply(Err(e));
    }
    let page = server.opts.page_size;
    let listed = |items: &[Value], key: &str| -> Reply {
        paginate(items, key, p, page).map(|m| complete(server, Value::Object(m), true))
    };
    let reply = match req.method.as_str() {
        "server/discover" => Ok(complete(
            server,
            json!({
                "supportedVersions": supported_versions(server),
                "capabilities": capabilities(),
                "instructions": server.instructions()
            }),
            true,
        )),
        "tools/list" => listed(server.catalog.tools(Era::Modern), "tools"),
        "tools/call" => return call_tool(server, meta, req, sink, cancel).await,
        "resources/list" => listed(&server.catalog.resources, "resources"),
        "resources/templates/list" => listed(&server.catalog.templates, "resourceTemplates"),
        "resources/read" if p.get("uri").and_then(Value::as_str) == Some(SECRET) => {
            return interactive(server, meta, req, sink, cancel, Job::Secret, true).await;
        }
        "resources/read" => required_str(p, "uri")
            .and_then(|uri| resources::read(server, Era::Modern, uri))
            .map(|v| complete(server, v, true)),
        "prompts/list" => listed(&server.catalog.prompts, "prompts"),
        "skills/list" => crate::skills::list(p, page).map(|v| complete(server, v, true)),
        "skills/get" => crate::skills::get(p).map(|v| complete(server, v, true)),
        "resources/directory/read" => {
            crate::skills::directory_read(p, page).map(|v| complete(server, v, true))
        }
        "prompts/get" => prompts::get(p).map(|v| complete(server, v, false)),
        "completion/complete" => prompts::complete(p).map(|v| complete(server, v, false)),
        // The LLM-server pattern (llm.rs): the client asks the server's model.
        "sampling/createMessage" => {
            crate::llm::create_message(p).map(|v| complete(server, v, false))
        }
        "subscriptions/listen" => return listen::listen(server, meta, req, sink, cancel).await,
        "tasks/get" => task_id(server, p).and_then(|id| {
            let t = server.tasks.modern_json(&id).ok_or_else(|| unknown(&id))?;
            Ok(complete(server, t, false))
        }),
        "tasks/update" => task_id(server, p).and_then(|id| {
            let responses = p
                .get("inputResponses")
                .and_then(Value::as_object)
                .ok_or_else(|| RpcError::invalid_params("inputResponses must be an object"))?;
            server.tasks.update(&id, responses)?;
            Ok(complete(server, json!({}), false))
        }),
        "tasks/cancel" => task_id(server, p).and_then(|id| {
            server.tasks.cancel(&id, Era::Modern)?;
            Ok(complete(server, json!({}), false))
        }),
        other => Err(RpcError::method_not_found(other).with_status(StatusCode::NOT_FOUND)),
    };
    Outcome::Reply(reply)
}

fn task_id(server: &Server, p: &Value) -> Result<String, RpcError> {
    let id = required_str(p, "taskId")?;
    if server.tasks.visible(id, Era::Modern, None) {
        Ok(id.to_owned())
    } else {
        Err(unknown(id))
    }
}

fn missing_capability(required: Value) -> RpcError {
    RpcError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("Missing required client capability: {required}"),
    )
    .with_data(json!({ "requiredCapabilities": required }))
    .with_status(StatusCode::BAD_REQUEST)
}

/// The answers carried by `requestState` (bound to `job`) and `inputResponses`.
fn known_answers(server: &Server, job: &Job, p: &Value) -> Result<Map<String, Value>, RpcError> {
    let mut known = Map::new();
    if let Some(state) = p.get("requestState") {
        let payload = state
            .as_str()
            .ok_or_else(|| RpcError::invalid_params("requestState must be a string"))
            .and_then(|s| server.signer.open(s))?;
        if payload.get("request").and_then(Value::as_str) != Some(job.key().as_str()) {
            return Err(RpcError::invalid_params(
                "requestState belongs to another request",
            ));
        }
        if let Some(Value::Object(a)) = payload.get("answers") {
            known.extend(a.clone());
        }
    }
    match p.get("inputResponses") {
        None | Some(Value::Null) => {}
        Some(Value::Object(r)) => known.extend(r.clone()),
        Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object")),
    }
    Ok(known)
}

async fn call_tool(
    server: &Arc<Server>,
    meta: &ModernMeta,
    req: &Incoming,
    sink: &Sink,
    cancel: &CancellationToken,
) -> Outcome {
    let p = &req.params;
    let name = match required_str(p, "name") {
        Ok(n) => n.to_owned(),
        Err(e) => return Outcome::Reply(Err(e)),
    };
    if server.catalog.tool(Era::Modern, &name).is_none() {
        return Outcome::Reply(Err(RpcError::invalid_params(format!(
            "Unknown tool: {name}"
        ))));
    }
    let args = p.get("arguments").cloned().unwrap_or(json!({}));
    if name == "long_task" && meta.has_tasks() {
        return Outcome::Reply(Ok(start_task(server, meta, &name, args)));
    }
    interactive(
        server,
        meta,
        req,
        sink,
        cancel,
        Job::Tool { name, args },
        false,
    )
    .await
}

/// Runs a job that may need client input, answering `input_required`
/// with a sealed `requestState` when it does.
pub(crate) async fn interactive(
    server: &Arc<Server>,
    meta: &ModernMeta,
    req: &Incoming,
    sink: &Sink,
    cancel: &CancellationToken,
    job: Job,
    cacheable: bool,
) -> Outcome {
    let known = match known_answers(server, &job, &req.params) {
        Ok(k) => k,
        Err(e) => return Outcome::Reply(Err(e)),
    };
    // A retry carrying answers is never cacheable.
    let cacheable = cacheable && known.is_empty();
    let mut ctx = CallCtx {
        server: Arc::clone(server),
        era: Era::Modern,
        sink: sink.clone(),
        progress_token: meta.progress_token.clone(),
        log_min: meta.log_min,
        cancel: cancel.clone(),
        input: Input::Modern {
            caps: meta.caps.clone(),
            known,
            consumed: Map::new(),
        },
        task_id: None,
    };
    let r = job.run(&mut ctx).await;
    let consumed = match ctx.input {
        Input::Modern { consumed, .. } => consumed,
        _ => Map::new(),
    };
    Outcome::Reply(match r {
        Ok(v) => Ok(complete(server, v, cacheable)),
        Err(ToolError::NeedInput { key, request }) => {
            let state = server
                .signer
                .seal(&json!({ "request": job.key(), "answers": consumed }));
            Ok(json!({
                "resultType": "input_required",
                "inputRequests": { key: request },
                "requestState": state,
                "_meta": { "io.modelcontextprotocol/serverInfo": server.info() }
            }))
        }
        Err(ToolError::MissingCapability(cap)) => Err(missing_capability(cap)),
        Err(ToolError::Rpc(e)) => Err(e),
        Err(ToolError::Cancelled) => return Outcome::Silent,
    })
}

fn start_task(server: &Arc<Server>, meta: &ModernMeta, name: &str, args: Value) -> Value {
    let id = server.fresh_id();
    let token = server.tasks.create(&id, Era::Modern, None, None);
    // The request ends with the task handle: later progress has nowhere to go.
    let (dead, _) = tokio::sync::mpsc::unbounded_channel();
    let mut ctx = CallCtx {
        server: Arc::clone(server),
        era: Era::Modern,
        sink: dead,
        progress_token: None,
        log_min: None,
        cancel: token,
        input: Input::Task {
            caps: meta.caps.clone(),
        },
        task_id: Some(id.clone()),
    };
    let server2 = Arc::clone(server);
    let name = name.to_owned();
    let id2 = id.clone();
    tokio::spawn(async move {
        let r = tools::call(&mut ctx, &name, &args).await;
        server2.tasks.finish(&id2, legacy::outcome_of(r));
    });
    let mut task = server.tasks.modern_json(&id).unwrap_or(json!({}));
    if let Value::Object(m) = &mut task {
        m.remove("result");
        m.insert("resultType".into(), json!("task"));
        m.insert(
            "_meta".into(),
            json!({ "io.modelcontextprotocol/serverInfo": server.info() }),
        );
    }
    task
}

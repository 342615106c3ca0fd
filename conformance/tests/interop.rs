//! Interop: the public `mcp-client` API against servers nobody here wrote.
//!
//! * `@modelcontextprotocol/server-everything` (TypeScript SDK), over stdio
//!   and Streamable HTTP, 2025-11-25 only;
//! * `interop/python/server.py` (the official Python SDK), over stdio and
//!   Streamable HTTP, in both eras.
//!
//! Built only with the `interop` feature; `cargo xtask interop` installs
//! the peers and runs it with their locations in `MCP_INTEROP_NODE`,
//! `MCP_INTEROP_EVERYTHING`, `MCP_INTEROP_PYTHON` and
//! `MCP_INTEROP_PYTHON_SERVER`. Without them every test fails (it never
//! passes silently). HTTP peers listen on 127.0.0.1 ports chosen here.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_client::mcp_types::Era;
use mcp_client::mcp_types::completion::CompleteRequestParams;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_client::mcp_types::roots::Root;
use mcp_client::{
    CallOptions, Client, ClientBuilder, EraPreference, HandlerError, NotificationHandler,
    ServerCommand,
};
use serde_json::{Value, json};

mod common;

use common::{HttpPeer, REQUEST_TIMEOUT, answer_sampling, call, env_path, free_port, text};

fn everything_stdio() -> ServerCommand {
    ServerCommand::new(env_path("MCP_INTEROP_NODE"))
        .arg(env_path("MCP_INTEROP_EVERYTHING"))
        .arg("stdio")
}

fn everything_http() -> HttpPeer {
    let port = free_port();
    let mut command = Command::new(env_path("MCP_INTEROP_NODE"));
    command
        .arg(env_path("MCP_INTEROP_EVERYTHING"))
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    HttpPeer::start(command, port)
}

fn python_stdio() -> ServerCommand {
    ServerCommand::new(env_path("MCP_INTEROP_PYTHON"))
        .arg(env_path("MCP_INTEROP_PYTHON_SERVER"))
        .arg("stdio")
}

fn python_http() -> HttpPeer {
    python_http_with(&[])
}

/// The Python peer over HTTP with extra options (`--json-response`,
/// `--stateless`).
fn python_http_with(options: &[&str]) -> HttpPeer {
    let port = free_port();
    let mut command = Command::new(env_path("MCP_INTEROP_PYTHON"));
    command
        .arg(env_path("MCP_INTEROP_PYTHON_SERVER"))
        .args(["http", "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .args(options);
    HttpPeer::start(command, port)
}

/// Collects the server's log messages.
#[derive(Default)]
struct Logs(Mutex<Vec<LoggingMessageNotificationParams>>);

impl NotificationHandler for Logs {
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        self.0.lock().expect("lock").push(params);
    }
}

impl Logs {
    fn count(&self) -> usize {
        self.0.lock().expect("lock").len()
    }
}

async fn answer_form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    assert!(
        params.requested_schema.properties.get("name").is_some(),
        "the form asks for a name"
    );
    Ok(ElicitResult::accept(BTreeMap::from([(
        "name".to_owned(),
        ElicitValue::from("Ada"),
    )])))
}

fn base(era: EraPreference) -> ClientBuilder {
    Client::builder()
        .client_info("mcp-client-rs-interop", env!("CARGO_PKG_VERSION"))
        .request_timeout(Some(REQUEST_TIMEOUT))
        .era(era)
}

// ---- the Python peer ----------------------------------------------------

/// Everything the Python peer serves, in one era over one transport.
async fn python_suite(builder: ClientBuilder, era: Era) {
    let logs = Arc::new(Logs::default());
    let client = builder
        .form_elicitation(answer_form)
        .sampling(answer_sampling)
        .notifications(logs.clone())
        .connect()
        .await
        .expect("connect to the Python peer");
    assert_eq!(client.era(), Some(era));
    eprintln!(
        "python peer: {:?} at {:?}",
        client.server_info().map(|i| (i.name, i.version)),
        client.protocol_version()
    );

    // Tools, with pagination: 20 tools, 5 per page.
    let page = client.list_tools(None).await.expect("tools/list page 1");
    assert_eq!(page.tools.len(), 5, "one page of 5");
    assert!(page.next_cursor.is_some(), "a cursor to the next page");
    let tools = client.list_all_tools().await.expect("every tool");
    assert_eq!(tools.len(), 20, "4 pages of tools");
    assert_eq!(call(&client, "add", json!({"a": 2, "b": 3})).await, "5");
    assert_eq!(
        call(&client, "echo", json!({"message": "héllo"})).await,
        "héllo"
    );

    // Structured output.
    #[derive(serde::Deserialize)]
    struct Sum {
        sum: i64,
    }
    let sum: Sum = client
        .call_tool_typed("add_structured", &json!({"a": 20, "b": 22}))
        .await
        .expect("structured content");
    assert_eq!(sum.sum, 42);

    // A tool error is a result, not an Error.
    let failed = client
        .call_tool("fail", json!({"reason": "on purpose"}))
        .await
        .expect("tools/call fail");
    assert_eq!(failed.is_error, Some(true));
    assert!(text(&failed).contains("on purpose"), "{}", text(&failed));

    // Progress.
    let reports = Arc::new(AtomicUsize::new(0));
    let seen = reports.clone();
    let opts = CallOptions::new().on_progress(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let counted = client
        .call_tool_with("slow_count", json!({"steps": 3, "delay_ms": 10}), opts)
        .await
        .expect("slow_count");
    assert_eq!(text(&counted), "counted to 3");
    assert_eq!(reports.load(Ordering::SeqCst), 3, "one progress per step");

    // Elicitation and sampling, asked for mid-call (legacy: server requests;
    // modern: input_required rounds).
    assert_eq!(call(&client, "ask_name", json!({})).await, "Hello, Ada!");
    assert_eq!(
        call(&client, "summarize", json!({"text": "a long story"})).await,
        "a short summary"
    );

    // Logging.
    client
        .set_log_level(LoggingLevel::Warning)
        .await
        .expect("set the log level");
    let logged = call(&client, "log_messages", json!({})).await;
    let n: usize = logged
        .strip_prefix("logged ")
        .and_then(|s| s.strip_suffix(" messages"))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("unexpected log_messages result {logged:?}"));
    if era == Era::Legacy {
        // `logging/setLevel` sets the peer's own filter.
        assert_eq!(n, 2, "warning and error only: {logged}");
    }
    // Modern: the level travels in each request's `_meta`; the peer's count
    // is of attempts, the level is applied on the way out. Either way,
    // exactly the warning and the error must arrive.
    let deadline = Instant::now() + Duration::from_secs(5);
    while logs.count() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let levels: Vec<LoggingLevel> = logs
        .0
        .lock()
        .expect("lock")
        .iter()
        .map(|l| l.level.clone())
        .collect();
    assert_eq!(
        levels,
        [LoggingLevel::Warning, LoggingLevel::Error],
        "the messages at or above the level set ({n} sent by the peer)"
    );

    // Resources, templates, pagination.
    let resources = client.list_all_resources().await.expect("resources");
    assert_eq!(resources.len(), 14, "readme, logo and 12 items");
    let readme = client
        .read_resource("interop://static/readme")
        .await
        .expect("read readme");
    let readme = serde_json::to_value(&readme).expect("encode");
    assert_eq!(
        readme["contents"][0]["text"], "Interop peer for mcp-client-rs.",
        "{readme}"
    );
    let logo = client
        .read_resource("interop://static/logo")
        .await
        .expect("read logo");
    let logo = serde_json::to_value(&logo).expect("encode");
    assert!(logo["contents"][0]["blob"].is_string(), "{logo}");
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("templates");
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "interop://items/{item_id}"),
        "the item template"
    );
    let item = client
        .read_resource("interop://items/07")
        .await
        .expect("read a templated resource");
    let item = serde_json::to_value(&item).expect("encode");
    assert_eq!(item["contents"][0]["text"], "item 07", "{item}");

    // Prompts.
    let prompts = client.list_all_prompts().await.expect("prompts");
    assert_eq!(prompts.len(), 9, "greet, review_code and 7 fillers");
    let greeting = client
        .get_prompt("greet", BTreeMap::from([("name".into(), "Ada".into())]))
        .await
        .expect("prompts/get greet");
    let greeting = serde_json::to_value(&greeting).expect("encode");
    assert!(
        greeting.to_string().contains("Please greet Ada warmly."),
        "{greeting}"
    );

    // Completion, for a prompt argument and a template variable.
    let params: CompleteRequestParams = serde_json::from_value(json!({
        "ref": {"type": "ref/prompt", "name": "review_code"},
        "argument": {"name": "language", "value": "ru"}
    }))
    .expect("params");
    let done = client.complete(params).await.expect("complete language");
    assert_eq!(done.completion.values, ["rust", "ruby"]);
    let params: CompleteRequestParams = serde_json::from_value(json!({
        "ref": {"type": "ref/resource", "uri": "interop://items/{item_id}"},
        "argument": {"name": "item_id", "value": "1"}
    }))
    .expect("params");
    let done = client.complete(params).await.expect("complete item_id");
    assert_eq!(done.completion.values.len(), 10, "10 to 19");

    cancellation(
        &client,
        "slow_count",
        json!({"steps": 200, "delay_ms": 50}),
        ("add", json!({"a": 1, "b": 2})),
    )
    .await;
    client.close().await;
}

/// Dropping a call's future cancels it, a per-call timeout fails it, and
/// the connection stays usable after both.
async fn cancellation(client: &Client, tool: &str, slow: Value, quick: (&str, Value)) {
    let pending = client.call_tool(tool, slow.clone());
    let outcome = tokio::time::timeout(Duration::from_millis(300), pending).await;
    assert!(outcome.is_err(), "the slow call was still running");
    let opts = CallOptions::new().with_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let e = client
        .call_tool_with(tool, slow, opts)
        .await
        .expect_err("the call times out");
    assert!(e.is_timeout(), "a timeout error: {e}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let (quick, arguments) = quick;
    let result = client
        .call_tool(quick, arguments)
        .await
        .expect("still usable after cancellation");
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
}

#[tokio::test]
async fn python_stdio_legacy() {
    python_suite(
        base(EraPreference::LegacyOnly).stdio(python_stdio()),
        Era::Legacy,
    )
    .await;
}

#[tokio::test]
async fn python_stdio_modern() {
    // The stdio probe treats silence as a legacy server; give a slow
    // interpreter start (2 shared cores) time to answer.
    python_suite(
        base(EraPreference::ModernOnly)
            .probe_timeout(Duration::from_secs(15))
            .stdio(python_stdio()),
        Era::Modern,
    )
    .await;
}

#[tokio::test]
async fn python_http_legacy() {
    let peer = python_http();
    python_suite(base(EraPreference::LegacyOnly).http(&peer.url), Era::Legacy).await;
}

#[tokio::test]
async fn python_http_modern() {
    let peer = python_http();
    python_suite(base(EraPreference::ModernOnly).http(&peer.url), Era::Modern).await;
}

#[tokio::test]
async fn python_http_auto_negotiates_modern() {
    let peer = python_http();
    let client = base(EraPreference::Auto)
        .http(&peer.url)
        .connect()
        .await
        .expect("connect");
    assert_eq!(client.era(), Some(Era::Modern));
    assert_eq!(call(&client, "add", json!({"a": 1, "b": 1})).await, "2");
    client.close().await;
}

/// Plain JSON answers instead of SSE, and no session: the basic features
/// in both eras.
#[tokio::test]
async fn python_http_json_stateless() {
    let peer = python_http_with(&["--json-response", "--stateless"]);
    for (era, expected) in [
        (EraPreference::LegacyOnly, Era::Legacy),
        (EraPreference::ModernOnly, Era::Modern),
    ] {
        let client = base(era).http(&peer.url).connect().await.expect("connect");
        assert_eq!(client.era(), Some(expected));
        assert_eq!(client.list_all_tools().await.expect("tools").len(), 20);
        assert_eq!(call(&client, "add", json!({"a": 40, "b": 2})).await, "42");
        let prompts = client.list_all_prompts().await.expect("prompts");
        assert_eq!(prompts.len(), 9);
        let readme = client
            .read_resource("interop://static/readme")
            .await
            .expect("read");
        assert_eq!(readme.contents.len(), 1);
        client.close().await;
    }
}

// ---- server-everything ----------------------------------------------------

/// What server-everything serves, over one transport (2025-11-25 only).
async fn everything_suite(builder: ClientBuilder) {
    let client = builder
        .connect()
        .await
        .expect("connect to server-everything");
    assert_eq!(client.era(), Some(Era::Legacy));
    let info = client.server_info().expect("serverInfo");
    eprintln!("server-everything: {} {}", info.name, info.version);

    let tools = client.list_all_tools().await.expect("tools");
    for name in [
        "echo",
        "get-sum",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(tools.iter().any(|t| t.name == name), "tool {name}");
    }
    assert!(
        call(&client, "echo", json!({"message": "hi"}))
            .await
            .contains("hi")
    );
    assert!(
        call(&client, "get-sum", json!({"a": 2, "b": 3}))
            .await
            .contains('5')
    );
    let weather = client
        .call_tool("get-structured-content", json!({"location": "Chicago"}))
        .await
        .expect("structured content");
    let structured = weather.structured_content.expect("structuredContent");
    assert!(structured.get("temperature").is_some(), "{structured}");

    let reports = Arc::new(AtomicUsize::new(0));
    let seen = reports.clone();
    let opts = CallOptions::new().on_progress(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let long = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 1, "steps": 3}),
            opts,
        )
        .await
        .expect("long running operation");
    assert!(text(&long).contains("completed"), "{}", text(&long));
    assert_eq!(reports.load(Ordering::SeqCst), 3, "one progress per step");

    let resources = client.list_all_resources().await.expect("resources");
    let first = resources.first().expect("at least one resource");
    let read = client.read_resource(&first.uri).await.expect("read");
    assert!(!read.contents.is_empty());
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("templates");
    assert!(!templates.is_empty());

    let prompts = client.list_all_prompts().await.expect("prompts");
    assert!(prompts.iter().any(|p| p.name == "simple-prompt"));
    let simple = client
        .get_prompt("simple-prompt", BTreeMap::new())
        .await
        .expect("prompts/get");
    let simple = serde_json::to_value(&simple).expect("encode");
    assert!(simple["messages"].as_array().is_some_and(|m| !m.is_empty()));

    let params: CompleteRequestParams = serde_json::from_value(json!({
        "ref": {"type": "ref/prompt", "name": "completable-prompt"},
        "argument": {"name": "department", "value": "Eng"}
    }))
    .expect("params");
    let done = client.complete(params).await.expect("complete");
    assert_eq!(done.completion.values, ["Engineering"]);

    client
        .set_log_level(LoggingLevel::Debug)
        .await
        .expect("logging/setLevel");

    cancellation(
        &client,
        "trigger-long-running-operation",
        json!({"duration": 10, "steps": 10}),
        ("echo", json!({"message": "after"})),
    )
    .await;
    client.close().await;
}

#[tokio::test]
async fn everything_over_stdio() {
    everything_suite(base(EraPreference::LegacyOnly).stdio(everything_stdio())).await;
}

#[tokio::test]
async fn everything_over_http() {
    let peer = everything_http();
    everything_suite(base(EraPreference::LegacyOnly).http(&peer.url)).await;
}

#[tokio::test]
async fn everything_auto_falls_back_to_legacy() {
    let client = base(EraPreference::Auto)
        .probe_timeout(Duration::from_secs(5))
        .stdio(everything_stdio())
        .connect()
        .await
        .expect("connect");
    assert_eq!(client.era(), Some(Era::Legacy));
    assert!(
        call(&client, "echo", json!({"message": "x"}))
            .await
            .contains('x')
    );
    client.close().await;
}

/// server-everything registers `trigger-sampling-request`,
/// `trigger-elicitation-request` and `get-roots-list` once it knows the
/// client declared the capability (after `notifications/initialized`, then
/// says `tools/list_changed`); each one sends a server-to-client request
/// mid-call that the registered handler answers.
async fn everything_server_requests(builder: ClientBuilder) {
    let client = builder
        .sampling(answer_sampling)
        .form_elicitation(answer_everything_form)
        .roots(vec![Root::new("file:///interop/root")])
        .connect()
        .await
        .expect("connect to server-everything");
    let wanted = [
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
    ];
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let tools = client.list_all_tools().await.expect("tools");
        let missing: Vec<&str> = wanted
            .iter()
            .copied()
            .filter(|w| !tools.iter().any(|t| t.name == *w))
            .collect();
        if missing.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the capability-dependent tools {missing:?} never appeared"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let sampled = call(&client, "trigger-sampling-request", json!({"prompt": "hi"})).await;
    assert!(sampled.contains("a short summary"), "{sampled}");
    let elicited = call(&client, "trigger-elicitation-request", json!({})).await;
    assert!(elicited.contains("Name: Ada"), "{elicited}");
    let roots = call(&client, "get-roots-list", json!({})).await;
    assert!(roots.contains("file:///interop/root"), "{roots}");
    client.close().await;
}

/// Answers server-everything's elicitation form (every kind of field) with
/// a name only.
async fn answer_everything_form(
    params: ElicitRequestFormParams,
) -> Result<ElicitResult, HandlerError> {
    assert!(
        params.requested_schema.properties.0.len() > 5,
        "the full form arrived"
    );
    Ok(ElicitResult::accept(BTreeMap::from([(
        "name".to_owned(),
        ElicitValue::from("Ada"),
    )])))
}

#[tokio::test]
async fn everything_server_requests_over_stdio() {
    everything_server_requests(base(EraPreference::LegacyOnly).stdio(everything_stdio())).await;
}

#[tokio::test]
async fn everything_server_requests_over_http() {
    let peer = everything_http();
    everything_server_requests(base(EraPreference::LegacyOnly).http(&peer.url)).await;
}

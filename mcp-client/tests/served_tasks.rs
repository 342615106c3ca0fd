//! Client-owned callback tasks (2025-11-25), handler output validation,
//! duplicate server request ids, and progress the client reports for
//! server requests: end to end against the demo server (stdio and HTTP)
//! and against a scripted server for the limits.

use mcp_testkit::demo as common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{ALL, Server, Via};
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::mcp_types::tools::CallToolResult;
use mcp_client::{Client, EraPreference, HandlerError, ProgressReporter, ServedTaskOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const LEGACY: [Via; 2] = [Via::StdioLegacy, Via::HttpLegacy];

/// A sampler that reports two progress steps when asked, then answers
/// (the server checks that both arrive, in order, before the answer).
async fn sample(_: CreateMessageRequestParams) -> Result<CreateMessageResult, HandlerError> {
    if let Some(p) = ProgressReporter::current() {
        p.report(1.0, Some(2.0), Some("thinking"))
            .expect("first report");
        tokio::task::yield_now().await;
        p.report(2.0, Some(2.0), None).expect("second report");
    }
    Ok(CreateMessageResult::new(
        ContentBlock::text("hi"),
        "test-model",
    ))
}

fn structured(r: CallToolResult) -> Value {
    assert_ne!(r.is_error, Some(true), "{r:?}");
    r.structured_content.expect("structured content")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_augmented_sampling_runs_as_a_client_task() {
    for via in LEGACY {
        let server = Server::start(via).await;
        let client = server
            .builder()
            .sampling(sample)
            .serve_tasks(ServedTaskOptions::new().with_max_ttl(Duration::from_secs(60)))
            .connect()
            .await
            .expect("connect");
        let args =
            json!({"kind": "sampling", "ttl_ms": 600_000, "progress": true, "expect_progress": 2});
        let report = structured(client.call_tool("callback_task", args).await.expect("call"));
        let created = &report["created"]["task"];
        assert_eq!(created["status"], "working", "{via:?}: {report}");
        assert_eq!(created["ttl"], 60_000, "{via:?}: the TTL is capped");
        let id = created["taskId"].as_str().expect("task id");
        assert!(id.len() >= 32, "{via:?}: {id}");
        assert!(
            created["createdAt"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z'))
        );
        assert_eq!(report["result"]["model"], "test-model", "{via:?}: {report}");
        assert_eq!(
            report["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id,
            "{via:?}"
        );
        assert_eq!(report["get"]["status"], "completed", "{via:?}");
        assert_eq!(report["listed"], true, "{via:?}");
        assert_eq!(report["unknownTaskError"], -32602, "{via:?}");
        let statuses = report["statusNotifications"]
            .as_array()
            .expect("status notifications");
        assert!(
            statuses.iter().any(|s| s["status"] == "completed"),
            "{via:?}: {report}"
        );
        let progress = report["progress"].as_array().expect("progress");
        assert_eq!(progress.len(), 2, "{via:?}: {report}");
        assert_eq!(progress[0]["progress"], 1.0);
        assert_eq!(
            progress[1]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id,
            "{via:?}"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_task_is_cancelled_by_the_server() {
    for via in LEGACY {
        let server = Server::start(via).await;
        let client = server
            .builder()
            .form_elicitation(|_: ElicitRequestFormParams| async {
                // The user never answers; only tasks/cancel ends this.
                std::future::pending::<Result<ElicitResult, HandlerError>>().await
            })
            .serve_tasks(ServedTaskOptions::new())
            .connect()
            .await
            .expect("connect");
        let args = json!({"kind": "elicitation", "cancel": true});
        let report = structured(client.call_tool("callback_task", args).await.expect("call"));
        assert_eq!(report["cancel"]["status"], "cancelled", "{via:?}: {report}");
        assert_eq!(report["get"]["status"], "cancelled", "{via:?}");
        assert!(
            report["error"]["code"].is_i64(),
            "{via:?}: tasks/result fails: {report}"
        );
        let statuses = report["statusNotifications"]
            .as_array()
            .expect("status notifications");
        assert!(
            statuses.iter().any(|s| s["status"] == "cancelled"),
            "{via:?}"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_capabilities_follow_the_installed_handlers() {
    for via in LEGACY {
        let server = Server::start(via).await;
        // No serve_tasks: nothing advertised, the tool cannot ask for a task.
        let client = server
            .builder()
            .sampling(sample)
            .connect()
            .await
            .expect("connect");
        let r = client
            .call_tool("callback_task", json!({}))
            .await
            .expect("call");
        assert_eq!(r.is_error, Some(true), "{via:?}: {r:?}");
        client.close().await;

        // Tasks served, but only sampling is installed: no elicitation tasks.
        let client = server
            .builder()
            .sampling(sample)
            .serve_tasks(ServedTaskOptions::new())
            .connect()
            .await
            .expect("connect");
        let r = client
            .call_tool("callback_task", json!({"kind": "elicitation"}))
            .await
            .expect("call");
        assert_eq!(r.is_error, Some(true), "{via:?}: {r:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_server_requests_get_a_progress_reporter() {
    for via in LEGACY {
        let server = Server::start(via).await;
        let client = server
            .builder()
            .sampling(sample)
            .connect()
            .await
            .expect("connect");
        let args = json!({"task": false, "progress": true, "expect_progress": 2});
        let report = structured(client.call_tool("callback_task", args).await.expect("call"));
        assert_eq!(report["result"]["model"], "test-model", "{via:?}: {report}");
        let progress = report["progress"].as_array().expect("progress");
        assert_eq!(progress.len(), 2, "{via:?}: {report}");
        assert!(
            progress[0]["progressToken"]
                .as_str()
                .is_some_and(|t| t.starts_with("cb-"))
        );
        assert!(
            progress[0].get("_meta").is_none(),
            "{via:?}: no task, no related-task"
        );
        client.close().await;
    }
}

fn form_answer(
    content: Value,
) -> impl Fn(ElicitRequestFormParams) -> std::future::Ready<Result<ElicitResult, HandlerError>>
+ Send
+ Sync
+ 'static {
    move |_| {
        let map: BTreeMap<String, ElicitValue> =
            serde_json::from_value(content.clone()).expect("form content");
        std::future::ready(Ok(ElicitResult::accept(map)))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_handler_output_never_reaches_the_server() {
    for via in ALL {
        let server = Server::start(via).await;
        // `ask_name` asks for {"name": string}: a number is refused.
        let client = server
            .builder()
            .form_elicitation(form_answer(json!({"name": 42})))
            .sampling(|_: CreateMessageRequestParams| async {
                Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("x"), ""))
            })
            .connect()
            .await
            .expect("connect");
        let asked = client.call_tool("ask_name", json!({})).await;
        let err = asked.expect_err("an invalid form answer fails the call");
        assert!(err.to_string().contains("invalid"), "{via:?}: {err}");
        let summary = client.call_tool("summarize", json!({"text": "t"})).await;
        let err = summary.expect_err("an invalid sampling answer fails the call");
        assert!(err.to_string().contains("invalid"), "{via:?}: {err}");
        client.close().await;

        // The same handlers with valid output work.
        let client = server
            .builder()
            .form_elicitation(form_answer(json!({"name": "Ada"})))
            .connect()
            .await
            .expect("connect");
        let asked = client
            .call_tool("ask_name", json!({}))
            .await
            .expect("valid form");
        assert_eq!(asked.content[0].as_text(), Some("Hello, Ada!"), "{via:?}");
        client.close().await;
    }
}

/// A scripted 2025-11-25 server on an in-memory pipe.
struct Script {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    out: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl Script {
    async fn start(builder: mcp_client::ClientBuilder) -> (Client, Script) {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (sr, sw) = tokio::io::split(server_end);
        let (cr, cw) = tokio::io::split(client_end);
        let mut script = Script {
            lines: BufReader::new(sr).lines(),
            out: sw,
        };
        let connect = tokio::spawn(builder.era(EraPreference::LegacyOnly).io(cr, cw).connect());
        let init = script.recv().await;
        assert_eq!(init["method"], "initialize");
        script
            .send(json!({"jsonrpc": "2.0", "id": init["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "serverInfo": {"name": "script", "version": "1"}}}))
            .await;
        assert_eq!(script.recv().await["method"], "notifications/initialized");
        let client = connect.await.expect("join").expect("connect");
        (client, script)
    }

    async fn send(&mut self, v: Value) {
        let mut line = v.to_string();
        line.push('\n');
        self.out.write_all(line.as_bytes()).await.expect("write");
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("the client answers in time")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("json")
    }

    /// The next message that is not a notification.
    async fn reply(&mut self) -> Value {
        loop {
            let v = self.recv().await;
            if v.get("id").is_some() {
                return v;
            }
        }
    }
}

fn sampling_request(id: Value, task: Option<Value>) -> Value {
    let mut params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
    if let Some(t) = task {
        params["task"] = t;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "sampling/createMessage", "params": params})
}

#[tokio::test]
async fn advertised_capabilities_and_the_live_task_cap() {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let gate = move |_: CreateMessageRequestParams| {
        let mut rx = rx.clone();
        async move {
            let _ = rx.wait_for(|open| *open).await;
            Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("ok"), "m"))
        }
    };
    let builder = Client::builder().sampling(gate).serve_tasks(
        ServedTaskOptions::new()
            .with_max_tasks(1)
            .with_max_ttl(Duration::from_secs(5)),
    );
    let (client, mut s) = Script::start(builder).await;

    s.send(sampling_request(
        json!(1),
        Some(json!({"ttl": 999_999_999})),
    ))
    .await;
    let created = s.reply().await;
    assert_eq!(created["id"], 1);
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 5000);
    let id = task["taskId"].clone();

    // Over the cap: a typed JSON-RPC error, the live task untouched.
    s.send(sampling_request(json!(2), Some(json!({})))).await;
    let refused = s.reply().await;
    assert_eq!(refused["id"], 2);
    assert_eq!(refused["error"]["code"], -32603);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 1"))
    );

    // tasks/result is held open until the task ends.
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": id}}))
        .await;
    let got = s.reply().await;
    assert_eq!(got["id"], 4, "tasks/result is still held: {got}");
    assert_eq!(got["result"]["status"], "working");
    tx.send_replace(true);
    let mut status = None;
    let result = loop {
        let v = s.recv().await;
        if v["method"] == "notifications/tasks/status" {
            status = Some(v["params"]["status"].clone());
        } else if v.get("id").is_some() {
            break v;
        }
    };
    assert_eq!(result["id"], 3);
    assert_eq!(result["result"]["model"], "m");
    assert_eq!(
        status,
        Some(json!("completed")),
        "the status notification precedes the result"
    );

    // Cancelling a terminal task is refused with -32602.
    s.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/cancel", "params": {"taskId": id}}))
        .await;
    assert_eq!(s.reply().await["error"]["code"], -32602);
    s.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/list", "params": {"cursor": "x"}}))
        .await;
    assert_eq!(s.reply().await["error"]["code"], -32602);
    client.close().await;
}

#[tokio::test]
async fn a_duplicate_server_request_id_does_not_replace_the_live_one() {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let gate = move |_: CreateMessageRequestParams| {
        let mut rx = rx.clone();
        async move {
            let _ = rx.wait_for(|open| *open).await;
            Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("first"), "m"))
        }
    };
    let (client, mut s) = Script::start(Client::builder().sampling(gate)).await;
    s.send(sampling_request(json!("dup"), None)).await;
    s.send(sampling_request(json!("dup"), None)).await;
    let refused = s.reply().await;
    assert_eq!(refused["id"], "dup");
    assert_eq!(refused["error"]["code"], -32600);
    tx.send_replace(true);
    let answer = s.reply().await;
    assert_eq!(answer["id"], "dup");
    assert_eq!(answer["result"]["content"]["text"], "first");
    client.close().await;
}

#[tokio::test]
async fn the_tasks_capability_is_advertised_only_when_served() {
    let caps = initialize_caps(
        Client::builder()
            .sampling(sample)
            .serve_tasks(ServedTaskOptions::new()),
    )
    .await;
    assert_eq!(
        caps["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}}})
    );
    let caps = initialize_caps(
        Client::builder()
            .form_elicitation(form_answer(json!({})))
            .serve_tasks(ServedTaskOptions::new()),
    )
    .await;
    assert_eq!(
        caps["tasks"]["requests"],
        json!({"elicitation": {"create": {}}})
    );
    let caps = initialize_caps(Client::builder().sampling(sample)).await;
    assert!(caps.get("tasks").is_none(), "{caps}");
}

async fn initialize_caps(builder: mcp_client::ClientBuilder) -> Value {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, _sw) = tokio::io::split(server_end);
    let (cr, cw) = tokio::io::split(client_end);
    let connect = tokio::spawn(builder.era(EraPreference::LegacyOnly).io(cr, cw).connect());
    let mut lines = BufReader::new(sr).lines();
    let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .expect("initialize in time")
        .expect("read")
        .expect("line");
    connect.abort();
    let init: Value = serde_json::from_str(&line).expect("json");
    init["params"]["capabilities"].clone()
}

#[tokio::test]
async fn an_expired_task_is_forgotten_and_its_waiters_answered() {
    let never = |_: CreateMessageRequestParams| async {
        std::future::pending::<Result<CreateMessageResult, HandlerError>>().await
    };
    let options = ServedTaskOptions::new().with_max_ttl(Duration::from_millis(200));
    let (client, mut s) =
        Script::start(Client::builder().sampling(never).serve_tasks(options)).await;
    s.send(sampling_request(json!(1), Some(json!({"ttl": 60_000}))))
        .await;
    let created = s.reply().await;
    assert_eq!(created["result"]["task"]["ttl"], 200);
    let id = created["result"]["task"]["taskId"].clone();
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    // The held tasks/result is answered when the TTL runs out.
    let expired = s.reply().await;
    assert_eq!(expired["id"], 2);
    assert_eq!(expired["error"]["code"], -32602);
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": id}}))
        .await;
    assert_eq!(s.reply().await["error"]["code"], -32602);
    s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/list"}))
        .await;
    assert_eq!(s.reply().await["result"]["tasks"], json!([]));
    client.close().await;
}

#[tokio::test]
async fn an_undeclared_task_augmentation_is_served_as_a_plain_request() {
    // No serve_tasks: `params.task` is ignored and the request answered
    // normally (LT-20); `tasks/*` are not served.
    let (client, mut s) = Script::start(Client::builder().sampling(sample)).await;
    s.send(sampling_request(json!(1), Some(json!({"ttl": 1000}))))
        .await;
    let answer = s.reply().await;
    assert_eq!(answer["result"]["model"], "test-model", "{answer}");
    assert!(answer["result"].get("task").is_none());
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/list"}))
        .await;
    assert_eq!(s.reply().await["error"]["code"], -32601);
    client.close().await;
}

#[tokio::test]
async fn task_endpoints_need_an_advertised_task_handler() {
    // serve_tasks without any sampling or elicitation handler: nothing is
    // advertised, so `tasks/*` stay "method not found".
    let builder = Client::builder().serve_tasks(ServedTaskOptions::new());
    let (client, mut s) = Script::start(builder).await;
    s.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "x"}}))
        .await;
    assert_eq!(s.reply().await["error"]["code"], -32601);
    client.close().await;

    let builder = Client::builder()
        .sampling(sample)
        .serve_tasks(ServedTaskOptions::new());
    let (client, mut s) = Script::start(builder).await;
    s.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {}}))
        .await;
    let malformed = s.reply().await;
    assert_eq!(malformed["error"]["code"], -32602);
    assert!(
        malformed["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("taskId"))
    );
    client.close().await;
}

//! The demo server's messages validate against the official schemas.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{Stdio, meta, modern};
use demo_server::DemoOptions;
use serde_json::{Value, json};

struct Schemas {
    compiler: boon::Compiler,
    schemas: boon::Schemas,
}

const R25: &str = "file:///2025-11-25.json";
const R26: &str = "file:///2026-07-28.json";
const TASKS: &str = "https://modelcontextprotocol.io/ext-tasks/schema.json";

impl Schemas {
    fn load() -> Schemas {
        let mut compiler = boon::Compiler::new();
        for (url, text) in [
            (
                R25,
                include_str!("../../mcp-types/tests/schema/2025-11-25.json"),
            ),
            (
                R26,
                include_str!("../../mcp-types/tests/schema/2026-07-28.json"),
            ),
            (
                TASKS,
                include_str!("../../mcp-types/tests/schema/ext-tasks.json"),
            ),
        ] {
            compiler
                .add_resource(url, serde_json::from_str(text).unwrap())
                .unwrap();
        }
        Schemas {
            compiler,
            schemas: boon::Schemas::new(),
        }
    }

    #[track_caller]
    fn check(&mut self, base: &str, def: &str, value: &Value) {
        let idx = self
            .compiler
            .compile(&format!("{base}#/$defs/{def}"), &mut self.schemas)
            .unwrap();
        if let Err(e) = self.schemas.validate(value, idx) {
            panic!("{value} is not a valid {def}: {e:#}");
        }
    }
}

#[tokio::test]
async fn modern_messages_match_the_2026_schema() {
    let mut s = Schemas::load();
    let mut c = Stdio::start(DemoOptions::default());
    let mut n = 0;
    let mut call = async |c: &mut Stdio, method: &str, params: Value| {
        n += 1;
        c.call(json!(n), method, params).await
    };
    let (_, r) = call(&mut c, "server/discover", modern(json!({}), json!({}))).await;
    s.check(R26, "DiscoverResult", &r["result"]);
    for (method, def) in [
        ("tools/list", "ListToolsResult"),
        ("resources/list", "ListResourcesResult"),
        ("resources/templates/list", "ListResourceTemplatesResult"),
        ("prompts/list", "ListPromptsResult"),
    ] {
        let (_, r) = call(&mut c, method, modern(json!({}), json!({}))).await;
        s.check(R26, def, &r["result"]);
    }
    for uri in ["demo://readme", "demo://binary", "demo://item/4"] {
        let (_, r) = call(
            &mut c,
            "resources/read",
            modern(json!({}), json!({ "uri": uri })),
        )
        .await;
        s.check(R26, "ReadResourceResult", &r["result"]);
    }
    let (_, r) = call(
        &mut c,
        "prompts/get",
        modern(json!({}), json!({ "name": "plain" })),
    )
    .await;
    s.check(R26, "GetPromptResult", &r["result"]);
    let complete = json!({ "ref": { "type": "ref/prompt", "name": "code_review" },
                           "argument": { "name": "language", "value": "r" } });
    let (_, r) = call(&mut c, "completion/complete", modern(json!({}), complete)).await;
    s.check(R26, "CompleteResult", &r["result"]);
    for (name, args) in [
        ("echo", json!({ "text": "x" })),
        ("add", json!({ "a": 1, "b": 2 })),
        ("fail", json!({})),
    ] {
        let (_, r) = call(
            &mut c,
            "tools/call",
            modern(json!({}), json!({ "name": name, "arguments": args })),
        )
        .await;
        s.check(R26, "CallToolResult", &r["result"]);
    }
    let caps = json!({ "elicitation": { "form": {}, "url": {} }, "sampling": {}, "roots": {} });
    for name in ["ask_name", "summarize", "list_roots", "authorize"] {
        let p = modern(
            caps.clone(),
            json!({ "name": name, "arguments": { "text": "t" } }),
        );
        let (_, r) = call(&mut c, "tools/call", p).await;
        s.check(R26, "InputRequiredResult", &r["result"]);
    }
    let (_, r) = call(
        &mut c,
        "tools/call",
        modern(json!({}), json!({ "name": "ask_name" })),
    )
    .await;
    s.check(R26, "MissingRequiredClientCapabilityError", &r);
    let mut p = modern(json!({}), json!({}));
    p["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let (_, r) = call(&mut c, "server/discover", p).await;
    s.check(R26, "UnsupportedProtocolVersionError", &r);

    let mut m = meta(json!({}));
    m["progressToken"] = json!("t");
    m["io.modelcontextprotocol/logLevel"] = json!("info");
    let p = json!({ "_meta": m, "name": "slow_count", "arguments": { "count": 1, "delay_ms": 1 } });
    let (notes, _) = call(&mut c, "tools/call", p).await;
    s.check(R26, "ProgressNotification", &notes[0]);
    s.check(R26, "LoggingMessageNotification", &notes[1]);

    let filter = json!({ "notifications": { "toolsListChanged": true, "resourceSubscriptions": ["demo://item/1"] } });
    c.send(json!({ "jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen", "params": modern(json!({}), filter) }))
        .await;
    let ack = c.recv().await;
    s.check(R26, "SubscriptionsAcknowledgedNotification", &ack);
    let trig = json!({ "name": "trigger", "arguments": { "event": "resource_updated", "uri": "demo://item/1" } });
    let (mut notes, _) = call(&mut c, "tools/call", modern(json!({}), trig)).await;
    if notes.is_empty() {
        notes.push(c.recv().await);
    }
    s.check(R26, "ResourceUpdatedNotification", &notes[0]);
    c.server.shutdown();
    let end = c.recv().await;
    s.check(R26, "SubscriptionsListenResult", &end["result"]);
    c.close().await;
}

#[tokio::test]
async fn task_extension_messages_match_its_schema() {
    let mut s = Schemas::load();
    let mut c = Stdio::start(DemoOptions::default());
    let caps = json!({ "elicitation": {}, "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let p = modern(
        caps.clone(),
        json!({ "name": "long_task", "arguments": { "steps": 2, "step_ms": 1, "confirm": true } }),
    );
    let (_, r) = c.call(json!(1), "tools/call", p).await;
    s.check(TASKS, "CreateTaskResult", &r["result"]);
    let id = r["result"]["taskId"].clone();
    let filter = json!({ "notifications": { "taskIds": [id] } });
    c.send(json!({ "jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen", "params": modern(caps.clone(), filter) }))
        .await;
    let get = modern(caps.clone(), json!({ "taskId": id }));
    let mut seen_input = false;
    let mut task_notes = 0;
    for n in 2..300 {
        let (notes, r) = c.call(json!(n), "tasks/get", get.clone()).await;
        for note in notes
            .iter()
            .filter(|m| m["method"] == "notifications/tasks")
        {
            s.check(TASKS, "TaskStatusNotification", note);
            task_notes += 1;
        }
        s.check(TASKS, "GetTaskResult", &r["result"]);
        match r["result"]["status"].as_str().unwrap() {
            "input_required" if !seen_input => {
                seen_input = true;
                let responses =
                    json!({ "confirm": { "action": "accept", "content": { "confirm": true } } });
                let upd = modern(
                    caps.clone(),
                    json!({ "taskId": id, "inputResponses": responses }),
                );
                let (_, r) = c.call(json!(1000 + n), "tasks/update", upd).await;
                s.check(TASKS, "UpdateTaskResult", &r["result"]);
            }
            "completed" => break,
            _ => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
    assert!(seen_input);
    assert!(task_notes > 0);
    let (_, r) = c.call(json!(2000), "tasks/cancel", get).await;
    s.check(TASKS, "CancelTaskResult", &r["result"]);
    c.close().await;
}

#[tokio::test]
async fn legacy_messages_match_the_2025_schema() {
    let mut s = Schemas::load();
    let mut c = Stdio::start(DemoOptions::default());
    let (_, r) = c
        .call(
            json!(0),
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": { "elicitation": {}, "sampling": {} },
                    "clientInfo": { "name": "v", "version": "0" } }),
        )
        .await;
    s.check(R25, "InitializeResult", &r["result"]);
    let (_, r) = c.call(json!(1), "tools/list", json!({})).await;
    s.check(R25, "ListToolsResult", &r["result"]);
    let p = json!({ "name": "long_task", "arguments": { "steps": 1, "step_ms": 1 }, "task": { "ttl": 1000 } });
    let (_, r) = c.call(json!(2), "tools/call", p).await;
    s.check(R25, "CreateTaskResult", &r["result"]);
    let id = r["result"]["task"]["taskId"].clone();
    let (notes, r) = c
        .call(json!(3), "tasks/result", json!({ "taskId": id }))
        .await;
    s.check(R25, "CallToolResult", &r["result"]);
    for n in notes
        .iter()
        .filter(|n| n["method"] == "notifications/tasks/status")
    {
        s.check(R25, "TaskStatusNotification", n);
    }
    let (_, r) = c.call(json!(4), "tasks/get", json!({ "taskId": id })).await;
    s.check(R25, "GetTaskResult", &r["result"]);
    let (_, r) = c.call(json!(5), "tasks/list", json!({})).await;
    s.check(R25, "ListTasksResult", &r["result"]);
    c.send(json!({ "jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": { "name": "summarize", "arguments": { "text": "t" } } }))
        .await;
    let req = loop {
        let m = c.recv().await;
        if m["method"] == "sampling/createMessage" {
            break m;
        }
    };
    s.check(R25, "CreateMessageRequest", &req);
    c.send(json!({ "jsonrpc": "2.0", "id": req["id"], "result": { "role": "assistant", "content": { "type": "text", "text": "s" }, "model": "m" } }))
        .await;
    let (_, r) = c.until_response(&json!(6)).await;
    s.check(R25, "CallToolResult", &r["result"]);
    c.send(json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": { "name": "ask_name" } }))
        .await;
    let req = c.recv().await;
    s.check(R25, "ElicitRequest", &req);
    c.close().await;
}

#[test]
fn the_checker_rejects_invalid_messages() {
    let mut s = Schemas::load();
    let idx = s
        .compiler
        .compile(&format!("{R26}#/$defs/DiscoverResult"), &mut s.schemas)
        .unwrap();
    assert!(
        s.schemas
            .validate(&json!({ "resultType": "complete" }), idx)
            .is_err()
    );
}

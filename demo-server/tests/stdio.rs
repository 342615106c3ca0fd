//! The demo server driven with raw JSON-RPC over the stdio framing.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{Stdio, modern};
use demo_server::{DemoOptions, Eras};
use serde_json::{Value, json};

fn text(resp: &Value) -> &str {
    resp["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[tokio::test]
async fn legacy_handshake_ping_and_lists() {
    let mut c = Stdio::start(DemoOptions::default());
    let init = c.initialize(json!({})).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "demo-server");
    assert!(init["capabilities"]["tasks"]["requests"]["tools"]["call"].is_object());
    c.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }))
        .await;
    let (_, pong) = c.call(json!(1), "ping", json!(null)).await;
    assert_eq!(
        c.server.notifications_received("notifications/initialized"),
        1
    );
    assert_eq!(
        c.server
            .notifications_received("notifications/roots/list_changed"),
        1
    );
    assert_eq!(pong["result"], json!({}));

    let mut names = Vec::new();
    let mut cursor = Value::Null;
    let mut pages = 0;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({ "cursor": cursor })
        };
        let (_, r) = c.call(json!(10 + pages), "tools/list", params).await;
        pages += 1;
        for t in r["result"]["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_owned());
            assert!(t.get("resultType").is_none());
        }
        cursor = r["result"]["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names.len(), 26);
    assert!(names.contains(&"long_task".to_owned()));

    let (_, r) = c
        .call(json!(20), "resources/read", json!({ "uri": "demo://nope" }))
        .await;
    assert_eq!(r["error"]["code"], -32002);
    assert_eq!(r["error"]["data"]["uri"], "demo://nope");
    let (_, r) = c
        .call(
            json!(21),
            "prompts/get",
            json!({ "name": "greeting", "arguments": { "name": "Ada", "style": "formal" } }),
        )
        .await;
    assert!(
        r["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("formal")
    );
    let (_, r) = c
        .call(
            json!(22),
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "demo://item/{id}" },
                    "argument": { "name": "id", "value": "1" } }),
        )
        .await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["1", "10", "11", "12"])
    );
    let (_, r) = c.call(json!(23), "server/discover", json!({})).await;
    assert_eq!(
        r["error"]["code"], -32601,
        "discover is not a legacy method"
    );
    c.close().await;
}

#[tokio::test]
async fn modern_discover_and_paginated_lists() {
    let mut c = Stdio::start(DemoOptions::default());
    let (_, r) = c
        .call(json!("d"), "server/discover", modern(json!({}), json!({})))
        .await;
    let res = &r["result"];
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["supportedVersions"][0], "2026-07-28");
    assert!(res["ttlMs"].as_u64().is_some());
    assert_eq!(res["cacheScope"], "public");
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "demo-server"
    );
    assert!(res["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object());

    let (_, p1) = c
        .call(json!(1), "tools/list", modern(json!({}), json!({})))
        .await;
    assert_eq!(p1["result"]["tools"].as_array().unwrap().len(), 10);
    assert!(p1["result"]["ttlMs"].is_u64());
    let cursor = p1["result"]["nextCursor"].clone();
    let (_, p2) = c
        .call(
            json!(2),
            "tools/list",
            modern(json!({}), json!({ "cursor": cursor })),
        )
        .await;
    let (_, p3) = c
        .call(
            json!(3),
            "tools/list",
            modern(json!({}), json!({ "cursor": p2["result"]["nextCursor"] })),
        )
        .await;
    assert_eq!(p3["result"]["tools"].as_array().unwrap().len(), 6);
    assert!(p3["result"].get("nextCursor").is_none());
    let long = p1["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "long_task")
        .unwrap();
    assert!(
        long.get("execution").is_none(),
        "no execution in 2026-07-28"
    );

    let (_, bad) = c
        .call(
            json!(4),
            "tools/list",
            modern(json!({}), json!({ "cursor": "garbage!" })),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602);

    let (_, r) = c
        .call(
            json!(5),
            "resources/read",
            modern(json!({}), json!({ "uri": "demo://nope" })),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let (_, r) = c
        .call(
            json!(6),
            "resources/read",
            modern(json!({}), json!({ "uri": "demo://item/2" })),
        )
        .await;
    assert_eq!(
        r["result"]["contents"][0]["text"],
        "initial value of item 2"
    );
    assert_eq!(r["result"]["cacheScope"], "public");
    let (_, r) = c
        .call(
            json!(7),
            "resources/templates/list",
            modern(json!({}), json!({})),
        )
        .await;
    assert_eq!(
        r["result"]["resourceTemplates"][0]["uriTemplate"],
        "demo://item/{id}"
    );
    let (_, r) = c.call(json!(8), "ping", modern(json!({}), json!({}))).await;
    assert_eq!(r["error"]["code"], -32601, "ping is gone in 2026-07-28");
    c.close().await;
}

#[tokio::test]
async fn modern_tools() {
    let mut c = Stdio::start(DemoOptions::default());
    let call =
        |name: &str, args: Value| modern(json!({}), json!({ "name": name, "arguments": args }));
    let (_, r) = c
        .call(
            json!(1),
            "tools/call",
            call("echo", json!({ "text": "hi" })),
        )
        .await;
    assert_eq!(text(&r), "hi");
    assert_eq!(r["result"]["resultType"], "complete");
    let (_, r) = c
        .call(
            json!(2),
            "tools/call",
            call("add", json!({ "a": 2, "b": 3.5 })),
        )
        .await;
    assert_eq!(r["result"]["structuredContent"]["sum"], 5.5);
    let (_, r) = c
        .call(
            json!(3),
            "tools/call",
            call("big", json!({ "bytes": 1_048_576 })),
        )
        .await;
    assert_eq!(text(&r).len(), 1_048_576);
    let (_, r) = c
        .call(json!(4), "tools/call", call("fail", json!({})))
        .await;
    assert_eq!(r["result"]["isError"], true);
    let (_, r) = c
        .call(json!(5), "tools/call", call("filler_12", json!({})))
        .await;
    assert_eq!(text(&r), "filler_12 called");
    let (_, r) = c
        .call(json!(6), "tools/call", call("nope", json!({})))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let (_, r) = c
        .call(
            json!(7),
            "tools/call",
            call(
                "regional",
                json!({ "region": "eu", "query": "q", "priority": 2 }),
            ),
        )
        .await;
    assert_eq!(text(&r), "ran \"q\" in eu (priority 2)");
    let (_, r) = c
        .call(json!(8), "tools/call", call("echo", json!({})))
        .await;
    assert_eq!(
        r["result"]["isError"], true,
        "bad arguments are a tool error"
    );
    c.close().await;
}

#[tokio::test]
async fn progress_logs_and_cancellation() {
    let mut c = Stdio::start(DemoOptions::default());
    let mut params = modern(
        json!({}),
        json!({ "name": "slow_count", "arguments": { "count": 3, "delay_ms": 1 } }),
    );
    params["_meta"]["progressToken"] = json!("p1");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let (notes, r) = c.call(json!(1), "tools/call", params).await;
    assert_eq!(text(&r), "counted to 3");
    let progress: Vec<_> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3);
    assert_eq!(progress[2]["params"]["progress"], 3);
    assert_eq!(progress[2]["params"]["progressToken"], "p1");
    let logs: Vec<_> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 3, "info logs only, no debug");

    // Without a log level there are no log messages.
    let p = modern(
        json!({}),
        json!({ "name": "slow_count", "arguments": { "count": 2, "delay_ms": 1 } }),
    );
    let (notes, _) = c.call(json!(2), "tools/call", p).await;
    assert!(notes.is_empty());

    // Cancel a slow call: no response for it, later requests still work.
    let p = modern(
        json!({}),
        json!({ "name": "slow_count", "arguments": { "count": 100, "delay_ms": 50 } }),
    );
    c.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": p }))
        .await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    c.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 3 } }))
        .await;
    let (others, r) = c
        .call(
            json!(4),
            "tools/call",
            modern(
                json!({}),
                json!({ "name": "echo", "arguments": { "text": "x" } }),
            ),
        )
        .await;
    assert_eq!(text(&r), "x");
    assert!(others.iter().all(|m| m.get("id") != Some(&json!(3))));
    assert!(c.recv_within(Duration::from_millis(150)).await.is_none());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while c.server.cancelled_requests() == 0 || c.server.in_flight() > 0 {
        assert!(tokio::time::Instant::now() < deadline, "not cancelled");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(c.server.cancelled_requests(), 1);
    c.close().await;
}

#[tokio::test]
async fn mrtr_rounds_with_request_state() {
    let mut c = Stdio::start(DemoOptions::default());
    let caps = json!({ "elicitation": {}, "sampling": {}, "roots": {} });
    let (_, r) = c
        .call(
            json!(1),
            "tools/call",
            modern(caps.clone(), json!({ "name": "interview" })),
        )
        .await;
    let res = &r["result"];
    assert_eq!(res["resultType"], "input_required");
    assert_eq!(res["inputRequests"]["name"]["method"], "elicitation/create");
    let state = res["requestState"].clone();
    assert!(state.is_string());

    let answer = json!({ "name": { "action": "accept", "content": { "name": "Ada" } } });
    let (_, r) = c
        .call(
            json!(2),
            "tools/call",
            modern(
                caps.clone(),
                json!({ "name": "interview", "inputResponses": answer, "requestState": state }),
            ),
        )
        .await;
    let res = &r["result"];
    assert_eq!(res["resultType"], "input_required");
    assert!(
        res["inputRequests"]["colour"]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("Ada")
    );
    let answer = json!({ "colour": { "action": "accept", "content": { "colour": "teal" } } });
    let (_, r) = c
        .call(
            json!(3),
            "tools/call",
            modern(caps.clone(), json!({ "name": "interview", "inputResponses": answer, "requestState": res["requestState"] })),
        )
        .await;
    assert_eq!(text(&r), "Ada likes teal");

    // Tampered state is rejected.
    let (_, r) = c
        .call(
            json!(4),
            "tools/call",
            modern(
                caps.clone(),
                json!({ "name": "interview", "requestState": "abc.def" }),
            ),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);

    // Sampling round.
    let (_, r) = c
        .call(
            json!(5),
            "tools/call",
            modern(
                caps.clone(),
                json!({ "name": "summarize", "arguments": { "text": "long" } }),
            ),
        )
        .await;
    let req = &r["result"]["inputRequests"]["summary"];
    assert_eq!(req["method"], "sampling/createMessage");
    assert_eq!(req["params"]["maxTokens"], 100);
    let answer = json!({ "summary": { "role": "assistant", "content": { "type": "text", "text": "short" }, "model": "m" } });
    let (_, r) = c
        .call(
            json!(6),
            "tools/call",
            modern(
                caps.clone(),
                json!({ "name": "summarize", "arguments": { "text": "long" },
                "inputResponses": answer, "requestState": r["result"]["requestState"] }),
            ),
        )
        .await;
    assert_eq!(text(&r), "Summary: short");

    // Undeclared capability: -32021 naming it.
    let (_, r) = c
        .call(
            json!(7),
            "tools/call",
            modern(json!({}), json!({ "name": "ask_name" })),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021);
    assert!(r["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
    c.close().await;
}

#[tokio::test]
async fn legacy_server_to_client_requests() {
    let mut c = Stdio::start(DemoOptions::default());
    c.initialize(json!({ "elicitation": {}, "sampling": {}, "roots": {} }))
        .await;
    c.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "ask_name" } }))
        .await;
    let req = c.recv().await;
    assert_eq!(req["method"], "elicitation/create");
    c.send(json!({ "jsonrpc": "2.0", "id": req["id"], "result": { "action": "accept", "content": { "name": "Grace" } } }))
        .await;
    let (_, r) = c.until_response(&json!(1)).await;
    assert_eq!(text(&r), "Hello, Grace!");

    c.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "list_roots" } }))
        .await;
    let req = c.recv().await;
    assert_eq!(req["method"], "roots/list");
    c.send(json!({ "jsonrpc": "2.0", "id": req["id"], "result": { "roots": [{ "uri": "file:///a" }] } }))
        .await;
    let (_, r) = c.until_response(&json!(2)).await;
    assert_eq!(text(&r), "1 roots: file:///a");

    c.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "summarize", "arguments": { "text": "t" } } }))
        .await;
    let req = c.recv().await;
    assert_eq!(req["method"], "sampling/createMessage");
    c.send(json!({ "jsonrpc": "2.0", "id": req["id"], "error": { "code": -1, "message": "user rejected" } }))
        .await;
    let (_, r) = c.until_response(&json!(3)).await;
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("user rejected")
    );
    c.close().await;
}

#[tokio::test]
async fn legacy_progress_logging_and_subscriptions() {
    let mut c = Stdio::start(DemoOptions::default());
    c.initialize(json!({})).await;
    let (_, r) = c
        .call(json!(1), "logging/setLevel", json!({ "level": "debug" }))
        .await;
    assert_eq!(r["result"], json!({}));
    let (_, r) = c
        .call(json!(2), "logging/setLevel", json!({ "level": "loud" }))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let (notes, r) = c
        .call(json!(3), "tools/call", json!({ "name": "slow_count", "arguments": { "count": 2, "delay_ms": 1 }, "_meta": { "progressToken": 9 } }))
        .await;
    assert_eq!(text(&r), "counted to 2");
    assert_eq!(
        notes
            .iter()
            .filter(|n| n["method"] == "notifications/progress")
            .count(),
        2
    );
    assert_eq!(
        notes
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .count(),
        4
    );

    let (_, r) = c
        .call(
            json!(4),
            "resources/subscribe",
            json!({ "uri": "demo://item/7" }),
        )
        .await;
    assert_eq!(r["result"], json!({}));
    let (notes, _) = c
        .call(json!(5), "tools/call", json!({ "name": "trigger", "arguments": { "event": "resource_updated", "uri": "demo://item/7", "value": "v2" } }))
        .await;
    let mut all = notes;
    let (more, _) = c
        .call(
            json!(6),
            "tools/call",
            json!({ "name": "trigger", "arguments": { "event": "tools_list_changed" } }),
        )
        .await;
    all.extend(more);
    c.collect_until(&mut all, |all| {
        let updated = all.iter().any(|m| {
            m["method"] == "notifications/resources/updated"
                && m["params"]["uri"] == "demo://item/7"
        });
        updated
            && all
                .iter()
                .any(|m| m["method"] == "notifications/tools/list_changed")
    })
    .await;
    assert!(
        all.iter()
            .any(|m| m["method"] == "notifications/resources/updated"
                && m["params"]["uri"] == "demo://item/7")
    );
    assert!(
        all.iter()
            .any(|m| m["method"] == "notifications/tools/list_changed")
    );
    let (_, r) = c
        .call(
            json!(7),
            "resources/read",
            json!({ "uri": "demo://item/7" }),
        )
        .await;
    assert_eq!(r["result"]["contents"][0]["text"], "v2");
    c.close().await;
}

#[tokio::test]
async fn legacy_task_lifecycle() {
    let mut c = Stdio::start(DemoOptions::default());
    c.initialize(json!({})).await;
    let (_, r) = c
        .call(json!(1), "tools/call", json!({ "name": "long_task", "arguments": { "steps": 2, "step_ms": 5 }, "task": { "ttl": 60000 } }))
        .await;
    let task = &r["result"]["task"];
    assert_eq!(task["status"], "working");
    let id = task["taskId"].clone();
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));
    let (_, r) = c
        .call(json!(2), "tasks/result", json!({ "taskId": id }))
        .await;
    assert_eq!(text(&r), "long_task finished 2 steps");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id
    );
    let (_, r) = c.call(json!(3), "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(r["result"]["status"], "completed");
    let (_, r) = c.call(json!(4), "tasks/list", json!({})).await;
    assert_eq!(r["result"]["tasks"][0]["taskId"], id);
    let (_, r) = c
        .call(json!(5), "tasks/cancel", json!({ "taskId": id }))
        .await;
    assert_eq!(
        r["error"]["code"], -32602,
        "terminal tasks cannot be cancelled"
    );

    // A running task is cancelled before the answer.
    let (_, r) = c
        .call(json!(6), "tools/call", json!({ "name": "long_task", "arguments": { "steps": 100, "step_ms": 50 }, "task": {} }))
        .await;
    let id2 = r["result"]["task"]["taskId"].clone();
    let (mut notes, r) = c
        .call(json!(7), "tasks/cancel", json!({ "taskId": id2 }))
        .await;
    assert_eq!(r["result"]["status"], "cancelled");
    c.collect_until(&mut notes, |notes| {
        notes.iter().any(|n| {
            n["method"] == "notifications/tasks/status" && n["params"]["status"] == "cancelled"
        })
    })
    .await;
    assert!(
        notes
            .iter()
            .any(|n| n["method"] == "notifications/tasks/status"
                && n["params"]["taskId"] == id2
                && n["params"]["status"] == "cancelled")
    );
    let (_, r) = c
        .call(json!(8), "tasks/get", json!({ "taskId": "nope" }))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let (_, r) = c
        .call(
            json!(9),
            "tools/call",
            json!({ "name": "echo", "arguments": { "text": "x" }, "task": {} }),
        )
        .await;
    assert_eq!(r["error"]["code"], -32601);
    c.close().await;
}

#[tokio::test]
async fn modern_task_lifecycle_with_input() {
    let mut c = Stdio::start(DemoOptions::default());
    let caps = json!({ "elicitation": {}, "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let (_, r) = c
        .call(
            json!(1),
            "tools/call",
            modern(caps.clone(), json!({ "name": "long_task", "arguments": { "steps": 2, "step_ms": 5, "confirm": true } })),
        )
        .await;
    let res = &r["result"];
    assert_eq!(res["resultType"], "task");
    assert_eq!(res["status"], "working");
    assert!(res["ttlMs"].is_u64());
    let id = res["taskId"].clone();
    let get = |n: i64| (json!(n), modern(caps.clone(), json!({ "taskId": id })));
    let mut task = Value::Null;
    for n in 10..200 {
        let (rid, p) = get(n);
        let (_, r) = c.call(rid, "tasks/get", p).await;
        task = r["result"].clone();
        if task["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(task["resultType"], "complete");
    assert_eq!(
        task["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let upd = modern(
        caps.clone(),
        json!({ "taskId": id, "inputResponses": { "confirm": { "action": "accept", "content": { "confirm": true } } } }),
    );
    let (_, r) = c.call(json!(2), "tasks/update", upd).await;
    assert_eq!(r["result"]["resultType"], "complete");
    for n in 200..400 {
        let (rid, p) = get(n);
        let (_, r) = c.call(rid, "tasks/get", p).await;
        task = r["result"].clone();
        if task["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        task["result"]["content"][0]["text"],
        "long_task finished 2 steps"
    );

    // Cancel: acknowledged, then cancelled.
    let (_, r) = c
        .call(
            json!(3),
            "tools/call",
            modern(
                caps.clone(),
                json!({ "name": "long_task", "arguments": { "steps": 100, "step_ms": 50 } }),
            ),
        )
        .await;
    let id2 = r["result"]["taskId"].clone();
    let (_, r) = c
        .call(
            json!(4),
            "tasks/cancel",
            modern(caps.clone(), json!({ "taskId": id2 })),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    let (_, r) = c
        .call(
            json!(5),
            "tasks/get",
            modern(caps.clone(), json!({ "taskId": id2 })),
        )
        .await;
    assert_eq!(r["result"]["status"], "cancelled");

    // Without the extension the tool runs synchronously.
    let (_, r) = c
        .call(
            json!(6),
            "tools/call",
            modern(
                json!({}),
                json!({ "name": "long_task", "arguments": { "steps": 1, "step_ms": 1 } }),
            ),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    let (_, r) = c
        .call(
            json!(7),
            "tasks/result",
            modern(caps, json!({ "taskId": id2 })),
        )
        .await;
    assert_eq!(r["error"]["code"], -32601);
    c.close().await;
}

#[tokio::test]
async fn listen_acknowledges_and_tags_notifications() {
    let mut c = Stdio::start(DemoOptions::default());
    let filter = json!({ "notifications": {
        "toolsListChanged": true,
        "resourceSubscriptions": ["demo://item/1", "demo://missing"]
    } });
    c.send(json!({ "jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": modern(json!({}), filter) }))
        .await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "toolsListChanged": true, "resourceSubscriptions": ["demo://item/1"] })
    );

    let trig = |event: &str| {
        modern(
            json!({}),
            json!({ "name": "trigger", "arguments": { "event": event, "uri": "demo://item/1" } }),
        )
    };
    let (mut seen, _) = c
        .call(json!(1), "tools/call", trig("resource_updated"))
        .await;
    let (more, _) = c
        .call(json!(2), "tools/call", trig("prompts_list_changed"))
        .await;
    seen.extend(more);
    let (more, _) = c
        .call(json!(3), "tools/call", trig("tools_list_changed"))
        .await;
    seen.extend(more);
    c.collect_until(&mut seen, |seen| {
        let has = |name: &str| seen.iter().any(|m| m["method"] == name);
        has("notifications/resources/updated") && has("notifications/tools/list_changed")
    })
    .await;
    // A quiet moment to catch anything that should not have been sent.
    while let Some(m) = c.recv_within(Duration::from_millis(50)).await {
        seen.push(m);
    }
    let methods: Vec<_> = seen
        .iter()
        .map(|m| m["method"].as_str().unwrap_or(""))
        .collect();
    assert!(methods.contains(&"notifications/resources/updated"));
    assert!(methods.contains(&"notifications/tools/list_changed"));
    assert!(
        !methods.contains(&"notifications/prompts/list_changed"),
        "not opted in"
    );
    for m in &seen {
        assert_eq!(
            m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub-1"
        );
    }

    // Cancelling the subscription: nothing more arrives for it.
    c.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": "sub-1" } }))
        .await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let (seen, _) = c
        .call(json!(4), "tools/call", trig("tools_list_changed"))
        .await;
    assert!(seen.is_empty());
    assert!(c.recv_within(Duration::from_millis(100)).await.is_none());

    // Task ids need the tasks extension.
    let (_, r) = c
        .call(
            json!(5),
            "subscriptions/listen",
            modern(json!({}), json!({ "notifications": { "taskIds": [] } })),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021);

    // A graceful server-side end answers the listen request.
    c.send(json!({ "jsonrpc": "2.0", "id": 6, "method": "subscriptions/listen", "params": modern(json!({}), json!({ "notifications": {} })) }))
        .await;
    let _ack = c.recv().await;
    c.server.shutdown();
    let end = c.recv().await;
    assert_eq!(end["id"], 6);
    assert_eq!(
        end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        6
    );
    c.close().await;
}

#[tokio::test]
async fn versions_and_era_restrictions() {
    let mut c = Stdio::start(DemoOptions::default());
    let mut p = modern(json!({}), json!({}));
    p["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let (_, r) = c.call(json!(1), "server/discover", p).await;
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(
        r["error"]["data"]["supported"],
        json!(["2026-07-28", "2025-11-25"])
    );
    assert_eq!(r["error"]["data"]["requested"], "2099-01-01");
    let (_, r) = c
        .call(
            json!(2),
            "tools/list",
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602, "clientCapabilities is required");
    c.send_raw("{not json\n").await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert!(r["id"].is_null());
    c.close().await;

    let mut legacy_only = Stdio::start(DemoOptions::default().with_eras(Eras::Legacy));
    let (_, r) = legacy_only
        .call(json!(1), "server/discover", modern(json!({}), json!({})))
        .await;
    assert_eq!(
        r["error"]["code"], -32601,
        "a legacy server does not know discover"
    );
    let (_, r) = legacy_only
        .call(json!(2), "tools/list", modern(json!({}), json!({})))
        .await;
    assert_eq!(r["error"]["code"], -32600);
    legacy_only.initialize(json!({})).await;
    legacy_only.close().await;

    let mut modern_only = Stdio::start(DemoOptions::default().with_eras(Eras::Modern));
    let (_, r) = modern_only
        .call(json!(1), "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "x", "version": "0" } }))
        .await;
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));
    modern_only.close().await;
}

#[tokio::test]
async fn url_elicitation_and_an_interactive_resource() {
    // Legacy: elicitationId, then the completion notice.
    let mut c = Stdio::start(DemoOptions::default());
    c.initialize(json!({ "elicitation": { "form": {}, "url": {} } }))
        .await;
    c.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "authorize" } }))
        .await;
    let req = c.recv().await;
    assert_eq!(req["params"]["mode"], "url");
    let eid = req["params"]["elicitationId"].clone();
    assert!(eid.is_string());
    c.send(json!({ "jsonrpc": "2.0", "id": req["id"], "result": { "action": "accept" } }))
        .await;
    let (notes, r) = c.until_response(&json!(1)).await;
    assert_eq!(text(&r), "authorized");
    assert!(
        notes
            .iter()
            .any(|n| n["method"] == "notifications/elicitation/complete"
                && n["params"]["elicitationId"] == eid)
    );

    // Legacy: -32042 first, then the completion notice, then a retry works.
    let (_, r) = c
        .call(
            json!(2),
            "tools/call",
            json!({ "name": "authorize", "arguments": { "via_error": true } }),
        )
        .await;
    assert_eq!(r["error"]["code"], -32042);
    let eid = r["error"]["data"]["elicitations"][0]["elicitationId"].clone();
    let done = c.recv().await;
    assert_eq!(done["method"], "notifications/elicitation/complete");
    assert_eq!(done["params"]["elicitationId"], eid);
    let (_, r) = c
        .call(
            json!(3),
            "tools/call",
            json!({ "name": "authorize", "arguments": { "via_error": true } }),
        )
        .await;
    assert_eq!(text(&r), "authorized");

    // Legacy: reading the secret asks for a passphrase.
    c.send(json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": { "uri": "demo://secret" } }))
        .await;
    let req = c.recv().await;
    assert_eq!(req["method"], "elicitation/create");
    c.send(json!({ "jsonrpc": "2.0", "id": req["id"], "result": { "action": "accept", "content": { "passphrase": "sesame" } } }))
        .await;
    let (_, r) = c.until_response(&json!(4)).await;
    assert_eq!(
        r["result"]["contents"][0]["text"],
        "The secret, unlocked with \"sesame\", is 42."
    );

    // Modern: URL mode needs elicitation.url.
    let (_, r) = c
        .call(
            json!(5),
            "tools/call",
            modern(
                json!({ "elicitation": { "form": {} } }),
                json!({ "name": "authorize" }),
            ),
        )
        .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({ "elicitation": { "url": {} } })
    );
    let caps = json!({ "elicitation": { "form": {}, "url": {} } });
    let (_, r) = c
        .call(
            json!(6),
            "tools/call",
            modern(caps.clone(), json!({ "name": "authorize" })),
        )
        .await;
    let req = &r["result"]["inputRequests"]["authorize"];
    assert_eq!(req["params"]["mode"], "url");
    assert!(
        req["params"].get("elicitationId").is_none(),
        "no elicitationId in 2026-07-28"
    );

    // Modern: the secret via an input round; the retry result is not cacheable.
    let (_, r) = c
        .call(
            json!(7),
            "resources/read",
            modern(caps.clone(), json!({ "uri": "demo://secret" })),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "input_required");
    assert!(r["result"].get("ttlMs").is_none());
    let retry = modern(
        caps,
        json!({ "uri": "demo://secret", "requestState": r["result"]["requestState"],
                "inputResponses": { "passphrase": { "action": "decline" } } }),
    );
    let (_, r) = c.call(json!(8), "resources/read", retry).await;
    assert_eq!(r["result"]["contents"][0]["text"], "locked (decline)");
    assert!(r["result"].get("ttlMs").is_none());

    // State minted for one request does not unlock another.
    let (_, r) = c
        .call(
            json!(9),
            "tools/call",
            modern(json!({ "elicitation": {} }), json!({ "name": "ask_name" })),
        )
        .await;
    let (_, r) = c
        .call(
            json!(10),
            "tools/call",
            modern(
                json!({ "elicitation": {} }),
                json!({ "name": "interview", "requestState": r["result"]["requestState"] }),
            ),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    c.close().await;
}

#[tokio::test]
async fn legacy_task_asks_for_input_with_related_task_meta() {
    let mut c = Stdio::start(DemoOptions::default());
    c.initialize(json!({ "elicitation": {} })).await;
    let (_, r) = c
        .call(
            json!(1),
            "tools/call",
            json!({ "name": "long_task", "arguments": { "steps": 2, "step_ms": 1, "confirm": true }, "task": {} }),
        )
        .await;
    let id = r["result"]["task"]["taskId"].clone();
    let ask = loop {
        let m = c.recv().await;
        if m["method"] == "elicitation/create" {
            break m;
        }
    };
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id
    );
    let (_, r) = c.call(json!(2), "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(r["result"]["status"], "input_required");
    c.send(json!({ "jsonrpc": "2.0", "id": ask["id"], "result": { "action": "accept", "content": { "confirm": false } } }))
        .await;
    let (_, r) = c
        .call(json!(3), "tasks/result", json!({ "taskId": id }))
        .await;
    assert_eq!(r["result"]["isError"], true, "not confirmed");
    let (_, r) = c.call(json!(4), "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(
        r["result"]["status"], "failed",
        "isError means failed in 2025-11-25"
    );
    c.close().await;
}

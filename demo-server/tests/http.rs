//! The demo server driven with raw JSON-RPC over loopback Streamable HTTP.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{Http, modern};
use demo_server::{DemoOptions, Eras};
use http::Method;
use serde_json::json;

#[tokio::test]
async fn modern_discover_is_json_and_cacheable() {
    let h = Http::start(DemoOptions::default()).await;
    let r = h
        .modern(
            json!(1),
            "server/discover",
            modern(json!({}), json!({})),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(r.content_type().starts_with("application/json"));
    assert!(r.headers.get("mcp-session-id").is_none());
    let v = r.json().await;
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["cacheScope"], "public");
    let r = h
        .modern(
            json!(2),
            "tools/list",
            modern(json!({}), json!({})),
            None,
            &[],
        )
        .await;
    let v = r.json().await;
    assert_eq!(v["result"]["tools"].as_array().unwrap().len(), 10);
    assert!(v["result"]["nextCursor"].is_string());
    h.stop().await;
}

#[tokio::test]
async fn modern_errors_carry_http_status() {
    let h = Http::start(DemoOptions::default()).await;
    // Unsupported version: 400 + -32022.
    let mut p = modern(json!({}), json!({}));
    p["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = h
        .send(
            Method::POST,
            &[
                ("mcp-protocol-version", "2099-01-01".into()),
                ("mcp-method", "server/discover".into()),
            ],
            Some(json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": p })),
        )
        .await;
    assert_eq!(r.status, 400);
    let v = r.json().await;
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(v["error"]["data"]["supported"][0], "2026-07-28");

    // Mcp-Name disagreeing with the body: 400 + -32020.
    let call = modern(
        json!({}),
        json!({ "name": "echo", "arguments": { "text": "x" } }),
    );
    let r = h
        .modern(json!(2), "tools/call", call.clone(), Some("add"), &[])
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);
    // Missing Mcp-Name.
    let r = h
        .modern(json!(3), "tools/call", call.clone(), None, &[])
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);
    // Mcp-Method disagreeing with the body.
    let r = h
        .send(
            Method::POST,
            &[
                ("mcp-protocol-version", "2026-07-28".into()),
                ("mcp-method", "tools/list".into()),
                ("mcp-name", "echo".into()),
            ],
            Some(json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": call })),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);
    // Protocol version header disagreeing with _meta.
    let r = h
        .send(
            Method::POST,
            &[("mcp-protocol-version", "2025-11-25".into()), ("mcp-method", "tools/list".into())],
            Some(json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": modern(json!({}), json!({})) })),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);
    // Unknown method: 404 + -32601.
    let r = h
        .modern(
            json!(6),
            "nope/nope",
            modern(json!({}), json!({})),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json().await["error"]["code"], -32601);
    // Missing clientCapabilities: 400 + -32602.
    let r = h
        .modern(
            json!(7),
            "tools/list",
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32602);
    // Missing capability for an input round: 400 + -32021.
    let r = h
        .modern(
            json!(8),
            "tools/call",
            modern(json!({}), json!({ "name": "ask_name" })),
            Some("ask_name"),
            &[],
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32021);
    // GET and DELETE without a session: 405 on a server that speaks modern.
    assert_eq!(h.send(Method::GET, &[], None).await.status, 405);
    assert_eq!(h.send(Method::DELETE, &[], None).await.status, 405);
    // A foreign Origin: 403.
    let r = h
        .send(
            Method::POST,
            &[("origin", "http://evil.example".into())],
            Some(json!({})),
        )
        .await;
    assert_eq!(r.status, 403);
    h.stop().await;
}

#[tokio::test]
async fn mcp_param_headers_are_validated() {
    let h = Http::start(DemoOptions::default()).await;
    let args = json!({ "name": "regional", "arguments": { "region": "Hello, 世界", "priority": 42, "query": "q" } });
    let p = modern(json!({}), args);
    let good = [
        (
            "mcp-param-region",
            "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned(),
        ),
        ("mcp-param-priority", "42".to_owned()),
    ];
    let r = h
        .modern(json!(1), "tools/call", p.clone(), Some("regional"), &good)
        .await;
    assert_eq!(r.status, 200);
    let v = r.json().await;
    assert_eq!(
        v["result"]["content"][0]["text"],
        "ran \"q\" in Hello, 世界 (priority 42)"
    );

    let missing = [(
        "mcp-param-region",
        "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned(),
    )];
    let r = h
        .modern(
            json!(2),
            "tools/call",
            p.clone(),
            Some("regional"),
            &missing,
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);

    let wrong = [
        ("mcp-param-region", "us-west1".to_owned()),
        ("mcp-param-priority", "42".to_owned()),
    ];
    let r = h
        .modern(json!(3), "tools/call", p, Some("regional"), &wrong)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);
    h.stop().await;
}

#[tokio::test]
async fn modern_progress_streams_and_mrtr() {
    let h = Http::start(DemoOptions::default()).await;
    let mut p = modern(
        json!({}),
        json!({ "name": "slow_count", "arguments": { "count": 3, "delay_ms": 1 } }),
    );
    p["_meta"]["progressToken"] = json!("tok");
    let r = h
        .modern(json!(1), "tools/call", p, Some("slow_count"), &[])
        .await;
    assert_eq!(r.status, 200);
    assert!(r.is_sse());
    let msgs = r.messages().await;
    assert_eq!(msgs.len(), 4);
    assert_eq!(msgs[0]["method"], "notifications/progress");
    assert_eq!(msgs[3]["result"]["content"][0]["text"], "counted to 3");

    let caps = json!({ "elicitation": {} });
    let r = h
        .modern(
            json!(2),
            "tools/call",
            modern(caps.clone(), json!({ "name": "ask_name" })),
            Some("ask_name"),
            &[],
        )
        .await;
    let v = r.json().await;
    assert_eq!(v["result"]["resultType"], "input_required");
    let retry = modern(
        caps,
        json!({ "name": "ask_name", "requestState": v["result"]["requestState"],
                "inputResponses": { "name": { "action": "accept", "content": { "name": "Ada" } } } }),
    );
    let v = h
        .modern(json!(3), "tools/call", retry, Some("ask_name"), &[])
        .await
        .json()
        .await;
    assert_eq!(v["result"]["content"][0]["text"], "Hello, Ada!");
    h.stop().await;
}

#[tokio::test]
async fn modern_listen_stream_and_task_notifications() {
    let h = Http::start(DemoOptions::default()).await;
    let caps = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let v = h
        .modern(
            json!(1),
            "tools/call",
            modern(
                caps.clone(),
                json!({ "name": "long_task", "arguments": { "steps": 3, "step_ms": 30 } }),
            ),
            Some("long_task"),
            &[],
        )
        .await
        .json()
        .await;
    assert_eq!(v["result"]["resultType"], "task");
    let task_id = v["result"]["taskId"].as_str().unwrap().to_owned();

    let filter = json!({ "notifications": { "resourcesListChanged": true, "taskIds": [task_id] } });
    let mut listen = h
        .modern(
            json!(7),
            "subscriptions/listen",
            modern(caps.clone(), filter),
            None,
            &[],
        )
        .await;
    assert!(listen.is_sse());
    let ack = listen.next_message().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(
        ack["params"]["notifications"]["taskIds"][0],
        task_id.as_str()
    );

    let trig = modern(
        json!({}),
        json!({ "name": "trigger", "arguments": { "event": "resources_list_changed" } }),
    );
    let r = h
        .modern(json!(2), "tools/call", trig, Some("trigger"), &[])
        .await;
    assert_eq!(r.status, 200);
    let mut saw_list = false;
    let mut completed = false;
    while !(saw_list && completed) {
        let m = listen.next_message().await.unwrap();
        assert_eq!(
            m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
        match m["method"].as_str().unwrap() {
            "notifications/resources/list_changed" => saw_list = true,
            "notifications/tasks" => {
                assert_eq!(m["params"]["taskId"], task_id.as_str());
                if m["params"]["status"] == "completed" {
                    assert_eq!(m["params"]["result"]["structuredContent"]["steps"], 3);
                    completed = true;
                }
            }
            other => panic!("unexpected {other}"),
        }
    }
    // tasks/get needs Mcp-Name = taskId.
    let get = modern(caps.clone(), json!({ "taskId": task_id }));
    let r = h
        .modern(json!(3), "tasks/get", get.clone(), None, &[])
        .await;
    assert_eq!(r.status, 400);
    let v = h
        .modern(json!(4), "tasks/get", get, Some(&task_id), &[])
        .await
        .json()
        .await;
    assert_eq!(v["result"]["status"], "completed");

    // Shutdown ends the listen stream with a complete result.
    let stop = tokio::spawn(h.stop());
    let end = listen.next_message().await.unwrap();
    assert_eq!(end["id"], 7);
    assert_eq!(end["result"]["resultType"], "complete");
    stop.await.unwrap();
}

#[tokio::test]
async fn closing_a_modern_stream_cancels_the_request() {
    let h = Http::start(DemoOptions::default()).await;
    let mut p = modern(
        json!({}),
        json!({ "name": "long_task", "arguments": { "steps": 1000, "step_ms": 10 } }),
    );
    p["_meta"]["progressToken"] = json!(1);
    let mut r = h
        .modern(json!(1), "tools/call", p, Some("long_task"), &[])
        .await;
    let first = r.next_message().await.unwrap();
    assert_eq!(first["method"], "notifications/progress");
    assert_eq!(h.server.in_flight(), 1);
    drop(r);
    // The server notices the closed stream on its next write and stops; it
    // keeps serving other requests.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while h.server.cancelled_requests() == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the request was not cancelled"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(h.server.in_flight(), 0);
    let v = h
        .modern(
            json!(2),
            "tools/call",
            modern(
                json!({}),
                json!({ "name": "echo", "arguments": { "text": "ok" } }),
            ),
            Some("echo"),
            &[],
        )
        .await
        .json()
        .await;
    assert_eq!(v["result"]["content"][0]["text"], "ok");
    h.stop().await;
}

#[tokio::test]
async fn legacy_sessions_streams_and_delete() {
    let h = Http::start(DemoOptions::default()).await;
    let sid = h.initialize(json!({ "elicitation": {} })).await;
    let r = h
        .legacy(
            Some(&sid),
            json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }),
        )
        .await;
    assert_eq!(r.json().await["result"], json!({}));
    // Unknown session: 404.
    let r = h
        .legacy(
            Some("nope"),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }),
        )
        .await;
    assert_eq!(r.status, 404);

    // SSE response with event ids and retry for a streaming request.
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": { "name": "slow_count", "arguments": { "count": 2, "delay_ms": 1 }, "_meta": { "progressToken": "a" } } });
    let mut r = h.legacy(Some(&sid), body).await;
    assert!(r.is_sse());
    let priming = r.next_event().await.unwrap();
    assert!(priming.id.is_some());
    assert_eq!(priming.retry.as_deref(), Some("1000"));
    assert!(priming.data.trim().is_empty());
    let mut last = None;
    while let Some(ev) = r.next_event().await {
        assert!(ev.id.is_some());
        last = Some(ev);
    }
    let last: serde_json::Value = serde_json::from_str(&last.unwrap().data).unwrap();
    assert_eq!(last["id"], 3);

    // Elicitation on the POST stream, answered with a new POST.
    let mut r = h
        .legacy(Some(&sid), json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "ask_name" } }))
        .await;
    let ask = r.next_message().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    let a = h
        .legacy(
            Some(&sid),
            json!({ "jsonrpc": "2.0", "id": ask["id"], "result": { "action": "decline" } }),
        )
        .await;
    assert_eq!(a.status, 202);
    let done = r.next_message().await.unwrap();
    assert_eq!(
        done["result"]["content"][0]["text"],
        "No name given (decline)"
    );

    // The GET stream carries unsolicited notifications.
    let mut get = h
        .send(
            Method::GET,
            &[
                ("mcp-session-id", sid.clone()),
                ("accept", "text/event-stream".into()),
            ],
            None,
        )
        .await;
    assert_eq!(get.status, 200);
    let second = h
        .send(
            Method::GET,
            &[
                ("mcp-session-id", sid.clone()),
                ("accept", "text/event-stream".into()),
            ],
            None,
        )
        .await;
    assert_eq!(second.status, 409);
    let trig = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": { "name": "trigger", "arguments": { "event": "prompts_list_changed" } } });
    assert_eq!(h.legacy(Some(&sid), trig).await.status, 200);
    let note = get.next_message().await.unwrap();
    assert_eq!(note["method"], "notifications/prompts/list_changed");

    // DELETE ends the session.
    let d = h
        .send(Method::DELETE, &[("mcp-session-id", sid.clone())], None)
        .await;
    assert_eq!(d.status, 200);
    let r = h
        .legacy(
            Some(&sid),
            json!({ "jsonrpc": "2.0", "id": 6, "method": "ping" }),
        )
        .await;
    assert_eq!(r.status, 404);
    h.stop().await;
}

#[tokio::test]
async fn legacy_task_over_http_reports_on_the_get_stream() {
    let h = Http::start(DemoOptions::default()).await;
    let sid = h.initialize(json!({})).await;
    let mut get = h
        .send(
            Method::GET,
            &[
                ("mcp-session-id", sid.clone()),
                ("accept", "text/event-stream".into()),
            ],
            None,
        )
        .await;
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "long_task", "arguments": { "steps": 2, "step_ms": 5 }, "task": { "ttl": 1000 } } });
    let v = h.legacy(Some(&sid), body).await.json().await;
    let id = v["result"]["task"]["taskId"].clone();
    loop {
        let m = get.next_message().await.unwrap();
        if m["method"] == "notifications/tasks/status" && m["params"]["status"] == "completed" {
            assert_eq!(m["params"]["taskId"], id);
            break;
        }
    }
    let v = h
        .legacy(Some(&sid), json!({ "jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": { "taskId": id } }))
        .await
        .json()
        .await;
    assert_eq!(
        v["result"]["content"][0]["text"],
        "long_task finished 2 steps"
    );
    h.stop().await;
}

#[tokio::test]
async fn era_restricted_servers_answer_like_their_era() {
    let legacy = Http::start(DemoOptions::default().with_eras(Eras::Legacy)).await;
    let r = legacy
        .modern(
            json!(1),
            "server/discover",
            modern(json!({}), json!({})),
            None,
            &[],
        )
        .await;
    assert_eq!(r.status, 400);
    let v = r.json().await;
    assert_eq!(v["error"]["message"], "Bad Request: Server not initialized");
    assert_ne!(v["error"]["code"], -32022);
    let r = legacy.send(Method::GET, &[], None).await;
    assert_eq!(r.status, 400, "a legacy server wants a session for GET");
    legacy.initialize(json!({})).await;
    legacy.stop().await;

    let no_get = Http::start(
        DemoOptions::default()
            .with_eras(Eras::Legacy)
            .with_get_stream(false),
    )
    .await;
    let sid = no_get.initialize(json!({})).await;
    let r = no_get
        .send(
            Method::GET,
            &[
                ("mcp-session-id", sid),
                ("accept", "text/event-stream".into()),
            ],
            None,
        )
        .await;
    assert_eq!(r.status, 405);
    no_get.stop().await;

    let modern_only = Http::start(DemoOptions::default().with_eras(Eras::Modern)).await;
    let r = modern_only
        .send(
            Method::POST,
            &[],
            Some(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "x", "version": "0" } } })),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32022);
    let r = modern_only
        .send(
            Method::POST,
            &[("mcp-session-id", "whatever".into())],
            Some(json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })),
        )
        .await;
    assert_eq!(
        r.status, 400,
        "session ids are ignored; the request lacks _meta"
    );
    modern_only.stop().await;
}

#[tokio::test]
async fn legacy_streams_resume_with_last_event_id() {
    let h = Http::start(
        DemoOptions::default()
            .with_sse_close_after(Some(1))
            .with_sse_retry(Duration::from_millis(5)),
    )
    .await;
    let sid = h.initialize(json!({})).await;
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "slow_count", "arguments": { "count": 3, "delay_ms": 20 }, "_meta": { "progressToken": "r" } } });
    let mut r = h.legacy(Some(&sid), body).await;
    let priming = r.next_event().await.unwrap();
    assert_eq!(priming.retry.as_deref(), Some("5"));
    let first = r.next_event().await.unwrap();
    let first_msg: serde_json::Value = serde_json::from_str(&first.data).unwrap();
    assert_eq!(first_msg["params"]["progress"], 1);
    assert!(r.next_event().await.is_none(), "the server cut the stream");

    let last_id = first.id.unwrap();
    let resumed = h
        .send(
            Method::GET,
            &[
                ("mcp-session-id", sid.clone()),
                ("accept", "text/event-stream".into()),
                ("last-event-id", last_id),
            ],
            None,
        )
        .await;
    assert_eq!(resumed.status, 200);
    let msgs = resumed.messages().await;
    let progress: Vec<_> = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].clone())
        .collect();
    assert_eq!(progress, [json!(2), json!(3)]);
    assert!(msgs.iter().any(|m| m["method"] == "notifications/message"));
    assert_eq!(
        msgs.last().unwrap()["result"]["content"][0]["text"],
        "counted to 3"
    );

    let bad = h
        .send(
            Method::GET,
            &[
                ("mcp-session-id", sid),
                ("accept", "text/event-stream".into()),
                ("last-event-id", "nope-1".into()),
            ],
            None,
        )
        .await;
    assert_eq!(bad.status, 400);
    h.stop().await;
}

#[tokio::test]
async fn expired_sessions_answer_404_and_a_new_session_works() {
    let h = Http::start(DemoOptions::default()).await;
    let old = h.initialize(json!({})).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    assert_eq!(h.legacy(Some(&old), ping.clone()).await.status, 200);
    assert_eq!(h.server.expire_sessions(), 1);
    assert_eq!(
        h.legacy(Some(&old), ping.clone()).await.status,
        404,
        "the old session id is unknown now"
    );
    assert_eq!(h.server.expire_sessions(), 0, "nothing left to expire");
    let new = h.initialize(json!({})).await;
    assert_ne!(new, old);
    let r = h.legacy(Some(&new), ping).await;
    assert_eq!(r.json().await["result"], json!({}));
}

#[tokio::test]
async fn posts_with_a_demo_tag_are_counted() {
    let h = Http::start(DemoOptions::default()).await;
    let sid = h.initialize(json!({})).await;
    assert_eq!(h.server.tagged_posts("t-1"), 0);
    for id in 1..=2 {
        let r = h
            .send(
                http::Method::POST,
                &[
                    ("mcp-protocol-version", "2025-11-25".to_owned()),
                    ("mcp-session-id", sid.clone()),
                    ("x-demo-tag", "t-1".to_owned()),
                ],
                Some(json!({ "jsonrpc": "2.0", "id": id, "method": "ping" })),
            )
            .await;
        assert_eq!(r.status, 200);
    }
    assert_eq!(h.server.tagged_posts("t-1"), 2);
    assert_eq!(h.server.tagged_posts("t-2"), 0);
}

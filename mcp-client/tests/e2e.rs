//! End-to-end: every client method against the demo server, over stdio and
//! HTTP, in both eras.

use mcp_testkit::demo as common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{ALL, Server, text};
use futures::StreamExt;
use mcp_client::mcp_types::Era;
use mcp_client::mcp_types::completion::{CompleteRequestParams, CompletionReference};
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::logging::LoggingLevel;
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::mcp_types::subscriptions::SubscriptionFilter;
use mcp_client::{CallOptions, Client, HandlerError, NotificationHandler};
use serde_json::json;

async fn form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    let mut content = BTreeMap::new();
    for (field, _) in &params.requested_schema.properties.0 {
        let value = if field == "confirm" {
            ElicitValue::Bool(true)
        } else {
            ElicitValue::String("Ada".into())
        };
        content.insert(field.clone(), value);
    }
    Ok(ElicitResult::accept(content))
}

async fn sample(_: CreateMessageRequestParams) -> Result<CreateMessageResult, HandlerError> {
    Ok(CreateMessageResult::new(
        ContentBlock::text("short"),
        "test-model",
    ))
}

async fn connect(server: &Server) -> Client {
    server
        .builder()
        .form_elicitation(form)
        .sampling(sample)
        .roots(vec![Root::new("file:///work")])
        .connect()
        .await
        .expect("connect")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_and_listings() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let era = if via.modern() {
            Era::Modern
        } else {
            Era::Legacy
        };
        assert_eq!(client.era(), Some(era), "{via:?}");
        assert_eq!(
            client.server_info().map(|i| i.name),
            Some("demo-server".into())
        );
        assert!(
            client
                .server_capabilities()
                .is_some_and(|c| c.tools.is_some()),
            "{via:?}"
        );
        let _ = client.instructions();
        if via.modern() {
            assert!(
                client
                    .ping()
                    .await
                    .expect_err("ping is retired")
                    .is_retired_method()
            );
        } else {
            client.ping().await.expect("ping");
        }
        client
            .set_log_level(LoggingLevel::Warning)
            .await
            .expect("log level");

        let page = client.list_tools(None).await.expect("tools page");
        assert_eq!(page.tools.len(), 10, "{via:?}");
        let next = page.next_cursor.clone().expect("a second page");
        let page2 = client.list_tools(Some(&next)).await.expect("page 2");
        assert_ne!(page2.tools[0].name, page.tools[0].name);
        assert_eq!(
            client.list_all_tools().await.expect("all tools").len(),
            26,
            "{via:?}"
        );
        assert_eq!(client.list_all_prompts().await.expect("prompts").len(), 3);
        assert!(
            client
                .list_prompts(None)
                .await
                .expect("prompt page")
                .prompts
                .len()
                <= 10
        );
        let resources = client.list_all_resources().await.expect("resources");
        assert!(
            resources.iter().any(|r| r.uri == "demo://readme"),
            "{via:?}"
        );
        assert!(
            !client
                .list_resources(None)
                .await
                .expect("page")
                .resources
                .is_empty()
        );
        let templates = client
            .list_all_resource_templates()
            .await
            .expect("templates");
        assert!(
            templates
                .iter()
                .any(|t| t.uri_template == "demo://item/{id}")
        );
        assert!(
            !client
                .list_resource_templates(None)
                .await
                .expect("tpl page")
                .resource_templates
                .is_empty()
        );
        client.close().await;
        assert!(client.is_closed());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_prompts_resources_completion() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let echo = client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .expect("echo");
        assert_eq!(text(&echo.content), "hi", "{via:?}");
        #[derive(Debug, serde::Deserialize)]
        struct Sum {
            sum: f64,
        }
        let sum: Sum = client
            .call_tool_typed("add", &json!({"a": 2, "b": 3}))
            .await
            .expect("add");
        assert!((sum.sum - 5.0).abs() < f64::EPSILON);
        let failed = client
            .call_tool("fail", json!({}))
            .await
            .expect("tool error is a result");
        assert_eq!(failed.is_error, Some(true));
        let typed: Result<Sum, _> = client.call_tool_typed("fail", &json!({})).await;
        assert!(typed.expect_err("tool error").is_tool_error());

        let args = BTreeMap::from([("name".to_owned(), "Ada".to_owned())]);
        let prompt = client.get_prompt("greeting", args).await.expect("prompt");
        assert!(
            prompt.messages[0]
                .content
                .as_text()
                .is_some_and(|t| t.contains("Ada"))
        );
        let read = client.read_resource("demo://readme").await.expect("read");
        assert_eq!(read.contents.len(), 1, "{via:?}");
        let done = client
            .complete(CompleteRequestParams::new(
                CompletionReference::prompt("greeting"),
                "style",
                "f",
            ))
            .await
            .expect("complete");
        assert_eq!(done.completion.values, vec!["formal".to_owned()], "{via:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_requests_go_through_handlers() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let asked = client
            .call_tool("ask_name", json!({}))
            .await
            .expect("ask_name");
        assert_eq!(text(&asked.content), "Hello, Ada!", "{via:?}");
        let summary = client
            .call_tool("summarize", json!({"text": "long text"}))
            .await
            .expect("sampling");
        assert_eq!(text(&summary.content), "Summary: short", "{via:?}");
        let roots = client
            .call_tool("list_roots", json!({}))
            .await
            .expect("roots");
        assert!(
            text(&roots.content).contains("file:///work"),
            "{via:?}: {}",
            text(&roots.content)
        );
        let interview = client
            .call_tool("interview", json!({}))
            .await
            .expect("two rounds");
        assert_eq!(
            interview.is_error,
            None,
            "{via:?}: {}",
            text(&interview.content)
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_callback() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let opts =
            CallOptions::new().on_progress(move |p| sink.lock().expect("lock").push(p.progress));
        let r = client
            .call_tool_with("slow_count", json!({"count": 3, "delay_ms": 10}), opts)
            .await
            .expect("slow_count");
        assert_eq!(text(&r.content), "counted to 3");
        assert_eq!(*seen.lock().expect("lock"), vec![1.0, 2.0, 3.0], "{via:?}");
        client.close().await;
    }
}

#[derive(Default)]
struct Recorder {
    updated: mcp_testkit::Recorder<String>,
    changed: mcp_testkit::Recorder<String>,
}

impl NotificationHandler for Recorder {
    fn on_resource_updated(&self, uri: &str) {
        self.updated.push(uri.to_owned());
    }
    fn on_list_changed(&self, what: &str) {
        self.changed.push(what.to_owned());
    }
}

/// How long a wait for a delivery may take.
const WITHIN: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_subscribe_and_modern_listen() {
    for via in ALL {
        let server = Server::start(via).await;
        let recorder = Arc::new(Recorder::default());
        let client = server
            .builder()
            .notifications(recorder.clone())
            .connect()
            .await
            .expect("connect");
        if via.modern() {
            assert!(
                client
                    .subscribe("demo://item/1")
                    .await
                    .expect_err("retired")
                    .is_retired_method()
            );
            let filter = SubscriptionFilter::new()
                .with_tools_list_changed()
                .with_resource("demo://item/1");
            let mut sub = client.listen(filter).await.expect("listen");
            client
                .call_tool("trigger", json!({"event": "tools_list_changed"}))
                .await
                .expect("trigger");
            let event = tokio::time::timeout(Duration::from_secs(5), sub.next())
                .await
                .expect("an event in time")
                .expect("stream open")
                .expect("event");
            assert_eq!(event.method, "notifications/tools/list_changed", "{via:?}");
            let args = json!({"event": "resource_updated", "uri": "demo://item/1"});
            client.call_tool("trigger", args).await.expect("trigger");
            let event = tokio::time::timeout(Duration::from_secs(5), sub.next())
                .await
                .expect("an event in time")
                .expect("stream open")
                .expect("event");
            assert_eq!(event.method, "notifications/resources/updated", "{via:?}");
            // Over HTTP the server counts the open listen stream.
            let open = server.demo.in_flight();
            assert!(
                !via.http() || open >= 1,
                "{via:?}: the listen stream is open"
            );
            drop(sub);
            server
                .until("the dropped subscription end", |d| d.in_flight() == 0)
                .await;
        } else {
            client.subscribe("demo://item/1").await.expect("subscribe");
            let args = json!({"event": "resource_updated", "uri": "demo://item/1"});
            client.call_tool("trigger", args).await.expect("trigger");
            client
                .call_tool("trigger", json!({"event": "tools_list_changed"}))
                .await
                .expect("trigger");
            let updated = recorder.updated.until(WITHIN, |u| !u.is_empty()).await;
            assert_eq!(updated, ["demo://item/1"], "{via:?}");
            let changed = recorder.changed.until(WITHIN, |c| !c.is_empty()).await;
            assert!(changed.contains(&"tools".to_owned()), "{via:?}");
            client
                .unsubscribe("demo://item/1")
                .await
                .expect("unsubscribe");
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_run_to_completion() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let opts = CallOptions::new().with_poll_interval(Duration::from_millis(50));
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 2, "step_ms": 20}), opts)
            .await
            .expect("task");
        assert!(task.task_id().is_some(), "{via:?}: the server made a task");
        let result = task.wait().await.expect("result");
        assert_eq!(
            text(&result.content),
            "long_task finished 2 steps",
            "{via:?}"
        );
        if !via.modern() {
            let listed = client.list_tasks(None).await.expect("tasks/list");
            assert!(!listed.tasks.is_empty(), "{via:?}");
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_handles_get_status_and_answer_input() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let opts = CallOptions::new().with_poll_interval(Duration::from_millis(50));
        // The task asks for confirmation in both eras: legacy through
        // elicitation/create, modern through input_required + tasks/update.
        let args = json!({"steps": 4, "step_ms": 30, "confirm": true});
        let mut task = client
            .call_tool_as_task("long_task", args, opts)
            .await
            .expect("task");
        let id = task.task_id().expect("a task");
        let snapshot = task.get().await.expect("tasks/get");
        assert_eq!(snapshot.task_id, id, "{via:?}");
        assert!(
            task.get_detailed()
                .await
                .expect("detailed")
                .get("taskId")
                .is_some()
                || via.modern()
        );
        let result = task
            .wait_timeout(Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(
            text(&result.content),
            "long_task finished 4 steps",
            "{via:?}: the handler confirmed"
        );
        assert_eq!(
            task.result().await.expect("cached result").content,
            result.content
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_calls_share_one_connection() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .observable_builder()
            .connect()
            .await
            .expect("connect");
        let calls = (0..500).map(|i| {
            let client = client.clone();
            async move {
                client
                    .call_tool("echo", json!({"text": i.to_string()}))
                    .await
            }
        });
        let results = futures::future::join_all(calls).await;
        for (i, r) in results.into_iter().enumerate() {
            assert_eq!(text(&r.expect("echo").content), i.to_string(), "{via:?}");
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_request_options_and_legacy_roots_notification() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let opts = CallOptions::new()
            .with_meta("com.example/request", json!("r-1"))
            .with_trace_context(
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                Some("k=v"),
            )
            .with_header("X-Demo", "1")
            .expect("valid header")
            .without_cache();
        let r = client
            .call_tool_with("echo", json!({"text": "meta"}), opts)
            .await
            .expect("echo");
        assert_eq!(text(&r.content), "meta");
        if via.modern() {
            assert!(client.notify_roots_list_changed().await.is_err());
        } else {
            client
                .notify_roots_list_changed()
                .await
                .expect("roots/list_changed");
            let roots = client
                .call_tool("list_roots", json!({}))
                .await
                .expect("roots still served");
            assert!(text(&roots.content).contains("file:///work"));
        }
        client.close().await;
    }
}

#[derive(Default)]
struct Logs(mcp_testkit::Recorder<String>);

impl NotificationHandler for Logs {
    fn on_log(&self, params: mcp_client::mcp_types::logging::LoggingMessageNotificationParams) {
        self.0.push(format!("{:?}", params.level));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_levels_reach_the_server_and_logs_the_handler() {
    for via in ALL {
        let server = Server::start(via).await;
        let logs = Arc::new(Logs::default());
        let client = server
            .builder()
            .notifications(logs.clone())
            .connect()
            .await
            .expect("connect");
        let args = json!({"count": 2, "delay_ms": 1});
        client
            .call_tool("slow_count", args.clone())
            .await
            .expect("no level set");
        if via.modern() {
            // 2026-07-28: no logs unless the request asks for them.
            assert!(logs.0.is_empty(), "{via:?}: no level, no logs");
        } else {
            // 2025-11-25: the server's default level is info, one info
            // log per step; wait for both before starting afresh.
            let info = logs.0.until(WITHIN, |l| l.len() >= 2).await;
            assert!(info.iter().all(|l| l == "Info"), "{via:?}: {info:?}");
        }
        logs.0.clear();
        client
            .set_log_level(LoggingLevel::Info)
            .await
            .expect("set level");
        client
            .call_tool("slow_count", args.clone())
            .await
            .expect("info level");
        let seen = logs.0.wait_for(WITHIN, |l| l.len() >= 2).await.is_ok();
        assert!(seen, "{via:?}: info logs arrive");
        assert!(
            logs.0.items().iter().all(|l| l == "Info"),
            "{via:?}: no debug logs"
        );
        if via.modern() {
            logs.0.clear();
            let opts = CallOptions::new().with_log_level(LoggingLevel::Debug);
            client
                .call_tool_with("slow_count", args, opts)
                .await
                .expect("debug level");
            let debug = logs.0.wait_for(WITHIN, |l| l.iter().any(|l| l == "Debug"));
            assert!(debug.await.is_ok(), "{via:?}");
        }
        client.close().await;
    }
}

#[cfg(feature = "output-schema")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_content_is_validated_against_the_output_schema_on_request() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let check = || CallOptions::new().validate_output();
        let r = client
            .call_tool_with("add", json!({"a": 2, "b": 3}), check())
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(r.structured_content, Some(json!({"sum": 5.0})));
        // The sum overflows to infinity, which JSON carries as null: the
        // result no longer matches `{"sum": {"type": "number"}}`.
        let huge = json!({"a": 1e308, "b": 1e308});
        let e = client
            .call_tool_with("add", huge.clone(), check())
            .await
            .expect_err("null is not a number");
        assert!(e.is_protocol_violation(), "{via:?}: {e}");
        assert!(e.to_string().contains("outputSchema"), "{via:?}: {e}");
        // Without the option the same result is returned as is.
        let r = client
            .call_tool_with("add", huge, CallOptions::new())
            .await
            .expect("unchecked");
        assert_eq!(r.structured_content, Some(json!({"sum": null})));
        // A tool without an outputSchema passes.
        client
            .call_tool_with("echo", json!({"text": "x"}), check())
            .await
            .expect("no schema, nothing to check");
        client.close().await;
    }
}

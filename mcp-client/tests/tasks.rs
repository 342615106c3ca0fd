//! Task handles end to end against the demo server, over stdio and HTTP, in
//! both task generations: status callbacks, waiting for chosen states,
//! answering input with a closure, cached results, typed results, the
//! poll cap, attaching to a task by id or related-task metadata, and the
//! caller's poll interval.

use mcp_testkit::demo as common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{ALL, Server, Via, text};
use demo_server::DemoServer;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::{
    CallOptions, Client, ClientBuilder, ErrorKind, HandlerError, TaskSnapshot, TaskStates,
    TaskStatus,
};
use mcp_testkit::Recorder;
use serde_json::json;

/// A registered handler that declines to confirm: when it answers, the
/// demo's long task stops with "not confirmed".
async fn refuse(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    let mut content = BTreeMap::new();
    for (field, _) in &params.requested_schema.properties.0 {
        content.insert(field.clone(), ElicitValue::Bool(false));
    }
    Ok(ElicitResult::accept(content))
}

/// A user who never answers.
async fn never_answers(_params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    std::future::pending().await
}

async fn connect(server: &Server) -> Client {
    connect_with(server.builder()).await
}

/// Connects with `builder`, refusing form elicitations.
async fn connect_with(builder: ClientBuilder) -> Client {
    builder
        .form_elicitation(refuse)
        .connect()
        .await
        .expect("connect")
}

fn fast() -> CallOptions {
    CallOptions::new().with_poll_interval(Duration::from_millis(50))
}

const BOUND: Duration = Duration::from_secs(20);

/// How long a wait for a status callback may take.
const WITHIN: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_input_required_then_answer_with_a_closure() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let args = json!({"steps": 4, "step_ms": 20, "confirm": true});
        let mut task = client
            .call_tool_as_task("long_task", args, fast())
            .await
            .expect("task");
        let until_input = TaskStates::terminal().with(TaskStatus::InputRequired);
        let seen = tokio::time::timeout(BOUND, task.wait_for(until_input))
            .await
            .expect("bounded")
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(seen.status, TaskStatus::InputRequired, "{via:?}");
        let asked = Arc::new(AtomicU32::new(0));
        let counter = Arc::clone(&asked);
        let result = tokio::time::timeout(
            BOUND,
            task.wait_for_task_with_inputs(move |request| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    assert_eq!(request.method, "elicitation/create");
                    Ok(json!({"action": "accept", "content": {"confirm": true}}))
                }
            }),
        )
        .await
        .expect("bounded")
        .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(
            text(&result.content),
            "long_task finished 4 steps",
            "{via:?}: the closure, not the refusing handler, answered"
        );
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{via:?}");
        client.close().await;
    }
}

/// The closure's answer is checked like a registered handler's: content
/// that breaks the form's `requestedSchema` (a string for a boolean) goes
/// to the server as an error, not as content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closure_answer_that_breaks_the_form_schema_is_not_sent() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let args = json!({"steps": 2, "step_ms": 20, "confirm": true});
        let mut task = client
            .call_tool_as_task("long_task", args, fast())
            .await
            .expect("task");
        let outcome = tokio::time::timeout(
            BOUND,
            task.wait_for_task_with_inputs(|_request| async move {
                Ok(json!({"action": "accept", "content": {"confirm": "yes"}}))
            }),
        )
        .await
        .expect("bounded");
        let shown = match &outcome {
            Ok(result) => text(&result.content),
            Err(e) => e.to_string(),
        };
        assert_ne!(
            shown, "long_task stopped: not confirmed",
            "{via:?}: the invalid content never reached the server"
        );
        assert!(
            shown.contains("invalid") || shown.contains("elicitation"),
            "{via:?}: the server saw the client's error: {shown}"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registered_handlers_answer_when_no_closure_is_given() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let args = json!({"steps": 2, "step_ms": 20, "confirm": true});
        let mut task = client
            .call_tool_as_task("long_task", args, fast())
            .await
            .expect("task");
        let result = task.wait_timeout(BOUND).await.expect("result");
        assert_eq!(
            text(&result.content),
            "long_task stopped: not confirmed",
            "{via:?}: the registered handler answered"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_callback_reports_each_change_once_until_terminal() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 3, "step_ms": 30}), fast())
            .await
            .expect("task");
        let seen: Arc<Recorder<TaskSnapshot>> = Arc::default();
        let sink = Arc::clone(&seen);
        task.on_status_change(move |s| sink.push(s.clone()));
        task.wait_timeout(BOUND).await.expect("result");
        let ended = seen
            .wait_for(WITHIN, |s| s.last().is_some_and(|s| s.status.is_terminal()))
            .await;
        assert!(ended.is_ok(), "{via:?}: {ended:?}");
        let seen = seen.items();
        assert_eq!(seen[0].status, TaskStatus::Working, "{via:?}");
        assert_eq!(seen.last().map(|s| &s.status), Some(&TaskStatus::Completed));
        for pair in seen.windows(2) {
            assert_ne!(
                (&pair[0].status, &pair[0].status_message),
                (&pair[1].status, &pair[1].status_message),
                "{via:?}: each change is reported once"
            );
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_status_pushes_feed_the_callback_between_polls() {
    for via in [Via::StdioLegacy, Via::HttpLegacy] {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        // Polls every 1.5 s: the end is pushed long before the next poll.
        let opts = CallOptions::new().with_poll_interval(Duration::from_millis(1500));
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 2, "step_ms": 20}), opts)
            .await
            .expect("task");
        let seen: Arc<Recorder<TaskSnapshot>> = Arc::default();
        let sink = Arc::clone(&seen);
        task.on_status_change(move |s| sink.push(s.clone()));
        let pushed = Instant::now();
        let completed = |seen: &[TaskSnapshot]| {
            seen.iter()
                .find(|s| s.status == TaskStatus::Completed)
                .cloned()
        };
        let seen = seen.wait_for(WITHIN, |s| completed(s).is_some()).await;
        assert!(seen.is_ok(), "{via:?}: {seen:?}");
        let done = completed(&seen.unwrap_or_default()).expect("completed");
        assert_eq!(
            done.polls, 0,
            "{via:?}: reported from a push, before any poll"
        );
        assert!(pushed.elapsed() < Duration::from_millis(1400), "{via:?}");
        // The outcome still comes from polling (tasks/get, then tasks/result).
        let result = task.wait_timeout(BOUND).await.expect("result");
        assert_eq!(text(&result.content), "long_task finished 2 steps");
        assert!(task.status().is_some_and(|s| s.polls >= 1), "{via:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_state_and_result_are_cached() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 1, "step_ms": 10}), fast())
            .await
            .expect("task");
        let first = task.wait_timeout(BOUND).await.expect("result");
        // With the connection closed, nothing can be sent: these are cached.
        client.close().await;
        assert_eq!(task.result().await.expect("cached").content, first.content);
        assert_eq!(task.wait().await.expect("cached").content, first.content);
        let end = task
            .wait_for(TaskStates::terminal())
            .await
            .expect("cached state");
        assert_eq!(end.status, TaskStatus::Completed, "{via:?}");
        assert_eq!(task.status().map(|s| s.status), Some(TaskStatus::Completed));
        assert!(
            task.changed().await.is_none(),
            "{via:?}: nothing more changes"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_and_cancellation_are_cached_and_typed() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let mut task = client
            .call_tool_as_task(
                "long_task",
                json!({"steps": 1, "step_ms": 10, "fail": true}),
                fast(),
            )
            .await
            .expect("task");
        // Waiting for `completed` only: the task fails instead.
        let only_completed: TaskStates = [TaskStatus::Completed].into_iter().collect();
        let err = task.wait_for(only_completed).await.expect_err("failed");
        assert!(
            matches!(
                err.kind(),
                ErrorKind::TaskEnded {
                    status: TaskStatus::Failed
                }
            ),
            "{via:?}: {err:?}"
        );
        let e1 = task.wait().await.expect_err("failed");
        let e2 = task.wait().await.expect_err("cached failure");
        assert_eq!(
            e1.remote_error().map(|e| e.message.clone()),
            e2.remote_error().map(|e| e.message.clone()),
            "{via:?}"
        );
        assert!(e1.remote_error().is_some(), "{via:?}: {e1:?}");

        let mut slow = client
            .call_tool_as_task("long_task", json!({"steps": 50, "step_ms": 100}), fast())
            .await
            .expect("task");
        let id = slow.task_id().expect("id");
        let last: Arc<Mutex<Option<TaskStatus>>> = Arc::default();
        let sink = Arc::clone(&last);
        slow.on_status_change(move |s| *sink.lock().expect("lock") = Some(s.status.clone()));
        let mut watcher = client.attach_task(&id, fast()).expect("attach");
        let cancelled = slow.cancel().await.expect_err("cancelled");
        assert!(cancelled.is_cancelled(), "{via:?}: {cancelled:?}");
        assert_eq!(
            *last.lock().expect("lock"),
            Some(TaskStatus::Cancelled),
            "{via:?}: the callback heard of the local cancel"
        );
        let seen = tokio::time::timeout(BOUND, watcher.wait_for(TaskStates::terminal()))
            .await
            .expect("bounded")
            .expect("terminal");
        assert_eq!(seen.status, TaskStatus::Cancelled, "{via:?}");
        assert!(watcher.wait().await.expect_err("cancelled").is_cancelled());
        client.close().await;
    }
}

#[derive(serde::Serialize)]
struct Steps {
    steps: u32,
    step_ms: u32,
}

#[derive(serde::Deserialize)]
struct Done {
    steps: u32,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_task_calls_decode_structured_content() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let args = Steps {
            steps: 2,
            step_ms: 10,
        };
        let mut task = client
            .call_tool_as_task_typed("long_task", &args, fast())
            .await
            .expect("task");
        let done: Done = task.wait_typed().await.expect("typed");
        assert_eq!(done.steps, 2, "{via:?}");
        let wrong = task.wait_typed::<Vec<String>>().await.expect_err("shape");
        assert!(
            matches!(wrong.kind(), ErrorKind::StructuredContent { .. }),
            "{via:?}"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_tool_and_poll_succeeds_or_stops_at_the_cap() {
    for via in ALL {
        let server = Server::start(via).await;
        // In-process on stdio too, to see the server's counters.
        let client = connect_with(server.observable_builder()).await;
        let ok = client
            .call_tool_and_poll("long_task", json!({"steps": 1, "step_ms": 10}), 200)
            .await
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(text(&ok.content), "long_task finished 1 steps");
        let started = Instant::now();
        let capped = client
            .call_tool_and_poll("long_task", json!({"steps": 100, "step_ms": 100}), 2)
            .await
            .expect_err("capped");
        assert!(
            matches!(capped.kind(), ErrorKind::TaskPollCap { max_polls: 2 }),
            "{via:?}: {capped:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5), "{via:?}");
        if !via.modern() {
            // The capped task was cancelled: once the server answered the
            // client's `tasks/cancel`, the task is listed as cancelled.
            let cancel = |d: &DemoServer| d.requests_answered("tasks/cancel") >= 1;
            server.until("tasks/cancel", cancel).await;
            let page = client.list_tasks(None).await.expect("tasks/list");
            let cancelled = page
                .tasks
                .iter()
                .any(|t| t.status == mcp_client::mcp_types::tasks::TaskStatus::Cancelled);
            assert!(cancelled, "{via:?}: {:?}", page.tasks);
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn related_task_metadata_leads_to_the_task() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 2, "step_ms": 20}), fast())
            .await
            .expect("task");
        let id = task.task_id().expect("id");
        let pointer = json!({"content": [], "_meta": {
            "io.modelcontextprotocol/related-task": {"taskId": id}
        }});
        let other = tokio::time::timeout(BOUND, client.wait_for_related_task(&pointer, fast()));
        let (mine, other) = tokio::join!(task.wait_timeout(BOUND), other);
        let mine = mine.expect("result");
        let other = other
            .expect("bounded")
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(text(&other.content), text(&mine.content), "{via:?}");
        if !via.modern() {
            // 2025-11-25: tasks/result names its task in _meta.
            let mut again = client
                .related_task(&mine, fast())
                .expect("meta")
                .expect("related-task");
            assert_eq!(again.task_id(), Some(id.clone()), "known before any poll");
            assert_eq!(
                again.wait_timeout(BOUND).await.expect("result").content,
                mine.content
            );
            assert_eq!(again.task_id(), Some(id.clone()), "{via:?}");
        }
        let none = client
            .related_task(&json!({"content": []}), fast())
            .expect("no meta");
        assert!(none.is_none());
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_poll_interval_overrides_the_servers() {
    // The demo suggests 50 ms; the caller asks for 400 ms; the task takes
    // 600 ms. So the first poll (at 400 ms) finds it working and the second
    // finds it over: at 800 ms, or as soon as a pushed `completed` status
    // (2025-11-25) pulls it forward. At the server's pace there would be a
    // dozen polls.
    for via in ALL {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let opts = CallOptions::new().with_poll_interval(Duration::from_millis(400));
        let started = Instant::now();
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 1, "step_ms": 600}), opts)
            .await
            .expect("task");
        task.wait_timeout(BOUND).await.expect("result");
        assert!(
            started.elapsed() >= Duration::from_millis(600),
            "{via:?}: the outcome needs the task to end"
        );
        // Two polls (one at 400 ms finds it working, the next finds it
        // over), or one when a loaded machine ran the first late.
        let polls = task.status().map_or(0, |s| s.polls);
        assert!(
            (1..=2).contains(&polls),
            "{via:?}: {polls} polls; at the server's 50 ms pace there would be a dozen"
        );
        client.close().await;
    }
}

/// 2025-11-25: the demo pushes `notifications/tasks/status` when a task
/// ends, and that push fetches the outcome at once, not at the caller's
/// (slow) next poll.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pushed_completion_does_not_wait_for_the_next_poll() {
    for via in [Via::StdioLegacy, Via::HttpLegacy] {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let opts = CallOptions::new().with_poll_interval(Duration::from_secs(20));
        let started = Instant::now();
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 1, "step_ms": 50}), opts)
            .await
            .expect("task");
        task.wait_timeout(BOUND).await.expect("result");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{via:?}: done on the push, not at the 20 s poll"
        );
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_task_pushes_on_a_listen_stream_feed_the_callback() {
    use mcp_client::mcp_types::subscriptions::SubscriptionFilter;
    for via in [Via::StdioModern, Via::HttpModern] {
        let server = Server::start(via).await;
        let client = connect(&server).await;
        let opts = CallOptions::new().with_poll_interval(Duration::from_millis(1500));
        let mut task = client
            .call_tool_as_task("long_task", json!({"steps": 3, "step_ms": 60}), opts)
            .await
            .expect("task");
        let id = task.task_id().expect("id");
        let seen: Arc<Recorder<TaskSnapshot>> = Arc::default();
        let sink = Arc::clone(&seen);
        task.on_status_change(move |s| sink.push(s.clone()));
        let listen = client
            .listen(SubscriptionFilter::new().with_task(id))
            .await
            .expect("listen");
        let started = Instant::now();
        let pushed_end = seen
            .wait_for(WITHIN, |s| {
                s.iter()
                    .any(|s| s.status == TaskStatus::Completed && s.polls == 0)
            })
            .await;
        assert!(pushed_end.is_ok(), "{via:?}: {pushed_end:?}");
        assert!(started.elapsed() < Duration::from_millis(1400), "{via:?}");
        let result = task.wait_timeout(BOUND).await.expect("result");
        assert_eq!(text(&result.content), "long_task finished 3 steps");
        drop(listen);
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_modern_task_answers_input_through_the_closure() {
    for via in [Via::StdioModern, Via::HttpModern] {
        let server = Server::start(via).await;
        // Two clients of one server: the owner starts the task, the other
        // attaches to it by id and answers its input. The owner's user never
        // answers (its handler waits forever), so the owner does not race
        // the other client with an answer of its own.
        let owner = server
            .observable_builder()
            .form_elicitation(never_answers)
            .connect()
            .await
            .expect("owner");
        // The other client has no handler of its own: input its poller
        // finds before the closure is installed waits for the closure.
        let other = server.observable_builder().connect().await.expect("other");
        let args = json!({"steps": 4, "step_ms": 100, "confirm": true});
        let mut task = owner
            .call_tool_as_task("long_task", args, fast())
            .await
            .expect("task");
        // The owner pauses at input_required and keeps the request.
        let until_input = TaskStates::terminal().with(TaskStatus::InputRequired);
        let seen = tokio::time::timeout(BOUND, task.wait_for(until_input))
            .await
            .expect("bounded")
            .expect("state");
        assert_eq!(seen.status, TaskStatus::InputRequired, "{via:?}");
        let id = task.task_id().expect("id");
        let mut attached = other.attach_task(&id, fast()).expect("attach");
        let asked = Arc::new(AtomicU32::new(0));
        let counter = Arc::clone(&asked);
        let result = tokio::time::timeout(
            BOUND,
            attached.wait_for_task_with_inputs(move |request| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    assert_eq!(request.method, "elicitation/create");
                    Ok(json!({"action": "accept", "content": {"confirm": true}}))
                }
            }),
        )
        .await
        .expect("bounded")
        .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(
            text(&result.content),
            "long_task finished 4 steps",
            "{via:?}"
        );
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{via:?}: answered once");
        let mine = task.wait_timeout(BOUND).await.expect("owner's result");
        assert_eq!(mine.content, result.content, "{via:?}");
        owner.close().await;
        other.close().await;
    }
}

/// A client of the scripted server behind `transport`, in `era`.
async fn scripted_client(
    transport: mcp_testkit::ScriptedTransport,
    era: mcp_client::EraPreference,
) -> Client {
    Client::builder()
        .era(era)
        .transport(transport)
        .connect()
        .await
        .expect("connect")
}

/// Tool `long` called as a task.
async fn long_task(client: &Client) -> mcp_client::TaskHandle {
    client
        .call_tool_as_task("long", json!({}), CallOptions::new())
        .await
        .expect("task")
}

/// A 2025-11-25 task `L1` as the scripted server reports it (polled every
/// second).
fn scripted_task(status: &str) -> serde_json::Value {
    json!({"taskId": "L1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
           "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 1000})
}

/// The poll cap is the core's (`Connection::wait_task`): it counts the
/// polls, stops polling when the cap is reached (the task runs on,
/// unpolled), and the next wait resumes polling. The era's shape of the
/// task call is the core's too (`params.task` in 2025-11-25). On tokio's
/// paused clock against a scripted server.
#[tokio::test(start_paused = true)]
async fn a_poll_cap_stops_polling_until_the_next_wait() {
    use mcp_client::EraPreference;
    use mcp_testkit::{Delivery, capabilities, scripted};
    let (transport, mut peer) = scripted();
    let mut caps = capabilities();
    caps["tasks"] = json!({"requests": {"tools": {"call": {}}}, "cancel": {}, "list": {}});
    peer.serve_legacy(caps);
    peer.answer("tools/call", json!({"task": scripted_task("working")}));
    peer.answer("tasks/get", scripted_task("working"));
    let client = scripted_client(transport, EraPreference::LegacyOnly).await;
    let mut task = long_task(&client).await;
    let call = peer.next_request("tools/call").await;
    assert_eq!(call.params()["task"], json!({}), "task-augmented");
    let started = tokio::time::Instant::now();
    let capped = task.wait_with_poll_cap(2).await.expect_err("capped");
    assert!(
        matches!(capped.kind(), ErrorKind::TaskPollCap { max_polls: 2 }),
        "{capped:?}"
    );
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(2),
        "two polls, 1 s apart"
    );
    assert_eq!(peer.sent("tasks/get").len(), 2);
    assert_eq!(task.status().map(|s| s.polls), Some(2));
    for _ in 0..2 {
        peer.next_request("tasks/get").await;
    }
    // The task runs on, unpolled.
    let quiet = peer.frames_within(Duration::from_secs(30)).await;
    assert!(
        quiet.iter().all(|f| f.method() != Some("tasks/get")),
        "no poll past the cap: {quiet:?}"
    );
    // Waiting again resumes polling; the task ends on the next poll.
    peer.once("tasks/get", |req| {
        vec![Delivery::result(req, scripted_task("completed"))]
    });
    peer.answer(
        "tasks/result",
        json!({"content": [{"type": "text", "text": "done"}]}),
    );
    let resumed = tokio::time::Instant::now();
    let result = task.wait().await.expect("result");
    assert_eq!(text(&result.content), "done");
    assert_eq!(
        resumed.elapsed(),
        Duration::from_secs(1),
        "at the task's pace"
    );
    assert_eq!(task.status().map(|s| s.status), Some(TaskStatus::Completed));
    client.close().await;
}

/// A 2026-07-28 task input the client cannot serve (it declared no
/// elicitation) ends a wait for states with the client's error for it
/// ([`ErrorKind::Handler`]), not with the `cancelled` state the core
/// concludes from the `tasks/cancel` the client then sends.
#[tokio::test(start_paused = true)]
async fn an_input_the_client_cannot_serve_ends_a_state_wait_with_its_error() {
    use mcp_client::EraPreference;
    use mcp_testkit::{capabilities, scripted};
    let (transport, mut peer) = scripted();
    peer.serve_modern(capabilities());
    let task = |status: &str| {
        json!({"taskId": "t-1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
               "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 1000})
    };
    let mut created = task("working");
    created["resultType"] = json!("task");
    peer.answer("tools/call", created);
    let mut asks = task("input_required");
    asks["resultType"] = json!("complete");
    asks["inputRequests"] = json!({"q": {"method": "elicitation/create",
        "params": {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}}});
    peer.answer("tasks/get", asks);
    peer.answer("tasks/cancel", json!({}));
    let client = scripted_client(transport, EraPreference::ModernOnly).await;
    let mut handle = long_task(&client).await;
    let ended = handle
        .wait_for(TaskStates::terminal())
        .await
        .expect_err("not served");
    assert!(
        matches!(ended.kind(), ErrorKind::Handler { method, .. } if method == "elicitation/create"),
        "{ended:?}"
    );
    peer.next_request("tasks/cancel").await;
    // Asked again, the wait gives the same answer.
    let again = handle.wait_for(TaskStates::terminal()).await;
    assert!(
        matches!(&again, Err(e) if matches!(e.kind(), ErrorKind::Handler { .. })),
        "{again:?}"
    );
    client.close().await;
}

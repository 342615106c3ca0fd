//! The transport against real child processes (python3 and sh fixtures).
#![cfg(unix)]

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use mcp_transport_stdio::{
    DEFAULT_MAX_LINE_LENGTH, Inbound, RecvError, SendError, ServerCommand, ShutdownOutcome,
    SkipReason, SpawnError, StderrMode, StdioTransport,
};
use mcp_types::{Message, RequestId};
use serde_json::json;

fn echo_of(m: &Message) -> serde_json::Value {
    match m {
        Message::Response(r) => r.result.decode().expect("JSON result"),
        other => panic!("expected a response, got {other:?}"),
    }
}

#[tokio::test]
async fn banners_before_and_between_messages_are_skipped() {
    let mut t = StdioTransport::spawn(server(&["--banner"])).unwrap();
    t.send(&request(1, "tools/list", json!({"a": 1})))
        .await
        .unwrap();
    let (before, first) = until_message(&mut t).await;
    assert_eq!(echo_of(&first), json!({"echo": {"a": 1}}));
    let skipped: Vec<_> = before
        .iter()
        .map(|i| match i {
            Inbound::Skipped(s) => (s.reason, s.excerpt.clone()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        skipped,
        [
            (
                SkipReason::NotJson,
                "Starting demo server v1.2.3 ...".into()
            ),
            (SkipReason::NotJson, "✓ ready (UTF-8 banner)".into()),
        ]
    );

    t.send(&request(2, "ping", json!({}))).await.unwrap();
    let (between, second) = until_message(&mut t).await;
    assert!(matches!(second, Message::Response(ref r) if r.id == RequestId::Number(2)));
    assert!(matches!(&between[..], [Inbound::Skipped(s)] if s.excerpt == "log: handled a request"));
    // The server logs once more after its last reply: read that line before
    // shutting down, so the server never writes into a closed pipe (it would
    // then exit with an error, which is not what this test is about).
    let trailing = tokio::time::timeout(TIMEOUT, t.recv())
        .await
        .expect("the trailing log line")
        .expect("stream open")
        .expect("no error");
    assert!(matches!(trailing, Inbound::Skipped(ref s) if s.excerpt == "log: handled a request"));
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Exited);
    assert_eq!(exit.status.and_then(|s| s.code()), Some(0));
}

#[tokio::test]
async fn a_32_mib_line_is_refused_by_the_default_cap_and_fits_a_raised_one() {
    const SIZE: usize = 32 * 1024 * 1024;
    // The default cap (16 MiB) discards it, names the cap, and the session
    // goes on.
    let mut t = StdioTransport::spawn(server(&[])).unwrap();
    t.send(&request(1, "big", json!({"size": SIZE})))
        .await
        .unwrap();
    t.send(&request(2, "ping", json!("after"))).await.unwrap();
    let (before, m) = until_message(&mut t).await;
    let [Inbound::Oversized(e)] = &before[..] else {
        panic!("expected one oversized report, got {before:?}")
    };
    assert_eq!(e.limit, DEFAULT_MAX_LINE_LENGTH);
    assert_eq!(DEFAULT_MAX_LINE_LENGTH, 16 * 1024 * 1024);
    // The discarded line names the request it answered.
    assert_eq!(e.id, Some(RequestId::Number(1)));
    assert_eq!(
        e.to_string(),
        format!(
            "the server's response to request 1 is {} bytes, over the line limit of 16777216 \
             bytes; it was discarded",
            e.len
        )
    );
    assert_eq!(echo_of(&m), json!({"echo": "after"}));
    t.shutdown().await;

    // A server known to send more gets a larger cap of its own.
    let mut t = StdioTransport::spawn(server(&[]).max_line_length(40 * 1024 * 1024)).unwrap();
    t.send(&request(1, "big", json!({"size": SIZE})))
        .await
        .unwrap();
    let (_, m) = until_message(&mut t).await;
    let Message::Response(r) = m else {
        panic!("expected a response")
    };
    assert_eq!(r.result.len(), SIZE + r#"{"data":""}"#.len());
    t.shutdown().await;
}

/// The server's stdout pipe capacity, as the server sees it.
#[cfg(target_os = "linux")]
async fn pipe_size(t: &mut StdioTransport, id: i64) -> u64 {
    t.send(&request(id, "pipe_size", json!({})))
        .await
        .expect("send pipe_size");
    let (_, m) = until_message(t).await;
    let Message::Response(r) = m else {
        panic!("expected a response")
    };
    let v: serde_json::Value = r.result.decode().expect("JSON result");
    v["pipe_size"].as_u64().expect("a size")
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_stdout_pipe_grows_once_a_message_outgrows_it() {
    let mut t = StdioTransport::spawn(server(&[])).unwrap();
    let before = pipe_size(&mut t, 1).await;
    // Small messages leave it as it is.
    for id in 2..5 {
        t.send(&request(id, "ping", json!("x".repeat(1000))))
            .await
            .unwrap();
        until_message(&mut t).await;
    }
    assert_eq!(pipe_size(&mut t, 5).await, before);
    // One larger than the pipe grows it, and the message arrives whole.
    t.send(&request(6, "big", json!({"size": 200 * 1024})))
        .await
        .unwrap();
    let (_, m) = until_message(&mut t).await;
    let Message::Response(r) = m else {
        panic!("expected a response")
    };
    assert_eq!(r.result.len(), 200 * 1024 + r#"{"data":""}"#.len());
    assert_eq!(pipe_size(&mut t, 7).await, 1024 * 1024);
    t.shutdown().await;
}

#[tokio::test]
async fn an_oversized_line_is_reported_and_the_session_continues() {
    let mut t = StdioTransport::spawn(server(&[]).max_line_length(1024 * 1024)).unwrap();
    t.send(&request(1, "big", json!({"size": 3 * 1024 * 1024})))
        .await
        .unwrap();
    t.send(&request(2, "ping", json!("after"))).await.unwrap();
    let (before, m) = until_message(&mut t).await;
    match &before[..] {
        [Inbound::Oversized(e)] => {
            assert_eq!(e.limit, 1024 * 1024);
            assert!(e.len > 3 * 1024 * 1024);
        }
        other => panic!("expected one oversized report, got {other:?}"),
    }
    assert_eq!(echo_of(&m), json!({"echo": "after"}));
    t.shutdown().await;
}

#[tokio::test]
async fn a_crash_mid_request_fails_promptly_with_status_and_stderr() {
    let mut t = StdioTransport::spawn(server(&[])).unwrap();
    t.send(&request(1, "ping", json!({}))).await.unwrap();
    until_message(&mut t).await;
    let started = Instant::now();
    t.send(&request(2, "crash", json!({}))).await.unwrap();
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    assert!(started.elapsed() < Duration::from_secs(2), "not prompt");
    assert_eq!(e.exit_code(), Some(3));
    assert_eq!(e.messages_received, 1);
    assert!(!e.before_first_message());
    assert!(
        e.stderr_tail
            .iter()
            .any(|l| l == "panic: crashing on purpose")
    );
    assert!(e.to_string().contains("panic: crashing on purpose"), "{e}");
    assert!(t.recv().await.is_none(), "the stream ends after the error");

    // Writing to the dead child is an error value, not a crash.
    let err = t.send(&request(3, "ping", json!({}))).await.unwrap_err();
    assert!(matches!(err, SendError::PeerClosed(_)), "{err:?}");
    let err = t.send(&request(4, "ping", json!({}))).await.unwrap_err();
    assert!(matches!(err, SendError::PeerClosed(_)), "{err:?}");
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Exited);
    assert_eq!(exit.status.and_then(|s| s.code()), Some(3));
}

/// The server (python, with a SIGTERM-ignoring grandchild) and the
/// grandchild's pid.
async fn stubborn_tree(t: &mut StdioTransport) -> u32 {
    let (_, m) = until_message(t).await;
    let Message::Notification(n) = m else {
        panic!("expected the grandchild notification")
    };
    let params: serde_json::Value =
        serde_json::from_str(n.params.expect("params").get()).expect("JSON");
    u32::try_from(params["pid"].as_u64().expect("pid")).expect("u32 pid")
}

#[tokio::test]
async fn a_crash_reports_several_stderr_lines_and_stops_the_group_at_once() {
    let mut t = StdioTransport::spawn(server(&["--grandchild", "--stubborn"])).unwrap();
    let grandchild = stubborn_tree(&mut t).await;
    t.send(&request(1, "crash", json!({}))).await.unwrap();
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    assert_eq!(e.exit_code(), Some(3));
    let text = e.to_string();
    assert!(
        text.contains(
            "(exit status: 3); stderr: panic: crashing on purpose | goroutine 1 [running]: \
             | main.handle(0x2a) | server.go:42 +0x1d"
        ),
        "{text}"
    );
    // The transport is still held and not shut down: the grandchild, which
    // ignores SIGTERM, is killed anyway (after_terminate is 300 ms here).
    assert!(
        wait_dead(grandchild, Duration::from_secs(3)).await,
        "the crashed server's grandchild survived"
    );
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Killed);
    assert_eq!(exit.status.and_then(|s| s.code()), Some(3));
}

#[tokio::test]
async fn a_server_killed_with_sigkill_reports_the_signal() {
    let mut t = StdioTransport::spawn(server(&["--stderr-lines", "3"])).unwrap();
    t.send(&request(1, "ping", json!({}))).await.unwrap();
    until_message(&mut t).await;
    let pid = t.process().id().expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(e.status.and_then(|s| s.signal()), Some(9));
    assert!(
        e.to_string()
            .contains("(signal: 9 (SIGKILL)); stderr: log line 0 | log line 1 | log line 2"),
        "{e}"
    );
    assert_eq!(t.process().exit_status().and_then(|s| s.signal()), Some(9));
    t.shutdown().await;
}

#[tokio::test]
async fn a_child_that_exits_before_the_handshake_is_reported_as_such() {
    let mut t = StdioTransport::spawn(server(&["--exit-early", "7"])).unwrap();
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    assert!(e.before_first_message());
    assert_eq!(e.exit_code(), Some(7));
    assert_eq!(e.stderr_tail, ["fatal: missing configuration"]);
    assert!(
        e.to_string()
            .contains("before sending any message; stderr: fatal: missing configuration"),
        "{e}"
    );
    assert_eq!(t.process().exit_status().and_then(|s| s.code()), Some(7));
}

#[tokio::test]
async fn epipe_after_the_child_died_is_an_error_value() {
    let t = StdioTransport::spawn(server(&["--exit-early", "0"])).unwrap();
    let status = tokio::time::timeout(TIMEOUT, t.process().wait())
        .await
        .unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(0));
    let big = request(1, "ping", json!("x".repeat(1 << 20)));
    let err = t.send(&big).await.unwrap_err();
    assert!(matches!(err, SendError::PeerClosed(_)), "{err:?}");
    t.shutdown().await;
}

#[tokio::test]
async fn a_child_ignoring_sigterm_is_killed_within_the_bound() {
    let cmd = server(&["--ignore-term"]).shutdown_timeouts(
        fast_shutdown()
            .with_after_stdin_close(Duration::from_millis(200))
            .with_after_terminate(Duration::from_millis(200)),
    );
    let mut t = StdioTransport::spawn(cmd).unwrap();
    t.send(&request(1, "ping", json!({}))).await.unwrap();
    until_message(&mut t).await;
    let pid = t.process().id().unwrap();
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Killed);
    assert!(exit.elapsed < Duration::from_secs(2), "{:?}", exit.elapsed);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(exit.status.and_then(|s| s.signal()), Some(9));
    assert!(!pid_alive(pid));
}

/// Starts the wrapper (sh -> python -> sleep) and returns the transport and
/// the pids of the shell and the grandchild `sleep`.
async fn tree() -> (StdioTransport, u32, u32) {
    let cmd = ServerCommand::new("sh")
        .arg(fixture("wrapper.sh"))
        .arg("--grandchild")
        .shutdown_timeouts(fast_shutdown().with_after_stdin_close(Duration::from_millis(300)));
    let mut t = StdioTransport::spawn(cmd).expect("spawn");
    let (_, m) = until_message(&mut t).await;
    let Message::Notification(n) = m else {
        panic!("expected the grandchild notification")
    };
    let params: serde_json::Value =
        serde_json::from_str(n.params.expect("params").get()).expect("JSON");
    let grandchild = u32::try_from(params["pid"].as_u64().expect("pid")).expect("u32 pid");
    let pid = t.process().id().expect("pid");
    assert!(pid_alive(grandchild) && pid_alive(pid));
    (t, pid, grandchild)
}

#[tokio::test]
async fn the_grandchild_dies_with_the_tree_on_shutdown() {
    let (t, pid, grandchild) = tree().await;
    let exit = t.shutdown().await;
    // The server exits on stdin EOF, its `sleep` survives that: it takes
    // the SIGTERM step to clear the group.
    assert_eq!(exit.outcome, ShutdownOutcome::Terminated);
    assert!(wait_dead(grandchild, Duration::from_secs(3)).await);
    assert!(!pid_alive(pid));
}

#[tokio::test]
async fn dropping_the_transport_kills_the_tree_and_reaps_the_child() {
    let (t, pid, grandchild) = tree().await;
    drop(t);
    assert!(wait_dead(grandchild, Duration::from_secs(5)).await);
    // Reaped, not a zombie: our own child disappears from /proc entirely.
    let gone = async {
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), gone)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_requests_in_flight_on_one_child() {
    const N: i64 = 1000;
    let t = StdioTransport::spawn(server(&[])).unwrap();
    let (sender, mut receiver, process) = t.into_parts();
    let reader = tokio::spawn(async move {
        let mut ids = HashSet::new();
        while ids.len() < N as usize {
            match receiver.recv().await {
                Some(Ok(Inbound::Message(Message::Response(r)))) => {
                    assert!(ids.insert(r.id), "duplicate response");
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        ids
    });
    let writers: Vec<_> = (0..N)
        .map(|id| {
            let sender = sender.clone();
            tokio::spawn(async move {
                sender
                    .send(&request(id, "tools/call", json!({"n": id})))
                    .await
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap().unwrap();
    }
    let ids = tokio::time::timeout(TIMEOUT, reader)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ids, (0..N).map(RequestId::Number).collect());
    drop(sender);
    assert_eq!(process.shutdown().await.outcome, ShutdownOutcome::Exited);
}

#[tokio::test]
async fn stderr_is_drained_into_a_bounded_tail_and_forwarded() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let cmd = server(&["--stderr-lines", "5000"])
        .stderr_tail_lines(3)
        .on_stderr_line(move |l| sink.lock().unwrap().push(l.to_owned()));
    let mut t = StdioTransport::spawn(cmd).unwrap();
    t.send(&request(1, "ping", json!({}))).await.unwrap();
    until_message(&mut t).await;
    let exit = t.shutdown().await;
    assert_eq!(
        exit.stderr_tail,
        ["log line 4997", "log line 4998", "log line 4999"]
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 5000);
    assert_eq!(seen[0], "log line 0");
}

#[tokio::test]
async fn environment_policy_and_working_directory() {
    let script = r#"printf '{"jsonrpc":"2.0","method":"env","params":{"foo":"%s","home":"%s","cwd":"%s"}}\n' "$FOO" "$HOME" "$(pwd)""#;
    let cmd = ServerCommand::new("/bin/sh")
        .args(["-c", script])
        .env_clear()
        .env("FOO", "bar")
        .current_dir("/tmp");
    let mut t = StdioTransport::spawn(cmd).unwrap();
    let (_, m) = until_message(&mut t).await;
    let Message::Notification(n) = m else {
        panic!("expected a notification")
    };
    let params: serde_json::Value = serde_json::from_str(n.params.unwrap().get()).unwrap();
    assert_eq!(params, json!({"foo": "bar", "home": "", "cwd": "/tmp"}));
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    assert_eq!((e.exit_code(), e.messages_received), (Some(0), 1));
}

#[tokio::test]
async fn a_missing_program_is_a_typed_error() {
    let err = StdioTransport::spawn(ServerCommand::new("no-such-mcp-server-xyz")).unwrap_err();
    assert!(matches!(err, SpawnError::NotFound { .. }), "{err:?}");
    let err = StdioTransport::spawn(ServerCommand::new("/nonexistent/server")).unwrap_err();
    assert!(matches!(err, SpawnError::Io { .. }), "{err:?}");
}

#[test]
fn spawning_outside_a_runtime_is_a_typed_error() {
    let err = StdioTransport::spawn(ServerCommand::new("sh")).unwrap_err();
    assert!(matches!(err, SpawnError::NoRuntime));
}

#[tokio::test]
async fn a_closed_stdout_with_a_live_process_is_reported_and_shut_down() {
    let cmd = ServerCommand::new("/bin/sh")
        .args(["-c", "exec 1>&-; echo closing >&2; sleep 30"])
        .shutdown_timeouts(fast_shutdown().with_after_stdin_close(Duration::from_millis(100)));
    let mut t = StdioTransport::spawn(cmd).unwrap();
    let err = end_error(&mut t).await;
    assert!(matches!(err, RecvError::StdoutClosed { .. }), "{err:?}");
    assert_eq!(err.stderr_tail(), ["closing"]);
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Terminated);
}

#[tokio::test]
async fn a_wrapper_dying_while_its_child_holds_stdout_still_ends_the_stream() {
    let cmd = ServerCommand::new("/bin/sh")
        .args(["-c", "sleep 30 & echo $! >&2; exit 4"])
        .shutdown_timeouts(fast_shutdown().with_after_stdin_close(Duration::from_millis(100)));
    let mut t = StdioTransport::spawn(cmd).unwrap();
    let started = Instant::now();
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(e.exit_code(), Some(4));
    let sleeper: u32 = e.stderr_tail[0].parse().unwrap();
    // The orphan holding stdout is stopped as soon as the wrapper exited,
    // not only at shutdown.
    assert!(wait_dead(sleeper, Duration::from_secs(3)).await);
    let exit = t.shutdown().await;
    assert_eq!(exit.outcome, ShutdownOutcome::Terminated);
}

#[tokio::test]
async fn discarded_stderr_leaves_an_empty_tail() {
    let cmd = server(&["--exit-early", "2"]).stderr(StderrMode::Discard);
    let mut t = StdioTransport::spawn(cmd).unwrap();
    let RecvError::ProcessExited(e) = end_error(&mut t).await else {
        panic!("expected ProcessExited")
    };
    assert_eq!((e.exit_code(), e.stderr_tail.len()), (Some(2), 0));
}

#[test]
fn dropping_outside_a_runtime_still_kills_the_tree() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (t, _pid, grandchild) = rt.block_on(tree());
    // The runtime goes first: no background shutdown can run any more.
    drop(rt);
    drop(t);
    let end = Instant::now() + Duration::from_secs(5);
    while pid_alive(grandchild) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!pid_alive(grandchild));
}

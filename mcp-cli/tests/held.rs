//! Held connections: `mcp connect NAME`, `@NAME` and the most recent
//! connection, `mcp disconnect`, the holder's private socket and its exit
//! when idle.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::{HttpServer, demo_exe, mcp_in, temp_dir};
use serde_json::Value;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
fn commands_run_on_held_connections_until_disconnected() {
    let runtime = temp_dir("held");
    let mcp = |args: &[&str]| mcp_in(&runtime, args);
    let demo = demo_exe();
    let demo = demo.to_str().expect("utf-8 path");
    let http = HttpServer::start(demo_exe());

    let out = mcp(&["connect", "dev", "--era", "legacy", "--", demo]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("connected dev"),
        "{}",
        text(&out.stdout)
    );

    let dir = runtime.join("mcp-cli");
    assert_private(&dir);

    // A legacy task lives in its session: listing it later proves the
    // connection was held between the two runs.
    let out = mcp(&[
        "@dev",
        "--json",
        "tools",
        "call",
        "long_task",
        "steps=1",
        "step_ms=1",
        "--task",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let task_id = text(&out.stderr)
        .split_whitespace()
        .nth(2)
        .map(str::to_owned)
        .expect("the task id is announced");
    let out = mcp(&["--json", "tasks", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ids: Vec<String> = json(&out)["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["taskId"].as_str().map(str::to_owned))
        .collect();
    assert!(ids.contains(&task_id), "{task_id} in {ids:?}");

    let out = mcp(&["connect", "web", "--", &http.url]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = mcp(&["tools", "call", "echo", "text=most recent"]);
    assert_eq!(text(&out.stdout), "most recent\n");
    let out = mcp(&["--json", "@dev", "info"]);
    assert_eq!(json(&out)["era"], "legacy");
    let out = mcp(&["@web", "tools", "call", "add", "a=1", "b=x"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "schema errors keep their exit code"
    );

    let out = mcp(&["connections"]);
    let list = json(&out);
    assert_eq!(list["connections"][0]["name"], "web");
    assert_eq!(list["connections"][1]["name"], "dev");

    assert_eq!(mcp(&["disconnect", "web"]).status.code(), Some(0));
    assert_eq!(mcp(&["disconnect"]).status.code(), Some(0));
    let out = mcp(&["@dev", "ping"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no held connection"),
        "{}",
        text(&out.stderr)
    );

    assert_holder_exits(&dir);
}

/// Only the user can open the holder's directory and socket.
fn assert_private(dir: &std::path::Path) {
    let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode(dir).ok(), Some(0o700));
    assert_eq!(mode(&dir.join("daemon.sock")).ok(), Some(0o600));
}

/// Holding nothing, the holder exits and removes its socket.
fn assert_holder_exits(dir: &std::path::Path) {
    let start = Instant::now();
    while dir.join("daemon.sock").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the holder did not exit"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn an_agent_answers_a_pending_elicitation_from_another_command() {
    let runtime = temp_dir("held-elicit");
    let mcp = |args: &[&str]| mcp_in(&runtime, args);
    connect_e(&runtime, &[]);

    let caller = start_interview(&runtime);
    let wait_pending = |id: u64| wait_pending(&runtime, id);
    let first = wait_pending(1);
    assert_eq!(first["message"], "What is your name?");
    assert_eq!(first["requestedSchema"]["required"][0], "name");
    // An answer the schema refuses keeps the question open.
    let out = mcp(&["elicitation", "respond", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        mcp(&["elicitation", "respond", "1", "name=Ada"])
            .status
            .code(),
        Some(0)
    );
    wait_pending(2);
    assert_eq!(
        mcp(&["elicitation", "respond", "2", "colour=green"])
            .status
            .code(),
        Some(0)
    );

    let done = common::wait(caller);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    assert_eq!(text(&done.stdout), "Ada likes green\n");
    assert!(
        text(&done.stderr).contains("elicitation 1 pending"),
        "{}",
        text(&done.stderr)
    );
    let out = mcp(&["elicitation", "respond", "9", "--decline"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(mcp(&["disconnect", "e"]).status.code(), Some(0));
}

/// `mcp connect e OPTIONS --era legacy -- demo-server`.
fn connect_e(runtime: &std::path::Path, options: &[&str]) {
    let demo = demo_exe();
    let mut args = vec!["connect", "e"];
    args.extend_from_slice(options);
    args.extend(["--era", "legacy", "--", demo.to_str().expect("utf-8")]);
    let out = mcp_in(runtime, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `mcp @e tools call interview`, running: it waits for answers.
fn start_interview(runtime: &std::path::Path) -> std::process::Child {
    std::process::Command::new(common::mcp_exe())
        .args(["@e", "tools", "call", "interview"])
        .env("XDG_RUNTIME_DIR", runtime)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the calling mcp")
}

/// Waits until the oldest pending elicitation is number `id`.
fn wait_pending(runtime: &std::path::Path, id: u64) -> Value {
    let start = Instant::now();
    loop {
        let list = json(&mcp_in(runtime, &["--json", "elicitation", "list"]));
        if let Some(e) = list["elicitations"].as_array().and_then(|a| a.first())
            && e["id"] == id
        {
            return e.clone();
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no pending elicitation {id}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ctrl_c_in_a_held_command_ends_it_and_frees_the_connection() {
    let runtime = temp_dir("held-ctrl-c");
    let mcp = |args: &[&str]| mcp_in(&runtime, args);
    connect_e(&runtime, &["--timeout", "0"]);
    // The call is in flight: it waits for an answer (no time limit),
    // holding the connection.
    let caller = start_interview(&runtime);
    wait_pending(&runtime, 1);
    let pid = caller.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -INT");
    let done = common::wait(caller);
    assert_eq!(done.status.code(), Some(130), "{}", text(&done.stderr));
    // The holder dropped the call: the connection serves the next command.
    let out = mcp(&[
        "@e",
        "--timeout",
        "5",
        "tools",
        "call",
        "echo",
        "text=after",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "after\n");
    assert_eq!(mcp(&["disconnect", "e"]).status.code(), Some(0));
}

#[test]
fn skills_load_and_read_on_a_held_connection() {
    let runtime = temp_dir("held-skills");
    let mcp = |args: &[&str]| mcp_in(&runtime, args);
    let demo = demo_exe();
    let demo = demo.to_str().expect("utf-8 path");
    let out = mcp(&["connect", "sk", "--", demo]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let pdf = "skill://pdf-processing/SKILL.md";
    let out = mcp(&["@sk", "--json", "skills", "load", pdf]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(json(&out)["verified"], true);
    let out = mcp(&[
        "@sk",
        "--json",
        "skills",
        "read",
        pdf,
        "templates/invoice.md",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        json(&out)["text"]
            .as_str()
            .unwrap()
            .starts_with("# Invoice")
    );
    let out = mcp(&["@sk", "skills", "load", "skill://live-status/SKILL.md"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot be verified"));

    assert_eq!(mcp(&["disconnect", "sk"]).status.code(), Some(0));
}

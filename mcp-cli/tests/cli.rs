//! The real `mcp` binary against the real `demo-server` binary: both eras,
//! over stdio and over Streamable HTTP on loopback; output (text and
//! `--json` parsed back) and exit codes.

mod common;

use common::{HttpServer, demo_exe, mcp, mcp_stdio};
use serde_json::Value;

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn tools_list_in_both_eras_over_stdio() {
    for era in ["legacy", "modern"] {
        let out = mcp_stdio(&["--json", "--era", era, "tools", "list"], &["--era", era]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        let doc = json(&out);
        let tools = doc["tools"].as_array().expect("a tools array");
        assert_eq!(tools.len(), 26, "{era}: every page is listed");
        assert!(
            tools
                .iter()
                .any(|t| t["name"] == "echo" && t["inputSchema"].is_object())
        );

        let out = mcp_stdio(&["--era", era, "tools", "list"], &["--era", era]);
        assert!(text(&out.stdout).contains("echo(text: string)"), "{era}");
    }
}

#[test]
fn info_reports_the_era_and_how_it_was_detected() {
    let out = mcp_stdio(&["--json", "info"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = json(&out);
    assert_eq!(doc["era"], "modern");
    assert_eq!(doc["protocolVersion"], "2026-07-28");
    assert_eq!(doc["serverInfo"]["name"], "demo-server");
    assert_eq!(doc["eraDetection"]["decidedBy"], "Discover");
    assert!(
        doc["eraDetection"]["connectMs"]
            .as_f64()
            .is_some_and(|ms| ms > 0.0)
    );
    assert!(doc["capabilities"]["tools"].is_object());

    // Auto against a legacy-only server falls back to initialize.
    let out = mcp_stdio(&["--json", "info"], &["--era", "legacy"]);
    let doc = json(&out);
    assert_eq!(doc["era"], "legacy");
    assert_eq!(doc["protocolVersion"], "2025-11-25");
    assert_ne!(doc["eraDetection"]["decidedBy"], "Discover");

    let out = mcp_stdio(&["info"], &[]);
    let shown = text(&out.stdout);
    assert!(shown.contains("modern (protocol 2026-07-28)"), "{shown}");
    assert!(shown.contains("server/discover answered in"), "{shown}");
    assert!(shown.contains("instructions"), "{shown}");
}

#[test]
fn a_tool_call_prints_its_content_and_json_parses_back() {
    for era in ["legacy", "modern"] {
        let out = mcp_stdio(
            &["--era", era, "tools", "call", "echo", "text=hello there"],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "hello there\n");

        let out = mcp_stdio(
            &[
                "--json",
                "--era",
                era,
                "tools",
                "call",
                "add",
                "--json",
                r#"{"a": 2, "b": 3}"#,
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(json(&out)["structuredContent"]["sum"], 5.0, "{era}");
    }
}

#[test]
fn json_arguments_come_from_a_file_too() {
    let dir = common::temp_dir("args");
    let file = dir.join("args.json");
    std::fs::write(&file, r#"{"a": 40, "b": 2}"#).expect("write args");
    let at = format!("@{}", file.display());
    let out = mcp_stdio(&["--json", "tools", "call", "add", "--args", &at], &[]);
    assert_eq!(json(&out)["structuredContent"]["sum"], 42.0);
}

#[test]
fn a_tool_error_exits_1_with_the_content_printed() {
    let out = mcp_stdio(&["tools", "call", "fail", "message=boom"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "boom\n");
    assert!(text(&out.stderr).contains("reported an error"));

    let out = mcp_stdio(&["--json", "tools", "call", "fail", "message=boom"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["isError"], true);
}

#[test]
fn arguments_the_schema_refuses_exit_2_and_name_the_cause() {
    let out = mcp_stdio(&["tools", "call", "add", "a=2", "b=two"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("b=\"two\": expected number"),
        "{}",
        text(&out.stderr)
    );

    let out = mcp_stdio(&["tools", "call", "echo"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("input schema") && err.contains("text"),
        "{err}"
    );

    let out = mcp_stdio(&["tools", "call", "nope"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no tool \"nope\""));

    let out = mcp_stdio(&["tools", "call", "add", "--args", "[1, 2]"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("JSON object"));
}

#[test]
fn usage_errors_exit_2() {
    let out = mcp(&["tools", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no server given"));
    let out = mcp(&["tools", "frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_server_error_exits_3_with_its_code() {
    for (era, code) in [("legacy", "-32002"), ("modern", "-32602")] {
        let out = mcp_stdio(&["--era", era, "resources", "read", "demo://nope"], &[]);
        assert_eq!(out.status.code(), Some(3), "{era}");
        let err = text(&out.stderr);
        assert!(
            err.contains(code) && err.contains("demo://nope"),
            "{era}: {err}"
        );
    }
}

#[test]
fn transport_failures_exit_4() {
    let out = mcp(&["ping", "--", "/nonexistent/mcp-server"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(text(&out.stderr).contains("/nonexistent/mcp-server"));

    // A loopback port nothing listens on: bound, not listening, and held
    // (a port bound and released could be handed to a server another
    // test starts meanwhile).
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind("127.0.0.1:0".parse().expect("addr"))
        .expect("bind");
    let port = socket.local_addr().expect("addr").port();
    let out = mcp(&["ping", "--url", &format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
}

#[test]
fn a_slow_answer_exits_5() {
    let out = mcp_stdio(
        &[
            "--timeout",
            "0.3",
            "tools",
            "call",
            "slow_count",
            "count=50",
            "delay_ms=100",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("timed out"));
}

#[test]
fn prompts_resources_and_completion() {
    for era in ["legacy", "modern"] {
        let out = mcp_stdio(
            &["--era", era, "prompts", "get", "greeting", "name=Ada"],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{era}");
        assert!(text(&out.stdout).contains("Ada"), "{era}");

        let out = mcp_stdio(&["--json", "--era", era, "prompts", "list"], &[]);
        assert_eq!(json(&out)["prompts"].as_array().map(Vec::len), Some(3));

        let out = mcp_stdio(&["--json", "--era", era, "resources", "list"], &[]);
        let uris: Vec<String> = json(&out)["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(|r| r["uri"].as_str().map(str::to_owned))
            .collect();
        assert!(uris.iter().any(|u| u == "demo://readme"), "{era}: {uris:?}");

        let out = mcp_stdio(&["--era", era, "resources", "templates"], &[]);
        assert!(text(&out.stdout).contains("demo://item/{id}"), "{era}");

        let out = mcp_stdio(
            &[
                "--era", era, "complete", "--prompt", "greeting", "name", "A",
            ],
            &[],
        );
        assert_eq!(text(&out.stdout), "Ada\nAlan\n", "{era}");
    }
}

#[test]
fn binary_contents_are_saved_to_a_file_and_the_path_printed() {
    let dir = common::temp_dir("save");
    let save = dir.to_str().expect("utf-8 temp dir");
    let out = mcp_stdio(
        &["resources", "read", "demo://binary", "--save-dir", save],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let path = shown
        .split(" saved to ")
        .nth(1)
        .map(|p| p.trim().to_owned())
        .expect("a saved path");
    assert!(path.starts_with(save), "{shown}");
    assert!(
        std::fs::metadata(&path).is_ok_and(|m| m.len() > 0),
        "{path}"
    );
}

#[test]
fn elicitation_without_a_terminal_is_declined_with_a_note() {
    for era in ["legacy", "modern"] {
        let out = mcp_stdio(&["--era", era, "tools", "call", "ask_name"], &[]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("decline"), "{era}");
        assert!(text(&out.stderr).contains("no terminal to ask on"), "{era}");
    }
}

#[test]
fn http_in_both_eras() {
    let server = HttpServer::start(demo_exe());
    for era in ["legacy", "modern"] {
        let out = mcp(&["--json", "--era", era, "info", "--", &server.url]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(json(&out)["era"], era);

        let out = mcp(&[
            "--era",
            era,
            "--url",
            &server.url,
            "tools",
            "call",
            "echo",
            "text=over http",
        ]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "over http\n");

        let out = mcp(&[
            "--json",
            "--era",
            era,
            "--url",
            &server.url,
            "tools",
            "call",
            "long_task",
            "steps=2",
            "step_ms=10",
            "--task",
        ]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(json(&out)["isError"], Value::Null, "{era}");
    }
    // Headers and a bearer token travel; a malformed header is a usage error.
    let out = mcp(&[
        "ping",
        "--era",
        "legacy",
        "-H",
        "X-Trace: 1",
        "--bearer",
        "s3cret",
        "--url",
        &server.url,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = mcp(&["ping", "-H", "no colon", "--url", &server.url]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_era_the_server_does_not_speak_exits_3() {
    let out = mcp_stdio(&["--era", "modern", "info"], &["--era", "legacy"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("legacy"),
        "{}",
        text(&out.stderr)
    );
}

/// Starts `mcp --json ARGS --url URL` (a stream ending after one
/// notification), waits for its `ready` note on stderr, runs `mcp --url
/// URL TRIGGER...` on another connection, and returns the one JSON line
/// the stream printed.
fn stream_then_trigger(server: &HttpServer, args: &[&str], ready: &str, trigger: &[&str]) -> Value {
    use std::io::{BufRead, BufReader};
    let mut stream = std::process::Command::new(common::mcp_exe())
        .args(args)
        .args(["--json", "--url", &server.url])
        .env("XDG_RUNTIME_DIR", common::temp_dir("stream"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the streaming mcp");
    // The subscription is acknowledged before the note is printed.
    let stderr = stream.stderr.take().expect("piped stderr");
    let mut first = String::new();
    BufReader::new(stderr)
        .read_line(&mut first)
        .expect("read the stream's stderr");
    assert!(first.contains(ready), "{first}");
    let mut call = vec!["--url", server.url.as_str(), "tools", "call", "trigger"];
    call.extend_from_slice(trigger);
    let out = mcp(&call);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let done = common::wait(stream);
    assert_eq!(done.status.code(), Some(0));
    serde_json::from_slice(&done.stdout).expect("one JSON line")
}

#[test]
fn watch_prints_list_changes_as_json_lines() {
    let server = HttpServer::start(demo_exe());
    let line = stream_then_trigger(
        &server,
        &["watch", "--count", "1"],
        "watching",
        &["event=tools_list_changed"],
    );
    assert_eq!(line["method"], "notifications/tools/list_changed");
}

#[test]
fn resources_subscribe_prints_updates_of_its_resource() {
    let server = HttpServer::start(demo_exe());
    let line = stream_then_trigger(
        &server,
        &["resources", "subscribe", "demo://item/2", "--count", "1"],
        "subscribed to demo://item/2",
        &["event=resource_updated", "uri=demo://item/2", "value=new"],
    );
    assert_eq!(line["method"], "notifications/resources/updated");
    assert_eq!(line["params"]["uri"], "demo://item/2");
}

#[test]
fn the_repl_runs_many_commands_on_one_connection() {
    use std::io::Write;
    let demo = demo_exe();
    let mut child = std::process::Command::new(common::mcp_exe())
        .args(["--era", "legacy", "repl", "--"])
        .arg(&demo)
        .env("XDG_RUNTIME_DIR", common::temp_dir("repl"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start mcp repl");
    let script = "tools call echo text=\"hi there\"\nbogus\n\
                  tools call long_task steps=1 step_ms=1 --task\n--json tasks list\nquit\n";
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(script.as_bytes())
        .expect("write the script");
    let out = common::wait(child);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.starts_with("hi there\n"), "{shown}");
    assert!(text(&out.stderr).contains("unrecognized subcommand 'bogus'"));
    // The task started by one line is listed by a later one: one session.
    let listed = shown.find("\"tasks\"").expect("a JSON task list");
    assert!(shown[listed..].contains("\"taskId\""), "{shown}");
}

#[test]
fn sampling_without_a_terminal_is_refused_and_roots_come_from_root() {
    for era in ["legacy", "modern"] {
        let out = mcp_stdio(
            &["--era", era, "tools", "call", "summarize", "text=hi"],
            &[],
        );
        assert_eq!(out.status.code(), Some(3), "{era}");
        assert!(
            text(&out.stderr).contains("refused a sampling request"),
            "{era}: {}",
            text(&out.stderr)
        );

        let dir = common::temp_dir(&format!("roots-{era}"));
        let root = dir.to_str().expect("utf-8");
        let out = mcp_stdio(
            &["--era", era, "--root", root, "tools", "call", "list_roots"],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains(&format!("file://{root}")),
            "{era}"
        );
    }
    let out = mcp(&["--json", "roots", "list", "--root", "/srv/data"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["roots"][0]["uri"], "file:///srv/data");
}

#[test]
fn skills_list_get_load_and_read_verified_in_both_eras() {
    const PDF: &str = "skill://pdf-processing/SKILL.md";
    for era in ["legacy", "modern"] {
        let run = |args: &[&str]| {
            let mut all = vec!["--json", "--era", era];
            all.extend_from_slice(args);
            mcp_stdio(&all, &["--era", era])
        };
        let out = run(&["skills", "list"]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        let doc = json(&out);
        let uris: Vec<&str> = doc["skills"]
            .as_array()
            .expect("a skills array")
            .iter()
            .filter_map(|s| s["uri"].as_str())
            .collect();
        assert!(uris.contains(&PDF), "{era}: {uris:?}");

        let out = run(&["skills", "get", PDF, "--refresh"]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(json(&out)["skill"]["frontmatter"]["name"], "pdf-processing");

        let out = run(&["skills", "load", PDF]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        let doc = json(&out);
        assert_eq!(doc["verified"], true);
        assert!(doc["text"].as_str().unwrap().contains("# PDF processing"));

        let out = run(&["skills", "read", PDF, "references/FORMS.md"]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        let doc = json(&out);
        assert_eq!(doc["uri"], "skill://pdf-processing/references/FORMS.md");
        assert_eq!(doc["verified"], true);
        assert!(doc["text"].as_str().unwrap().starts_with("# Forms"));

        // Refusals carry the SDK's message and a non-zero exit.
        let out = run(&["skills", "read", PDF, "../live-status/SKILL.md"]);
        assert_eq!(out.status.code(), Some(2), "{era}: {}", text(&out.stderr));
        let out = run(&["skills", "read", PDF, "references/OTHER.md"]);
        assert_eq!(out.status.code(), Some(3), "{era}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("references/OTHER.md"), "{era}");
        let live = "skill://live-status/SKILL.md";
        let out = run(&["skills", "load", live]);
        assert_eq!(out.status.code(), Some(3), "{era}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("cannot be verified"),
            "{era}: {}",
            text(&out.stderr)
        );
        let out = run(&["skills", "load", live, "--allow-unverified"]);
        assert_eq!(out.status.code(), Some(0), "{era}: {}", text(&out.stderr));
        assert_eq!(json(&out)["verified"], false);
    }
    // Text output: the SKILL.md as served.
    let out = mcp_stdio(&["skills", "load", PDF], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("---\nname: pdf-processing"));
}

#[test]
fn resources_directory_read_lists_the_children() {
    let out = mcp_stdio(
        &[
            "--json",
            "resources",
            "directory-read",
            "skill://pdf-processing",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = json(&out);
    let children: Vec<(&str, &str)> = doc["resources"]
        .as_array()
        .expect("a resources array")
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap_or(""),
                r["mimeType"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(
        children.contains(&("skill://pdf-processing/templates", "inode/directory")),
        "{children:?}"
    );
    assert!(
        children
            .iter()
            .any(|(u, _)| *u == "skill://pdf-processing/SKILL.md"),
        "{children:?}"
    );
}

#[test]
fn skills_list_and_load_read_only_what_they_need_on_the_wire() {
    // The wire trace (--verbose) shows every message sent: listing reads no
    // file, loading reads SKILL.md and nothing else.
    let pdf = "skill://pdf-processing/SKILL.md";
    let out = mcp_stdio(&["--verbose", "skills", "list"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let wire = text(&out.stderr);
    assert!(wire.contains("\"method\":\"skills/list\""), "{wire}");
    assert!(!wire.contains("\"method\":\"resources/read\""), "{wire}");

    let out = mcp_stdio(&["--verbose", "skills", "load", pdf], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let wire = text(&out.stderr);
    let reads: Vec<&str> = wire
        .lines()
        .filter(|l| l.starts_with("->") && l.contains("\"method\":\"resources/read\""))
        .collect();
    assert_eq!(reads.len(), 1, "{wire}");
    assert!(reads[0].contains(pdf), "{wire}");
}

//! The host against real processes and servers: the demo server in both
//! eras over stdio and HTTP, a server that crashes on a tool call, and one
//! whose command does not exist.

mod support;

use std::collections::BTreeSet;

use demo_server::Eras;
use mcp_host::{Host, HostError, HostEvent, HostOptions, ListKind, NamingPolicy, ServerState};
use serde_json::json;
use support::{http_demo, json_path, next_matching, parse, text, trigger_change, two_eras, until};

fn names_of(host: &Host, origin: &str) -> Vec<String> {
    host.catalogue()
        .tools_of(origin)
        .map(|t| t.name.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_catalogue_of_both_eras_over_stdio_and_http_with_filters_and_collisions() {
    let legacy_http = http_demo(Eras::Legacy).await;
    let modern_http = http_demo(Eras::Modern).await;
    let demo = json_path("demo-server");
    let config = parse(&format!(
        r#"{{"mcpServers": {{
        "legacy_stdio": {{"command": {demo}, "args": ["--era", "${{ERA}}"], "mcpHost": {{"era": "legacy"}}}},
        "modern_stdio": {{"command": {demo}, "args": ["--era", "modern"], "mcpHost": {{"era": "modern"}}}},
        "legacy_http": {{"type": "http", "url": "{}", "mcpHost": {{"era": "legacy"}}}},
        "modern_http": {{"url": "{}", "mcpHost": {{"era": "modern"}}}},
        "filtered": {{"command": {demo}, "mcpHost": {{"tools": {{"allow": ["ech?", "a*"], "deny": ["add"]}}}}}},
        "readonly": {{"command": {demo}, "mcpHost": {{"tools": {{"readOnly": true}}}}}},
        "crashy": {{"command": {}}},
        "missing": {{"command": "/nonexistent/mcp-server-that-is-not-there"}},
        "off": {{"command": {demo}, "disabled": true}}
    }}}}"#,
        legacy_http.url(),
        modern_http.url(),
        json_path("crash-server"),
    ));
    let mut options = HostOptions::default();
    options.naming = NamingPolicy::default().with_bare_when_unique(true);
    let host = Host::builder().options(options).start(&config).await;
    let mut events = host.events();
    until(&host, &mut events, "every server settled", |h| {
        h.states().iter().all(|(_, s)| !s.is_starting())
    })
    .await;
    let states: Vec<(String, ServerState)> = host.states();
    for (label, state) in &states[..7] {
        assert_eq!(*state, ServerState::Ready, "{label}");
    }
    match host.state("missing").unwrap() {
        ServerState::Failed { cause } => {
            assert!(cause.contains("mcp-server-that-is-not-there"), "{cause}")
        }
        other => panic!("missing: {other:?}"),
    }
    assert_eq!(host.state("off"), Some(ServerState::Disabled));

    // Routing by qualified name, in both eras and over both transports.
    for label in ["legacy_stdio", "modern_stdio", "legacy_http", "modern_http"] {
        let result = host
            .call_tool(&format!("{label}__echo"), json!({ "text": label }))
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(text(&result), label);
    }
    let client = host.client("modern_stdio").unwrap();
    assert_eq!(client.era(), Some(mcp_client::mcp_types::Era::Modern));

    // Collisions across servers: reported with every claimant, all kept.
    let catalogue = host.catalogue();
    let echo = catalogue
        .tool_collisions
        .iter()
        .find(|c| c.wanted == "echo")
        .expect("echo collides");
    let claimants: BTreeSet<&str> = echo.claims.iter().map(|c| c.origin.as_str()).collect();
    assert_eq!(
        claimants,
        BTreeSet::from([
            "legacy_stdio",
            "modern_stdio",
            "legacy_http",
            "modern_http",
            "filtered",
            "crashy"
        ])
    );
    // A name only one server has stays bare.
    assert!(
        catalogue
            .tool("crash")
            .is_some_and(|t| t.origin == "crashy")
    );

    // Filters: names and globs, deny wins; read-only keeps readOnlyHint only.
    assert_eq!(
        names_of(&host, "filtered"),
        [
            "filtered__echo",
            "filtered__ask_name",
            "filtered__authorize"
        ]
    );
    assert_eq!(names_of(&host, "readonly"), ["readonly__add"]);
    let hidden = host
        .call_tool("filtered__add", json!({"a": 1, "b": 2}))
        .await;
    assert!(
        matches!(hidden, Err(HostError::UnknownTool(_))),
        "{hidden:?}"
    );

    // Resources carry their origin and are read from it only.
    let readme = catalogue
        .resources
        .iter()
        .find(|r| r.origin == "legacy_http" && r.item.uri == "demo://readme")
        .expect("legacy_http lists demo://readme");
    let read = host
        .read_resource(&readme.origin, &readme.item.uri)
        .await
        .unwrap();
    assert!(!read.contents.is_empty());
    let elsewhere = host.read_resource("crashy", "demo://readme").await;
    assert!(
        matches!(&elsewhere, Err(HostError::Call { server, .. }) if server == "crashy"),
        "{elsewhere:?}"
    );
    assert!(matches!(
        host.read_resource("nobody", "demo://readme").await,
        Err(HostError::UnknownServer(_))
    ));

    host.close().await;
    assert!(
        host.states()
            .iter()
            .all(|(_, s)| *s == ServerState::Stopped)
    );
    legacy_http.shutdown().await;
    modern_http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_fails_the_call_with_its_cause_reconnects_with_backoff_and_never_replays() {
    let log = std::env::temp_dir().join(format!("mcp-host-crash-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let config = parse(&format!(
        r#"{{"mcpServers": {{"crashy": {{
            "command": {}, "env": {{"CRASH_SERVER_LOG": {}}},
            "mcpHost": {{"reconnect": {{"initialMs": 50, "maxMs": 50, "jitterPercent": 0, "maxAttempts": 3}}}}
        }}}}}}"#,
        json_path("crash-server"),
        serde_json::to_string(&log.display().to_string()).unwrap(),
    ));
    let host = Host::builder().start(&config).await;
    assert_eq!(host.state("crashy"), Some(ServerState::Ready));
    let mut events = host.events();

    let err = host
        .call_tool("crashy__crash", json!({}))
        .await
        .unwrap_err();
    let HostError::ServerDied { server, cause } = &err else {
        panic!("expected ServerDied, got {err:?}")
    };
    assert_eq!(server, "crashy");
    assert!(
        cause.contains("crashing"),
        "the stderr tail is in the cause: {cause}"
    );

    let (attempt, delay) = next_matching(&mut events, "reconnecting", |e| match e {
        HostEvent::State {
            state: ServerState::Reconnecting { attempt, delay, .. },
            ..
        } => Some((*attempt, *delay)),
        _ => None,
    })
    .await;
    assert_eq!((attempt, delay.as_millis()), (1, 50));
    until(&host, &mut events, "ready again", |h| {
        h.state("crashy") == Some(ServerState::Ready)
    })
    .await;
    let result = host
        .call_tool("crashy__echo", json!({"text": "back"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "back");
    // The server saw the crash call once: it was not replayed after the restart.
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls, "crash\necho\n");
    host.close().await;
    let _ = std::fs::remove_file(&log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_refreshes_the_catalogue_in_both_eras() {
    let host = Host::builder().start(&two_eras()).await;
    let mut events = host.events();
    for label in ["legacy", "modern"] {
        let event = "prompts_list_changed";
        trigger_change(&host, &mut events, label, event, ListKind::Prompts).await;
    }
    assert!(host.catalogue().prompt("modern__greeting").is_some());
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_are_added_restarted_and_removed_at_runtime_and_startup_is_bounded() {
    // `sleep` never answers the handshake: startup returns at the bound.
    let config = parse(
        r#"{"mcpServers": {"silent": {"command": "sleep", "args": ["30"],
            "mcpHost": {"connectTimeoutMs": 60000}}}}"#,
    );
    let mut options = HostOptions::default();
    options.startup_bound = std::time::Duration::from_millis(300);
    let started = std::time::Instant::now();
    let host = Host::builder().options(options).start(&config).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(host.state("silent"), Some(ServerState::Starting));

    let mut events = host.events();
    let extra = parse(&format!(
        r#"{{"servers": {{"late": {{"type": "stdio", "command": {}}}}}}}"#,
        json_path("demo-server")
    ));
    host.add(extra.servers[0].clone()).unwrap();
    assert!(matches!(
        host.add(extra.servers[0].clone()),
        Err(HostError::DuplicateLabel(_))
    ));
    until(&host, &mut events, "late ready", |h| {
        h.state("late") == Some(ServerState::Ready)
    })
    .await;
    assert!(host.catalogue().tool("late__echo").is_some());

    host.restart("late").unwrap();
    next_matching(&mut events, "restart", |e| {
        matches!(
            e,
            HostEvent::State {
                state: ServerState::Starting,
                ..
            }
        )
        .then_some(())
    })
    .await;
    until(&host, &mut events, "late ready again", |h| {
        h.state("late") == Some(ServerState::Ready)
    })
    .await;

    host.remove("late").await.unwrap();
    assert_eq!(host.state("late"), None);
    assert!(host.catalogue().tools_of("late").next().is_none());
    assert!(matches!(
        host.remove("late").await,
        Err(HostError::UnknownServer(_))
    ));
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_exiting_backs_off_visibly_and_gives_up_at_the_bound() {
    // `false` starts and exits at once: every attempt fails, none is
    // permanent (unlike a command that does not exist).
    let config = parse(
        r#"{"mcpServers": {"flaky": {"command": "false", "mcpHost": {"reconnect":
            {"initialMs": 10, "maxMs": 1000, "factor": 2, "jitterPercent": 0, "maxAttempts": 3}}}}}"#,
    );
    let host = Host::builder().build();
    let mut events = host.events();
    host.add(config.servers[0].clone()).unwrap();
    let mut seen = Vec::new();
    let cause = loop {
        let state = next_matching(&mut events, "a state", |e| match e {
            HostEvent::State { state, .. } => Some(state.clone()),
            _ => None,
        })
        .await;
        match state {
            ServerState::Reconnecting { attempt, delay, .. } => {
                seen.push((attempt, delay.as_millis()));
            }
            ServerState::Failed { cause } => break cause,
            _ => {}
        }
    };
    assert_eq!(seen, [(1, 10), (2, 20), (3, 40)]);
    assert!(
        cause.contains("gave up after 3 reconnect attempts"),
        "{cause}"
    );
    // A restart starts over.
    host.restart("flaky").unwrap();
    let first = next_matching(&mut events, "a new round", |e| match e {
        HostEvent::State {
            state: ServerState::Reconnecting { attempt, .. },
            ..
        } => Some(*attempt),
        _ => None,
    })
    .await;
    assert_eq!(first, 1);
    host.close().await;
}

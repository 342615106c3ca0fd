//! Handlers told which server asks, state restored on a new connection,
//! and an HTTP server that becomes unreachable and comes back.

mod support;

use demo_server::{DemoOptions, DemoServer, Eras};
use mcp_client::HandlerError;
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::logging::LoggingLevel;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_host::config::Config;
use mcp_host::{Host, HostError, HostEvent, HostHandlers, ServerState};
use serde_json::json;
use support::{http_demo, json_path, next_matching, parse, text, until};

fn two_eras() -> Config {
    let demo = json_path("demo-server");
    parse(&format!(
        r#"{{"mcpServers": {{
        "legacy": {{"command": {demo}, "mcpHost": {{"era": "legacy"}}}},
        "modern": {{"command": {demo}, "mcpHost": {{"era": "modern"}}}},
        "own": {{"command": {demo}, "mcpHost": {{"era": "legacy"}}}}
    }}}}"#
    ))
}

fn answer(who: String) -> Result<CreateMessageResult, HandlerError> {
    Ok(CreateMessageResult::new(
        ContentBlock::text(who),
        "test-model",
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_are_told_which_server_asks_and_per_server_ones_win() {
    let own =
        HostHandlers::new().sampling(|server: String, _: CreateMessageRequestParams| async move {
            answer(format!("own handler for {server}"))
        });
    let handlers = HostHandlers::new()
        .sampling(|server: String, _: CreateMessageRequestParams| async move {
            answer(format!("shared handler for {server}"))
        })
        .for_server("own", own);
    let host = Host::builder().handlers(handlers).start(&two_eras()).await;
    for (label, expected) in [
        ("legacy", "Summary: shared handler for legacy"),
        ("modern", "Summary: shared handler for modern"),
        ("own", "Summary: own handler for own"),
    ] {
        let result = host
            .call_tool(&format!("{label}__summarize"), json!({"text": "t"}))
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(text(&result), expected);
    }
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_and_the_log_level_are_restored_on_a_new_connection() {
    let host = Host::builder().start(&two_eras()).await;
    let mut events = host.events();
    for label in ["legacy", "modern"] {
        host.subscribe(label, "demo://item/1").await.unwrap();
        host.set_log_level(label, LoggingLevel::Debug)
            .await
            .unwrap();
        host.restart(label).unwrap();
        next_matching(&mut events, "restarting", |e| match e {
            HostEvent::State {
                server,
                state: ServerState::Starting,
            } if server == label => Some(()),
            _ => None,
        })
        .await;
        until(&host, &mut events, "ready again", |h| {
            h.state(label) == Some(ServerState::Ready)
        })
        .await;

        let trigger = json!({"event": "resource_updated", "uri": "demo://item/1", "value": label});
        host.call_tool(&format!("{label}__trigger"), trigger)
            .await
            .unwrap();
        let uri = next_matching(
            &mut events,
            &format!("resource update from {label}"),
            |e| match e {
                HostEvent::ResourceUpdated { server, uri } if server == label => Some(uri.clone()),
                _ => None,
            },
        )
        .await;
        assert_eq!(uri, "demo://item/1");

        let count = json!({"count": 1, "delay_ms": 0});
        host.call_tool(&format!("{label}__slow_count"), count)
            .await
            .unwrap();
        next_matching(&mut events, "a debug log message", |e| match e {
            HostEvent::Log { server, params }
                if server == label && params.level == LoggingLevel::Debug =>
            {
                Some(())
            }
            _ => None,
        })
        .await;
    }
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_http_server_is_reconnected_when_it_comes_back() {
    let first = http_demo(Eras::Legacy).await;
    let url = first.url();
    let config = parse(&format!(
        r#"{{"mcpServers": {{"web": {{"url": "{url}", "mcpHost": {{
            "era": "legacy",
            "reconnect": {{"initialMs": 20, "maxMs": 100, "jitterPercent": 0, "maxAttempts": 1000}}
        }}}}}}}}"#
    ));
    let host = Host::builder().start(&config).await;
    assert_eq!(host.state("web"), Some(ServerState::Ready));
    let mut events = host.events();
    first.shutdown().await;

    let err = host
        .call_tool("web__echo", json!({"text": "lost"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, HostError::ServerDied { server, .. } if server == "web"),
        "{err:?}"
    );
    next_matching(&mut events, "reconnecting", |e| match e {
        HostEvent::State {
            state: ServerState::Reconnecting { .. },
            ..
        } => Some(()),
        _ => None,
    })
    .await;
    assert!(host.catalogue().tools_of("web").next().is_none());

    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("socket address");
    let second = DemoServer::new(DemoOptions::default().with_eras(Eras::Legacy))
        .serve_http(addr)
        .await
        .expect("serve again on the same port");
    until(&host, &mut events, "web ready again", |h| {
        h.state("web") == Some(ServerState::Ready)
    })
    .await;
    let result = host
        .call_tool("web__echo", json!({"text": "back"}))
        .await
        .unwrap();
    assert_eq!(text(&result), "back");
    host.close().await;
    second.shutdown().await;
}

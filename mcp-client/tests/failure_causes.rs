//! The client's errors name the real cause first (issue 14 item 6), not
//! "the transport closed": against a port nobody listens on, and a real
//! server whose answer is over the configured size limit (HTTP body or
//! event, stdio line).

use mcp_testkit::demo as common;

use std::time::Duration;

use common::{Server, Via, demo_exe};
use mcp_client::{Client, HttpConfig, ServerCommand};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_is_named_first() {
    // A port bound but not listening, held for the whole test: a
    // connection to it is refused, and no server started meanwhile (by a
    // test running beside this one) can be given it, as it could be a
    // port bound and released.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind("127.0.0.1:0".parse().expect("addr"))
        .expect("bind");
    let port = socket.local_addr().expect("addr").port();
    let err = Client::builder()
        .http(&format!("http://127.0.0.1:{port}/mcp"))
        .connect()
        .await
        .expect_err("nothing listens there");
    assert!(err.is_transport(), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "connection refused: nothing listens at http://127.0.0.1:{port} (connecting failed)"
        )
    );
    drop(socket);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_size_limit_is_named_first() {
    for via in [Via::HttpModern, Via::HttpLegacy] {
        let server = Server::start(via).await;
        let config = HttpConfig::new(&server.url().expect("http"))
            .expect("valid")
            .with_max_body_bytes(64 * 1024)
            .with_max_event_bytes(64 * 1024);
        let client = server
            .builder()
            .http_config(config)
            .connect()
            .await
            .expect("connect");
        let err = client
            .call_tool("big", json!({"bytes": 1 << 20}))
            .await
            .expect_err("over the limit");
        let text = err.to_string();
        assert!(err.is_transport(), "{via:?}: {err:?}");
        assert!(
            text.ends_with("larger than the 65536-byte limit (the request got no response)"),
            "{via:?}: {text}"
        );
        client.close().await;
    }
}

/// A stdio response over `ServerCommand::max_line_length` fails its call at
/// once (not at its 60 s deadline) with an error naming the size and the
/// limit, and the connection stays usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_stdio_response_fails_its_call_at_once() {
    for via in [Via::StdioLegacy, Via::StdioModern] {
        let command = ServerCommand::new(demo_exe())
            .arg("--serve-stdio")
            .max_line_length(64 * 1024);
        let client = Server::start(via)
            .await
            .builder()
            .stdio(command)
            .request_timeout(Some(Duration::from_secs(60)))
            .connect()
            .await
            .expect("connect");
        let err = tokio::time::timeout(
            Duration::from_secs(10),
            client.call_tool("big", json!({"bytes": 1 << 20})),
        )
        .await
        .expect("the call ends long before its 60 s deadline")
        .expect_err("over the limit");
        let text = err.to_string();
        assert!(
            text.contains("over the limit of 65536 bytes") && text.contains("response is"),
            "{via:?}: {text}"
        );
        assert!(err.is_transport() && !err.is_timeout(), "{via:?}: {err:?}");
        client
            .call_tool("big", json!({"bytes": 16}))
            .await
            .expect("the connection goes on");
        client.close().await;
    }
}

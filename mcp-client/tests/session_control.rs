//! Session control end to end: connecting without initializing, headers
//! and credentials set at runtime, the 2025-11-25 GET stream closed and
//! reopened on demand, and a per-call access token.

use mcp_testkit::demo as common;
use mcp_testkit::http as scripted;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{ALL, Server, Via};
use mcp_client::{CallOptions, Client, HttpConfig, NotificationHandler};
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use scripted::read_request;

/// How long a wait for a delivery may take.
const WITHIN: Duration = Duration::from_secs(3);

/// How long a closed stream is watched for a delivery that must not come
/// (the server's notification has nowhere to go, so nothing can say
/// "it will not come"; a delivery ends the wait, and the test, at once).
const QUIET: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_connected_uninitialized_fails_calls_until_initialize() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .observable_builder()
            .connect_uninitialized()
            .expect("transport starts");
        assert_eq!(client.protocol_version(), None, "{via:?}");
        let e = client.list_tools(None).await.expect_err("not initialized");
        assert!(e.is_not_initialized() && e.is_usage(), "{via:?}: {e}");
        let e = client.ping().await.expect_err("not initialized");
        assert!(e.is_not_initialized(), "{via:?}: {e}");

        let header = client.set_http_header("X-Demo-Tag", "deferred").await;
        if via.http() {
            header.expect("an HTTP header before initialize");
            client
                .set_access_token(Some("t0ken"))
                .await
                .expect("a token before initialize");
        } else {
            assert!(header.expect_err("stdio has no headers").is_usage());
        }

        client.initialize().await.expect("initialize");
        let modern = client.era() == Some(mcp_client::mcp_types::Era::Modern);
        assert_eq!(modern, via.modern(), "{via:?}");
        client.list_tools(None).await.expect("ready now");
        let again = client.initialize().await.expect_err("only once");
        assert!(again.is_usage(), "{via:?}: {again}");
        if via.http() {
            // Every POST since carried the header (handshake included).
            let tagged = server.demo.tagged_posts("deferred");
            assert!(tagged >= 2, "{via:?}: {tagged} tagged POSTs");
            assert!(
                client
                    .remove_http_header("X-Demo-Tag")
                    .await
                    .expect("remove")
            );
            client.list_tools(None).await.expect("untagged");
            assert_eq!(server.demo.tagged_posts("deferred"), tagged, "{via:?}");
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uninitialized_client_closes_cleanly() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server
            .builder()
            .connect_uninitialized()
            .expect("transport starts");
        let e = client.close_server_stream().await.expect_err("not yet");
        assert!(e.is_not_initialized(), "{via:?}: {e}");
        tokio::time::timeout(Duration::from_secs(10), client.close())
            .await
            .expect("close does not hang");
        assert!(client.is_closed(), "{via:?}");
        let e = client.initialize().await.expect_err("closed");
        assert!(e.is_closed(), "{via:?}: {e}");
    }
}

/// The list-changed notifications delivered.
#[derive(Default)]
struct Changes(mcp_testkit::Recorder<String>);

impl NotificationHandler for Changes {
    fn on_list_changed(&self, what: &str) {
        self.0.push(what.to_owned());
    }
}

impl Changes {
    /// Waits until at least `n` were delivered, within `wait`.
    async fn reach(&self, n: usize, wait: Duration) -> bool {
        self.0.wait_for(wait, |c| c.len() >= n).await.is_ok()
    }
}

async fn trigger_tools_changed(client: &Client) {
    client
        .call_tool("trigger", json!({"event": "tools_list_changed"}))
        .await
        .expect("trigger");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_get_stream_closes_and_reopens_on_demand() {
    let server = Server::start(Via::HttpLegacy).await;
    let changes = Arc::new(Changes::default());
    let client = server
        .builder()
        .notifications(changes.clone())
        .connect()
        .await
        .expect("connect");

    // Open by default: the server's notification arrives on it.
    trigger_tools_changed(&client).await;
    assert!(changes.reach(1, WITHIN).await, "open after connect");
    assert!(client.open_server_stream().await.expect("already open"));

    assert!(client.close_server_stream().await.expect("close"));
    assert!(!client.close_server_stream().await.expect("closed twice"));
    // Requests and their responses do not need the GET stream.
    trigger_tools_changed(&client).await;
    assert!(
        !changes.reach(2, QUIET).await,
        "nothing arrives while the stream is closed"
    );

    assert!(client.open_server_stream().await.expect("reopen"));
    trigger_tools_changed(&client).await;
    assert!(
        changes.reach(2, WITHIN).await,
        "the reopened stream delivers"
    );

    // Back-to-back cycles: the server may still hold the old stream when
    // the new GET arrives (409), which the client retries.
    for cycle in 0..3 {
        assert!(
            client.close_server_stream().await.expect("close"),
            "{cycle}"
        );
        assert!(
            client.open_server_stream().await.expect("reopen"),
            "{cycle}"
        );
    }
    let before = changes.0.len();
    trigger_tools_changed(&client).await;
    assert!(changes.reach(before + 1, WITHIN).await, "still delivering");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_get_stream_stays_closed_in_a_recovered_session() {
    let server = Server::start(Via::HttpLegacy).await;
    let changes = Arc::new(Changes::default());
    let client = server
        .builder()
        .notifications(changes.clone())
        .connect()
        .await
        .expect("connect");
    assert!(client.close_server_stream().await.expect("close"));
    assert_eq!(server.demo.expire_sessions(), 1);
    let e = client.list_tools(None).await.expect_err("session gone");
    assert!(e.is_session_recovered(), "{e}");
    client.list_tools(None).await.expect("new session");
    trigger_tools_changed(&client).await;
    assert!(
        !changes.reach(1, QUIET).await,
        "the new session opened no GET stream"
    );
    assert!(client.open_server_stream().await.expect("open on demand"));
    trigger_tools_changed(&client).await;
    assert!(changes.reach(1, WITHIN).await, "open in the new session");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_get_stream_is_legacy_http_only() {
    for via in [Via::StdioLegacy, Via::StdioModern, Via::HttpModern] {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        for e in [
            client
                .close_server_stream()
                .await
                .expect_err("no GET stream"),
            client
                .open_server_stream()
                .await
                .expect_err("no GET stream"),
        ] {
            assert!(e.is_usage(), "{via:?}: {e}");
            assert!(e.to_string().contains("GET stream"), "{via:?}: {e}");
        }
        client.close().await;
    }
    // A legacy HTTP client built without the stream opens it on demand.
    let server = Server::start(Via::HttpLegacy).await;
    let changes = Arc::new(Changes::default());
    let client = server
        .builder()
        .get_stream(false)
        .notifications(changes.clone())
        .connect()
        .await
        .expect("connect");
    assert!(!client.close_server_stream().await.expect("none open"));
    assert!(client.open_server_stream().await.expect("open"));
    trigger_tools_changed(&client).await;
    assert!(changes.reach(1, WITHIN).await);
    client.close().await;
}

/// A scripted 2025-11-25 server on loopback that records the
/// `Authorization` of every POST by JSON-RPC method.
struct Recorder {
    seen: Mutex<Vec<(String, Option<String>)>>,
}

async fn respond(conn: &mut BufReader<TcpStream>, status: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n\
         mcp-session-id: s-1\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let _ = conn.get_mut().write_all(head.as_bytes()).await;
    let _ = conn.get_mut().write_all(body.as_bytes()).await;
}

async fn serve_connection(stream: TcpStream, rec: Arc<Recorder>) {
    let mut conn = BufReader::new(stream);
    while let Some((method, headers, body)) = read_request(&mut conn).await {
        if method != "POST" {
            respond(&mut conn, "405 Method Not Allowed", "").await;
            continue;
        }
        let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let rpc = msg["method"].as_str().unwrap_or_default().to_owned();
        let auth = headers
            .iter()
            .find(|(k, _)| k == "authorization")
            .map(|(_, v)| v.clone());
        rec.seen.lock().expect("lock").push((rpc.clone(), auth));
        let result = match rpc.as_str() {
            "initialize" => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"}
            }),
            "tools/list" => json!({"tools": []}),
            _ => {
                respond(&mut conn, "202 Accepted", "").await;
                continue;
            }
        };
        let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
        respond(&mut conn, "200 OK", &reply.to_string()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_access_token_replaces_the_connection_credentials() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let rec = Arc::new(Recorder {
        seen: Mutex::new(Vec::new()),
    });
    let accept = {
        let rec = rec.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve_connection(stream, rec.clone()));
            }
        })
    };
    let bearer = mcp_client::auth::BearerToken::new("connection").expect("token");
    let config = HttpConfig::new(&url)
        .expect("url")
        .with_auth(Arc::new(bearer));
    let client = Client::builder()
        .http_config(config)
        .era(mcp_client::EraPreference::LegacyOnly)
        .connect()
        .await
        .expect("connect");
    let opts = CallOptions::new()
        .with_access_token("per-call")
        .expect("token");
    assert!(!format!("{opts:?}").contains("per-call"), "redacted");
    let _: Value = client
        .request_as("tools/list", None, opts)
        .await
        .expect("list with the call's token");
    client.list_tools(None).await.expect("list");
    client
        .set_access_token(Some("rotated"))
        .await
        .expect("rotate");
    client.list_tools(None).await.expect("list");

    let seen = rec.seen.lock().expect("lock").clone();
    let lists: Vec<Option<&str>> = seen
        .iter()
        .filter(|(m, _)| m == "tools/list")
        .map(|(_, a)| a.as_deref())
        .collect();
    assert_eq!(
        lists,
        [
            Some("Bearer per-call"),
            Some("Bearer connection"),
            Some("Bearer rotated")
        ]
    );
    let init = seen.iter().find(|(m, _)| m == "initialize").expect("init");
    assert_eq!(init.1.as_deref(), Some("Bearer connection"));
    client.close().await;
    accept.abort();
}

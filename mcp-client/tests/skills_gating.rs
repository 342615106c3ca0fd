//! The skills methods are gated on the server's declaration in the facade
//! itself: with the core's capability check switched off
//! (`strict_capabilities(false)`), `skills/list`, `skills/get` and
//! `resources/directory/read` to a server that did not declare them are
//! still usage errors and nothing reaches the server. A scripted HTTP/1.1
//! server on loopback records every method it receives.

use mcp_testkit::http as scripted;

use std::sync::{Arc, Mutex};

use mcp_client::skills::SkillError;
use mcp_client::{Client, EraPreference};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};

use scripted::{read_request, respond};

type Seen = Arc<Mutex<Vec<String>>>;

async fn serve_connection(stream: TcpStream, capabilities: Value, seen: Seen) {
    let mut conn = BufReader::new(stream);
    while let Some((method, _headers, body)) = read_request(&mut conn).await {
        if method != "POST" {
            respond(&mut conn, "405 Method Not Allowed", "", "").await;
            continue;
        }
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let name = message["method"].as_str().unwrap_or("?").to_owned();
        seen.lock().expect("seen").push(name.clone());
        let result = match name.as_str() {
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                                   "serverInfo": {"name": "scripted", "version": "1"}}),
            "skills/list" => json!({"skills": []}),
            _ if message.get("id").is_none() => {
                respond(&mut conn, "202 Accepted", "", "").await;
                continue;
            }
            _ => json!({}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        let extra = "content-type: application/json\r\nmcp-session-id: s-1\r\n";
        respond(&mut conn, "200 OK", extra, &reply.to_string()).await;
    }
}

async fn connect(capabilities: Value) -> (Client, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let seen = Seen::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(
                stream,
                capabilities.clone(),
                record.clone(),
            ));
        }
    });
    let client = Client::builder()
        .http(&url)
        .era(EraPreference::LegacyOnly)
        .get_stream(false)
        .strict_capabilities(false)
        .connect()
        .await
        .expect("connect");
    (client, seen)
}

fn skills_requests(seen: &Seen) -> Vec<String> {
    let seen = seen.lock().expect("seen");
    seen.iter()
        .filter(|m| m.starts_with("skills/") || m.as_str() == "resources/directory/read")
        .cloned()
        .collect()
}

#[tokio::test]
async fn undeclared_extension_sends_nothing_even_without_core_strictness() {
    let (client, seen) = connect(json!({"resources": {}})).await;
    let err = client.list_all_skills().await.expect_err("not declared");
    assert!(err.is_usage() && err.is_capability_not_offered(), "{err:?}");
    assert!(client.list_skills(None).await.is_err());
    let get = client.get_skill("skill://a/SKILL.md").await;
    assert!(
        matches!(&get, Err(SkillError::Request(e)) if e.is_capability_not_offered()),
        "{get:?}"
    );
    assert!(client.refresh_skill("skill://a/SKILL.md").await.is_err());
    assert!(client.read_directory("skill://a", None).await.is_err());
    assert!(client.read_all_directory("skill://a").await.is_err());
    assert_eq!(skills_requests(&seen), Vec::<String>::new());
    client.close().await;
}

#[tokio::test]
async fn directory_read_needs_the_directory_read_setting() {
    let caps = json!({"resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}});
    let (client, seen) = connect(caps).await;
    let err = client
        .read_directory("skill://a", None)
        .await
        .expect_err("directoryRead not declared");
    assert!(err.to_string().contains("directoryRead"), "{err}");
    assert!(client.list_all_skills().await.expect("declared").is_empty());
    assert_eq!(skills_requests(&seen), ["skills/list"]);
    client.close().await;
}

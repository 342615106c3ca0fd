//! The README's main command: a client against the workspace demo server,
//! over stdio and Streamable HTTP, in both protocol eras.
//!
//! ```text
//! cargo run -p mcp-client --example demo
//! ```
//!
//! For stdio the example starts itself as the server (`--serve-stdio`), so
//! no separate build step is needed; for HTTP it serves the demo server
//! in-process on 127.0.0.1 with an ephemeral port.

use std::collections::BTreeMap;
use std::time::Instant;

use demo_server::{DemoOptions, DemoServer};
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::resources::ResourceContents;
use mcp_client::{Client, ClientBuilder, EraPreference, HandlerError, ServerCommand};

const SERVE_STDIO: &str = "--serve-stdio";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some(SERVE_STDIO) {
        DemoServer::new(DemoOptions::default())
            .serve_stdio()
            .await?;
        return Ok(());
    }
    let server = DemoServer::new(DemoOptions::default());
    let http = server.serve_http("127.0.0.1:0".parse()?).await?;
    let exe = std::env::current_exe()?;
    let stdio = || ServerCommand::new(exe.clone()).arg(SERVE_STDIO);
    let runs: [(&str, ClientBuilder); 4] = [
        (
            "stdio, legacy",
            Client::builder()
                .stdio(stdio())
                .era(EraPreference::LegacyOnly),
        ),
        (
            "stdio, modern",
            Client::builder()
                .stdio(stdio())
                .era(EraPreference::ModernOnly),
        ),
        (
            "HTTP,  legacy",
            Client::builder()
                .http(&http.url())
                .era(EraPreference::LegacyOnly),
        ),
        (
            "HTTP,  modern",
            Client::builder()
                .http(&http.url())
                .era(EraPreference::ModernOnly),
        ),
    ];
    for (label, builder) in runs {
        let started = Instant::now();
        let client = builder
            .client_info("mcp-client-demo", env!("CARGO_PKG_VERSION"))
            .form_elicitation(answer_form)
            .connect()
            .await?;
        println!("== {label} ==");
        show(&client).await?;
        client.close().await;
        println!("   ({} ms)\n", started.elapsed().as_millis());
    }
    http.shutdown().await;
    Ok(())
}

/// Answers the demo server's form elicitations as a user named Ada would.
async fn answer_form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    let mut content = BTreeMap::new();
    for (field, _) in &params.requested_schema.properties.0 {
        content.insert(field.clone(), ElicitValue::String("Ada".into()));
    }
    Ok(ElicitResult::accept(content))
}

fn text_of(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join(" ")
}

async fn show(client: &Client) -> Result<(), mcp_client::Error> {
    let info = client.server_info();
    println!(
        "   server      {} {} speaking {}",
        info.as_ref().map_or("?", |i| i.name.as_str()),
        info.as_ref().map_or("?", |i| i.version.as_str()),
        client
            .protocol_version()
            .map_or("?".into(), |v| v.to_string()),
    );
    let tools = client.list_all_tools().await?;
    let names: Vec<&str> = tools.iter().take(5).map(|t| t.name.as_str()).collect();
    println!("   tools       {} ({}, ...)", tools.len(), names.join(", "));
    let echo = client
        .call_tool("echo", serde_json::json!({ "text": "hello" }))
        .await?;
    println!("   echo        {}", text_of(&echo.content));
    let sum: serde_json::Value = client
        .call_tool_typed("add", &serde_json::json!({ "a": 2, "b": 3 }))
        .await?;
    println!("   add 2 3     {sum}");
    let asked = client.call_tool("ask_name", serde_json::json!({})).await?;
    println!("   ask_name    {}", text_of(&asked.content));
    let readme = client.read_resource("demo://readme").await?;
    let first_line = readme.contents.first().and_then(|c| match c {
        ResourceContents::Text(t) => t.text.lines().next().map(str::to_owned),
        _ => None,
    });
    println!("   readme      {}", first_line.unwrap_or_default());
    let args = BTreeMap::from([("name".to_owned(), "Ada".to_owned())]);
    let prompt = client.get_prompt("greeting", args).await?;
    let text: Vec<String> = prompt
        .messages
        .iter()
        .filter_map(|m| m.content.as_text().map(str::to_owned))
        .collect();
    println!("   prompt      {}", text.join(" "));
    Ok(())
}

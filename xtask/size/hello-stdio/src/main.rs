//! Hello world over stdio: start a server, list its tools, call one.
//! `cargo xtask size` measures this program's dependency tree, build time
//! and binary size; it runs as `hello-stdio PATH-TO-SERVER [ARGS...]`.

use mcp_client::{Client, ServerCommand};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcp_client::Error> {
    let mut args = std::env::args().skip(1);
    let program = args.next().unwrap_or_else(|| "demo-server".into());
    let client = Client::builder()
        .stdio(ServerCommand::new(program).args(args))
        .connect()
        .await?;
    for tool in client.list_all_tools().await? {
        println!("- {}", tool.name);
    }
    let result = client
        .call_tool("echo", serde_json::json!({ "text": "hello" }))
        .await?;
    println!("{:?}", result.content.first().and_then(|b| b.as_text()));
    client.close().await;
    Ok(())
}

//! Connect over Streamable HTTP with a bearer token and extra headers.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example http_token
//! ```
//!
//! The example starts the demo server on a loopback port. With a real
//! server, pass its URL and your token instead. The token is sent as
//! `Authorization: Bearer ...` on every request and never printed or logged
//! (`Debug` of the config redacts it).

mod support;

use std::sync::Arc;

use mcp_client::auth::BearerToken;
use mcp_client::{CallOptions, Client, HttpConfig};
use support::{Failure, HttpDemo, expect};

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let demo = HttpDemo::start()?;

    // Every setup call checks its input and returns a typed error (a bad
    // URL, a header name with spaces, a token with a newline); `?` turns it
    // into `mcp_client::Error` or any boxed error.
    let token = std::env::var("MCP_TOKEN").unwrap_or_else(|_| "example-token".into());
    let config = HttpConfig::new(&demo.url)?
        .with_header("x-team", "examples")?
        .with_auth(Arc::new(BearerToken::new(&token)?));
    let shown = format!("{config:?}");
    expect(
        !shown.contains(&token),
        "Debug of the config hides the token",
    )?;

    let client = Client::builder().http_config(config).connect().await?;
    println!("connected over HTTP, era {:?}", client.era());

    // One request can carry its own headers too.
    let options = CallOptions::new().with_header("x-request-tag", "sum")?;
    let result = client
        .call_tool_with("add", serde_json::json!({ "a": 2, "b": 3 }), options)
        .await?;
    println!("add: {:?}", result.structured_content);
    expect(
        result.structured_content == Some(serde_json::json!({ "sum": 5.0 })),
        "2 + 3 = 5",
    )?;

    // A header that is not a valid HTTP header fails at once, before any I/O.
    let bad = HttpConfig::new(&demo.url)?.with_header("bad header", "x");
    expect(bad.is_err(), "a header name with a space is refused")?;

    client.close().await;
    Ok(())
}

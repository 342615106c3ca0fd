//! Answer what a server asks of the client: sampling (run a prompt through
//! your model), form and URL elicitation (ask the user), and roots (the
//! folders the server may work in).
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example handlers
//! ```
//!
//! Handlers are plain `async fn`s registered on the builder; registering one
//! also advertises the matching client capability. The demo server's tools
//! `summarize`, `ask_name`, `authorize` and `list_roots` each ask one thing.

mod support;

use std::collections::BTreeMap;

use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::{Client, HandlerError, ServerCommand, UrlElicitation};
use support::{Failure, demo_server, expect};

/// Sampling: a real host would call its LLM here. This one answers with the
/// length of the prompt so the result is checkable.
async fn sample(params: CreateMessageRequestParams) -> Result<CreateMessageResult, HandlerError> {
    let words: usize = params
        .messages
        .iter()
        .flat_map(|m| m.content.blocks())
        .filter_map(ContentBlock::as_text)
        .map(|t| t.split_whitespace().count())
        .sum();
    let reply = ContentBlock::text(format!("{words} words"));
    Ok(CreateMessageResult::new(reply, "word-counter-1"))
}

/// Form elicitation: a real host shows a form. This one fills every field
/// with "Ada" (the demo asks for a name).
async fn fill_form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    println!("server asks: {}", params.message);
    let mut answer = BTreeMap::new();
    for (field, _schema) in &params.requested_schema.properties.0 {
        answer.insert(field.clone(), ElicitValue::String("Ada".into()));
    }
    Ok(ElicitResult::accept(answer))
}

/// URL elicitation: show the URL and ask the user's consent to open it.
/// The client never fetches it. This one declines.
async fn consent(request: UrlElicitation) -> Result<ElicitResult, HandlerError> {
    println!(
        "server wants the user to visit {} ({})",
        request.url, request.message
    );
    Ok(ElicitResult::decline())
}

/// The text of a tool result's first content block.
async fn call_text(
    client: &Client,
    tool: &str,
    args: serde_json::Value,
) -> Result<String, Failure> {
    let result = client.call_tool(tool, args).await?;
    let text = result.content.first().and_then(ContentBlock::as_text);
    let text = text.ok_or_else(|| format!("{tool} returned no text"))?;
    println!("{tool}: {text}");
    Ok(text.to_owned())
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let client = Client::builder()
        .stdio(ServerCommand::new(demo_server()?).arg("--stdio"))
        .sampling(sample)
        .form_elicitation(fill_form)
        .url_elicitation(consent)
        // A fixed list; implement `RootsHandler` for a list that changes.
        .roots(vec![Root::new("file:///tmp/project").with_name("project")])
        .connect()
        .await?;

    let summary = call_text(
        &client,
        "summarize",
        serde_json::json!({ "text": "one two three" }),
    )
    .await?;
    expect(
        summary.starts_with("Summary: ") && summary.ends_with(" words"),
        "sampled summary",
    )?;

    let greeting = call_text(&client, "ask_name", serde_json::json!({})).await?;
    expect(
        greeting == "Hello, Ada!",
        "the form answer reaches the tool",
    )?;

    let auth = call_text(&client, "authorize", serde_json::json!({})).await?;
    expect(
        auth == "not authorized (decline)",
        "the URL consent was declined",
    )?;

    let roots = call_text(&client, "list_roots", serde_json::json!({})).await?;
    expect(
        roots == "1 roots: file:///tmp/project",
        "the server sees our root",
    )?;

    client.close().await;
    Ok(())
}

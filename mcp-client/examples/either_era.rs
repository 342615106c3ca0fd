//! One typed call that works in either protocol era: the era-neutral method
//! markers of `mcp_types::methods` (`methods::CallTool`, `methods::ListTools`,
//! ...) have the same params and result in 2025-11-25 and 2026-07-28, so a
//! host does not name `v2026_07_28::CallTool` on a legacy connection.
//!
//! ```text
//! cargo build -p demo-server
//! cargo run -p mcp-client --example either_era
//! ```
//!
//! The example runs the demo server twice, once per era (`--era legacy`,
//! `--era modern`), and makes the same typed calls on both.

mod support;

use mcp_client::mcp_types::Era;
use mcp_client::mcp_types::common::PaginatedRequestParams;
use mcp_client::mcp_types::methods::{self, facts::KnownMethod};
use mcp_client::mcp_types::tools::CallToolRequestParams;
use mcp_client::{CallOptions, Client, ServerCommand};
use support::{Failure, demo_server, expect};

#[tokio::main]
async fn main() -> Result<(), Failure> {
    for (flag, era) in [("legacy", Era::Legacy), ("modern", Era::Modern)] {
        let client = Client::builder()
            .stdio(ServerCommand::new(demo_server()?).args(["--stdio", "--era", flag]))
            .connect()
            .await?;
        expect(
            client.era() == Some(era),
            "the server speaks the era asked for",
        )?;

        // The same marker in both eras; its facts say what it paginates on.
        let page = client
            .request::<methods::ListTools>(&PaginatedRequestParams::new(), CallOptions::new())
            .await?;
        let field = methods::ListTools::FACTS.page_field;
        println!(
            "{flag}: {} tools (items in `{}`)",
            page.tools.len(),
            field.unwrap_or("?")
        );
        expect(
            page.tools.iter().any(|t| t.name == "add"),
            "the demo lists `add`",
        )?;

        let params = CallToolRequestParams::new("add")
            .with_argument("a", 2)
            .with_argument("b", 3);
        let result = client
            .request::<methods::CallTool>(&params, CallOptions::new())
            .await?;
        // `text()` joins the text blocks; `structured_as` decodes the rest.
        println!("{flag}: add -> {}", result.text());
        expect(
            result.text() == r#"{"sum":5.0}"#,
            "the text block holds the sum",
        )?;
        client.close().await;
    }
    Ok(())
}

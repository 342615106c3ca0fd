//! The `elicitation` family: `elicitation-sep1034-client-defaults`
//! (2025-11-25), served by the client's own SEP-1034 default filling.

use std::collections::BTreeMap;

use mcp_client::HandlerError;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use serde_json::json;

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{LEGACY, builder, connect, expect_success, failed, text_of, unexpected};

/// The family.
pub const FAMILY: Family = Family::new(
    "elicitation",
    &[Scenario::new(
        "elicitation-sep1034-client-defaults",
        LEGACY,
        |inv| Box::pin(client_defaults(inv)) as ScenarioFuture<'_>,
    )],
);

/// The handler of a user who accepts without typing anything: the client
/// fills every field from its schema `default` (SEP-1034,
/// [`mcp_client::ClientBuilder::apply_elicitation_defaults`], on by
/// default; turned on explicitly here since the scenario depends on it).
async fn accept_defaults(_params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    Ok(ElicitResult::accept(BTreeMap::new()))
}

/// `elicitation-sep1034-client-defaults`: call
/// `test_client_elicitation_defaults`; the server's `elicitation/create`
/// is accepted with every field taken from its default.
async fn client_defaults(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(
        builder(invocation)
            .form_elicitation(accept_defaults)
            .apply_elicitation_defaults(true),
    )
    .await?;
    let tool = "test_client_elicitation_defaults";
    let result = client
        .call_tool(tool, json!({}))
        .await
        .map_err(failed("tools/call test_client_elicitation_defaults"))?;
    expect_success(tool, &result)?;
    let text = text_of(&result);
    if !text.contains("accept") && !text.contains("completed") {
        return Err(unexpected(
            "tools/call test_client_elicitation_defaults",
            format!("unexpected result {text:?}"),
        ));
    }
    client.close().await;
    Ok(())
}

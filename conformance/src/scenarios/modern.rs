//! The `modern` family (2026-07-28 only): `request-metadata` (SEP-2575) and
//! `sep-2322-client-request-state` (multi round-trip requests).

use std::collections::BTreeMap;

use mcp_client::HandlerError;
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::json;

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{MODERN, builder, connect, expect_success, failed, text_of, unexpected};

/// The family.
pub const FAMILY: Family = Family::new(
    "modern",
    &[
        Scenario::new("request-metadata", MODERN, |inv| {
            Box::pin(request_metadata(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("sep-2322-client-request-state", MODERN, |inv| {
            Box::pin(request_state(inv)) as ScenarioFuture<'_>
        }),
    ],
);

/// `request-metadata` (SEP-2575): the server rejects the first request with
/// `-32022` naming `2026-07-28`; the client retries with it, and every
/// request carries the version header and the `_meta` keys. The rejected
/// request is `server/discover`, which `connect` retries; the server
/// declares no capabilities, so nothing more may be asked of it (a strict
/// client refuses `tools/list` locally).
///
/// The scenario also grades the shape of the `roots`, `sampling` and
/// `elicitation` client capabilities in `_meta`, and skips each one a client
/// does not declare; this host declares all three, as a host offering them
/// does: an empty root list (nothing shared), the [`echo`] sampler and the
/// [`confirm`] form handler.
async fn request_metadata(invocation: &Invocation) -> Result<(), ScenarioError> {
    let host = builder(invocation)
        .roots(Vec::<Root>::new())
        .sampling(echo)
        .form_elicitation(confirm);
    let client = connect(host).await?;
    let version = client
        .protocol_version()
        .ok_or_else(|| unexpected("server/discover", "no protocol version after connecting"))?;
    if Some(&version) != invocation.protocol_version.as_ref() {
        return Err(unexpected(
            "server/discover",
            format!("connected at {version}, not at the requested revision"),
        ));
    }
    let offers_tools = client
        .server_capabilities()
        .is_some_and(|c| c.tools.is_some());
    if offers_tools {
        client
            .list_tools(None)
            .await
            .map_err(failed("tools/list"))?;
    }
    client.close().await;
    Ok(())
}

/// The sampler of a host without a model: it answers with the text of the
/// last message, as model `echo`.
async fn echo(params: CreateMessageRequestParams) -> Result<CreateMessageResult, HandlerError> {
    let last = params
        .messages
        .last()
        .and_then(|m| m.content.blocks().iter().find_map(ContentBlock::as_text))
        .unwrap_or_default();
    Ok(CreateMessageResult::new(ContentBlock::text(last), "echo"))
}

/// The user confirms whatever is asked.
async fn confirm(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    eprintln!("elicitation: {}", params.message);
    Ok(ElicitResult::accept(BTreeMap::from([(
        "confirmed".to_owned(),
        ElicitValue::Bool(true),
    )])))
}

/// `sep-2322-client-request-state`: `input_required` results are answered
/// through the form handler and retried with `requestState` echoed (or
/// omitted when absent); an unrelated call carries neither; a result
/// without `resultType` is complete.
async fn request_state(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation).form_elicitation(confirm)).await?;
    let expected = [
        ("test_mrtr_echo_state", "echo-state-ok"),
        ("test_mrtr_no_state", ""),
        ("test_mrtr_unrelated", "unrelated-ok"),
        ("test_mrtr_no_result_type", "no-result-type-test-ok"),
    ];
    for (tool, want) in expected {
        let step = format!("tools/call {tool}");
        let result = client
            .call_tool(tool, json!({}))
            .await
            .map_err(failed(&step))?;
        expect_success(tool, &result)?;
        let text = text_of(&result);
        eprintln!("{tool}: {text:?}");
        if !text.contains(want) {
            return Err(unexpected(&step, format!("expected {want:?} in {text:?}")));
        }
    }
    client.close().await;
    Ok(())
}

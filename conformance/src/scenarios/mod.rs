//! The scenario families, one module each, and what they share: how a
//! scenario connects (pinned to the suite's revision), and how a failed step
//! becomes a [`ScenarioError`].

use std::time::Duration;

use mcp_client::mcp_types::tools::CallToolResult;
use mcp_client::{Client, ClientBuilder, EraPreference};
use mcp_types::ProtocolVersion;

use crate::invocation::Invocation;
use crate::registry::ScenarioError;

pub mod auth;
pub mod elicitation;
pub mod http;
pub mod lifecycle;
pub mod modern;
pub mod skills;
pub mod tools;

/// The `clientInfo.name` the binary sends.
pub const CLIENT_NAME: &str = "mcp-client-rs-conformance";

/// Every request's deadline: well inside the suite's 30 s client timeout, so
/// a hang is reported by the binary (naming the step) rather than by a kill.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// Both revisions.
pub(crate) const BOTH: &[ProtocolVersion] =
    &[ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];
/// 2025-06-18 and both revisions (`tools_call`,
/// `auth/token-endpoint-auth-*`).
pub(crate) const SINCE_2025_06_18: &[ProtocolVersion] = &[
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
    ProtocolVersion::V2026_07_28,
];
/// The legacy revision only.
pub(crate) const LEGACY: &[ProtocolVersion] = &[ProtocolVersion::V2025_11_25];
/// 2025-06-18 and the legacy revision (`initialize`).
pub(crate) const LEGACY_SINCE_2025_06_18: &[ProtocolVersion] =
    &[ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25];
/// 2025-03-26 only (the `auth/2025-03-26-*` back-compatibility scenarios).
pub(crate) const V2025_03_26: &[ProtocolVersion] = &[ProtocolVersion::V2025_03_26];
/// The modern revision only.
pub(crate) const MODERN: &[ProtocolVersion] = &[ProtocolVersion::V2026_07_28];

/// A builder for the suite's server: HTTP to the invocation's URL, our
/// client identity, a bounded request timeout, and the era pinned to exactly
/// the revision the suite asked for (never negotiated up or down). Without a
/// revision (a run by hand) the client negotiates. Strict mode is on:
/// every response's envelope and result are checked against the schema.
pub fn builder(invocation: &Invocation) -> ClientBuilder {
    let era = match &invocation.protocol_version {
        Some(version) => EraPreference::Versions(vec![version.clone()]),
        None => EraPreference::Auto,
    };
    Client::builder()
        .http(&invocation.server_url)
        .client_info(CLIENT_NAME, env!("CARGO_PKG_VERSION"))
        .request_timeout(Some(REQUEST_TIMEOUT))
        .era(era)
        .strict(true)
}

/// Connects `builder`, naming the step on failure.
pub async fn connect(builder: ClientBuilder) -> Result<Client, ScenarioError> {
    builder.connect().await.map_err(failed("connect"))
}

/// Turns a client error into a scenario error that names the step.
pub fn failed(step: &str) -> impl FnOnce(mcp_client::Error) -> ScenarioError + '_ {
    move |e| ScenarioError(format!("{step}: {e}"))
}

/// A scenario error for an unexpected answer.
pub fn unexpected(step: &str, what: impl std::fmt::Display) -> ScenarioError {
    ScenarioError(format!("{step}: {what}"))
}

/// The text of every text block of a tool result, joined by newlines.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fails when the tool reported an error.
pub fn expect_success(tool: &str, result: &CallToolResult) -> Result<(), ScenarioError> {
    if result.is_error == Some(true) {
        return Err(unexpected(
            &format!("tools/call {tool}"),
            format!("the tool reported an error: {}", text_of(result)),
        ));
    }
    Ok(())
}

//! Fetching one listing of a server, all pages, tolerating a server that
//! does not offer the feature.

use mcp_client::{Client, Error};

use crate::catalogue::Listing;
use crate::events::ListKind;

/// Lists `kind` into `listing`. A feature the server does not offer (no
/// capability, or `-32601`) lists as empty; another non-transport failure
/// keeps the previous listing and is logged. `Err` only when the
/// connection is gone.
pub(crate) async fn fetch(
    client: &Client,
    kind: ListKind,
    listing: &mut Listing,
) -> Result<(), Error> {
    let caps = client.server_capabilities().unwrap_or_default();
    let result = match kind {
        ListKind::Tools if caps.tools.is_some() => {
            client.list_all_tools().await.map(|v| listing.tools = v)
        }
        ListKind::Prompts if caps.prompts.is_some() => {
            client.list_all_prompts().await.map(|v| listing.prompts = v)
        }
        ListKind::Resources if caps.resources.is_some() => {
            match client.list_all_resources().await {
                Ok(v) => {
                    listing.resources = v;
                    client
                        .list_all_resource_templates()
                        .await
                        .map(|v| listing.templates = v)
                }
                Err(e) => Err(e),
            }
        }
        ListKind::Skills if declares_skills(&caps) => {
            client.list_all_skills().await.map(|v| listing.skills = v)
        }
        _ => Ok(()),
    };
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.is_transport() || e.is_closed() => Err(e),
        Err(e) if not_offered(&e) => Ok(()),
        Err(e) => {
            tracing::warn!(error = %e, ?kind, "listing failed; keeping the previous one");
            Ok(())
        }
    }
}

/// Whether the server declared the skills extension (the only case in
/// which `skills/list` may be sent).
fn declares_skills(caps: &mcp_client::mcp_types::capabilities::ServerCapabilities) -> bool {
    caps.extensions
        .as_ref()
        .and_then(|e| e.get(mcp_client::mcp_types::skills::SKILLS_EXTENSION))
        .is_some_and(|v| !matches!(v, serde_json::Value::Null | serde_json::Value::Bool(false)))
}

fn not_offered(e: &Error) -> bool {
    e.is_capability_not_offered()
        || e.remote_error()
            .is_some_and(|r| r.code == mcp_client::mcp_types::ErrorCode::METHOD_NOT_FOUND)
}

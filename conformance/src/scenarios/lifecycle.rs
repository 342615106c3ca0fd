//! The `lifecycle` family: `initialize` (2025-06-18 and 2025-11-25).

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{LEGACY_SINCE_2025_06_18, builder, connect, unexpected};

/// The family.
pub const FAMILY: Family = Family::new(
    "lifecycle",
    &[Scenario::new(
        "initialize",
        LEGACY_SINCE_2025_06_18,
        |inv| Box::pin(initialize(inv)) as ScenarioFuture<'_>,
    )],
);

/// `initialize`: the legacy handshake (`initialize` with our `clientInfo`,
/// then `notifications/initialized`) and a clean close. The server declares
/// no capabilities, so nothing else may be asked of it.
async fn initialize(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation).get_stream(false)).await?;
    let server = client
        .server_info()
        .ok_or_else(|| unexpected("initialize", "no serverInfo after the handshake"))?;
    eprintln!("connected to {} {}", server.name, server.version);
    client.close().await;
    Ok(())
}

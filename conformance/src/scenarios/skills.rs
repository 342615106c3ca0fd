//! The `skills` family: the four client scenarios of the skills extension
//! (SEP-2640, `io.modelcontextprotocol/skills`), at both revisions.
//!
//! * `sep-2640-client-no-prefetch`: list the skills, read no file.
//! * `sep-2640-client-verify-digest`, `-verify-size`, `-verify-frontmatter`:
//!   list, then load each skill as a host does (read `SKILL.md`, verify
//!   it), and only when it verifies read its supporting files. The suite
//!   serves a `SKILL.md` that fails one check and fails the run if the
//!   supporting file is read after it.
//!
//! A refused skill is the expected outcome of the three verify scenarios:
//! the binary reports it on stderr and exits 0; any other failure (the
//! listing, a transport error) is a scenario error.

use mcp_client::Client;
use mcp_client::mcp_types::skills::SkillEntry;
use mcp_client::skills::SkillError;

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{BOTH, builder, connect, failed, unexpected};

/// The family.
pub const FAMILY: Family = Family::new(
    "skills",
    &[
        Scenario::new("sep-2640-client-no-prefetch", BOTH, |inv| {
            Box::pin(no_prefetch(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("sep-2640-client-verify-digest", BOTH, |inv| {
            Box::pin(load_and_use(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("sep-2640-client-verify-size", BOTH, |inv| {
            Box::pin(load_and_use(inv)) as ScenarioFuture<'_>
        }),
        Scenario::new("sep-2640-client-verify-frontmatter", BOTH, |inv| {
            Box::pin(load_and_use(inv)) as ScenarioFuture<'_>
        }),
    ],
);

/// Connects and lists every skill (no file is read).
async fn listed(invocation: &Invocation) -> Result<(Client, Vec<SkillEntry>), ScenarioError> {
    let client = connect(builder(invocation)).await?;
    let entries = client
        .list_all_skills()
        .await
        .map_err(failed("skills/list"))?;
    if entries.is_empty() {
        return Err(unexpected("skills/list", "the server listed no skill"));
    }
    for e in &entries {
        eprintln!(
            "skill {} ({}): {}",
            e.name().unwrap_or("?"),
            e.uri,
            e.description().unwrap_or("")
        );
    }
    Ok((client, entries))
}

/// `sep-2640-client-no-prefetch`: a host builds its registry from the
/// listing alone.
async fn no_prefetch(invocation: &Invocation) -> Result<(), ScenarioError> {
    let (client, _) = listed(invocation).await?;
    client.close().await;
    Ok(())
}

/// The verify scenarios: load each skill; read the supporting files of the
/// skills that verify, refuse the others.
async fn load_and_use(invocation: &Invocation) -> Result<(), ScenarioError> {
    let (client, entries) = listed(invocation).await?;
    for entry in &entries {
        let skill = match client.load_skill(entry).await {
            Ok(skill) => skill,
            Err(e) if e.is_verification_failure() => {
                eprintln!("refused {}: {e}", entry.uri);
                continue;
            }
            Err(SkillError::Request(e)) => return Err(failed("resources/read")(e)),
            Err(e) => return Err(unexpected(&format!("loading {}", entry.uri), e)),
        };
        eprintln!("loaded {}", skill.uri());
        let files = entry.resources.iter().flatten().map(|r| r.uri.as_str());
        for uri in files.filter(|u| *u != entry.uri) {
            let relative = uri
                .strip_prefix(skill.root())
                .and_then(|r| r.strip_prefix('/'))
                .ok_or_else(|| unexpected("resources", format!("{uri} is outside the skill")))?;
            match client.read_skill_file(&skill, relative).await {
                Ok(file) => eprintln!("read {} ({} bytes)", file.uri, file.bytes.len()),
                Err(e) if e.is_verification_failure() => eprintln!("refused {uri}: {e}"),
                Err(e) => return Err(unexpected(&format!("reading {uri}"), e)),
            }
        }
    }
    client.close().await;
    Ok(())
}

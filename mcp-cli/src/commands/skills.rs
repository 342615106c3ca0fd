//! `skills list|get|load|read`: the skills extension (SEP-2640) as the SDK
//! does it. Listing and getting read no skill file; `load` reads
//! `SKILL.md` and `read` a supporting file, each verified against the
//! entry (digest, size, frontmatter) before anything is printed. A
//! verification failure prints the SDK's message and exits 3.

use base64::Engine;
use mcp_client::Client;
use mcp_client::skills::{LoadOptions, LoadedSkill, SkillError};
use mcp_types::skills::SkillEntry;
use serde_json::json;

use crate::args::SkillsCmd;
use crate::exit::{CliError, Exit};
use crate::render::Out;

/// Runs one `skills` subcommand.
pub(super) async fn run(client: &Client, cmd: &SkillsCmd, out: &Out) -> Result<Exit, CliError> {
    match cmd {
        SkillsCmd::List => {
            let entries = client.list_all_skills().await?;
            if out.json {
                out.json_doc(&json!({ "skills": entries }));
                return Ok(Exit::Ok);
            }
            for e in &entries {
                out.line(&entry_line(e, out));
            }
            Ok(Exit::Ok)
        }
        SkillsCmd::Get { uri, refresh } => {
            let entry = if *refresh {
                client.refresh_skill(uri).await
            } else {
                client.get_skill(uri).await
            }
            .map_err(skill_error)?;
            if out.json {
                out.json_doc(&json!({ "skill": entry }));
            } else {
                out.line(&entry_line(&entry, out));
                for r in entry.resources.iter().flatten() {
                    out.line(&format!("  {}", r.uri));
                }
            }
            Ok(Exit::Ok)
        }
        SkillsCmd::Load {
            uri,
            allow_unverified,
        } => {
            let skill = load(client, uri, *allow_unverified).await?;
            if out.json {
                out.json_doc(&json!({
                    "uri": skill.uri(),
                    "verified": skill.is_verified(),
                    "frontmatter": skill.frontmatter(),
                    "text": skill.text(),
                }));
            } else {
                out.line(skill.text());
            }
            Ok(Exit::Ok)
        }
        SkillsCmd::Read {
            uri,
            path,
            allow_unverified,
        } => {
            let skill = load(client, uri, *allow_unverified).await?;
            let file = client
                .read_skill_file(&skill, path)
                .await
                .map_err(skill_error)?;
            let mut doc = json!({
                "uri": file.uri,
                "mimeType": file.mime_type,
                "verified": file.verified,
            });
            match file.text() {
                Some(text) => doc["text"] = json!(text),
                None => {
                    let blob = base64::engine::general_purpose::STANDARD.encode(&file.bytes);
                    doc["blob"] = json!(blob);
                }
            }
            if out.json {
                out.json_doc(&doc);
            } else {
                out.resource_contents(&doc)?;
            }
            Ok(Exit::Ok)
        }
    }
}

/// Gets the entry of `uri` and loads the skill from it (verified unless
/// `allow_unverified` and the entry lists no digests).
async fn load(client: &Client, uri: &str, allow_unverified: bool) -> Result<LoadedSkill, CliError> {
    let entry = client.get_skill(uri).await.map_err(skill_error)?;
    let options = if allow_unverified {
        LoadOptions::new().allow_unverified()
    } else {
        LoadOptions::new()
    };
    client
        .load_skill_with(&entry, options)
        .await
        .map_err(skill_error)
}

/// `uri  name  description`.
fn entry_line(e: &SkillEntry, out: &Out) -> String {
    format!(
        "{}  {}  {}",
        out.ui.bold(&e.uri),
        e.name().unwrap_or(""),
        out.ui.dim(e.description().unwrap_or(""))
    )
}

/// The SDK's skill error as a CLI error: the request's own classification,
/// a usage error for a path that cannot name a file of the skill, a
/// protocol error (exit 3) for everything else, verification failures
/// included. The message is the SDK's.
fn skill_error(e: SkillError) -> CliError {
    match e {
        SkillError::Request(e) => CliError::from(e),
        e @ (SkillError::InvalidPath { .. } | SkillError::NotASkillUri { .. }) => {
            CliError::usage(e.to_string())
        }
        e => CliError::protocol(e.to_string()),
    }
}

//! The skills extension (SEP-2640) from a host's side, against the demo
//! server over stdio in both eras:
//!
//! ```text
//! cargo run -p mcp-client --features skills --example skills
//! ```
//!
//! It builds a registry from `skills/list` alone (no file is read), loads
//! one skill (its `SKILL.md` is read and verified against the entry), reads
//! a supporting file by the relative path the skill mentions (verified
//! too), browses a directory, shows that a stale entry is refused and
//! refreshed, and that a skill without digests is refused unless the host
//! opts in. The example starts itself as the server (`--serve-stdio`).

use demo_server::{DemoOptions, DemoServer};
use mcp_client::skills::{LoadOptions, SkillError};
use mcp_client::{Client, EraPreference, ServerCommand};

const SERVE_STDIO: &str = "--serve-stdio";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some(SERVE_STDIO) {
        DemoServer::new(DemoOptions::default())
            .serve_stdio()
            .await?;
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    for (label, era) in [
        ("legacy", EraPreference::LegacyOnly),
        ("modern", EraPreference::ModernOnly),
    ] {
        let client = Client::builder()
            .stdio(ServerCommand::new(exe.clone()).arg(SERVE_STDIO))
            .era(era)
            .client_info("mcp-client-skills-example", env!("CARGO_PKG_VERSION"))
            .connect()
            .await?;
        println!("== stdio, {label} ==");
        tour(&client).await?;
        client.close().await;
        println!();
    }
    Ok(())
}

async fn tour(client: &Client) -> Result<(), Box<dyn std::error::Error>> {
    // The registry: names and descriptions from the listing, nothing read.
    let entries = client.list_all_skills().await?;
    for e in &entries {
        let digests = e.resources.as_ref().map_or(0, Vec::len);
        println!(
            "skill {:<15} {} ({digests} files with digests)",
            e.name().unwrap_or("?"),
            e.uri
        );
    }
    let Some(pdf) = entries.iter().find(|e| e.name() == Some("pdf-processing")) else {
        return Err("the demo server lists no pdf-processing skill".into());
    };

    // Loading reads SKILL.md once and verifies digest, size and frontmatter.
    let skill = client.load_skill(pdf).await?;
    println!("loaded {} (root {})", skill.uri(), skill.root());
    println!("{}", skill.body().trim());

    // A relative reference resolves against the skill root; only listed
    // files are read, and each read is verified.
    let forms = client
        .read_skill_file(&skill, "references/FORMS.md")
        .await?;
    println!("{}: {:?}", forms.uri, forms.text().unwrap_or_default());
    match client
        .read_skill_file(&skill, "../elsewhere/SKILL.md")
        .await
    {
        Err(e @ SkillError::InvalidPath { .. }) => println!("refused: {e}"),
        other => return Err(format!("expected a refused path, got {other:?}").into()),
    }

    // Directory navigation (the server declared directoryRead: true).
    for child in client.read_all_directory(skill.root()).await? {
        println!("  {} {:?}", child.uri, child.mime_type.unwrap_or_default());
    }

    // A stale entry (here: a wrong digest) is refused; skills/get refreshes.
    let mut stale = pdf.clone();
    if let Some(files) = stale.resources.as_mut() {
        files[0].digest = format!("sha256:{}", "0".repeat(64));
    }
    if let Err(e) = client.load_skill(&stale).await {
        println!("refused: {e}");
        let fresh = client.refresh_skill(&stale.uri).await?;
        client.load_skill(&fresh).await?;
        println!("reloaded after refresh");
    }

    // A generated skill publishes no digests: the host must opt in.
    if let Some(live) = entries.iter().find(|e| e.resources.is_none()) {
        match client.load_skill(live).await {
            Err(e @ SkillError::Unverifiable { .. }) => println!("refused: {e}"),
            other => return Err(format!("expected a refusal, got {other:?}").into()),
        }
        let opted = client
            .load_skill_with(live, LoadOptions::new().allow_unverified())
            .await?;
        println!("opted in (unverified): {}", opted.body().trim());
    }
    Ok(())
}

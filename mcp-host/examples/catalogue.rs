//! Loads an MCP config file and lists the catalogue of all its servers.
//!
//! ```text
//! cargo run -p mcp-host --example catalogue -- path/to/mcp.json
//! ```
//!
//! Without an argument it reads the first config found in the usual
//! places (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json` here, then
//! Claude Desktop, VS Code, Claude Code, Cursor and Windsurf's user files).

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_host::config::{Config, default_locations};
use mcp_host::{Host, ServerState};

fn config_path() -> Option<PathBuf> {
    if let Some(arg) = std::env::args_os().nth(1) {
        return Some(PathBuf::from(arg));
    }
    let here = std::env::current_dir().ok();
    default_locations(here.as_deref())
        .into_iter()
        .map(|l| l.path)
        .find(|p| p.is_file())
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(path) = config_path() else {
        eprintln!("usage: catalogue [CONFIG.json] (no config found in the usual places)");
        return ExitCode::FAILURE;
    };
    let config = match Config::load(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    println!("config {}", path.display());
    for error in &config.errors {
        println!("  skipped: {error}");
    }
    let host = Host::builder().start(&config).await;
    println!("servers:");
    for (label, state) in host.states() {
        match state {
            ServerState::Failed { cause } => println!("  {label}: failed: {cause}"),
            other => println!("  {label}: {other:?}"),
        }
    }
    let catalogue = host.catalogue();
    println!("tools ({}):", catalogue.tools.len());
    for tool in &catalogue.tools {
        let about = tool.item.description.as_deref().unwrap_or("");
        println!("  {} [{}] {about}", tool.name, tool.origin);
    }
    println!("prompts ({}):", catalogue.prompts.len());
    for prompt in &catalogue.prompts {
        println!("  {} [{}]", prompt.name, prompt.origin);
    }
    println!("resources ({}):", catalogue.resources.len());
    for resource in &catalogue.resources {
        println!("  {} [{}]", resource.item.uri, resource.origin);
    }
    println!("resource templates ({}):", catalogue.templates.len());
    for template in &catalogue.templates {
        println!("  {} [{}]", template.item.uri_template, template.origin);
    }
    println!("skills ({}):", catalogue.skills.len());
    for skill in &catalogue.skills {
        let about = skill.item.description().unwrap_or("");
        println!("  {} [{}] {about}", skill.name, skill.origin);
    }
    for collision in catalogue
        .tool_collisions
        .iter()
        .chain(&catalogue.prompt_collisions)
        .chain(&catalogue.skill_collisions)
    {
        let who: Vec<String> = collision
            .claims
            .iter()
            .map(|c| format!("{}:{} -> {}", c.origin, c.name, c.assigned))
            .collect();
        println!("collision on `{}`: {}", collision.wanted, who.join(", "));
    }
    host.close().await;
    ExitCode::SUCCESS
}

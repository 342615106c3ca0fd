//! The commands, one function each, over a connected [`Session`].
//!
//! Each prints its result (JSON with `--json`, text otherwise) and returns
//! the exit code; failures come back as [`CliError`]s.

mod features;
mod skills;
mod streams;
mod tasks;

use mcp_client::Client;
use mcp_types::logging::LoggingLevel;
use serde_json::{Value, json};

use crate::args::{Command, LevelArg, RootsCmd};
use crate::connect::{Session, roots};
use crate::exit::{CliError, Exit};
use crate::render::Out;

/// Runs one command on a connected session.
pub(crate) async fn run(
    session: &mut Session,
    command: &Command,
    out: &Out,
) -> Result<Exit, CliError> {
    let client = session.client.clone();
    match command {
        Command::Info => info(session, out),
        Command::Tools(cmd) => features::tools(&client, cmd, out).await,
        Command::Prompts(cmd) => features::prompts(&client, cmd, out).await,
        Command::Resources(cmd) => features::resources(session, cmd, out).await,
        Command::Skills(cmd) => skills::run(&client, cmd, out).await,
        Command::Complete(args) => features::complete(&client, args, out).await,
        Command::Ping => {
            let started = std::time::Instant::now();
            client.ping().await?;
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            if out.json {
                out.json_doc(&json!({ "ok": true, "ms": ms }));
            } else {
                out.line(&format!("pong ({ms:.1} ms)"));
            }
            Ok(Exit::Ok)
        }
        Command::LogLevel { level } => {
            client.set_log_level(level_of(*level)).await?;
            if out.json {
                out.json_doc(&json!({ "level": level_of(*level).as_str() }));
            } else {
                out.line(&format!("log level set to {}", level_of(*level).as_str()));
            }
            Ok(Exit::Ok)
        }
        Command::Logs { level, count } => streams::logs(session, *level, *count, out).await,
        Command::Watch { resources, count } => {
            streams::watch(session, resources, *count, out).await
        }
        Command::Tasks(cmd) => tasks::run(&client, cmd, out).await,
        Command::Roots(cmd) => roots_cmd(&client, cmd, out).await,
        Command::AgentHelp
        | Command::Servers
        | Command::Connect { .. }
        | Command::Disconnect { .. }
        | Command::Connections
        | Command::Elicitation(_)
        | Command::Repl
        | Command::Auth(_)
        | Command::Daemon => Err(CliError::usage("not here")),
    }
}

/// The protocol's level for `--log-level` and `log-level`.
pub(crate) fn level_of(level: LevelArg) -> LoggingLevel {
    use clap::ValueEnum;
    let name = level
        .to_possible_value()
        .map_or_else(|| "debug".to_owned(), |v| v.get_name().to_owned());
    LoggingLevel::parse(&name)
}

/// What `info --json` prints: era, version, server, capabilities,
/// instructions and how the era was detected.
pub(crate) fn connection_info(session: &Session) -> Value {
    let c = &session.client;
    let outcome = c.era_outcome();
    let era = outcome.as_ref().map(|o| json!(o.era));
    let decided = outcome
        .as_ref()
        .map(|o| format!("{:?}", o.decided_by))
        .unwrap_or_default();
    let ms = session.connect_time.as_secs_f64() * 1000.0;
    json!({
        "era": era,
        "protocolVersion": c.protocol_version().map(|v| v.as_str().to_owned()),
        "serverInfo": c.server_info(),
        "capabilities": c.server_capabilities(),
        "instructions": c.instructions(),
        "eraDetection": { "decidedBy": decided, "connectMs": ms },
    })
}

fn info(session: &Session, out: &Out) -> Result<Exit, CliError> {
    let c = &session.client;
    let doc = connection_info(session);
    let decided = doc["eraDetection"]["decidedBy"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let ms = doc["eraDetection"]["connectMs"].as_f64().unwrap_or(0.0);
    if out.json {
        out.json_doc(&doc);
        return Ok(Exit::Ok);
    }
    let ui = &out.ui;
    let server = c.server_info().map_or_else(
        || "?".to_owned(),
        |i| format!("{} {}", i.title.unwrap_or(i.name), i.version),
    );
    out.line(&format!("{}  {server}", ui.bold("server      ")));
    out.line(&format!(
        "{}  {} (protocol {})",
        ui.bold("era         "),
        doc["era"].as_str().unwrap_or("?"),
        doc["protocolVersion"].as_str().unwrap_or("?")
    ));
    out.line(&format!(
        "{}  {} in {ms:.1} ms",
        ui.bold("detected by "),
        detection_text(&decided)
    ));
    out.line(&format!(
        "{}  {}",
        ui.bold("capabilities"),
        capability_text(&doc["capabilities"])
    ));
    if let Some(text) = doc["instructions"].as_str() {
        out.line(&ui.bold("instructions"));
        for l in text.lines() {
            out.line(&format!("  {l}"));
        }
    }
    Ok(Exit::Ok)
}

/// How the era was decided, in words.
fn detection_text(decided: &str) -> &'static str {
    match decided {
        "Discover" => "server/discover answered",
        "ModernError" => "the server named its versions in an error",
        "FallbackOnError" => "fallback to initialize after the probe failed",
        "FallbackOnSilence" => "fallback to initialize after the probe got no answer",
        "Configured" => "--era legacy (initialize only)",
        "Cached" => "a cached decision",
        _ => "an unknown decision",
    }
}

/// `tools (listChanged), resources (subscribe), logging`.
fn capability_text(caps: &Value) -> String {
    let Some(map) = caps.as_object() else {
        return "none".into();
    };
    let parts: Vec<String> = map
        .iter()
        .map(|(name, v)| {
            let flags: Vec<&str> = v
                .as_object()
                .map(|o| {
                    o.iter()
                        .filter(|(_, f)| f.as_bool() == Some(true))
                        .map(|(k, _)| k.as_str())
                        .collect()
                })
                .unwrap_or_default();
            if flags.is_empty() {
                name.clone()
            } else {
                format!("{name} ({})", flags.join(", "))
            }
        })
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

async fn roots_cmd(client: &Client, cmd: &RootsCmd, out: &Out) -> Result<Exit, CliError> {
    let list = match cmd {
        RootsCmd::List => return Err(CliError::usage("roots list needs no server")),
        RootsCmd::Set { roots: given } => {
            let list = roots(given)?;
            let changed = client.set_roots(list.clone()).await?;
            if !out.json {
                let said = if changed {
                    "the server was told"
                } else {
                    "unchanged"
                };
                out.line(&format!("roots set ({said})"));
            }
            list
        }
    };
    if out.json {
        out.json_doc(&json!({ "roots": list }));
    }
    Ok(Exit::Ok)
}

/// `roots list`: the roots `--root` gives, with no server needed.
pub(crate) fn roots_list(given: &[String], out: &Out) -> Result<Exit, CliError> {
    let list = roots(given)?;
    if out.json {
        out.json_doc(&json!({ "roots": list }));
    } else if list.is_empty() {
        out.line("no roots (add --root PATH)");
    } else {
        for r in &list {
            out.line(&r.uri);
        }
    }
    Ok(Exit::Ok)
}

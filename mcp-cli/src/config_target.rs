//! Servers named in config files (`mcp-host`'s loader): `--server NAME`
//! with `--config FILE`, else the usual locations (project configs of the
//! current directory first, then the user's), and `mcp servers`.

use std::path::{Path, PathBuf};

use mcp_host::config::{Config, EraChoice, ServerEntry, TransportConfig, default_locations};
use serde_json::json;

use crate::args::EraArg;
use crate::connect::Target;
use crate::exit::{CliError, Exit};
use crate::render::Out;

/// The configs to read: the one given, else those present at the usual
/// locations, each with its path.
fn configs(given: Option<&Path>) -> Result<Vec<(PathBuf, Config)>, CliError> {
    let load = |path: &Path| {
        Config::load(path).map_err(|e| CliError::usage(format!("config {}: {e}", path.display())))
    };
    if let Some(path) = given {
        return Ok(vec![(path.to_path_buf(), load(path)?)]);
    }
    let cwd = std::env::current_dir().ok();
    let mut out = Vec::new();
    for location in default_locations(cwd.as_deref()) {
        if location.path.is_file() {
            // A broken config elsewhere must not hide a good one.
            if let Ok(config) = Config::load(&location.path) {
                out.push((location.path, config));
            }
        }
    }
    Ok(out)
}

/// The target and era of the server `name`.
pub(crate) fn resolve(
    given: Option<&Path>,
    name: &str,
) -> Result<(Target, Option<EraArg>), CliError> {
    let configs = configs(given)?;
    for (path, config) in &configs {
        if let Some(e) = config
            .errors
            .iter()
            .find(|e| e.server.as_deref() == Some(name))
        {
            return Err(CliError::usage(format!(
                "server {name:?} in {}: {e}",
                path.display()
            )));
        }
        if let Some(entry) = config.get(name) {
            if entry.disabled {
                return Err(CliError::usage(format!(
                    "server {name:?} is disabled in {}",
                    path.display()
                )));
            }
            return Ok((target_of(entry)?, era_of(entry.settings.era)));
        }
    }
    let names: Vec<&str> = configs
        .iter()
        .flat_map(|(_, c)| c.servers.iter().map(|s| s.label.as_str()))
        .collect();
    let searched = match given {
        Some(p) => p.display().to_string(),
        None if configs.is_empty() => "no config file found (use --config FILE)".into(),
        None => configs
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    };
    Err(CliError::usage(format!(
        "no server {name:?} in {searched}; servers: {}",
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    )))
}

fn target_of(entry: &ServerEntry) -> Result<Target, CliError> {
    Ok(match &entry.transport {
        TransportConfig::Stdio(s) => {
            let mut cmd = vec![s.command.clone()];
            cmd.extend(s.args.iter().cloned());
            Target::Stdio {
                cmd,
                env: s.env.clone(),
                cwd: s.cwd.clone(),
            }
        }
        TransportConfig::Http(h) => Target::Http {
            url: h.url.clone(),
            headers: h.headers.clone(),
        },
        other => {
            return Err(CliError::usage(format!(
                "server {:?}: transport {other:?} is not supported by this CLI",
                entry.label
            )));
        }
    })
}

fn era_of(choice: EraChoice) -> Option<EraArg> {
    match choice {
        EraChoice::Legacy => Some(EraArg::Legacy),
        EraChoice::Modern => Some(EraArg::Modern),
        _ => None,
    }
}

/// `mcp servers`: every server of the configs, with its transport (never
/// its environment or header values, which often hold tokens).
pub(crate) fn list(given: Option<&Path>, out: &Out) -> Result<Exit, CliError> {
    let configs = configs(given)?;
    let mut rows = Vec::new();
    for (path, config) in &configs {
        for s in &config.servers {
            let (kind, shown) = match target_of(s) {
                Ok(t @ Target::Stdio { .. }) => ("stdio", t.describe()),
                Ok(t @ Target::Http { .. }) => ("http", t.describe()),
                Err(e) => ("unsupported", e.message),
            };
            rows.push(json!({
                "name": s.label,
                "transport": kind,
                "target": shown,
                "disabled": s.disabled,
                "config": path.display().to_string(),
            }));
        }
        for e in &config.errors {
            out.note(&format!("mcp: {}: {e}", path.display()));
        }
    }
    if out.json {
        out.json_doc(&json!({ "servers": rows }));
    } else if rows.is_empty() {
        out.line("no servers (no config file found; use --config FILE)");
    } else {
        for r in &rows {
            let off = if r["disabled"] == true {
                " (disabled)"
            } else {
                ""
            };
            out.line(&format!(
                "{}  {}  {}{off}",
                out.ui.bold(r["name"].as_str().unwrap_or("")),
                r["transport"].as_str().unwrap_or(""),
                r["target"].as_str().unwrap_or("")
            ));
        }
    }
    Ok(Exit::Ok)
}

//! The config file hosts already write, read into one typed
//! [`ServerEntry`] per server.
//!
//! Accepted documents: Claude Desktop, Claude Code, Cursor and Windsurf's
//! `{"mcpServers": {...}}`, VS Code's `{"servers": {...}}` (`mcp.json`) and
//! `{"mcp": {"servers": {...}}}` (`settings.json`), with `//` and `/* */`
//! comments and trailing commas. Each entry is stdio (`command`, `args`,
//! `env`, `cwd`) or Streamable HTTP (`url`, `headers`), chosen by
//! `type`/`transport` when given; `"disabled": true` keeps it listed but
//! stopped; our own keys live under `"mcpHost"` ([`HostSettings`]).
//! Strings are expanded with [`Vars`] (`${VAR}`, `${env:VAR}`,
//! `${VAR:-default}`).
//!
//! A bad entry never stops the others: it becomes a [`ConfigError`] in
//! [`Config::errors`], naming the server and the JSON path. Only a file that
//! cannot be read, is not JSON, or has no server object at all fails
//! [`Config::parse`] as a whole.
//!
//! ```
//! use mcp_host::config::{Config, TransportConfig, Vars};
//! let text = r#"{
//!   // VS Code style, with a comment
//!   "servers": {
//!     "files": { "type": "stdio", "command": "fs-mcp", "args": ["${HOME}/src"] },
//!     "remote": { "type": "http", "url": "https://example.com/mcp",
//!                 "headers": { "Authorization": "Bearer ${env:TOKEN}" } },
//!     "broken": { "type": "sse", "url": "https://example.com/sse" },
//!   }
//! }"#;
//! let config = Config::parse_with(text, &Vars::from_map([("HOME", "/home/me"), ("TOKEN", "t")]))?;
//! assert_eq!(config.servers.len(), 2);
//! let files = config.get("files").unwrap();
//! assert!(matches!(&files.transport, TransportConfig::Stdio(s) if s.args == ["/home/me/src"]));
//! assert_eq!(config.errors[0].server.as_deref(), Some("broken"));
//! assert_eq!(config.errors[0].path, "/servers/broken/type");
//! # Ok::<(), mcp_host::config::ConfigError>(())
//! ```

mod entry;
mod error;
mod expand;
mod jsonc;
mod locations;
mod settings;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use entry::{HttpEntry, ServerEntry, StdioConfig, TransportConfig};
pub use error::{ConfigError, ConfigErrorKind};
pub use expand::Vars;
pub use locations::{ConfigLocation, HostApp, Scope, default_locations, locations_for};
pub use settings::{Backoff, EraChoice, HostSettings, OAuthSettings, ToolRules};

/// The largest config file read (4 MiB): bigger is not a config.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// A parsed config: the good entries, in file order, and the problems of
/// the bad ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// One entry per server that parsed, disabled ones included.
    pub servers: Vec<ServerEntry>,
    /// One error per entry that did not.
    pub errors: Vec<ConfigError>,
}

impl Config {
    /// Parses `text`, expanding variables from the process environment.
    ///
    /// # Errors
    /// When the text is not JSON or has no server object; problems of
    /// single entries are in [`Config::errors`] instead.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse_with(text, &Vars::from_env())
    }

    /// Parses `text`, expanding variables from `vars`.
    ///
    /// # Errors
    /// As [`Config::parse`].
    pub fn parse_with(text: &str, vars: &Vars) -> Result<Config, ConfigError> {
        let doc: Value = serde_json::from_str(&jsonc::strip(text)).map_err(|e| {
            let kind = ConfigErrorKind::Json {
                line: e.line(),
                column: e.column(),
                reason: e.to_string(),
            };
            ConfigError::at(None, "", kind)
        })?;
        let mut config = Config::default();
        let mut found = false;
        let mut seen = BTreeMap::new();
        for (object, path) in server_objects(&doc) {
            found = true;
            config.read_servers(object, &path, vars, &mut seen);
        }
        if !found {
            return Err(ConfigError::at(None, "", ConfigErrorKind::NoServers));
        }
        Ok(config)
    }

    /// Reads and parses the file at `path` (variables from the process
    /// environment).
    ///
    /// # Errors
    /// When the file cannot be read or is larger than
    /// [`MAX_CONFIG_BYTES`], and as [`Config::parse`].
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        Config::load_with(path, &Vars::from_env())
    }

    /// Reads and parses the file at `path` with `vars`.
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn load_with(path: impl AsRef<Path>, vars: &Vars) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let io = |reason: String| {
            let kind = ConfigErrorKind::Io {
                file: PathBuf::from(path),
                reason,
            };
            ConfigError::at(None, "", kind)
        };
        let size = std::fs::metadata(path)
            .map_err(|e| io(e.to_string()))?
            .len();
        if size > MAX_CONFIG_BYTES {
            return Err(io(format!("{size} bytes, more than {MAX_CONFIG_BYTES}")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
        Config::parse_with(&text, vars)
    }

    /// The entry labelled `label`.
    pub fn get(&self, label: &str) -> Option<&ServerEntry> {
        self.servers.iter().find(|s| s.label == label)
    }

    /// The entries that are not disabled.
    pub fn enabled(&self) -> impl Iterator<Item = &ServerEntry> {
        self.servers.iter().filter(|s| !s.disabled)
    }

    /// Reads one server object; `seen` maps labels to the path of their
    /// first entry.
    fn read_servers(
        &mut self,
        object: &Value,
        path: &str,
        vars: &Vars,
        seen: &mut BTreeMap<String, String>,
    ) {
        let Some(map) = object.as_object() else {
            let kind = ConfigErrorKind::Type {
                expected: "an object of servers",
                found: error::type_name(object),
            };
            self.errors.push(ConfigError::at(None, path, kind));
            return;
        };
        for (label, value) in map {
            let entry_path = error::child(path, label);
            let parsed = if label.trim().is_empty() {
                let kind = ConfigErrorKind::Invalid("the server label is empty".into());
                Err(ConfigError::at(Some(label), entry_path.clone(), kind))
            } else {
                entry::parse_entry(label, &entry_path, value, vars)
            };
            if let Some(first) = seen.get(label) {
                let kind = ConfigErrorKind::DuplicateLabel {
                    first: first.clone(),
                };
                self.errors
                    .push(ConfigError::at(Some(label), entry_path, kind));
                continue;
            }
            seen.insert(label.clone(), entry_path);
            match parsed {
                Ok(entry) => self.servers.push(entry),
                Err(e) => self.errors.push(e),
            }
        }
    }
}

/// The server objects of a document with their paths: `mcpServers`,
/// `servers`, `mcp.servers`.
fn server_objects(doc: &Value) -> Vec<(&Value, String)> {
    let mut out = Vec::new();
    if let Some(v) = doc.get("mcpServers") {
        out.push((v, "/mcpServers".to_owned()));
    }
    if let Some(v) = doc.get("servers") {
        out.push((v, "/servers".to_owned()));
    }
    if let Some(v) = doc.get("mcp").and_then(|m| m.get("servers")) {
        out.push((v, "/mcp/servers".to_owned()));
    }
    out
}

#[cfg(test)]
mod tests;

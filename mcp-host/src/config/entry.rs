//! One server entry: its transport and the host settings, read from a JSON
//! object with every problem reported at its JSON path.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::error::{ConfigError, ConfigErrorKind, child, type_name};
use super::expand::Vars;
use super::settings::HostSettings;

/// One server of the config, under the label the user gave it (the key in
/// `mcpServers`); the label, never the server's self-reported name, is its
/// identity in the host.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The key of the entry in `mcpServers` / `servers`.
    pub label: String,
    /// How to reach it.
    pub transport: TransportConfig,
    /// `"disabled": true`: listed, never started.
    pub disabled: bool,
    /// Our own keys (under `"mcpHost"`), which other hosts ignore.
    pub settings: HostSettings,
}

impl fmt::Debug for ServerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerEntry")
            .field("label", &self.label)
            .field("transport", &self.transport)
            .field("disabled", &self.disabled)
            .field("settings", &self.settings)
            .finish()
    }
}

/// How a server is reached.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdio.
    Stdio(StdioConfig),
    /// Streamable HTTP.
    Http(HttpEntry),
}

impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportConfig::Stdio(s) => s.fmt(f),
            TransportConfig::Http(h) => h.fmt(f),
        }
    }
}

/// `command`, `args`, `env`, `cwd`, variables expanded.
#[derive(Clone, PartialEq, Eq)]
pub struct StdioConfig {
    /// The program (looked up on `PATH` when bare).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it (on top of the inherited environment).
    pub env: BTreeMap<String, String>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
}

impl fmt::Debug for StdioConfig {
    // Environment values are often tokens: only their names show.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stdio")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// `url` and `headers`, variables expanded.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpEntry {
    /// The MCP endpoint.
    pub url: String,
    /// Headers sent with every request.
    pub headers: BTreeMap<String, String>,
}

impl fmt::Debug for HttpEntry {
    // Header values are often credentials, and a URL may carry a query
    // token: only the origin and path and the header names show.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.url.split(['?', '#']).next().unwrap_or_default();
        f.debug_struct("Http")
            .field("url", &shown)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Reads the entry `label` at `path`.
pub(crate) fn parse_entry(
    label: &str,
    path: &str,
    value: &Value,
    vars: &Vars,
) -> Result<ServerEntry, ConfigError> {
    let r = Reader {
        label,
        path,
        vars,
        obj: value.as_object().ok_or_else(|| {
            ConfigError::at(
                Some(label),
                path,
                ConfigErrorKind::Type {
                    expected: "an object",
                    found: type_name(value),
                },
            )
        })?,
    };
    let disabled = r.bool("disabled")?.unwrap_or(false);
    let transport = r.transport()?;
    let settings = match r.obj.get("mcpHost") {
        Some(v) => HostSettings::parse(label, &child(path, "mcpHost"), v)?,
        None => HostSettings::default(),
    };
    Ok(ServerEntry {
        label: label.to_owned(),
        transport,
        disabled,
        settings,
    })
}

/// Reads the keys of one entry object.
struct Reader<'a> {
    label: &'a str,
    path: &'a str,
    vars: &'a Vars,
    obj: &'a Map<String, Value>,
}

impl Reader<'_> {
    fn err(&self, path: String, kind: ConfigErrorKind) -> ConfigError {
        ConfigError::at(Some(self.label), path, kind)
    }

    fn type_err(&self, path: String, expected: &'static str, v: &Value) -> ConfigError {
        let found = type_name(v);
        self.err(path, ConfigErrorKind::Type { expected, found })
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.type_err(child(self.path, key), "a boolean", v)),
        }
    }

    /// An expanded string at `path`.
    fn string_at(&self, path: String, v: &Value) -> Result<String, ConfigError> {
        let s = v
            .as_str()
            .ok_or_else(|| self.type_err(path.clone(), "a string", v))?;
        self.vars.expand(s).map_err(|kind| self.err(path, kind))
    }

    fn string(&self, key: &str) -> Result<Option<String>, ConfigError> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.string_at(child(self.path, key), v).map(Some),
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, ConfigError> {
        let path = child(self.path, key);
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| self.string_at(child(&path, &i.to_string()), v))
                .collect(),
            Some(v) => Err(self.type_err(path, "an array of strings", v)),
        }
    }

    fn string_map(&self, key: &str) -> Result<BTreeMap<String, String>, ConfigError> {
        let path = child(self.path, key);
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| Ok((k.clone(), self.string_at(child(&path, k), v)?)))
                .collect(),
            Some(v) => Err(self.type_err(path, "an object of strings", v)),
        }
    }

    /// `type` (VS Code, Cursor) or `transport` (some others), lower-cased.
    fn declared_type(&self) -> Result<Option<(String, String)>, ConfigError> {
        for key in ["type", "transport"] {
            if let Some(v) = self.obj.get(key) {
                let path = child(self.path, key);
                let s = v
                    .as_str()
                    .ok_or_else(|| self.type_err(path.clone(), "a string", v))?;
                return Ok(Some((s.to_ascii_lowercase(), path)));
            }
        }
        Ok(None)
    }

    fn transport(&self) -> Result<TransportConfig, ConfigError> {
        let has_command = self.obj.contains_key("command");
        let has_url = self.obj.contains_key("url") || self.obj.contains_key("serverUrl");
        let stdio = match self.declared_type()? {
            Some((t, _)) if t == "stdio" => true,
            Some((t, _)) if t == "http" || t == "streamable-http" || t == "streamablehttp" => false,
            Some((t, path)) => {
                return Err(self.err(path, ConfigErrorKind::UnsupportedTransport(t)));
            }
            None => match (has_command, has_url) {
                (true, false) => true,
                (false, true) => false,
                (true, true) => {
                    let path = self.path.to_owned();
                    return Err(self.err(path, ConfigErrorKind::AmbiguousTransport));
                }
                (false, false) => {
                    let path = self.path.to_owned();
                    return Err(self.err(path, ConfigErrorKind::NoTransport));
                }
            },
        };
        if stdio { self.stdio() } else { self.http() }
    }

    fn stdio(&self) -> Result<TransportConfig, ConfigError> {
        let missing = ConfigErrorKind::MissingKey {
            transport: "stdio",
            key: "command",
        };
        let command = self
            .string("command")?
            .ok_or_else(|| self.err(self.path.to_owned(), missing))?;
        if command.trim().is_empty() {
            let kind = ConfigErrorKind::Invalid("the command is empty".into());
            return Err(self.err(child(self.path, "command"), kind));
        }
        Ok(TransportConfig::Stdio(StdioConfig {
            command,
            args: self.strings("args")?,
            env: self.string_map("env")?,
            cwd: self.string("cwd")?.map(PathBuf::from),
        }))
    }

    fn http(&self) -> Result<TransportConfig, ConfigError> {
        // Windsurf writes `serverUrl`.
        let key = if self.obj.contains_key("url") {
            "url"
        } else {
            "serverUrl"
        };
        let missing = ConfigErrorKind::MissingKey {
            transport: "http",
            key: "url",
        };
        let url = self
            .string(key)?
            .ok_or_else(|| self.err(self.path.to_owned(), missing))?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            let kind =
                ConfigErrorKind::Invalid("the url must start with http:// or https://".into());
            return Err(self.err(child(self.path, key), kind));
        }
        Ok(TransportConfig::Http(HttpEntry {
            url,
            headers: self.string_map("headers")?,
        }))
    }
}

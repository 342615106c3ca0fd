//! [`ConfigError`]: what is wrong with a config, where (server and JSON path).

use std::fmt;
use std::path::PathBuf;

/// A config problem: the server it belongs to (when there is one), the JSON
/// path of the offending value (a JSON Pointer such as
/// `/mcpServers/github/args/1`) and what is wrong.
///
/// ```
/// let config = mcp_host::config::Config::parse_with(
///     r#"{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"T": "${NOPE}"}}}}"#,
///     &mcp_host::config::Vars::from_map([("HOME", "/home/me")]),
/// ).unwrap();
/// let error = &config.errors[0];
/// assert_eq!(error.server.as_deref(), Some("gh"));
/// assert_eq!(error.path, "/mcpServers/gh/env/T");
/// assert_eq!(
///     error.to_string(),
///     "server `gh` at /mcpServers/gh/env/T: the variable `NOPE` is not set"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The server entry's label, `None` for a problem with the whole file.
    pub server: Option<String>,
    /// JSON Pointer (RFC 6901) to the offending value; empty for the whole
    /// document.
    pub path: String,
    /// What is wrong.
    pub kind: ConfigErrorKind,
}

/// What is wrong with a config value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The file could not be read.
    #[error("cannot read {}: {reason}", .file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The I/O error's text.
        reason: String,
    },
    /// The text is not JSON (comments and trailing commas are accepted).
    #[error("invalid JSON at line {line}, column {column}: {reason}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        reason: String,
    },
    /// The document has none of `mcpServers`, `servers` or `mcp.servers`.
    #[error("no `mcpServers` (Claude, Cursor) or `servers` (VS Code) object")]
    NoServers,
    /// A value has the wrong JSON type.
    #[error("expected {expected}, found {found}")]
    Type {
        /// What was expected.
        expected: &'static str,
        /// The JSON type found.
        found: &'static str,
    },
    /// A `${VAR}` / `${env:VAR}` names a variable that is not set (and has
    /// no `:-default`).
    #[error("the variable `{name}` is not set")]
    MissingVariable {
        /// The variable's name.
        name: String,
    },
    /// A `${...}` this loader cannot resolve (VS Code `${input:...}`,
    /// `${command:...}`, ...).
    #[error(
        "unsupported variable `${{{expr}}}`: only ${{VAR}}, ${{env:VAR}} and ${{VAR:-default}}"
    )]
    UnsupportedVariable {
        /// The text between the braces.
        expr: String,
    },
    /// A `${` without its closing `}`.
    #[error("unterminated `${{` at byte {at}")]
    UnterminatedVariable {
        /// Byte offset of the `$` in the string.
        at: usize,
    },
    /// Neither `command` (stdio) nor `url` (HTTP).
    #[error("no `command` (stdio) or `url` (HTTP)")]
    NoTransport,
    /// Both `command` and `url`, and no `type` to choose.
    #[error("both `command` and `url`: add `\"type\": \"stdio\"` or `\"type\": \"http\"`")]
    AmbiguousTransport,
    /// A `type`/`transport` this host does not speak.
    #[error("unsupported transport `{0}` (stdio, http and streamable-http are supported)")]
    UnsupportedTransport(String),
    /// The `type` asks for one transport and the keys for it are missing.
    #[error("transport `{transport}` needs `{key}`")]
    MissingKey {
        /// The transport chosen.
        transport: &'static str,
        /// The missing key.
        key: &'static str,
    },
    /// A value of the right type that is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The label is used twice (e.g. in both `mcpServers` and `servers`).
    #[error("the label is already used at {first}")]
    DuplicateLabel {
        /// The path of the first entry with this label.
        first: String,
    },
}

impl ConfigError {
    /// An error at `path` of the server `server`.
    pub fn at(server: Option<&str>, path: impl Into<String>, kind: ConfigErrorKind) -> Self {
        ConfigError {
            server: server.map(str::to_owned),
            path: path.into(),
            kind,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.server, self.path.is_empty()) {
            (Some(s), _) => write!(f, "server `{s}` at {}: {}", self.path, self.kind),
            (None, false) => write!(f, "at {}: {}", self.path, self.kind),
            (None, true) => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Appends one RFC 6901 reference token to a JSON Pointer.
pub(crate) fn child(path: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{path}/{escaped}")
}

/// The JSON type name of `v`, for [`ConfigErrorKind::Type`].
pub(crate) fn type_name(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

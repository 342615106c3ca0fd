//! What the suite tells the binary: every environment variable and argument
//! is read here and nowhere else.
//!
//! The suite (`@modelcontextprotocol/conformance`) starts a test server, then
//! runs `<command> <server-url>` with:
//!
//! * `MCP_CONFORMANCE_SCENARIO`: the scenario name, e.g. `tools_call` or
//!   `auth/metadata-default`;
//! * `MCP_CONFORMANCE_PROTOCOL_VERSION`: the revision to speak, e.g.
//!   `2025-11-25` (legacy era: `initialize` handshake) or `2026-07-28` (modern
//!   era: stateless, per-request `_meta`);
//! * `MCP_CONFORMANCE_CONTEXT` (only for scenarios that need it): a JSON
//!   object `{"name": <scenario>, ...}` with scenario data such as client
//!   credentials.
//!
//! The server URL is the **last** argument.

use std::ffi::OsString;
use std::fmt;

use mcp_types::{Era, ProtocolVersion};
use serde_json::{Map, Value};

/// Environment variable naming the scenario.
pub const SCENARIO_VAR: &str = "MCP_CONFORMANCE_SCENARIO";
/// Environment variable naming the protocol revision to speak.
pub const PROTOCOL_VERSION_VAR: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
/// Environment variable holding the scenario context as JSON.
pub const CONTEXT_VAR: &str = "MCP_CONFORMANCE_CONTEXT";

/// The largest context the binary accepts, in bytes.
pub const MAX_CONTEXT_BYTES: usize = 64 * 1024;

/// Why the invocation could not be understood (the caller's fault).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InvocationError {
    /// A required environment variable is unset or empty.
    #[error("{0} is not set")]
    Missing(&'static str),
    /// An environment variable or argument is not valid UTF-8.
    #[error("{0} is not valid UTF-8")]
    NotUnicode(&'static str),
    /// No server URL argument was given.
    #[error("no server URL: the suite passes it as the last argument")]
    MissingUrl,
    /// The last argument is not an `http://` or `https://` URL.
    #[error("the last argument {0:?} is not an http(s) URL")]
    InvalidUrl(String),
    /// The protocol version is not one this client knows.
    #[error("{PROTOCOL_VERSION_VAR}={0:?} is not a revision this client knows")]
    UnknownProtocolVersion(String),
    /// The context is not a JSON object.
    #[error("{CONTEXT_VAR} is not a JSON object: {0}")]
    InvalidContext(String),
    /// The context is larger than [`MAX_CONTEXT_BYTES`].
    #[error("{CONTEXT_VAR} is {0} bytes, more than the {MAX_CONTEXT_BYTES} accepted")]
    ContextTooLarge(usize),
}

/// One run of the binary, as the suite described it.
///
/// `Debug` shows the context's keys but never its values: they may be
/// credentials.
#[derive(Clone)]
#[non_exhaustive]
pub struct Invocation {
    /// The scenario name (`MCP_CONFORMANCE_SCENARIO`).
    pub scenario: String,
    /// The revision to speak (`MCP_CONFORMANCE_PROTOCOL_VERSION`); `None` when
    /// unset, as when the binary is run by hand.
    pub protocol_version: Option<ProtocolVersion>,
    /// The scenario context (`MCP_CONFORMANCE_CONTEXT`), when given.
    pub context: Option<Map<String, Value>>,
    /// The test server's URL (the last argument).
    pub server_url: String,
}

impl Invocation {
    /// Reads the process's arguments and environment.
    pub fn from_env() -> Result<Invocation, InvocationError> {
        Invocation::parse(std::env::args_os().skip(1), |name| std::env::var_os(name))
    }

    /// Parses `args` (without the program name) and the variables `var` returns.
    ///
    /// ```
    /// use conformance::invocation::Invocation;
    /// use mcp_types::Era;
    ///
    /// let env = |name: &str| match name {
    ///     "MCP_CONFORMANCE_SCENARIO" => Some("tools_call".into()),
    ///     "MCP_CONFORMANCE_PROTOCOL_VERSION" => Some("2026-07-28".into()),
    ///     _ => None,
    /// };
    /// let args = ["http://localhost:3000/mcp".into()];
    /// let inv = Invocation::parse(args, env)?;
    /// assert_eq!(inv.scenario, "tools_call");
    /// assert_eq!(inv.era(), Some(Era::Modern));
    /// assert_eq!(inv.server_url, "http://localhost:3000/mcp");
    /// # Ok::<(), conformance::invocation::InvocationError>(())
    /// ```
    pub fn parse<A, F>(args: A, var: F) -> Result<Invocation, InvocationError>
    where
        A: IntoIterator<Item = OsString>,
        F: Fn(&str) -> Option<OsString>,
    {
        let text = |name: &'static str| -> Result<Option<String>, InvocationError> {
            match var(name) {
                None => Ok(None),
                Some(v) if v.is_empty() => Ok(None),
                Some(v) => v
                    .into_string()
                    .map(Some)
                    .map_err(|_| InvocationError::NotUnicode(name)),
            }
        };
        let scenario = text(SCENARIO_VAR)?.ok_or(InvocationError::Missing(SCENARIO_VAR))?;
        let protocol_version = match text(PROTOCOL_VERSION_VAR)? {
            None => None,
            Some(v) => {
                let parsed = ProtocolVersion::parse(&v);
                if !parsed.is_known() {
                    return Err(InvocationError::UnknownProtocolVersion(v));
                }
                Some(parsed)
            }
        };
        let context = match text(CONTEXT_VAR)? {
            None => None,
            Some(json) if json.len() > MAX_CONTEXT_BYTES => {
                return Err(InvocationError::ContextTooLarge(json.len()));
            }
            Some(json) => match serde_json::from_str::<Value>(&json) {
                Ok(Value::Object(map)) => Some(map),
                Ok(other) => {
                    return Err(InvocationError::InvalidContext(format!(
                        "found {}",
                        kind(&other)
                    )));
                }
                Err(e) => return Err(InvocationError::InvalidContext(e.to_string())),
            },
        };
        let last = args.into_iter().last().ok_or(InvocationError::MissingUrl)?;
        let server_url = last
            .into_string()
            .map_err(|_| InvocationError::NotUnicode("the server URL"))?;
        if !is_http_url(&server_url) {
            return Err(InvocationError::InvalidUrl(server_url));
        }
        Ok(Invocation {
            scenario,
            protocol_version,
            context,
            server_url,
        })
    }

    /// The era to speak, when the suite named a revision.
    pub fn era(&self) -> Option<Era> {
        self.protocol_version
            .as_ref()
            .and_then(ProtocolVersion::era)
    }

    /// A string field of the context, e.g. `client_id`.
    pub fn context_str(&self, key: &str) -> Option<&str> {
        self.context.as_ref()?.get(key)?.as_str()
    }
}

impl fmt::Debug for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let context_keys: Option<Vec<&String>> = self.context.as_ref().map(|c| c.keys().collect());
        f.debug_struct("Invocation")
            .field("scenario", &self.scenario)
            .field("protocol_version", &self.protocol_version)
            .field("context_keys", &context_keys)
            .field("server_url", &self.server_url)
            .finish()
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `http://host...` or `https://host...` with a non-empty host and no
/// whitespace or control characters.
fn is_http_url(s: &str) -> bool {
    let rest = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"));
    match rest {
        Some(rest) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            !host.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(vars: &[(&str, &str)], args: &[&str]) -> Result<Invocation, InvocationError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Invocation::parse(args.iter().map(OsString::from), |name| {
            vars.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn reads_every_part_and_takes_the_last_argument_as_url() {
        let inv = parse(
            &[
                (SCENARIO_VAR, "auth/metadata-default"),
                (PROTOCOL_VERSION_VAR, "2025-11-25"),
                (
                    CONTEXT_VAR,
                    r#"{"name":"auth/metadata-default","client_id":"c1"}"#,
                ),
            ],
            &["--flag", "http://localhost:1234/mcp"],
        )
        .expect("valid");
        assert_eq!(inv.scenario, "auth/metadata-default");
        assert_eq!(inv.protocol_version, Some(ProtocolVersion::V2025_11_25));
        assert_eq!(inv.era(), Some(Era::Legacy));
        assert_eq!(inv.context_str("client_id"), Some("c1"));
        assert_eq!(inv.context_str("missing"), None);
        assert_eq!(inv.server_url, "http://localhost:1234/mcp");
    }

    #[test]
    fn version_and_context_are_optional() {
        let inv = parse(&[(SCENARIO_VAR, "initialize")], &["http://127.0.0.1:9"]).expect("valid");
        assert_eq!(inv.protocol_version, None);
        assert_eq!(inv.era(), None);
        assert!(inv.context.is_none());
    }

    #[test]
    fn rejects_bad_input_with_typed_errors() {
        let ok = [(SCENARIO_VAR, "tools_call")];
        assert!(matches!(
            parse(&[], &["http://x"]),
            Err(InvocationError::Missing(SCENARIO_VAR))
        ));
        assert!(matches!(
            parse(&[(SCENARIO_VAR, "")], &["http://x"]),
            Err(InvocationError::Missing(_))
        ));
        assert!(matches!(parse(&ok, &[]), Err(InvocationError::MissingUrl)));
        for url in [
            "localhost:3000",
            "ftp://x",
            "http://",
            "http://a b",
            "http:///path",
        ] {
            assert!(
                matches!(parse(&ok, &[url]), Err(InvocationError::InvalidUrl(_))),
                "{url}"
            );
        }
        assert!(matches!(
            parse(
                &[ok[0], (PROTOCOL_VERSION_VAR, "2099-01-01")],
                &["http://x"]
            ),
            Err(InvocationError::UnknownProtocolVersion(_))
        ));
        for context in ["[1]", "not json", "\"s\""] {
            assert!(matches!(
                parse(&[ok[0], (CONTEXT_VAR, context)], &["http://x"]),
                Err(InvocationError::InvalidContext(_))
            ));
        }
        let huge = format!("{{\"k\":\"{}\"}}", "a".repeat(MAX_CONTEXT_BYTES));
        assert!(matches!(
            parse(&[ok[0], (CONTEXT_VAR, &huge)], &["http://x"]),
            Err(InvocationError::ContextTooLarge(_))
        ));
    }

    #[test]
    fn debug_never_shows_context_values() {
        let inv = parse(
            &[
                (SCENARIO_VAR, "auth/client-credentials-basic"),
                (CONTEXT_VAR, r#"{"client_secret":"s3cr3t-value"}"#),
            ],
            &["http://x"],
        )
        .expect("valid");
        let debug = format!("{inv:?}");
        assert!(debug.contains("client_secret"), "{debug}");
        assert!(!debug.contains("s3cr3t-value"), "{debug}");
    }
}

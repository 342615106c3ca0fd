//! Our own per-server keys, under `"mcpHost"` in an entry (other hosts
//! ignore unknown keys): era preference, deadlines, reconnect policy, tool
//! filters and OAuth.
//!
//! ```json
//! "github": {
//!   "url": "https://example.com/mcp",
//!   "mcpHost": {
//!     "era": "modern",
//!     "connectTimeoutMs": 10000,
//!     "requestTimeoutMs": 60000,
//!     "tools": { "allow": ["search_*", "get_issue"], "deny": ["*delete*"], "readOnly": false },
//!     "reconnect": { "initialMs": 500, "maxMs": 30000, "factor": 2, "jitterPercent": 20, "maxAttempts": 10 },
//!     "oauth": { "clientId": "my-host", "scopes": ["repo"] }
//!   }
//! }
//! ```

use std::time::Duration;

use serde_json::{Map, Value};

use super::error::{ConfigError, ConfigErrorKind, child, type_name};

/// Which protocol era to speak with a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EraChoice {
    /// Detect (the default).
    #[default]
    Auto,
    /// 2025-11-25 and older only.
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

/// Per-server settings; every field has a default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostSettings {
    /// `era`: `"auto"`, `"legacy"` or `"modern"`.
    pub era: EraChoice,
    /// `connectTimeoutMs`: how long connecting may take before the server
    /// counts as failed (the host's default when absent).
    pub connect_timeout: Option<Duration>,
    /// `requestTimeoutMs`: the deadline of each request to this server.
    pub request_timeout: Option<Duration>,
    /// `tools`: which tools of this server the catalogue keeps.
    pub tools: ToolRules,
    /// `reconnect`: the restart policy (the host's default when absent).
    pub reconnect: Option<Backoff>,
    /// `oauth`: authorize HTTP requests with OAuth 2.1.
    pub oauth: Option<OAuthSettings>,
}

/// Tool filters of one server: `allow` and `deny` hold names or globs (`*`
/// any run of characters, `?` one character). A tool is kept when it
/// matches `allow` (or `allow` is empty), matches no `deny`, and, with
/// `read_only`, is annotated `readOnlyHint: true`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolRules {
    /// Kept names or globs; empty keeps all.
    pub allow: Vec<String>,
    /// Dropped names or globs; wins over `allow`.
    pub deny: Vec<String>,
    /// Keep only tools annotated `readOnlyHint: true`.
    pub read_only: bool,
}

/// An exponential backoff policy: the delay before restart attempt `n`
/// (from 0) is `initial * factor^n`, capped at `max`, then reduced by a
/// random part of up to `jitter_percent` percent. After `max_attempts`
/// failed attempts in a row the server stays failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// `initialMs`: the first delay (default 500 ms).
    pub initial: Duration,
    /// `maxMs`: the cap (default 30 s).
    pub max: Duration,
    /// `factor`: the multiplier per attempt (default 2, at least 1).
    pub factor: u32,
    /// `jitterPercent`: how much of each delay is random (default 20, at
    /// most 100).
    pub jitter_percent: u8,
    /// `maxAttempts`: attempts before giving up (default 10; 0 never
    /// restarts).
    pub max_attempts: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(500),
            max: Duration::from_secs(30),
            factor: 2,
            jitter_percent: 20,
            max_attempts: 10,
        }
    }
}

/// `oauth`: the server is authorized with OAuth 2.1; tokens are stored per
/// server label.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// `clientId`: a pre-registered client id (dynamic registration when
    /// absent).
    pub client_id: Option<String>,
    /// `scopes`: scopes to ask for (the server's advertised ones when
    /// empty).
    pub scopes: Vec<String>,
}

/// Reads one JSON object of known keys, reporting unknown ones (our own
/// namespace: a typo should not pass silently).
struct Obj<'a> {
    label: &'a str,
    path: String,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    fn new(label: &'a str, path: &str, v: &'a Value, known: &[&str]) -> Result<Self, ConfigError> {
        let map = v.as_object().ok_or_else(|| {
            let kind = ConfigErrorKind::Type {
                expected: "an object",
                found: type_name(v),
            };
            ConfigError::at(Some(label), path, kind)
        })?;
        if let Some(key) = map.keys().find(|k| !known.contains(&k.as_str())) {
            let kind = ConfigErrorKind::Invalid(format!(
                "unknown key `{key}` (known: {})",
                known.join(", ")
            ));
            return Err(ConfigError::at(Some(label), child(path, key), kind));
        }
        Ok(Obj {
            label,
            path: path.to_owned(),
            map,
        })
    }

    fn err(&self, key: &str, kind: ConfigErrorKind) -> ConfigError {
        ConfigError::at(Some(self.label), child(&self.path, key), kind)
    }

    fn typed<T>(
        &self,
        key: &str,
        expected: &'static str,
        get: impl Fn(&Value) -> Option<T>,
    ) -> Result<Option<T>, ConfigError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => get(v).map(Some).ok_or_else(|| {
                let found = type_name(v);
                self.err(key, ConfigErrorKind::Type { expected, found })
            }),
        }
    }

    fn u64(&self, key: &str) -> Result<Option<u64>, ConfigError> {
        self.typed(key, "a non-negative integer", Value::as_u64)
    }

    fn millis(&self, key: &str) -> Result<Option<Duration>, ConfigError> {
        Ok(self.u64(key)?.map(Duration::from_millis))
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, ConfigError> {
        let list = self.typed(key, "an array of strings", |v| {
            v.as_array()?
                .iter()
                .map(|s| s.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        })?;
        Ok(list.unwrap_or_default())
    }

    fn obj(&self, key: &str, known: &[&str]) -> Result<Option<Obj<'a>>, ConfigError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => Obj::new(self.label, &child(&self.path, key), v, known).map(Some),
        }
    }
}

impl HostSettings {
    /// Reads the `mcpHost` object of the entry `label` at `path`.
    pub(crate) fn parse(label: &str, path: &str, v: &Value) -> Result<Self, ConfigError> {
        const KEYS: &[&str] = &[
            "era",
            "connectTimeoutMs",
            "requestTimeoutMs",
            "tools",
            "reconnect",
            "oauth",
        ];
        let o = Obj::new(label, path, v, KEYS)?;
        let era = match o.typed("era", "a string", |v| v.as_str().map(str::to_owned))? {
            None => EraChoice::Auto,
            Some(s) => match s.as_str() {
                "auto" => EraChoice::Auto,
                "legacy" | "2025-11-25" => EraChoice::Legacy,
                "modern" | "2026-07-28" => EraChoice::Modern,
                other => {
                    let kind = ConfigErrorKind::Invalid(format!(
                        "unknown era `{other}` (auto, legacy or modern)"
                    ));
                    return Err(o.err("era", kind));
                }
            },
        };
        let tools = match o.obj("tools", &["allow", "deny", "readOnly"])? {
            None => ToolRules::default(),
            Some(t) => ToolRules {
                allow: t.strings("allow")?,
                deny: t.strings("deny")?,
                read_only: t
                    .typed("readOnly", "a boolean", Value::as_bool)?
                    .unwrap_or(false),
            },
        };
        let oauth = match o.obj("oauth", &["clientId", "scopes"])? {
            None => None,
            Some(a) => Some(OAuthSettings {
                client_id: a.typed("clientId", "a string", |v| v.as_str().map(str::to_owned))?,
                scopes: a.strings("scopes")?,
            }),
        };
        Ok(HostSettings {
            era,
            connect_timeout: o.millis("connectTimeoutMs")?,
            request_timeout: o.millis("requestTimeoutMs")?,
            tools,
            reconnect: parse_backoff(&o)?,
            oauth,
        })
    }
}

fn parse_backoff(o: &Obj<'_>) -> Result<Option<Backoff>, ConfigError> {
    const KEYS: &[&str] = &[
        "initialMs",
        "maxMs",
        "factor",
        "jitterPercent",
        "maxAttempts",
    ];
    let Some(r) = o.obj("reconnect", KEYS)? else {
        return Ok(None);
    };
    let d = Backoff::default();
    let small = |key: &str, max: u64| -> Result<Option<u64>, ConfigError> {
        match r.u64(key)? {
            Some(n) if n > max => {
                let kind = ConfigErrorKind::Invalid(format!("{key} must be at most {max}"));
                Err(r.err(key, kind))
            }
            other => Ok(other),
        }
    };
    let factor = small("factor", 1000)?.map_or(d.factor, |f| f.max(1) as u32);
    let jitter = small("jitterPercent", 100)?.map_or(d.jitter_percent, |j| j as u8);
    let attempts = small("maxAttempts", u64::from(u32::MAX))?.map_or(d.max_attempts, |a| a as u32);
    let b = Backoff {
        initial: r.millis("initialMs")?.unwrap_or(d.initial),
        max: r.millis("maxMs")?.unwrap_or(d.max),
        factor,
        jitter_percent: jitter,
        max_attempts: attempts,
    };
    if b.initial > b.max {
        let kind = ConfigErrorKind::Invalid("initialMs is larger than maxMs".into());
        return Err(r.err("initialMs", kind));
    }
    Ok(Some(b))
}

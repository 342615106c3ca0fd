//! `${VAR}`, `${env:VAR}` and `${VAR:-default}` expansion, the way Claude
//! Code, Cursor and VS Code expand their MCP configs.
//!
//! [`Vars`] says where values come from: the process environment
//! ([`Vars::from_env`]) or a fixed map ([`Vars::from_map`], for tests and
//! for hosts that resolve variables themselves), plus named host variables
//! such as VS Code's `workspaceFolder` ([`Vars::with`]).

use std::collections::BTreeMap;
use std::fmt;

use super::error::ConfigErrorKind;

type Lookup = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The source of variable values for expansion.
///
/// ```
/// use mcp_host::config::Vars;
/// let vars = Vars::from_map([("TOKEN", "t0k")]).with("workspaceFolder", "/src/app");
/// assert_eq!(vars.expand("Bearer ${env:TOKEN}").unwrap(), "Bearer t0k");
/// assert_eq!(vars.expand("${workspaceFolder}/bin").unwrap(), "/src/app/bin");
/// assert_eq!(vars.expand("${PORT:-8080}").unwrap(), "8080");
/// assert!(vars.expand("${MISSING}").is_err());
/// ```
pub struct Vars {
    env: Lookup,
    named: BTreeMap<String, String>,
}

impl fmt::Debug for Vars {
    // Values may be secrets: only the names of the host variables show.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vars")
            .field("named", &self.named.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Vars {
    /// Values from the process environment.
    pub fn from_env() -> Self {
        Vars {
            env: Box::new(|name| std::env::var(name).ok()),
            named: BTreeMap::new(),
        }
    }

    /// Values from a fixed map (the environment is not consulted).
    pub fn from_map<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map: BTreeMap<String, String> = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Vars {
            env: Box::new(move |name| map.get(name).cloned()),
            named: BTreeMap::new(),
        }
    }

    /// Adds a host variable (`${workspaceFolder}`, `${userHome}`, ...),
    /// consulted before the environment for `${NAME}` (never for
    /// `${env:NAME}`).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.named.insert(name.into(), value.into());
        self
    }

    fn lookup(&self, expr: &str) -> Result<Option<String>, ConfigErrorKind> {
        if let Some(name) = expr.strip_prefix("env:") {
            return Ok((self.env)(name));
        }
        if expr.contains(':') {
            return Err(ConfigErrorKind::UnsupportedVariable { expr: expr.into() });
        }
        if let Some(v) = self.named.get(expr) {
            return Ok(Some(v.clone()));
        }
        Ok((self.env)(expr))
    }

    /// Expands every `${...}` in `text`. A `$` not followed by `{` stays as
    /// it is.
    ///
    /// # Errors
    /// [`ConfigErrorKind::MissingVariable`] naming the variable,
    /// [`ConfigErrorKind::UnsupportedVariable`], or
    /// [`ConfigErrorKind::UnterminatedVariable`].
    pub fn expand(&self, text: &str) -> Result<String, ConfigErrorKind> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let at = text.len() - rest.len() + start;
            let body = &rest[start + 2..];
            let end = body
                .find('}')
                .ok_or(ConfigErrorKind::UnterminatedVariable { at })?;
            let expr = &body[..end];
            let (name, default) = match expr.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (expr, None),
            };
            if name.is_empty() || name == "env:" {
                return Err(ConfigErrorKind::UnsupportedVariable { expr: expr.into() });
            }
            match (self.lookup(name)?, default) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => {
                    let bare = name.strip_prefix("env:").unwrap_or(name);
                    return Err(ConfigErrorKind::MissingVariable { name: bare.into() });
                }
            }
            rest = &body[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        Vars::from_map([("A", "1"), ("EMPTY", "")]).with("workspaceFolder", "/w")
    }

    #[test]
    fn expands_all_forms_and_keeps_plain_dollars() {
        let v = vars();
        assert_eq!(v.expand("x${A}y${env:A}z").unwrap(), "x1y1z");
        assert_eq!(v.expand("$A ${B:-two} $").unwrap(), "$A two $");
        assert_eq!(v.expand("${EMPTY:-d}").unwrap(), "");
        assert_eq!(v.expand("${env:B:-3}").unwrap(), "3");
        assert_eq!(v.expand("${workspaceFolder}/x").unwrap(), "/w/x");
    }

    #[test]
    fn env_prefix_skips_host_variables() {
        let err = vars().expand("${env:workspaceFolder}").unwrap_err();
        assert_eq!(
            err,
            ConfigErrorKind::MissingVariable {
                name: "workspaceFolder".into()
            }
        );
    }

    #[test]
    fn names_missing_unsupported_and_unterminated() {
        let v = vars();
        assert_eq!(
            v.expand("a ${NOPE} b").unwrap_err(),
            ConfigErrorKind::MissingVariable {
                name: "NOPE".into()
            }
        );
        assert_eq!(
            v.expand("${input:token}").unwrap_err(),
            ConfigErrorKind::UnsupportedVariable {
                expr: "input:token".into()
            }
        );
        assert_eq!(
            v.expand("ab${A").unwrap_err(),
            ConfigErrorKind::UnterminatedVariable { at: 2 }
        );
        assert!(v.expand("${}").is_err());
    }

    #[test]
    fn debug_shows_no_values() {
        let v = Vars::from_map([("SECRET", "hunter2")]).with("k", "hunter3");
        let text = format!("{v:?}");
        assert!(!text.contains("hunter"), "{text}");
    }
}

//! HTTP routing data: `Mcp-Name`, `Mcp-Param-*` and their encoding
//! (2026-07-28).
//!
//! * [`encode_header_value`] wraps values that cannot travel bare as
//!   `=?base64?...?=` (values with non-ASCII, control or edge
//!   whitespace characters).
//! * [`HeaderBindings::from_tool`] validates a tool's `x-mcp-header`
//!   annotations; a tool with an invalid one is dropped from
//!   `tools/list` results.
//! * [`HeaderBindings::derive`] turns `tools/call` arguments into
//!   `Mcp-Param-{Name}` values.
//!
//! Private to the core: a driver sees the result in
//! [`Transmit::Message`](crate::Transmit::Message)'s `routing`, and the
//! bindings of a listed tool through
//! [`Connection::tool_headers`](crate::Connection::tool_headers) (unit
//! tests in `headers/tests.rs`).

use std::sync::Arc;

use base64::Engine;
use mcp_types::routing::is_tchar;
use serde_json::Value;

/// The largest integer a header value may carry (±(2^53−1)).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Encodes one header value: bare when it is safe printable ASCII without
/// leading or trailing whitespace, otherwise `=?base64?<base64>?=`. A bare
/// value that itself looks like the wrapping is wrapped too.
pub(crate) fn encode_header_value(value: &str) -> String {
    if travels_bare(value) {
        value.to_owned()
    } else {
        wrapped(value)
    }
}

/// Whether `value` goes into a header as it is ([`encode_header_value`]).
fn travels_bare(value: &str) -> bool {
    let unsafe_byte = value.bytes().any(|b| !(0x20..0x7f).contains(&b));
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let looks_wrapped = value.starts_with("=?base64?") && value.ends_with("?=");
    !(unsafe_byte || padded || looks_wrapped)
}

/// `value` wrapped as `=?base64?<base64>?=`.
fn wrapped(value: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
    format!("=?base64?{b64}?=")
}

/// How many names [`RecentNames`] keeps.
const RECENT_NAMES: usize = 8;

/// The longest name [`RecentNames`] keeps (a resource URI may be long;
/// the names that recur, tools' and prompts', are short).
const RECENT_NAME_MAX: usize = 128;

/// The `Mcp-Name` values of the names requests carried lately: a request
/// that names one of them again (an agent calls the same few tools over
/// and over) shares its header text, with no new copy or check of it. A
/// few short names that travel bare, replaced in turn: bounded whatever
/// the names are.
#[derive(Debug, Default)]
pub(crate) struct RecentNames {
    names: Vec<Arc<str>>,
    /// The entry the next new name replaces, once all are taken.
    next: usize,
}

impl RecentNames {
    /// The header text of `name` ([`encode_header_value`]'s), shared.
    pub(crate) fn value(&mut self, name: &str) -> Arc<str> {
        if let Some(known) = self.names.iter().find(|n| ***n == *name) {
            return Arc::clone(known);
        }
        if !travels_bare(name) {
            return wrapped(name).into();
        }
        let value: Arc<str> = name.into();
        if name.len() <= RECENT_NAME_MAX {
            if self.names.len() < RECENT_NAMES {
                self.names.push(Arc::clone(&value));
            } else {
                self.names[self.next] = Arc::clone(&value);
                self.next = (self.next + 1) % RECENT_NAMES;
            }
        }
        value
    }
}

/// The text `Mcp-Name` carries for a request, before its encoding: the
/// tool or prompt name, the resource URI (also of `skills/get` and
/// `resources/directory/read`), or the task id. `facts` is the call's row of
/// the method table, when it has one (no lookup by name then).
pub(crate) fn mcp_name<'p>(
    method: &str,
    facts: Option<&mcp_types::methods::facts::MethodFacts>,
    params: &'p crate::params::Params,
) -> Option<&'p str> {
    let key = match facts {
        Some(f) if f.name == method => f.mcp_name_param,
        _ => mcp_types::methods::facts::mcp_name_param(method),
    }?;
    params.get_str(key)
}

/// Why a tool's `x-mcp-header` annotations were rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderAnnotationError {
    /// The header name is empty or not an RFC 9110 token.
    #[error("x-mcp-header name {0:?} is not a valid header token")]
    InvalidName(String),
    /// The same name annotates two properties (names are case-insensitive).
    #[error("x-mcp-header name {0:?} is used twice")]
    Duplicate(String),
    /// The annotated property is not a string, integer or boolean.
    #[error("x-mcp-header on property {0:?}, which is not a string, integer or boolean")]
    UnsupportedType(String),
    /// The annotation is not reachable through `properties` only.
    #[error("x-mcp-header inside {0:?}, which is not reachable through properties only")]
    Unreachable(String),
    /// The annotation value is not a string.
    #[error("x-mcp-header value is not a string")]
    NotAString,
}

/// One `x-mcp-header` annotation: header name and the argument path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderBinding {
    /// The `{Name}` of `Mcp-Param-{Name}`.
    pub name: String,
    /// Property names from the root of `inputSchema` to the argument.
    pub path: Vec<String>,
}

/// The validated `x-mcp-header` annotations of one tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderBindings {
    bindings: Vec<HeaderBinding>,
}

impl HeaderBindings {
    /// Validates the `x-mcp-header` annotations of a tool's `inputSchema`.
    ///
    /// # Errors
    /// A [`HeaderAnnotationError`] naming the first rule an annotation breaks.
    pub(crate) fn from_tool(input_schema: &Value) -> Result<HeaderBindings, HeaderAnnotationError> {
        let mut out = HeaderBindings::default();
        let mut path = Vec::new();
        walk(input_schema, &mut path, true, &mut out.bindings)?;
        let mut names: Vec<String> = out
            .bindings
            .iter()
            .map(|b| b.name.to_ascii_lowercase())
            .collect();
        names.sort();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(HeaderAnnotationError::Duplicate(w[0].clone()));
        }
        Ok(out)
    }

    /// The bindings, in schema order.
    pub fn bindings(&self) -> &[HeaderBinding] {
        &self.bindings
    }

    /// `Mcp-Param-{Name}` values for these arguments: present, non-null
    /// values only, encoded with [`encode_header_value`].
    pub(crate) fn derive(&self, arguments: Option<&Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for b in &self.bindings {
            let mut v = arguments;
            for seg in &b.path {
                v = v.and_then(|x| x.get(seg));
            }
            let text = match v {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Bool(x)) => x.to_string(),
                Some(n @ Value::Number(_)) if integer_in_range(n) => n.to_string(),
                _ => continue,
            };
            out.push((b.name.clone(), encode_header_value(&text)));
        }
        out
    }
}

const NESTED: [&str; 12] = [
    "items",
    "prefixItems",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "additionalProperties",
    "patternProperties",
];

fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    out: &mut Vec<HeaderBinding>,
) -> Result<(), HeaderAnnotationError> {
    let Some(obj) = schema.as_object() else {
        return Ok(());
    };
    if let Some(ann) = obj.get("x-mcp-header") {
        let name = ann.as_str().ok_or(HeaderAnnotationError::NotAString)?;
        if !reachable || path.is_empty() {
            return Err(HeaderAnnotationError::Unreachable(path.join(".")));
        }
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return Err(HeaderAnnotationError::InvalidName(name.to_owned()));
        }
        let ty = obj.get("type").and_then(Value::as_str);
        if !matches!(ty, Some("string" | "integer" | "boolean")) {
            return Err(HeaderAnnotationError::UnsupportedType(path.join(".")));
        }
        out.push(HeaderBinding {
            name: name.to_owned(),
            path: path.clone(),
        });
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            path.push(k.clone());
            walk(sub, path, reachable, out)?;
            path.pop();
        }
    }
    for key in NESTED {
        match obj.get(key) {
            Some(Value::Array(subs)) => {
                for sub in subs {
                    walk(sub, &mut vec![key.to_owned()], false, out)?;
                }
            }
            Some(Value::Object(m)) if key == "$defs" || key == "patternProperties" => {
                for sub in m.values() {
                    walk(sub, &mut vec![key.to_owned()], false, out)?;
                }
            }
            Some(sub @ Value::Object(_)) => walk(sub, &mut vec![key.to_owned()], false, out)?,
            _ => {}
        }
    }
    Ok(())
}

/// Whether a JSON integer fits the header range (±(2^53−1)).
pub(crate) fn integer_in_range(v: &Value) -> bool {
    v.as_i64()
        .is_some_and(|n| (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&n))
}

#[cfg(test)]
mod tests;

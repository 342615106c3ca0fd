//! A call's params: a `tools/call`'s name and arguments kept as they are
//! (the arguments as the JSON text they were serialized to once), any
//! other request's members as a map.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::UsageError;

/// A tool call: the tool's name and its arguments, serialized once when
/// the call is made, kept together in one buffer (one allocation per call).
///
/// The caller's arguments are read once, from a borrow: they are neither
/// cloned nor kept, and every send of the call (a resend with a fresh id,
/// a multi round-trip retry) copies their text. `null` stands for no
/// arguments (`{}`); anything else but an object is refused.
///
/// ```
/// use mcp_core::ToolCall;
/// #[derive(serde::Serialize)]
/// struct Add { a: i64, b: i64 }
/// let call = ToolCall::new("add", &Add { a: 1, b: 2 })?;
/// assert_eq!((call.name(), call.arguments()), ("add", r#"{"a":1,"b":2}"#));
/// assert_eq!(ToolCall::new("now", &serde_json::Value::Null)?.arguments(), "{}");
/// assert!(ToolCall::new("add", &[1, 2]).is_err());
/// # Ok::<(), mcp_core::UsageError>(())
/// ```
#[derive(Clone)]
pub struct ToolCall {
    /// The arguments' JSON text (empty for `{}`), then the name.
    text: String,
    /// Where the name starts in `text`.
    name_at: usize,
}

impl ToolCall {
    /// Serializes `arguments` for the tool `name`.
    ///
    /// # Errors
    /// [`UsageError::Serialize`] when serde cannot write the arguments;
    /// [`UsageError::ArgumentsNotObject`] when they are not a JSON object
    /// (nor `null`).
    pub fn new<T: Serialize + ?Sized>(name: &str, arguments: &T) -> Result<Self, UsageError> {
        // serde_json's own string: it writes UTF-8 only, so the text is
        // not checked again; the name goes after it, mostly into the room
        // the writer left.
        let mut text = serde_json::to_string(arguments)?;
        match text.as_bytes().first() {
            Some(b'{') => {}
            Some(b'n') => text.clear(),
            _ => return Err(UsageError::ArgumentsNotObject),
        }
        let name_at = text.len();
        text.push_str(name);
        Ok(ToolCall { text, name_at })
    }

    /// The tool's name.
    #[inline]
    pub fn name(&self) -> &str {
        // `name_at` is where `new` put the name: always a boundary (no
        // panic path on every request's encode).
        self.text.get(self.name_at..).unwrap_or_default()
    }

    /// The arguments' JSON text (`{}` for none).
    #[inline]
    pub fn arguments(&self) -> &str {
        match self.text.get(..self.name_at).unwrap_or_default() {
            "" => "{}",
            text => text,
        }
    }

    /// The arguments as a JSON value (parsed again: for the rare path
    /// that reads them).
    ///
    /// # Errors
    /// Only when the object nests deeper than `serde_json`'s parser goes
    /// (128 levels; its writer has no such limit).
    pub fn arguments_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.arguments())
    }
}

/// The same tool and the same arguments' text (`{}` however it was made).
impl PartialEq for ToolCall {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name() && self.arguments() == other.arguments()
    }
}

impl Eq for ToolCall {}

/// The name, and the arguments' length only: arguments may carry secrets.
impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name())
            .field(
                "arguments",
                &format_args!("{} bytes", self.arguments().len()),
            )
            .finish()
    }
}

/// The params of a call.
///
/// A `tools/call` started with a tool name and arguments keeps them as
/// they are: no map buffers, key strings or key hashing per call, and the
/// arguments as their JSON text. They are written on the wire as the map
/// `{"name": .., "arguments": ..}` would be, in that order. The rare path
/// that adds or removes a member (task augmentation) turns them into that
/// map first ([`Params::as_map`]).
#[derive(Clone, Debug)]
pub(crate) enum Params {
    /// `{"name": name, "arguments": arguments}`.
    Tool(ToolCall),
    /// Any members.
    Map(Map<String, Value>),
}

impl Default for Params {
    fn default() -> Self {
        Params::Map(Map::new())
    }
}

impl From<Map<String, Value>> for Params {
    fn from(map: Map<String, Value>) -> Self {
        Params::Map(map)
    }
}

impl Params {
    /// The member `key`; a tool call's members are text, read with
    /// [`Params::get_str`] and [`Params::arguments`].
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Params::Tool(_) => None,
            Params::Map(m) => m.get(key),
        }
    }

    /// The member `key` when it is a string (a tool call's `name`).
    pub(crate) fn get_str(&self, key: &str) -> Option<&str> {
        match self {
            Params::Tool(call) => (key == "name").then(|| call.name()),
            Params::Map(m) => m.get(key)?.as_str(),
        }
    }

    /// A tool call's arguments as a value, whichever way they are kept
    /// (parsed again from a tool call's text: for the rare path that reads
    /// them).
    pub(crate) fn arguments(&self) -> Option<Cow<'_, Value>> {
        match self {
            Params::Tool(call) => call.arguments_value().ok().map(Cow::Owned),
            Params::Map(m) => m.get("arguments").map(Cow::Borrowed),
        }
    }

    /// Whether there is a member `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        match self {
            Params::Tool(_) => matches!(key, "name" | "arguments"),
            Params::Map(m) => m.contains_key(key),
        }
    }

    /// Whether there are no members.
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Params::Map(m) if m.is_empty())
    }

    /// The members as a map, made from a tool call's name and arguments on
    /// first use: for a path that adds or removes members.
    ///
    /// # Errors
    /// When a tool call's arguments nest too deeply to be read back
    /// ([`ToolCall::arguments_value`]); the params are left as they were.
    pub(crate) fn as_map(&mut self) -> Result<&mut Map<String, Value>, serde_json::Error> {
        if let Params::Tool(call) = self {
            *self = Params::Map(tool_map(call)?);
        }
        match self {
            Params::Map(map) => Ok(map),
            Params::Tool(_) => unreachable!("a tool call's params were made a map above"),
        }
    }

    /// The members as a map, a tool call's made as [`Params::as_map`]
    /// makes them, without changing these params.
    pub(crate) fn to_map(&self) -> Result<Cow<'_, Map<String, Value>>, serde_json::Error> {
        match self {
            Params::Map(m) => Ok(Cow::Borrowed(m)),
            Params::Tool(call) => Ok(Cow::Owned(tool_map(call)?)),
        }
    }
}

/// A tool call's params as the map they stand for.
fn tool_map(call: &ToolCall) -> Result<Map<String, Value>, serde_json::Error> {
    let mut map = Map::with_capacity(3);
    map.insert("name".to_owned(), Value::String(call.name().to_owned()));
    map.insert("arguments".to_owned(), call.arguments_value()?);
    Ok(map)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_call_reads_and_becomes_the_map_it_stands_for() {
        let mut p = Params::Tool(ToolCall::new("add", &json!({"a": 1})).unwrap());
        let map = crate::call_tool_params("add", json!({"a": 1}));
        assert_eq!(p.get_str("name"), Some("add"));
        assert_eq!(p.get("name"), None, "text, not a value");
        assert_eq!(p.arguments().as_deref(), map.get("arguments"));
        assert_eq!(p.get_str("task"), None);
        assert!(!p.is_empty() && p.contains_key("name") && p.contains_key("arguments"));
        assert_eq!(*p.to_map().unwrap(), map);
        p.as_map().unwrap().insert("task".into(), json!({}));
        let keys: Vec<_> = p.to_map().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["name", "arguments", "task"]);
        assert_eq!(p.get_str("name"), Some("add"));
        assert_eq!(p.arguments().as_deref(), map.get("arguments"));
        assert!(Params::default().is_empty());
    }

    #[test]
    fn arguments_are_an_object_or_nothing() {
        let none = ToolCall::new("t", &json!(null)).unwrap();
        assert_eq!((none.name(), none.arguments()), ("t", "{}"));
        assert_eq!(none, ToolCall::new("t", &json!({})).unwrap());
        assert_ne!(none, ToolCall::new("u", &json!({})).unwrap());
        let named = ToolCall::new("é {}", &json!({"k": "v"})).unwrap();
        assert_eq!((named.name(), named.arguments()), ("é {}", r#"{"k":"v"}"#));
        assert_eq!(ToolCall::new("", &json!({})).unwrap().name(), "");
        for bad in [json!([1]), json!("x"), json!(1), json!(true)] {
            let e = ToolCall::new("t", &bad).unwrap_err();
            assert!(matches!(e, UsageError::ArgumentsNotObject), "{bad}");
        }
        // A map with a key serde cannot write as a JSON key.
        let bad = std::collections::BTreeMap::from([((1, 2), 3)]);
        assert!(matches!(
            ToolCall::new("t", &bad),
            Err(UsageError::Serialize(_))
        ));
        let secret = ToolCall::new("login", &json!({"token": "s3cret"})).unwrap();
        assert_eq!(
            format!("{secret:?}"),
            r#"ToolCall { name: "login", arguments: 18 bytes }"#
        );
    }

    #[test]
    fn arguments_too_deep_to_read_back_leave_the_params_as_they_were() {
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!({ "a": deep });
        }
        let mut p = Params::Tool(ToolCall::new("t", &deep).unwrap());
        assert!(p.as_map().is_err());
        assert!(matches!(p, Params::Tool(_)));
        assert!(p.arguments().is_none());
    }
}

//! A call's params: a `tools/call`'s name and arguments kept as they are
//! (the arguments as the JSON text they were serialized to once), any
//! other request's members as a map.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::UsageError;

/// A tool call's arguments, serialized once when the call is made: the
/// text of a JSON object.
///
/// No arguments (`{}`, the default) take no allocation.
///
/// The caller's value is read once, from a borrow: it is neither cloned
/// nor kept, and every send of the call (a resend with a fresh id, a multi
/// round-trip retry) copies this text. `null` stands for no arguments
/// (`{}`); anything else but an object is refused.
///
/// ```
/// use mcp_core::ToolArguments;
/// #[derive(serde::Serialize)]
/// struct Add { a: i64, b: i64 }
/// assert_eq!(ToolArguments::new(&Add { a: 1, b: 2 })?.as_str(), r#"{"a":1,"b":2}"#);
/// assert_eq!(ToolArguments::new(&serde_json::Value::Null)?.as_str(), "{}");
/// assert!(ToolArguments::new(&[1, 2]).is_err());
/// # Ok::<(), mcp_core::UsageError>(())
/// ```
#[derive(Clone, Default)]
pub struct ToolArguments(
    /// The object's text; empty for `{}`.
    String,
);

impl ToolArguments {
    /// Serializes `arguments`.
    ///
    /// # Errors
    /// [`UsageError::Serialize`] when serde cannot write it;
    /// [`UsageError::ArgumentsNotObject`] when it is not a JSON object
    /// (nor `null`).
    pub fn new<T: Serialize + ?Sized>(arguments: &T) -> Result<Self, UsageError> {
        // serde_json's own string: it writes UTF-8 only, so the text is
        // not checked again.
        let text = serde_json::to_string(arguments)?;
        match text.as_bytes().first() {
            Some(b'{') => Ok(ToolArguments(text)),
            Some(b'n') => Ok(ToolArguments::empty()),
            _ => Err(UsageError::ArgumentsNotObject),
        }
    }

    /// No arguments: `{}`.
    pub fn empty() -> Self {
        ToolArguments(String::new())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        if self.0.is_empty() { "{}" } else { &self.0 }
    }

    /// The arguments as a JSON value (parsed again: for the rare path
    /// that reads them).
    ///
    /// # Errors
    /// Only when the object nests deeper than `serde_json`'s parser goes
    /// (128 levels; its writer has no such limit).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.as_str())
    }
}

impl TryFrom<Value> for ToolArguments {
    type Error = UsageError;

    fn try_from(arguments: Value) -> Result<Self, UsageError> {
        ToolArguments::new(&arguments)
    }
}

/// The same text (`{}` however it was made).
impl PartialEq for ToolArguments {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ToolArguments {}

/// The length only: arguments may carry secrets.
impl fmt::Debug for ToolArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolArguments({} bytes)", self.as_str().len())
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
    /// `{"name": name, "arguments": arguments}`; `name` is a string.
    Tool {
        name: Value,
        arguments: ToolArguments,
    },
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
    /// A tool call's params.
    pub(crate) fn tool(name: String, arguments: ToolArguments) -> Self {
        Params::Tool {
            name: Value::String(name),
            arguments,
        }
    }

    /// The member `key`; a tool call's `arguments` are text, read with
    /// [`Params::arguments`].
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Params::Tool { name, .. } => (key == "name").then_some(name),
            Params::Map(m) => m.get(key),
        }
    }

    /// A tool call's arguments as a value, whichever way they are kept
    /// (parsed again from a tool call's text: for the rare path that reads
    /// them).
    pub(crate) fn arguments(&self) -> Option<Cow<'_, Value>> {
        match self {
            Params::Tool { arguments, .. } => arguments.to_value().ok().map(Cow::Owned),
            Params::Map(m) => m.get("arguments").map(Cow::Borrowed),
        }
    }

    /// Whether there is a member `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        match self {
            Params::Tool { .. } => matches!(key, "name" | "arguments"),
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
    /// ([`ToolArguments::to_value`]); the params are left as they were.
    pub(crate) fn as_map(&mut self) -> Result<&mut Map<String, Value>, serde_json::Error> {
        if let Params::Tool { name, arguments } = self {
            let arguments = arguments.to_value()?;
            *self = Params::Map(tool_map(name.take(), arguments));
        }
        match self {
            Params::Map(map) => Ok(map),
            Params::Tool { .. } => unreachable!("a tool call's params were made a map above"),
        }
    }

    /// The members as a map, a tool call's made as [`Params::as_map`]
    /// makes them, without changing these params.
    pub(crate) fn to_map(&self) -> Result<Cow<'_, Map<String, Value>>, serde_json::Error> {
        match self {
            Params::Map(m) => Ok(Cow::Borrowed(m)),
            Params::Tool { name, arguments } => {
                Ok(Cow::Owned(tool_map(name.clone(), arguments.to_value()?)))
            }
        }
    }
}

/// A tool call's params as the map they stand for.
fn tool_map(name: Value, arguments: Value) -> Map<String, Value> {
    let mut map = Map::with_capacity(3);
    map.insert("name".to_owned(), name);
    map.insert("arguments".to_owned(), arguments);
    map
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_call_reads_and_becomes_the_map_it_stands_for() {
        let args = ToolArguments::new(&json!({"a": 1})).unwrap();
        let mut p = Params::tool("add".to_owned(), args);
        let map = crate::call_tool_params("add", json!({"a": 1}));
        assert_eq!(p.get("name"), Some(&json!("add")));
        assert_eq!(p.arguments().as_deref(), map.get("arguments"));
        assert_eq!(p.get("task"), None);
        assert!(!p.is_empty() && p.contains_key("name") && p.contains_key("arguments"));
        assert_eq!(*p.to_map().unwrap(), map);
        p.as_map().unwrap().insert("task".into(), json!({}));
        let keys: Vec<_> = p.to_map().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["name", "arguments", "task"]);
        assert_eq!(p.arguments().as_deref(), map.get("arguments"));
        assert!(Params::default().is_empty());
    }

    #[test]
    fn arguments_are_an_object_or_nothing() {
        assert_eq!(
            ToolArguments::new(&json!(null)).unwrap(),
            ToolArguments::empty()
        );
        assert_eq!(
            ToolArguments::new(&json!({})).unwrap(),
            ToolArguments::default()
        );
        assert_eq!(ToolArguments::empty().as_str(), "{}");
        for bad in [json!([1]), json!("x"), json!(1), json!(true)] {
            let e = ToolArguments::new(&bad).unwrap_err();
            assert!(matches!(e, UsageError::ArgumentsNotObject), "{bad}");
        }
        // A map with a key serde cannot write as a JSON key.
        let bad = std::collections::BTreeMap::from([((1, 2), 3)]);
        assert!(matches!(
            ToolArguments::new(&bad),
            Err(UsageError::Serialize(_))
        ));
        let secret = ToolArguments::new(&json!({"token": "s3cret"})).unwrap();
        assert_eq!(format!("{secret:?}"), "ToolArguments(18 bytes)");
    }

    #[test]
    fn arguments_too_deep_to_read_back_leave_the_params_as_they_were() {
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!({ "a": deep });
        }
        let mut p = Params::tool("t".to_owned(), ToolArguments::new(&deep).unwrap());
        assert!(p.as_map().is_err());
        assert!(matches!(p, Params::Tool { .. }));
        assert!(p.arguments().is_none());
    }
}

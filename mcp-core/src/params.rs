//! A call's params: a `tools/call`'s two members kept as they are, any
//! other request's members as a map.

use serde_json::{Map, Value};

/// The params of a call.
///
/// A `tools/call` started with a tool name and arguments keeps them as two
/// values: no map buffers, key strings or key hashing per call. They read
/// (and are written on the wire) as the map `{"name": .., "arguments": ..}`
/// would be, in that order. The rare path that adds or removes a member
/// (task augmentation) turns them into that map first ([`Params::as_map`]).
#[derive(Clone, Debug)]
pub(crate) enum Params {
    /// `{"name": name, "arguments": arguments}`; `name` is a string.
    Tool { name: Value, arguments: Value },
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
    pub(crate) fn tool(name: String, arguments: Value) -> Self {
        Params::Tool {
            name: Value::String(name),
            arguments,
        }
    }

    /// The member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Params::Tool { name, arguments } => match key {
                "name" => Some(name),
                "arguments" => Some(arguments),
                _ => None,
            },
            Params::Map(m) => m.get(key),
        }
    }

    /// Whether there is a member `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Whether there are no members.
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Params::Map(m) if m.is_empty())
    }

    /// The members, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        let (tool, map) = match self {
            Params::Tool { name, arguments } => {
                (Some([("name", name), ("arguments", arguments)]), None)
            }
            Params::Map(m) => (None, Some(m)),
        };
        let map = map.into_iter().flatten().map(|(k, v)| (k.as_str(), v));
        tool.into_iter().flatten().chain(map)
    }

    /// The members as a map, made from a tool call's two values on first
    /// use: for a path that adds or removes members.
    pub(crate) fn as_map(&mut self) -> &mut Map<String, Value> {
        if let Params::Tool { name, arguments } = self {
            let mut map = Map::with_capacity(3);
            map.insert("name".to_owned(), name.take());
            map.insert("arguments".to_owned(), arguments.take());
            *self = Params::Map(map);
        }
        match self {
            Params::Map(map) => map,
            Params::Tool { .. } => unreachable!("a tool call's params were made a map above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_call_reads_and_becomes_the_map_it_stands_for() {
        let mut p = Params::tool("add".to_owned(), json!({"a": 1}));
        let map = crate::call_tool_params("add", json!({"a": 1}));
        assert_eq!(p.get("name"), Some(&json!("add")));
        assert_eq!(p.get("arguments"), map.get("arguments"));
        assert_eq!(p.get("task"), None);
        assert!(!p.is_empty() && p.contains_key("name"));
        let members: Vec<_> = p.iter().map(|(k, v)| (k.to_owned(), v.clone())).collect();
        let expected: Vec<_> = map.clone().into_iter().collect();
        assert_eq!(members, expected);
        p.as_map().insert("task".into(), json!({}));
        let keys: Vec<_> = p.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["name", "arguments", "task"]);
        assert!(Params::default().is_empty());
    }
}

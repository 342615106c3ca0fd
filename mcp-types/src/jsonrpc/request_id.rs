//! A JSON-RPC request id ([`RequestId`]): a number or a string, and the
//! number a string id may spell (a gateway's rewrite of a numeric id),
//! by which the client looks its calls up.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// A request id: a number or a string, as the sender chose.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The numeric value of this id, also for a string that spells an integer
    /// (gateways sometimes turn numeric ids into strings).
    ///
    /// ```
    /// use mcp_types::RequestId;
    /// assert_eq!(RequestId::String("7".into()).as_number(), Some(7));
    /// assert_eq!(RequestId::Number(7).as_number(), Some(7));
    /// assert_eq!(RequestId::String("x".into()).as_number(), None);
    /// ```
    #[inline] // every lookup of a call in flight reads its number
    pub fn as_number(&self) -> Option<i64> {
        match self {
            RequestId::Number(n) => Some(*n),
            RequestId::String(s) => canonical_number(s),
        }
    }
}

/// The number a string id spells in canonical form (no sign `+`, no
/// leading zero): out of line, so that a numeric id's look is inlined
/// where calls are looked up and does not call into this parse.
#[cold]
#[inline(never)]
fn canonical_number(s: &str) -> Option<i64> {
    let canonical = s.parse::<i64>().ok()?;
    (canonical.to_string() == *s).then_some(canonical)
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl de::Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer request id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("request id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::String(v))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

impl schemars::JsonSchema for RequestId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RequestId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["string", "integer"] })
    }
}

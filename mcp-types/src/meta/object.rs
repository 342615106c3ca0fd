//! How a [`Meta`] holds its object: a received `_meta` stays the JSON text
//! it arrived as until something reads it, and is decoded into a map once,
//! on the first read.
//!
//! Every 2026-07-28 result carries a `_meta` (the server's
//! `io.modelcontextprotocol/serverInfo` at least) that most callers never
//! look at; decoding it into a map of owned strings and values for every
//! result cost a dozen allocations per call. Now a received `_meta` costs
//! one copy of its text, and a check, when the result is decoded: the check
//! reads it with the same rules as a decode into a map (an object, numbers
//! in range, valid escapes, the nesting limit) without building anything,
//! so a `_meta` the old decode refused is still refused, at the same time,
//! and the later decode cannot fail.

use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::Meta;

/// The state of a [`Meta`]: the text as received (while not changed) and
/// the map, decoded from that text on the first read, or built here.
#[derive(Clone, Default)]
pub(super) struct Object {
    /// The object as received, while it is not changed (checked to decode
    /// into a map).
    raw: Option<Box<str>>,
    /// The map: decoded from `raw` once something reads it; the object
    /// itself when it was built or changed here (unset means empty).
    map: OnceLock<Map<String, Value>>,
}

impl Object {
    /// The object as a map, decoded on the first call.
    pub(super) fn map(&self) -> &Map<String, Value> {
        self.map
            .get_or_init(|| self.raw.as_deref().map(decode).unwrap_or_default())
    }

    /// The map, to change: the text as received is dropped.
    pub(super) fn map_mut(&mut self) -> &mut Map<String, Value> {
        self.map();
        self.raw = None;
        self.map.get_mut().expect("initialized by map()")
    }

    /// The map, taken out.
    pub(super) fn into_map(mut self) -> Map<String, Value> {
        std::mem::take(self.map_mut())
    }

    /// Whether the object has no members, without decoding it.
    pub(super) fn is_empty(&self) -> bool {
        match (self.map.get(), &self.raw) {
            (Some(map), _) => map.is_empty(),
            // A checked object: `{`, whitespace or members, `}`.
            (None, Some(raw)) => raw[1..raw.len() - 1].trim().is_empty(),
            (None, None) => true,
        }
    }

    /// The text as received, when it was not changed since.
    pub(super) fn raw(&self) -> Option<&str> {
        self.raw.as_deref()
    }

    /// Whether the received text was decoded (tests).
    #[cfg(test)]
    fn decoded(&self) -> bool {
        self.raw.is_some() && self.map.get().is_some()
    }
}

/// Decodes a checked `_meta` text. Cannot fail: the text passed
/// [`ObjectCheck`], which reads it as this decode does (an empty map would
/// be the answer if it did).
fn decode(raw: &str) -> Map<String, Value> {
    serde_json::from_slice(raw.as_bytes()).unwrap_or_default()
}

impl From<Map<String, Value>> for Object {
    fn from(map: Map<String, Value>) -> Self {
        Object {
            raw: None,
            map: OnceLock::from(map),
        }
    }
}

impl Serialize for Meta {
    /// As the map (so any serializer, not only JSON's, sees an object).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_map().serialize(serializer)
    }
}

/// The name under which serde_json's deserializers hand out a value's text
/// (as a map of this one key to the text) instead of the value: what its
/// `RawValue` asks for. Any other deserializer (serde's buffered content
/// under `#[serde(flatten)]`, other formats) sees a plain newtype struct,
/// and the map is decoded at once.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<'de> Deserialize<'de> for Meta {
    /// From serde_json: keeps the text and checks it decodes into a map;
    /// the decode itself waits for the first read. From anything else:
    /// decodes the map.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, MetaVisitor)
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = Meta;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Meta, D::Error> {
        Map::deserialize(deserializer).map(Meta::from)
    }

    /// serde_json's raw value: one member, the marker, whose value is the
    /// text. Any other map is refused as a wrong type.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
        if map.next_key::<RawMarker>()?.is_none() {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        }
        let text: String = map.next_value()?;
        let mut check = serde_json::Deserializer::from_slice(text.as_bytes());
        ObjectCheck
            .deserialize(&mut check)
            .map_err(|e| de::Error::custom(without_position(&e)))?;
        Ok(Meta(Object {
            raw: Some(text.into_boxed_str()),
            map: OnceLock::new(),
        }))
    }
}

/// The key of serde_json's raw value map; any other key is an error.
struct RawMarker;

impl<'de> Deserialize<'de> for RawMarker {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = RawMarker;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("serde_json's raw value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawMarker, E> {
                if v == RAW_VALUE_TOKEN {
                    Ok(RawMarker)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The message of an error of the inner check, without its position in the
/// `_meta` text (the outer deserializer adds the position in the message).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// Reads an object the way a decode into `Map<String, Value>` does, and
/// builds nothing.
struct ObjectCheck;

impl<'de> DeserializeSeed<'de> for ObjectCheck {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(ValueCheck { object: true })
    }
}

/// Reads any value (an object only when `object`) the way a decode into
/// `Value` does.
#[derive(Clone, Copy)]
struct ValueCheck {
    object: bool,
}

impl<'de> DeserializeSeed<'de> for ValueCheck {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueCheck {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.object {
            "a map"
        } else {
            "any valid JSON value"
        })
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.scalar(de::Unexpected::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(de::Unexpected::Signed(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.scalar(de::Unexpected::Unsigned(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.scalar(de::Unexpected::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.scalar(de::Unexpected::Str(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar(de::Unexpected::Unit)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.object {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        while seq
            .next_element_seed(ValueCheck { object: false })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(KeyCheck)?.is_some() {
            map.next_value_seed(ValueCheck { object: false })?;
        }
        Ok(())
    }
}

impl ValueCheck {
    fn scalar<E: de::Error>(self, what: de::Unexpected<'_>) -> Result<(), E> {
        if self.object {
            return Err(E::invalid_type(what, &self));
        }
        Ok(())
    }
}

/// Reads a member name (a string, escapes checked).
struct KeyCheck;

impl<'de> DeserializeSeed<'de> for KeyCheck {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(KeyCheck)
    }
}

impl<'de> Visitor<'de> for KeyCheck {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

impl PartialEq for Meta {
    fn eq(&self, other: &Meta) -> bool {
        match (self.0.raw(), other.0.raw()) {
            (Some(a), Some(b)) if a == b => true,
            _ => self.as_map() == other.as_map(),
        }
    }
}

impl fmt::Debug for Meta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Meta").field(self.as_map()).finish()
    }
}

impl schemars::JsonSchema for Meta {
    fn inline_schema() -> bool {
        <Map<String, Value> as schemars::JsonSchema>::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Map<String, Value> as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <Map<String, Value> as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Map<String, Value> as schemars::JsonSchema>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(text: &str) -> Result<Meta, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn a_received_meta_is_decoded_on_first_read_only() {
        let m = meta(r#"{"a": {"b": [1, "x"]}, "c": null}"#).unwrap();
        assert!(!m.0.decoded(), "not decoded yet");
        assert!(!m.is_empty());
        assert_eq!(m.get("a"), Some(&serde_json::json!({"b": [1, "x"]})));
        assert!(m.0.decoded());
        assert!(meta(" { } ").unwrap().is_empty());
        assert!(meta("{}").unwrap().is_empty());
    }

    #[test]
    fn what_a_map_decode_refuses_is_refused_when_the_result_is_read() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        for bad in [
            "5".to_owned(),
            "null".to_owned(),
            "[1]".to_owned(),
            r#""text""#.to_owned(),
            r#"{"n": 1e400}"#.to_owned(),
            r#"{"s": "\ud800"}"#.to_owned(),
            format!(r#"{{"deep": {deep}}}"#),
        ] {
            let map = serde_json::from_str::<Map<String, Value>>(&bad);
            assert!(map.is_err(), "a map decode refuses {bad}");
            let lazy = meta(&bad);
            assert!(lazy.is_err(), "so does Meta: {bad}");
        }
        let e = meta("5").unwrap_err().to_string();
        assert!(
            e.starts_with("invalid type: integer `5`, expected a map"),
            "{e}"
        );
    }

    #[test]
    fn changes_drop_the_received_text_and_equality_reads_the_members() {
        let mut m = meta(r#"{"a":1}"#).unwrap();
        let same = meta(r#"{ "a" : 1 }"#).unwrap();
        assert_eq!(m, same);
        m.insert("b", Value::Bool(true));
        assert!(m.0.raw().is_none());
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"a":1,"b":true}"#);
        assert_ne!(m, same);
        assert_eq!(format!("{same:?}"), r#"Meta({"a": Number(1)})"#);
    }

    #[test]
    fn other_deserializers_decode_the_map_at_once() {
        #[derive(Deserialize)]
        struct Outer {
            #[serde(flatten)]
            inner: Inner,
        }
        #[derive(Deserialize)]
        struct Inner {
            #[serde(rename = "_meta")]
            meta: Meta,
        }
        let o: Outer = serde_json::from_str(r#"{"_meta": {"k": [1]}, "x": 2}"#).unwrap();
        assert_eq!(o.inner.meta.get("k"), Some(&serde_json::json!([1])));
        assert!(o.inner.meta.0.raw().is_none(), "buffered content: decoded");
        let v: Meta = serde_json::from_value(serde_json::json!({"k": 1})).unwrap();
        assert!(v.0.raw().is_some(), "a serde_json value: kept as text");
        assert_eq!(v.get("k"), Some(&serde_json::json!(1)));
        assert!(serde_json::from_value::<Meta>(serde_json::json!(7)).is_err());
    }
}

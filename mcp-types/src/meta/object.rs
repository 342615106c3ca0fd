//! How a [`Meta`] holds its object: a received `_meta` stays the JSON text
//! it arrived as until something reads it, and is decoded into a map once,
//! on the first read.
//!
//! Every 2026-07-28 result carries a `_meta` (the server's
//! `io.modelcontextprotocol/serverInfo` at least) that most callers never
//! look at; decoding it into a map of owned strings and values for every
//! result cost a dozen allocations per call. Now a received `_meta` costs
//! one copy of its text when the result is decoded, and none when the
//! same text came before on this thread (`known.rs`: it is shared, not
//! checked or copied again). serde_json hands the
//! text over as its `RawValue` (syntax checked); a scan of it checks what
//! a decode into a map checks beyond syntax (an object, numbers in range,
//! paired surrogate escapes, the nesting limit), so a `_meta` the old decode
//! refused is still refused, at the same time, and the later decode cannot
//! fail. A text the scan is not sure of is decoded at once, which keeps
//! the scan small and the outcome that of the map decode by construction.
//! One difference remains, by necessity: serde_json's nesting limit (128)
//! is counted from the `_meta` object, as a decode of its text alone counts
//! it, not from the start of the message (serde_json does not tell how
//! deep it is), so a `_meta` nested 125 to 127 levels deep within itself
//! may now be accepted where the decode in place refused it.
//!
//! Code size matters here (the stdio-only binary has a budget): what is
//! compiled once per deserializer type is only the hand-over of the text;
//! the scan and the decode are compiled once.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Meta, known, scan};

/// The state of a [`Meta`]: the text as received (while not changed) and
/// the map, decoded from that text on the first read, or built here.
#[derive(Default)]
pub(super) struct Object {
    /// The object as received, while it is not changed (checked to decode
    /// into a map); shared with this thread's kept texts (`known.rs`) when
    /// the same text came before.
    raw: Option<Arc<str>>,
    /// The map: decoded from `raw` once something reads it; the object
    /// itself when it was built or changed here (unset means empty).
    /// Boxed: most `_meta`s are never decoded, and every result and
    /// content block carries one (a map is 72 bytes, its box 8).
    map: OnceLock<Box<Map<String, Value>>>,
}

impl Object {
    /// The object as a map, decoded on the first call.
    pub(super) fn map(&self) -> &Map<String, Value> {
        fill(&self.map, self.raw.as_deref(), None)
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

impl Meta {
    /// Whether both hold the same received text, shared (tests).
    #[cfg(test)]
    pub(crate) fn shares_text_with(&self, other: &Meta) -> bool {
        matches!((&self.0.raw, &other.0.raw), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
    }
}

/// The map in `slot`, set first (when unset) to `given`, else to the
/// decode of `raw`, else to an empty map. One function for every way a
/// slot is set, so its initialization is compiled once.
fn fill<'a>(
    slot: &'a OnceLock<Box<Map<String, Value>>>,
    raw: Option<&str>,
    given: Option<Map<String, Value>>,
) -> &'a Map<String, Value> {
    slot.get_or_init(|| Box::new(given.or_else(|| raw.map(decode)).unwrap_or_default()))
}

/// Decodes a checked `_meta` text. Cannot fail: the text passed
/// [`scan::decodes_as_map`] (an empty map would be the answer if it did).
fn decode(raw: &str) -> Map<String, Value> {
    decode_map(raw).unwrap_or_default()
}

/// The one decode of a text into a map (compiled once).
#[inline(never)]
fn decode_map(raw: &str) -> Result<Map<String, Value>, serde_json::Error> {
    serde_json::from_str(raw)
}

impl Clone for Object {
    /// Through [`fill`], so a clone does not compile a second initializer.
    fn clone(&self) -> Self {
        let map = OnceLock::new();
        if let Some(given) = self.map.get() {
            fill(&map, None, Some(Map::clone(given)));
        }
        Object {
            raw: self.raw.clone(),
            map,
        }
    }
}

impl From<Map<String, Value>> for Object {
    fn from(map: Map<String, Value>) -> Self {
        let slot = OnceLock::new();
        fill(&slot, None, Some(map));
        Object {
            raw: None,
            map: slot,
        }
    }
}

impl Serialize for Meta {
    /// As the map (so any serializer, not only JSON's, sees an object).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_map().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Meta {
    /// From serde_json's text reader (every message and result this crate
    /// decodes, through [`crate::raw::parse`]): keeps the text, once it is
    /// known to decode into a map; the decode itself waits for the first
    /// read. From anything else: decodes the map, as a plain map field
    /// would.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if !text_reader::<D>() {
            return Map::deserialize(deserializer).map(Meta::from);
        }
        // The value's text, borrowed from the input (serde_json's public
        // `RawValue`; its syntax is checked by the reader).
        let raw = <&RawValue>::deserialize(deserializer)?;
        Meta::received(raw.get()).map_err(|e| de::Error::custom(e.as_str()))
    }
}

/// The end of the `_meta` object at `text[at]`, when it is plain JSON that a
/// map decode surely reads: checked in one pass (`raw::plain_value_end`)
/// with the limits of [`scan`], unless it is a text this thread kept
/// (`known.rs`), known to decode already.
pub(crate) fn plain_end(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'{') {
        return None;
    }
    if let Some(len) = known::prefix_len(&text[at..]) {
        return Some(at + len);
    }
    let digits = scan::MAX_MAGNITUDE as usize;
    crate::raw::plain_value_end(text, at, scan::MAX_DEPTH, digits)
}

/// Whether `D` is serde_json's deserializer over text (`from_str`, which
/// [`crate::raw::parse`] uses), the one deserializer the text is taken
/// from. Each generic `Deserialize` is compiled once per deserializer type
/// (and per crate using it), so the text path is kept to one; the others
/// (serde_json over bytes, its `Value`, serde's buffered content under
/// `#[serde(flatten)]`, other formats) decode the map as before. A `Value` could not give its text
/// anyway: it prints itself, and serde_json does not read every printed
/// float back to the same `f64`. serde offers no other way to tell
/// deserializers apart; the name is a constant (the test folds away), and a
/// name this does not recognize only means an eager decode.
fn text_reader<D>() -> bool {
    matches!(
        std::any::type_name::<D>(),
        "&mut serde_json::de::Deserializer<serde_json::read::StrRead<'_>>"
            | "&mut serde_json::de::Deserializer<serde_json::read::StrRead>"
    )
}

impl Meta {
    /// The `_meta` of these bytes when this thread keeps their text
    /// (`known.rs`): shared, neither checked nor copied.
    pub(crate) fn known(text: &[u8]) -> Option<Meta> {
        known::shared(text).map(Meta::kept)
    }

    /// A `_meta` text checked by [`plain_end`] and not kept yet (after
    /// [`Meta::known`]), kept as text, as [`Meta::received`] keeps it.
    pub(crate) fn checked(text: &str) -> Meta {
        Meta::kept(known::keep(text))
    }

    /// A text known to decode into a map, kept as it is.
    fn kept(text: Arc<str>) -> Meta {
        Meta(Object {
            raw: Some(text),
            map: OnceLock::new(),
        })
    }

    /// A `_meta` text from serde_json (a JSON value, its syntax already
    /// checked by the message's decode). Kept as text when [`scan`] shows
    /// it decodes into a map, which covers every `_meta` but rare corner
    /// cases; those (and every text that does not decode, to report the
    /// error a map decode reports) are decoded now.
    fn received(text: &str) -> Result<Meta, String> {
        if let Some(kept) = Meta::known(text.as_bytes()) {
            return Ok(kept);
        }
        if scan::decodes_as_map(text.as_bytes()) {
            return Ok(Meta::checked(text));
        }
        decode_map(text).map(Meta::from).map_err(|e| {
            // Without its position in the text alone: the outer
            // deserializer adds the position in the message.
            let mut message = e.to_string();
            if let Some(at) = message.rfind(" at line ").filter(|_| e.line() != 0) {
                message.truncate(at);
            }
            message
        })
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

    /// As every message is decoded: `raw::parse`, serde_json's text reader.
    fn meta(text: &str) -> Result<Meta, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn a_received_meta_is_decoded_on_first_read_only() {
        let m = meta(r#"{"a": {"b": [1, "x"]}, "c": null}"#).unwrap();
        assert!(!m.0.decoded(), "not decoded yet");
        let copy = m.clone();
        assert!(!m.is_empty());
        assert_eq!(m.get("a"), Some(&serde_json::json!({"b": [1, "x"]})));
        assert!(m.0.decoded());
        assert!(!copy.0.decoded() && copy.0.raw() == m.0.raw());
        let decoded = m.clone();
        assert!(decoded.0.decoded());
        assert_eq!(decoded.as_map(), m.as_map());
        let mut built = Meta::new().with("k", 1);
        assert_eq!(built.clone().get("k"), Some(&serde_json::json!(1)));
        built.insert("j", Value::Null);
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
    fn a_text_the_scan_is_unsure_of_is_decoded_at_once() {
        let m = meta(r#"{"zero": 0e400, "pair": "\ud83d\ude00"}"#).unwrap();
        assert!(m.0.raw().is_none(), "0e400: decoded at once");
        assert_eq!(m.get("zero"), Some(&serde_json::json!(0.0)));
        let m = meta(r#"{"pair": "\ud83d\ude00"}"#).unwrap();
        assert!(m.0.raw().is_some(), "a surrogate pair: kept as text");
        assert_eq!(m.get("pair"), Some(&serde_json::json!("\u{1f600}")));
        let e = meta(r#"{"s": "\ud800"}"#).unwrap_err().to_string();
        assert!(e.starts_with("unexpected end of hex escape"), "{e}");
    }

    #[test]
    fn nesting_is_counted_from_the_meta_object() {
        #[derive(Debug, Deserialize)]
        struct Outer {
            #[serde(rename = "_meta")]
            _meta: Meta,
        }
        // 127 levels in the `_meta` text: what a map decode of the text
        // accepts; a map decode in place would have counted the outer
        // object too.
        let text = format!("{}1{}", "[".repeat(126), "]".repeat(126));
        let message = format!(r#"{{"_meta": {{"k": {text}}}}}"#);
        assert!(serde_json::from_str::<Outer>(&message).is_ok());
        let deeper = format!(r#"{{"_meta": {{"k": [{text}]}}}}"#);
        assert!(serde_json::from_str::<Outer>(&deeper).is_err());
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
        let s: Meta = serde_json::from_slice(br#"{"k": 1}"#).unwrap();
        assert!(
            s.0.raw().is_none(),
            "serde_json over bytes: decoded at once"
        );
        assert!(
            meta(r#"{"k": 1}"#).unwrap().0.raw().is_some(),
            "over text: text"
        );
        let v: Meta = serde_json::from_value(serde_json::json!({"k": 1})).unwrap();
        assert!(v.0.raw().is_none(), "a serde_json value: decoded from it");
        assert_eq!(v.get("k"), Some(&serde_json::json!(1)));
        assert!(serde_json::from_value::<Meta>(serde_json::json!(7)).is_err());
        // serde_json reads this integer as 9.999999999999999e41, prints that
        // as such, and reads the printed text as 1e42: a value's text is
        // not the value.
        let v: Value = serde_json::from_str(&format!(r#"{{"n": 1{}}}"#, "0".repeat(42))).unwrap();
        for m in [
            Meta::deserialize(&v).unwrap(),
            serde_json::from_value(v.clone()).unwrap(),
        ] {
            assert!(m.0.raw().is_none());
            assert_eq!(m.get("n"), v.get("n"));
        }
    }
}

//! Raw JSON that is read later: [`RawJson`], a response's `result` kept as
//! the bytes that arrived, and [`object_members`], a shallow walk over the
//! members of a JSON object that skips values without parsing them.
//!
//! A result is usually decoded exactly once, into the type the request
//! expects. Checking it is valid JSON when the envelope is read, and then
//! parsing it again to decode it, would read a large result twice (and copy
//! it once more). So the envelope reader only finds where the result ends
//! (a byte search, see [`object_members`]) and keeps its bytes; the one
//! parse that decodes it is also the one that checks it.

use std::fmt;
use std::ops::Range;

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

mod checked;
mod head;
mod scan;
mod string;
mod text_blocks;

pub(crate) use checked::plain_value_end;
pub(crate) use head::HeadNotes;
use head::object_end_noting;
pub use head::{HEAD_KEYS, head_members_of};
pub(crate) use scan::{plain_len, quote_or_backslash, skip_ws, string_end, value_end};
pub use string::write_string;
pub(crate) use text_blocks::{Texts, text_blocks};

/// A JSON value kept as text until it is decoded.
///
/// Two kinds exist, and they behave the same: one made from a
/// [`RawValue`] (already checked, as when a message is built locally or read
/// by the strict reader), and one cut from a received frame without a
/// parse. The second may turn out not to be JSON: then [`decode`],
/// [`to_raw_value`] and serialization fail with a [`serde_json::Error`],
/// the same error a parse of the whole frame would have given, only later.
///
/// Cloning is cheap (a reference count, or one copy of a checked value).
///
/// ```
/// use mcp_types::raw::RawJson;
/// let raw = RawJson::from_bytes(&br#"{"sum": 5}"#[..]);
/// #[derive(serde::Deserialize)]
/// struct Sum { sum: i64 }
/// assert_eq!(raw.decode::<Sum>().unwrap().sum, 5);
/// assert!(RawJson::from_bytes(&b"{oops"[..]).decode::<serde_json::Value>().is_err());
/// ```
///
/// [`decode`]: RawJson::decode
/// [`to_raw_value`]: RawJson::to_raw_value
#[derive(Clone)]
pub struct RawJson(Repr, Option<HeadNotes>);

#[derive(Clone)]
enum Repr {
    Checked(Box<RawValue>),
    Unchecked(Bytes),
}

impl RawJson {
    /// Keeps bytes that should hold one JSON value, without checking them.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> RawJson {
        RawJson(Repr::Unchecked(bytes.into()), None)
    }

    /// The JSON text as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Checked(raw) => raw.get().as_bytes(),
            Repr::Unchecked(bytes) => bytes,
        }
    }

    /// The JSON text as a string slice.
    ///
    /// # Errors
    /// When the bytes are not UTF-8 (possible only for unchecked text).
    pub fn to_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(self.as_bytes())
    }

    /// The length of the JSON text in bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the text is empty (never valid JSON).
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// Decodes the value as `T`, checking it is JSON on the way.
    ///
    /// # Errors
    /// When the text is not JSON or not of the shape of `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        self.decode_with(|text| serde_json::from_str(text))
    }

    /// Where the result's `_meta` is in these bytes, when the walk of the
    /// envelope they came in checked it (`meta::plain_end`).
    pub(crate) fn checked_meta(&self) -> Option<Range<usize>> {
        self.1.and_then(HeadNotes::checked_meta)
    }

    /// Where the first plain text of a canonical text-blocks result is in
    /// these bytes, when the walk of the envelope they came in found one.
    pub(crate) fn plain_text(&self) -> Option<Range<usize>> {
        self.1.and_then(HeadNotes::plain_text)
    }

    /// Decodes the value with `read`, which is handed the text once it is
    /// checked to be UTF-8 (as [`parse`] checks it), for a reader of one
    /// type's own: [`CallToolResult::from_json`](crate::tools::CallToolResult::from_json).
    ///
    /// ```
    /// use mcp_types::raw::RawJson;
    /// use mcp_types::tools::CallToolResult;
    /// let raw = RawJson::from_bytes(&br#"{"content":[{"type":"text","text":"hi"}]}"#[..]);
    /// let result = raw.decode_with(CallToolResult::from_json).unwrap();
    /// assert_eq!(result.text(), "hi");
    /// ```
    ///
    /// # Errors
    /// When the bytes are not UTF-8, or as `read` fails.
    pub fn decode_with<T>(
        &self,
        read: impl FnOnce(&str) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        match &self.0 {
            Repr::Checked(raw) => read(raw.get()),
            Repr::Unchecked(bytes) => read(utf8(bytes)?),
        }
    }

    /// The value as a checked [`RawValue`] (a copy, checked once).
    ///
    /// # Errors
    /// When the text is not one JSON value.
    pub fn to_raw_value(&self) -> Result<Box<RawValue>, serde_json::Error> {
        match &self.0 {
            Repr::Checked(raw) => Ok(raw.clone()),
            Repr::Unchecked(bytes) => {
                let raw: &RawValue = parse(bytes)?;
                Ok(raw.to_owned())
            }
        }
    }

    /// The value as a checked [`RawValue`], without a copy when it is one
    /// already.
    ///
    /// # Errors
    /// When the text is not one JSON value.
    pub fn into_raw_value(self) -> Result<Box<RawValue>, serde_json::Error> {
        match self.0 {
            Repr::Checked(raw) => Ok(raw),
            Repr::Unchecked(_) => self.to_raw_value(),
        }
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> RawJson {
        RawJson(Repr::Checked(raw), None)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl fmt::Debug for RawJson {
    /// The text, cut after 256 bytes (a result can be megabytes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 256;
        let bytes = self.as_bytes();
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
        if bytes.len() > SHOWN {
            write!(f, "RawJson({shown}... {} bytes)", bytes.len())
        } else {
            write!(f, "RawJson({shown})")
        }
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Checked(raw) => raw.serialize(serializer),
            Repr::Unchecked(bytes) => {
                let raw: &RawValue = parse(bytes).map_err(serde::ser::Error::custom)?;
                raw.serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(RawJson::from)
    }
}

/// One member of a JSON object, as found by [`object_members`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// The key, without its quotes (never contains an escape).
    pub key: &'a [u8],
    /// Where the value's text is in the walked bytes.
    pub value: Range<usize>,
}

/// Parses JSON text that arrived as bytes: checks all of it is UTF-8 once,
/// with the CPU's vector instructions (three times faster than
/// `str::from_utf8` on a long text), then reads it as text, so no string is
/// checked again as it is read (serde_json's byte reader checks each one).
/// Every parse in the SDK goes through here or reads a `&str` already: one
/// reader type, so each type's `Deserialize` is built once into a binary.
///
/// ```
/// let v: Vec<String> = mcp_types::raw::parse(r#"["h\u00e9", "é"]"#.as_bytes()).unwrap();
/// assert_eq!(v, ["hé", "é"]);
/// assert!(mcp_types::raw::parse::<Vec<String>>(b"[\"\xff\"]").is_err());
/// ```
///
/// # Errors
/// When the bytes are not UTF-8 (the error names the first bad byte's
/// offset), not JSON, or not of the shape of `T`.
pub fn parse<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, serde_json::Error> {
    serde_json::from_str(utf8(bytes)?)
}

/// The bytes as text, checked once with the CPU's vector instructions.
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, serde_json::Error> {
    simdutf8::basic::from_utf8(bytes).map_err(|_| not_utf8(bytes))
}

/// The error for bytes that are not UTF-8, naming where they stop being it.
#[cold]
fn not_utf8(bytes: &[u8]) -> serde_json::Error {
    let at = std::str::from_utf8(bytes)
        .err()
        .map_or(bytes.len(), |e| e.valid_up_to());
    <serde_json::Error as serde::de::Error>::custom(format_args!(
        "the JSON text is not UTF-8 (byte {at})"
    ))
}

/// Walks the members of the JSON object in `text` without parsing their
/// values: strings are skipped with a byte search for their closing quote,
/// arrays and objects by counting brackets outside strings.
///
/// The walk yields `Err(NotPlain)` and ends when `text` is not an object it
/// can read this way: not an object, a key with an escape, a broken
/// structure, or anything but whitespace after the closing brace. It does
/// not check that the values are valid JSON; callers that decode a value
/// check it then, and callers that need certainty parse with `serde_json`
/// instead.
///
/// ```
/// use mcp_types::raw::object_members;
/// let text = br#"{"id": 7, "result": {"content": [{"text": "a \"} b"}]}}"#;
/// let keys: Vec<_> = object_members(text)
///     .map(|m| m.map(|m| (m.key, &text[m.value])))
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(keys[0], (&b"id"[..], &b"7"[..]));
/// assert_eq!(keys[1].0, b"result");
/// assert!(object_members(br#"{"a\u0062": 1}"#).any(|m| m.is_err()));
/// ```
pub fn object_members(text: &[u8]) -> ObjectMembers<'_> {
    ObjectMembers {
        text,
        at: 0,
        state: State::Start,
        walk: Walk::Whole,
        result_head: None,
        checked_meta: None,
    }
}

/// The end of an envelope's `result` value at `s[start]` and, for an
/// object the member walk reads, its head notes; any other value by
/// bracket counting.
fn result_end(s: &[u8], start: usize) -> Option<(usize, Option<HeadNotes>)> {
    // A tool's text blocks in their canonical form: the head is what the
    // match found after the list.
    if let Some(b) = text_blocks(s, start, Texts::Ends, None, |_| {}) {
        return Some((b.end, HeadNotes::of(start, &b)));
    }
    match object_end_noting(s, start) {
        Some(noted) => Some(noted),
        None => Some((value_end(s, start)?, None)),
    }
}

/// A response in the shape nearly every server writes, read by position:
/// `{"jsonrpc":"2.0","id":<digits>,"result":<value>}`, nothing between the
/// members (whitespace after the result only). The id's digits, where the
/// result is and its head notes (as [`envelope_members`] notes them);
/// `None` for any other shape, which that walk reads instead, to the same
/// reading (it skips the walk of the envelope's three members).
pub(crate) fn canonical_response(s: &[u8]) -> Option<(&[u8], Range<usize>, Option<HeadNotes>)> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &[u8] = br#","result":"#;
    let rest = s.strip_prefix(HEAD)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || !rest[digits..].starts_with(RESULT) {
        return None;
    }
    let start = HEAD.len() + digits + RESULT.len();
    let (end, notes) = result_end(s, start)?;
    let close = skip_ws(s, end);
    let whole = s.get(close) == Some(&b'}') && skip_ws(s, close + 1) == s.len();
    whole.then(|| (&rest[..digits], start..end, notes))
}

/// [`object_members`] over a JSON-RPC envelope: the head members of a
/// `result` object are noted as it is walked ([`ObjectMembers::result_head`]).
pub(crate) fn envelope_members(text: &[u8]) -> ObjectMembers<'_> {
    ObjectMembers {
        walk: Walk::Envelope,
        ..object_members(text)
    }
}

/// The iterator of [`object_members`].
#[derive(Debug)]
pub struct ObjectMembers<'a> {
    text: &'a [u8],
    /// Where the walk is; just past the closing brace once it ends there.
    at: usize,
    state: State,
    walk: Walk,
    /// An envelope's walk: the head notes of its `result` object.
    result_head: Option<HeadNotes>,
    /// A result's walk ([`Walk::Inner`]): where its `_meta` is, when the
    /// walk found its end by checking it (`meta::plain_end`).
    checked_meta: Option<Range<usize>>,
}

/// What an [`ObjectMembers`] walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// An object that is the whole text (whitespace around it).
    Whole,
    /// The same, a JSON-RPC envelope: its `result` object's head is noted.
    Envelope,
    /// An object inside a text (from [`ObjectMembers::at`]: an envelope's
    /// result): the walk ends at its closing brace, whatever follows, and
    /// a `_meta` member's end is found by checking it (`meta::plain_end`),
    /// so the result's reader need not check it again.
    Inner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    First,
    Next,
    Done,
}

/// The text is not an object that [`object_members`] can walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotPlain;

impl fmt::Display for NotPlain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a plain JSON object")
    }
}

impl std::error::Error for NotPlain {}

impl<'a> Iterator for ObjectMembers<'a> {
    type Item = Result<Member<'a>, NotPlain>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.state == State::Done {
            return None;
        }
        let step = self.step();
        if !matches!(step, Some(Ok(_))) {
            self.state = State::Done;
        }
        step
    }
}

impl<'a> ObjectMembers<'a> {
    /// A walk of the object that starts at `text[at]`, inside the text.
    fn at(text: &'a [u8], at: usize) -> Self {
        ObjectMembers {
            at,
            walk: Walk::Inner,
            ..object_members(text)
        }
    }

    /// The head notes of the `result` object an envelope's walk passed.
    pub(crate) fn result_head(&self) -> Option<HeadNotes> {
        self.result_head
    }

    fn step(&mut self) -> Option<Result<Member<'a>, NotPlain>> {
        let s = self.text;
        let mut i = skip_ws(s, self.at);
        if self.state == State::Start {
            if s.get(i) != Some(&b'{') {
                return Some(Err(NotPlain));
            }
            self.state = State::First;
            i = skip_ws(s, i + 1);
        }
        match (s.get(i), self.state) {
            (Some(b'}'), _) => {
                self.at = i + 1;
                let rest = self.walk != Walk::Inner && skip_ws(s, i + 1) != s.len();
                return rest.then_some(Err(NotPlain));
            }
            (Some(b','), State::Next) => i = skip_ws(s, i + 1),
            (Some(b'"'), State::First) => {}
            _ => return Some(Err(NotPlain)),
        }
        let result_head = (self.walk == Walk::Envelope).then_some(&mut self.result_head);
        let checked_meta = (self.walk == Walk::Inner).then_some(&mut self.checked_meta);
        let member = member_at(s, i, result_head, checked_meta).ok_or(NotPlain);
        if let Ok(m) = &member {
            self.at = m.value.end;
            self.state = State::Next;
        }
        Some(member)
    }
}

/// The member whose key starts at `s[i]`; with `result_head`, a `result`
/// object's head members are noted there; with `checked_meta`, where a
/// `_meta` member is when checking it found its end.
fn member_at<'a>(
    s: &'a [u8],
    i: usize,
    result_head: Option<&mut Option<HeadNotes>>,
    checked_meta: Option<&mut Option<Range<usize>>>,
) -> Option<Member<'a>> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let (key_end, escaped) = string_end(s, i)?;
    if escaped {
        return None;
    }
    let key = &s[i + 1..key_end - 1];
    let colon = skip_ws(s, key_end);
    if s.get(colon) != Some(&b':') {
        return None;
    }
    let start = skip_ws(s, colon + 1);
    let end = match (result_head, checked_meta) {
        (Some(head), _) if key == b"result" => {
            let (end, notes) = result_end(s, start)?;
            *head = notes;
            end
        }
        (_, Some(slot)) if key == b"_meta" => match crate::meta::plain_end(s, start) {
            Some(end) => {
                *slot = Some(start..end);
                end
            }
            None => value_end(s, start)?,
        },
        _ => value_end(s, start)?,
    };
    Some(Member {
        key,
        value: start..end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(text: &str) -> Result<Vec<(String, String)>, NotPlain> {
        object_members(text.as_bytes())
            .map(|m| {
                m.map(|m| {
                    (
                        String::from_utf8_lossy(m.key).into_owned(),
                        text[m.value].to_owned(),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn parsing_checks_utf8_once_and_names_the_first_bad_byte() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Text {
            text: String,
        }
        let ok = RawJson::from_bytes(r#"{"text":"héllo \u00e9","other":"ü"}"#.as_bytes().to_vec());
        assert_eq!(
            ok.decode::<Text>().expect("decodes"),
            Text {
                text: "héllo é".into()
            }
        );
        // A byte that is not UTF-8 fails the whole text, also in a member
        // that would have been skipped, and the error says where.
        for (bad, at) in [
            (&b"{\"text\":\"a\xffb\"}"[..], 10),
            (b"{\"other\":\"\xc3\",\"text\":\"a\"}", 10),
        ] {
            let err = RawJson::from_bytes(bad.to_vec())
                .decode::<Text>()
                .expect_err("not UTF-8");
            assert_eq!(
                err.to_string(),
                format!("the JSON text is not UTF-8 (byte {at})")
            );
            assert!(parse::<serde_json::Value>(bad).is_err());
        }
        // Syntax errors are serde_json's own, with their place.
        let err = parse::<Text>(b"{\"text\": }").expect_err("not JSON");
        assert!(err.to_string().contains("line 1 column"), "{err}");
    }

    #[test]
    fn walks_what_serde_reads() {
        let cases = [
            r#"{}"#,
            r#" { } "#,
            r#"{"a":1}"#,
            r#"{ "a" : "x\"}" , "b":[1,{"c":"]"}], "d": null ,"e":-1.5e3 }"#,
            "{\"a\":{\"b\":{\"c\":[[]]}}}\n",
            // Strings longer than the byte loop's reach, escapes on both sides.
            r#"{"a":"0123456789abcdefghij\"k\\","b":1,"0123456789abcdefghijk":["x\"]"]}"#,
        ];
        for c in cases {
            let walked = walk(c).unwrap_or_else(|_| panic!("walks {c}"));
            let parsed: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(c).unwrap();
            assert_eq!(walked.len(), parsed.len(), "{c}");
            for (k, v) in walked {
                let value: serde_json::Value = serde_json::from_str(&v).unwrap();
                assert_eq!(parsed[&k], value, "{c}: member {k}");
            }
        }
    }

    #[test]
    fn refuses_what_it_cannot_walk() {
        for c in [
            "",
            "[1]",
            r#""x""#,
            r#"{"a":1"#,
            r#"{"a":1,}"#,
            r#"{,"a":1}"#,
            r#"{"a" 1}"#,
            r#"{"a":}"#,
            r#"{"a":{"b":1}"#,
            r#"{"a":"unterminated}"#,
            r#"{"\u0061":1}"#,
            r#"{"0123456789abcdefghij\u0061":1}"#,
            r#"{"a":"0123456789abcdefghij\"}"#,
            r#"{"a":1} x"#,
            r#"{"a":1}{}"#,
            r#"{"a":1 "b":2}"#,
        ] {
            assert_eq!(walk(c), Err(NotPlain), "refuses {c:?}");
        }
    }

    #[test]
    fn unchecked_and_checked_agree() {
        let text = r#"{"content":[{"type":"text","text":"hi"}]}"#;
        let checked = RawJson::from(RawValue::from_string(text.to_owned()).unwrap());
        let unchecked = RawJson::from_bytes(text.as_bytes().to_vec());
        assert_eq!(checked, unchecked);
        assert_eq!(
            serde_json::to_string(&checked).unwrap(),
            serde_json::to_string(&unchecked).unwrap()
        );
        assert_eq!(unchecked.to_raw_value().unwrap().get(), text);
        let broken = RawJson::from_bytes(&b"{\"a\":tru}"[..]);
        assert!(serde_json::to_string(&broken).is_err());
        assert!(broken.into_raw_value().is_err());
    }

    #[test]
    fn debug_is_bounded() {
        let big = RawJson::from_bytes(format!("\"{}\"", "x".repeat(10_000)).into_bytes());
        let shown = format!("{big:?}");
        assert!(shown.len() < 400, "{shown}");
        assert!(shown.ends_with("10002 bytes)"));
    }
}

//! The strict envelope reader: [`Message::from_slice_checked`].
//!
//! One parse records which envelope members are present (also when they are
//! `null`), lists every way the frame breaks JSON-RPC 2.0 as MCP uses it,
//! keeps the `id` when it is readable, and builds what the lenient reader
//! would have built from the same members. No value from the frame is kept
//! in a violation, so a report can be logged without leaking the payload.

use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, de::DeserializeOwned};
use serde_json::value::RawValue;

use super::{ErrorObject, JSONRPC_VERSION, Message, RequestId, assemble};
use crate::raw::RawJson;

/// One way a frame breaks the JSON-RPC 2.0 envelope.
///
/// Violations name the broken rule only; they never carry a value from the
/// frame.
///
/// ```
/// use mcp_types::jsonrpc::EnvelopeViolation;
/// assert_eq!(EnvelopeViolation::MissingVersion.code(), "missing-jsonrpc");
/// assert_eq!(
///     EnvelopeViolation::BothResultAndError.to_string(),
///     "a response carries both `result` and `error`"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EnvelopeViolation {
    /// No `jsonrpc` member (the lenient reader tolerates this).
    MissingVersion,
    /// `jsonrpc` is present but not the string `"2.0"`.
    WrongVersion,
    /// `id` is neither a string nor an integer (nor `null` on an error).
    InvalidId,
    /// A response without an `id` member (the lenient reader tolerates this
    /// on an error response).
    MissingId,
    /// A successful response whose `id` is `null`.
    NullId,
    /// A response with both `result` and `error`.
    BothResultAndError,
    /// A frame with an `id` but neither `method`, `result` nor `error`.
    NeitherResultNorError,
    /// A request or notification that also carries `result` or `error`.
    MethodWithResult,
    /// `method` is not a string.
    InvalidMethod,
    /// `params` is present but not an object (MCP uses named params only).
    ParamsNotObject,
    /// `result` is present but not an object (every MCP result is one).
    ResultNotObject,
    /// `error` is not an object with an integer `code` and a string
    /// `message`.
    MalformedError,
}

impl EnvelopeViolation {
    /// A short stable identifier, for logs and metrics.
    pub fn code(self) -> &'static str {
        match self {
            EnvelopeViolation::MissingVersion => "missing-jsonrpc",
            EnvelopeViolation::WrongVersion => "wrong-jsonrpc",
            EnvelopeViolation::InvalidId => "invalid-id",
            EnvelopeViolation::MissingId => "missing-id",
            EnvelopeViolation::NullId => "null-id",
            EnvelopeViolation::BothResultAndError => "result-and-error",
            EnvelopeViolation::NeitherResultNorError => "no-result-or-error",
            EnvelopeViolation::MethodWithResult => "method-with-result",
            EnvelopeViolation::InvalidMethod => "invalid-method",
            EnvelopeViolation::ParamsNotObject => "params-not-object",
            EnvelopeViolation::ResultNotObject => "result-not-object",
            EnvelopeViolation::MalformedError => "malformed-error",
        }
    }
}

impl fmt::Display for EnvelopeViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EnvelopeViolation::MissingVersion => "the `jsonrpc` member is missing",
            EnvelopeViolation::WrongVersion => "`jsonrpc` is not \"2.0\"",
            EnvelopeViolation::InvalidId => "`id` is not a string or an integer",
            EnvelopeViolation::MissingId => "a response has no `id` member",
            EnvelopeViolation::NullId => "a successful response has a null `id`",
            EnvelopeViolation::BothResultAndError => "a response carries both `result` and `error`",
            EnvelopeViolation::NeitherResultNorError => {
                "a response carries neither `result` nor `error`"
            }
            EnvelopeViolation::MethodWithResult => {
                "a request or notification carries `result` or `error`"
            }
            EnvelopeViolation::InvalidMethod => "`method` is not a string",
            EnvelopeViolation::ParamsNotObject => "`params` is not an object",
            EnvelopeViolation::ResultNotObject => "`result` is not an object",
            EnvelopeViolation::MalformedError => {
                "`error` is not an object with an integer `code` and a string `message`"
            }
        })
    }
}

/// What the strict reader found in one frame.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EnvelopeCheck {
    /// The frame's `id`, when it is a readable string or integer (so a
    /// broken response can still fail the request it answers).
    pub id: Option<RequestId>,
    /// Every violation, in a fixed order; empty for a complete envelope.
    pub violations: Vec<EnvelopeViolation>,
    /// What the lenient reader ([`Message::from_slice`]) makes of the frame:
    /// `None` exactly when it rejects it.
    pub message: Option<Message>,
}

impl EnvelopeCheck {
    /// Whether the frame is a complete JSON-RPC 2.0 envelope.
    ///
    /// ```
    /// use mcp_types::jsonrpc::Message;
    /// let ok = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    /// assert!(Message::from_slice_checked(ok).unwrap().is_complete());
    /// let no_version = br#"{"id":1,"result":{}}"#;
    /// assert!(!Message::from_slice_checked(no_version).unwrap().is_complete());
    /// ```
    pub fn is_complete(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Why a frame yielded no message ([`Message::read`]): a closed split, so
/// transports can match it exhaustively.
#[derive(Debug)]
pub enum ReadError {
    /// The frame broke the envelope rules; `id` names the request a broken
    /// reply answers, when readable, so that request can fail at once.
    /// It carries rule names only, never the payload.
    Broken {
        /// The frame's `id`.
        id: Option<RequestId>,
        /// The rules it broke.
        violations: Vec<EnvelopeViolation>,
    },
    /// The frame is not a JSON-RPC message at all (not JSON, not an
    /// object, or a broken envelope that names no request).
    Invalid(serde_json::Error),
}

impl Message {
    /// Reads one frame the way a transport should. Leniently (`check`
    /// off): one parse, as [`Message::from_slice`], and a second, checked
    /// one only for a rejected frame, to learn which request it broke. With
    /// `check` (a client's strict mode): one checked parse, and any broken
    /// rule (a missing `jsonrpc`, say) refuses the frame.
    ///
    /// # Errors
    /// [`ReadError::Broken`] for a frame that broke the envelope and names a
    /// request (or, with `check`, any frame that broke it);
    /// [`ReadError::Invalid`] for anything else that is not a message.
    ///
    /// ```
    /// use mcp_types::jsonrpc::{Message, ReadError};
    /// let both = br#"{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}"#;
    /// assert!(matches!(Message::read(both, false), Err(ReadError::Broken { .. })));
    /// let no_version = br#"{"id":1,"result":{}}"#;
    /// assert!(Message::read(no_version, false).is_ok());
    /// assert!(matches!(Message::read(no_version, true), Err(ReadError::Broken { .. })));
    /// assert!(matches!(Message::read(b"hello", false), Err(ReadError::Invalid(_))));
    /// ```
    #[inline]
    pub fn read(bytes: &[u8], check: bool) -> Result<Message, ReadError> {
        read_with(bytes, check, Message::from_slice)
    }

    /// [`Message::read`] for a frame already in a [`bytes::Bytes`]: the
    /// lenient reading is [`Message::from_bytes`], which keeps a large
    /// result as a slice of the frame instead of copying it.
    ///
    /// # Errors
    /// As [`Message::read`].
    #[inline]
    pub fn read_bytes(bytes: &bytes::Bytes, check: bool) -> Result<Message, ReadError> {
        read_with(bytes, check, |_| Message::from_bytes(bytes))
    }

    /// [`Message::read`] for a frame that is its message's own: the
    /// lenient reading is [`Message::from_own_bytes`], which keeps the
    /// result as a slice of the frame whatever its size.
    ///
    /// # Errors
    /// As [`Message::read`].
    #[inline]
    pub fn read_own_bytes(bytes: &bytes::Bytes, check: bool) -> Result<Message, ReadError> {
        read_with(bytes, check, |_| Message::from_own_bytes(bytes))
    }
}

/// The lenient reading first, inline (every message's path); what did not
/// read and the checked reading out of line.
#[inline]
fn read_with(
    bytes: &[u8],
    check: bool,
    lenient: impl FnOnce(&[u8]) -> Result<Message, serde_json::Error>,
) -> Result<Message, ReadError> {
    if !check {
        return match lenient(bytes) {
            Ok(message) => Ok(message),
            Err(e) => Err(unreadable(bytes, e)),
        };
    }
    read_checked(bytes)
}

/// Why a message the lenient reader refused is not one: a broken envelope
/// (with its id, if it has one) or not JSON-RPC at all.
#[cold]
#[inline(never)]
fn unreadable(bytes: &[u8], err: serde_json::Error) -> ReadError {
    match Message::from_slice_checked(bytes) {
        Ok(c) if c.id.is_some() => ReadError::Broken {
            id: c.id,
            violations: c.violations,
        },
        _ => ReadError::Invalid(err),
    }
}

/// The checked reading (`check_envelopes`): every violation named.
#[inline(never)]
fn read_checked(bytes: &[u8]) -> Result<Message, ReadError> {
    let c = Message::from_slice_checked(bytes).map_err(ReadError::Invalid)?;
    match c.message {
        Some(message) if c.is_complete() => Ok(message),
        _ => Err(ReadError::Broken {
            id: c.id,
            violations: c.violations,
        }),
    }
}

/// The members of an envelope, each kept raw (including a `null`) when
/// present.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A present member, `null` included (a plain `Option` would read `null` as
/// absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

fn is_null(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get() == "null")
}

/// Decodes a member the way the lenient reader's `Option<T>` field does:
/// absent and `null` are `None`; `Err` when the lenient reader would fail.
fn lenient<T: DeserializeOwned>(raw: Option<&RawValue>) -> Result<Option<T>, ()> {
    match raw {
        None => Ok(None),
        Some(r) => serde_json::from_str::<Option<T>>(r.get()).map_err(drop),
    }
}

fn lenient_raw(raw: Option<&RawValue>) -> Option<Box<RawValue>> {
    raw.filter(|r| r.get() != "null").map(ToOwned::to_owned)
}

impl Message {
    /// Reads one frame strictly: every [`EnvelopeViolation`], the `id` when
    /// readable, and the lenient reading, from a single parse. The lenient
    /// [`Message::from_slice`] is unchanged; use this where a strict mode
    /// wants to know what that reader forgives or why it rejected a frame.
    ///
    /// # Errors
    /// A [`serde_json::Error`] when the bytes are not one JSON object with
    /// distinct member names.
    ///
    /// ```
    /// use mcp_types::jsonrpc::{EnvelopeViolation, Message};
    /// use mcp_types::RequestId;
    ///
    /// // Tolerated by the lenient reader, reported here.
    /// let check = Message::from_slice_checked(br#"{"id":1,"result":{}}"#).unwrap();
    /// assert_eq!(check.violations, [EnvelopeViolation::MissingVersion]);
    /// assert!(check.message.is_some());
    ///
    /// // Rejected by the lenient reader; the id still says which request it answered.
    /// let bad = br#"{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}"#;
    /// let check = Message::from_slice_checked(bad).unwrap();
    /// assert_eq!(check.id, Some(RequestId::Number(7)));
    /// assert_eq!(check.violations, [EnvelopeViolation::BothResultAndError]);
    /// assert!(check.message.is_none());
    /// ```
    pub fn from_slice_checked(bytes: &[u8]) -> Result<EnvelopeCheck, serde_json::Error> {
        // A derived struct also reads from an array; an envelope is an object.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            crate::raw::parse::<serde::de::IgnoredAny>(bytes)?;
            return Err(serde::de::Error::custom(
                "a JSON-RPC message is a JSON object",
            ));
        }
        let m: Members<'_> = crate::raw::parse(bytes)?;
        let mut violations = Vec::new();
        let mut push = |v: EnvelopeViolation| {
            if !violations.contains(&v) {
                violations.push(v);
            }
        };

        let version = lenient::<String>(m.jsonrpc);
        match (&m.jsonrpc, &version) {
            (None, _) => push(EnvelopeViolation::MissingVersion),
            (Some(_), Ok(Some(v))) if v == JSONRPC_VERSION => {}
            (Some(_), _) => push(EnvelopeViolation::WrongVersion),
        }
        let id = lenient::<RequestId>(m.id);
        if m.id.is_some() && !is_null(m.id) && id.is_err() {
            push(EnvelopeViolation::InvalidId);
        }
        let method = lenient::<String>(m.method);
        let has_method = m.method.is_some();
        if has_method && !matches!(method, Ok(Some(_))) {
            push(EnvelopeViolation::InvalidMethod);
        }
        if m.params.is_some_and(|p| !p.get().starts_with('{')) {
            push(EnvelopeViolation::ParamsNotObject);
        }
        if m.result.is_some_and(|p| !p.get().starts_with('{')) {
            push(EnvelopeViolation::ResultNotObject);
        }
        let error = lenient::<ErrorObject>(m.error);
        match (has_method, m.result.is_some(), m.error.is_some()) {
            (true, true, _) | (true, _, true) => push(EnvelopeViolation::MethodWithResult),
            (true, false, false) => {}
            (false, true, true) => push(EnvelopeViolation::BothResultAndError),
            (false, false, false) => push(EnvelopeViolation::NeitherResultNorError),
            (false, has_result, _) => {
                if m.id.is_none() {
                    push(EnvelopeViolation::MissingId);
                } else if has_result && is_null(m.id) {
                    push(EnvelopeViolation::NullId);
                }
            }
        }
        if m.error.is_some() && !matches!(error, Ok(Some(_))) {
            push(EnvelopeViolation::MalformedError);
        }

        let version_ok =
            matches!(&version, Ok(None)) || matches!(&version, Ok(Some(v)) if v == JSONRPC_VERSION);
        let message = match (version_ok, &id, method, error) {
            (true, Ok(id), Ok(method), Ok(error)) => assemble(
                method,
                id.clone(),
                lenient_raw(m.params),
                lenient_raw(m.result).map(RawJson::from),
                error,
            )
            .ok(),
            _ => None,
        };
        Ok(EnvelopeCheck {
            id: id.ok().flatten(),
            violations,
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EnvelopeViolation as V;

    fn check(s: &str) -> EnvelopeCheck {
        Message::from_slice_checked(s.as_bytes()).unwrap()
    }

    #[test]
    fn complete_envelopes_have_no_violations() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{},"extra":true}"#,
        ] {
            let c = check(ok);
            assert!(c.is_complete(), "{ok}: {:?}", c.violations);
            assert!(c.message.is_some(), "{ok}");
        }
    }

    #[test]
    fn reports_each_violation_with_the_id() {
        let cases: &[(&str, &[V], Option<i64>)] = &[
            (r#"{"id":1,"result":{}}"#, &[V::MissingVersion], Some(1)),
            (
                r#"{"jsonrpc":"1.0","id":2,"result":{}}"#,
                &[V::WrongVersion],
                Some(2),
            ),
            (
                r#"{"jsonrpc":null,"id":2,"result":{}}"#,
                &[V::WrongVersion],
                Some(2),
            ),
            (
                r#"{"jsonrpc":2.0,"id":2,"result":{}}"#,
                &[V::WrongVersion],
                Some(2),
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":""}}"#,
                &[V::BothResultAndError],
                Some(3),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4}"#,
                &[V::NeitherResultNorError],
                Some(4),
            ),
            (r#"{"jsonrpc":"2.0","result":{}}"#, &[V::MissingId], None),
            (
                r#"{"jsonrpc":"2.0","error":{"code":1,"message":""}}"#,
                &[V::MissingId],
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
                &[V::NullId],
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
                &[V::InvalidId],
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"x","result":{}}"#,
                &[V::MethodWithResult],
                Some(5),
            ),
            (r#"{"jsonrpc":"2.0","method":7}"#, &[V::InvalidMethod], None),
            (
                r#"{"jsonrpc":"2.0","method":"x","params":[1]}"#,
                &[V::ParamsNotObject],
                None,
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"error":{"code":"x"}}"#,
                &[V::MalformedError],
                Some(6),
            ),
            (
                r#"{"id":8,"result":{},"error":{"code":1,"message":""}}"#,
                &[V::MissingVersion, V::BothResultAndError],
                Some(8),
            ),
        ];
        for (frame, want, id) in cases {
            let c = check(frame);
            assert_eq!(c.violations, *want, "{frame}");
            assert_eq!(c.id, id.map(RequestId::Number), "{frame}");
        }
    }

    #[test]
    fn the_lenient_reading_matches_the_lenient_reader() {
        for frame in [
            r#"{"id":1,"result":{"a":1}}"#,
            r#"{"jsonrpc":"1.0","id":2,"result":{}}"#,
            r#"{"jsonrpc":null,"id":2,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":""}}"#,
            r#"{"jsonrpc":"2.0","id":4}"#,
            r#"{"jsonrpc":"2.0","error":{"code":1,"message":""}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":null}"#,
            r#"{"jsonrpc":"2.0","id":"s","method":"y","params":{"k":[1,2]}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":"x"}}"#,
        ] {
            let strict = check(frame).message.map(|m| m.to_vec().unwrap());
            let lenient = Message::from_slice(frame.as_bytes())
                .ok()
                .map(|m| m.to_vec().unwrap());
            assert_eq!(strict, lenient, "{frame}");
        }
    }

    /// Every combination of member values: the strict reader's lenient
    /// reading is the lenient reader's, and whatever the lenient reader
    /// rejects comes with at least one violation.
    #[test]
    fn agrees_with_the_lenient_reader_on_every_combination() {
        let jsonrpc = [
            None,
            Some(r#""2.0""#),
            Some(r#""1.0""#),
            Some("null"),
            Some("2"),
        ];
        let id = [
            None,
            Some("1"),
            Some(r#""a""#),
            Some("null"),
            Some("1.5"),
            Some("{}"),
        ];
        let method = [None, Some(r#""x""#), Some("7"), Some("null")];
        let params = [None, Some("{}"), Some("[1]"), Some("null")];
        let result = [None, Some("{}"), Some("null"), Some("1")];
        let error = [
            None,
            Some(r#"{"code":1,"message":"m"}"#),
            Some(r#"{"code":"x"}"#),
            Some("null"),
        ];
        let mut frames = 0;
        for j in jsonrpc {
            for i in id {
                for m in method {
                    for p in params {
                        for r in result {
                            for e in error {
                                let members: Vec<String> = [
                                    ("jsonrpc", j),
                                    ("id", i),
                                    ("method", m),
                                    ("params", p),
                                    ("result", r),
                                    ("error", e),
                                ]
                                .iter()
                                .filter_map(|(k, v)| v.map(|v| format!("\"{k}\":{v}")))
                                .collect();
                                let frame = format!("{{{}}}", members.join(","));
                                let c = check(&frame);
                                let lenient = Message::from_slice(frame.as_bytes()).ok();
                                let as_bytes = |m: &Message| m.to_vec().unwrap();
                                assert_eq!(
                                    c.message.as_ref().map(as_bytes),
                                    lenient.as_ref().map(as_bytes),
                                    "{frame}"
                                );
                                assert!(
                                    lenient.is_some() || !c.violations.is_empty(),
                                    "{frame}: rejected without a violation"
                                );
                                frames += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(frames, 5 * 6 * 4 * 4 * 4 * 4);
    }

    #[test]
    fn violations_keep_no_payload() {
        let c = check(r#"{"jsonrpc":"secret-1","id":9,"result":{"token":"secret-2"}}"#);
        let shown = format!("{:?} {}", c.violations, c.violations[0]);
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn non_objects_are_errors() {
        for bad in ["not json", "[]", "1", r#"{"id":1,"id":2,"result":{}}"#] {
            assert!(
                Message::from_slice_checked(bad.as_bytes()).is_err(),
                "{bad}"
            );
        }
    }
}

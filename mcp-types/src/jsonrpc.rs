//! The JSON-RPC 2.0 envelope.
//!
//! Incoming messages are read leniently: unknown fields are ignored, a
//! notification may omit `params`, a missing `jsonrpc` member is tolerated
//! (a wrong one is not), and any method name is kept as data. Outgoing
//! messages are written strictly, always with `"jsonrpc": "2.0"`.
//!
//! Payloads stay raw so that a message is parsed once and its payload is
//! decoded later with the type the request expects, never through an
//! untagged union: `params` as a [`RawValue`], a response's `result` as a
//! [`RawJson`]. The plain response envelope (`jsonrpc`, `id`, `result`) is
//! read without parsing the result at all: its end is found with a byte
//! search ([`object_members`](crate::raw::object_members)) and its bytes
//! are kept, so a large result is parsed once, by the decode that needs it.
//! Any other shape goes through `serde_json`.
//!
//! The lenient reader forgets some envelope facts (a missing `jsonrpc`, an
//! `id` member missing rather than `null`) and rejects others without saying
//! which request they answered (a wrong `jsonrpc`, both `result` and
//! `error`). [`Message::from_slice_checked`] is the strict reader: in one
//! parse it lists every [`EnvelopeViolation`] and the frame's `id` too.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::ErrorCode;
use crate::method::{NotificationMethod, RequestMethod};
use crate::raw::{HeadNotes, RawJson, canonical_response, envelope_members};

mod request_id;
mod strict;

pub use request_id::RequestId;
pub use strict::{EnvelopeCheck, EnvelopeViolation, ReadError};

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request: expects exactly one response with the same id.
#[derive(Clone, Debug)]
pub struct Request {
    /// The id the response will carry.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The params object, kept raw.
    pub params: Option<Box<RawValue>>,
}

/// A notification: no id, no response.
#[derive(Clone, Debug)]
pub struct Notification {
    /// The method name, e.g. `notifications/progress`.
    pub method: String,
    /// The params object, kept raw; absent is allowed.
    pub params: Option<Box<RawValue>>,
}

/// A successful response.
#[derive(Clone, Debug)]
pub struct Response {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result object, kept raw until decoded as the expected type (and
    /// not yet checked to be JSON when it came from the wire: see
    /// [`RawJson`]).
    pub result: RawJson,
}

/// An error response.
#[derive(Clone, Debug)]
pub struct ErrorResponse {
    /// The id of the request this answers; absent when the peer could not
    /// read the id (for example on a parse error).
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

/// The `error` member of an error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description of the error.
    pub message: String,
    /// Additional information, defined by the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Adds `data`.
    #[must_use]
    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// Any JSON-RPC message.
#[derive(Clone, Debug)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

impl Message {
    /// Results at least this long are kept as a slice of the frame's
    /// buffer by [`Message::from_bytes`]; shorter ones are copied (so a
    /// small result kept does not keep a whole receive buffer alive). A
    /// transport that reads a frame smaller than this in place, with
    /// [`Message::from_slice`], gets the same reading and the same copy.
    pub const SHARE_FROM: usize = 16 * 1024;

    /// Parses one message from bytes.
    ///
    /// # Errors
    /// A [`serde_json::Error`] when the bytes are not one JSON-RPC message.
    ///
    /// ```
    /// use mcp_types::Message;
    /// let m = Message::from_slice(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    /// assert!(matches!(m, Message::Notification(n) if n.params.is_none()));
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Message, serde_json::Error> {
        if let Some((id, range, head)) = plain_response(bytes) {
            let result =
                RawJson::from_bytes(bytes::Bytes::copy_from_slice(&bytes[range])).with_head(head);
            return Ok(Message::Response(Response { id, result }));
        }
        crate::raw::parse(bytes)
    }

    /// [`Message::from_slice`] for a frame already in a [`bytes::Bytes`]: a
    /// large result is kept as a slice of it instead of a copy (a small one
    /// is copied, so it does not pin a whole receive buffer).
    ///
    /// # Errors
    /// A [`serde_json::Error`] when the bytes are not one JSON-RPC message.
    pub fn from_bytes(bytes: &bytes::Bytes) -> Result<Message, serde_json::Error> {
        Message::from_frame(bytes, Message::SHARE_FROM)
    }

    /// [`Message::from_bytes`] for a frame that is its message's own (made
    /// for it alone, as a server-sent event's data is): its result is a
    /// slice of it whatever its size, never a copy (there is no larger
    /// buffer the slice could keep alive).
    ///
    /// # Errors
    /// A [`serde_json::Error`] when the bytes are not one JSON-RPC message.
    ///
    /// ```
    /// use mcp_types::Message;
    /// let frame = bytes::Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    /// assert!(matches!(Message::from_own_bytes(&frame), Ok(Message::Response(_))));
    /// ```
    pub fn from_own_bytes(bytes: &bytes::Bytes) -> Result<Message, serde_json::Error> {
        Message::from_frame(bytes, 0)
    }

    /// A frame's message, its result a slice of the frame when at least
    /// `share_from` bytes long and a copy otherwise.
    fn from_frame(bytes: &bytes::Bytes, share_from: usize) -> Result<Message, serde_json::Error> {
        match plain_response(bytes) {
            Some((id, range, head)) => {
                let result = if range.len() >= share_from {
                    RawJson::from_bytes(bytes.slice(range))
                } else {
                    RawJson::from_bytes(bytes::Bytes::copy_from_slice(&bytes[range]))
                }
                .with_head(head);
                Ok(Message::Response(Response { id, result }))
            }
            None => crate::raw::parse(bytes),
        }
    }

    /// Serializes this message to one line of JSON (no trailing newline).
    ///
    /// # Errors
    /// Only if a raw payload is not valid JSON, which the constructors rule out.
    pub fn to_vec(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(self)
    }

    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) | Message::Error(_) => None,
        }
    }
}

impl Request {
    /// A request for the method `M` with typed params.
    ///
    /// # Errors
    /// When `params` cannot be serialized as JSON.
    ///
    /// ```
    /// use mcp_types::jsonrpc::Request;
    /// use mcp_types::methods::v2026_07_28::CallTool;
    /// use mcp_types::tools::CallToolRequestParams;
    /// let r = Request::typed::<CallTool>(1.into(), &CallToolRequestParams::new("echo")).unwrap();
    /// assert_eq!(r.method, "tools/call");
    /// assert_eq!(r.params_as::<CallToolRequestParams>().unwrap().name, "echo");
    /// ```
    pub fn typed<M: RequestMethod>(
        id: RequestId,
        params: &M::Params,
    ) -> Result<Request, serde_json::Error> {
        Ok(Request {
            id,
            method: M::METHOD.to_owned(),
            params: Some(to_raw(params)?),
        })
    }

    /// Decodes the params as `T`; absent params decode from `{}`.
    ///
    /// # Errors
    /// When the params do not have the shape of `T`.
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        decode_params(self.params.as_deref())
    }
}

impl Notification {
    /// A notification for the method `M` with typed params.
    ///
    /// # Errors
    /// When `params` cannot be serialized as JSON.
    pub fn typed<M: NotificationMethod>(
        params: &M::Params,
    ) -> Result<Notification, serde_json::Error> {
        Ok(Notification {
            method: M::METHOD.to_owned(),
            params: Some(to_raw(params)?),
        })
    }

    /// Decodes the params as `T`; absent params decode from `{}` (so a
    /// list-changed notification without params reads fine).
    ///
    /// # Errors
    /// When the params do not have the shape of `T`.
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        decode_params(self.params.as_deref())
    }
}

impl Response {
    /// A response carrying a typed result.
    ///
    /// # Errors
    /// When `result` cannot be serialized as JSON.
    pub fn typed<T: Serialize>(id: RequestId, result: &T) -> Result<Response, serde_json::Error> {
        Ok(Response {
            id,
            result: to_raw(result)?.into(),
        })
    }

    /// Decodes the result as `T`.
    ///
    /// # Errors
    /// When the result does not have the shape of `T`.
    pub fn result_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        self.result.decode()
    }
}

/// The id and the result's place in a plain response envelope (the usual
/// shape matched by position, `raw::canonical_response`): an object with an
/// `id` (string or integer), a `result` other than `null` and at most a
/// `jsonrpc` of exactly `"2.0"`, each once, keys unescaped. The result is
/// not parsed; its head members are noted on the way ([`RawJson::head_members`]).
/// Anything else is `None`: serde_json gives the same reading (or the error).
fn plain_response(bytes: &[u8]) -> Option<(RequestId, std::ops::Range<usize>, Option<HeadNotes>)> {
    if let Some((id, result, head)) = canonical_response(bytes)
        && bytes[result.clone()] != *b"null"
    {
        return Some((plain_id(id)?, result, head));
    }
    let (mut version, mut id, mut result) = (false, None, None);
    let mut members = envelope_members(bytes);
    for member in members.by_ref() {
        let member = member.ok()?;
        let value = &bytes[member.value.clone()];
        match member.key {
            b"jsonrpc" if !version && value == b"\"2.0\"" => version = true,
            b"id" if id.is_none() => id = Some(plain_id(value)?),
            b"result" if result.is_none() && value != b"null" => result = Some(member.value),
            _ => return None,
        }
    }
    Some((id?, result?, members.result_head()))
}

/// An id of a plain response: a small non-negative integer read by hand
/// (what this client's own ids are), anything else by serde_json.
fn plain_id(value: &[u8]) -> Option<RequestId> {
    // At most 18 digits fit an i64 whatever they are; no leading zero
    // (serde_json refuses one), so `0` alone.
    let digits = (1..=18).contains(&value.len())
        && value.iter().all(u8::is_ascii_digit)
        && (value[0] != b'0' || value.len() == 1);
    if digits {
        let n = value.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
        return Some(RequestId::Number(n));
    }
    crate::raw::parse(value).ok()
}

fn decode_params<T: DeserializeOwned>(raw: Option<&RawValue>) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.map_or("{}", RawValue::get))
}

/// Serializes a params value as a raw JSON payload.
///
/// # Errors
/// When `params` cannot be serialized as JSON.
pub fn to_raw<T: Serialize + ?Sized>(params: &T) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(params)
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        match self {
            Message::Request(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("method", &r.method)?;
                if let Some(p) = &r.params {
                    map.serialize_entry("params", p)?;
                }
            }
            Message::Notification(n) => {
                map.serialize_entry("method", &n.method)?;
                if let Some(p) = &n.params {
                    map.serialize_entry("params", p)?;
                }
            }
            Message::Response(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("result", &r.result)?;
            }
            Message::Error(e) => {
                // JSON-RPC 2.0 requires the id member; null when unknown.
                map.serialize_entry("id", &e.id)?;
                map.serialize_entry("error", &e.error)?;
            }
        }
        map.end()
    }
}

#[derive(Deserialize)]
struct WireMessage<'a> {
    /// Borrowed from the input when it can be: read once per message.
    #[serde(default, borrow)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Box<RawValue>>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = WireMessage::deserialize(deserializer)?;
        if let Some(v) = w.jsonrpc.as_deref().filter(|v| *v != JSONRPC_VERSION) {
            return Err(de::Error::custom(format_args!(
                "unsupported jsonrpc version {v:?}"
            )));
        }
        let result = w.result.map(RawJson::from);
        assemble(w.method, w.id, w.params, result, w.error).map_err(de::Error::custom)
    }
}

/// Classifies the members of an envelope the way the lenient reader does
/// (shared with the strict reader in [`strict`]).
fn assemble(
    method: Option<String>,
    id: Option<RequestId>,
    params: Option<Box<RawValue>>,
    result: Option<RawJson>,
    error: Option<ErrorObject>,
) -> Result<Message, &'static str> {
    match (method, id, result, error) {
        (Some(method), Some(id), None, None) => {
            Ok(Message::Request(Request { id, method, params }))
        }
        (Some(method), None, None, None) => {
            Ok(Message::Notification(Notification { method, params }))
        }
        (None, Some(id), Some(result), None) => Ok(Message::Response(Response { id, result })),
        (None, id, None, Some(error)) => Ok(Message::Error(ErrorResponse { id, error })),
        (None, _, Some(_), Some(_)) => Err("a response carries both result and error"),
        (None, None, Some(_), None) => Err("a result without an id"),
        (Some(_), _, _, _) => Err("a request carries result or error"),
        (None, _, None, None) => Err("not a JSON-RPC message: no method, result or error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Message {
        Message::from_slice(s.as_bytes()).unwrap()
    }

    #[test]
    fn a_frames_own_result_is_a_view_of_it_and_a_shared_small_one_a_copy() {
        let frame = bytes::Bytes::from_static(br#"{"jsonrpc":"2.0","id":7,"result":{"a":1}}"#);
        let within = |m: Message| match m {
            Message::Response(r) => {
                let at = r.result.as_bytes().as_ptr() as usize;
                let start = frame.as_ptr() as usize;
                assert_eq!(r.result.as_bytes(), br#"{"a":1}"#);
                (start..start + frame.len()).contains(&at)
            }
            other => panic!("a response, not {other:?}"),
        };
        assert!(within(Message::from_own_bytes(&frame).unwrap()));
        assert!(!within(Message::from_bytes(&frame).unwrap()));
    }

    #[test]
    fn classifies_every_kind() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Message::Request(_)
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"x","params":{}}"#),
            Message::Notification(_)
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Message::Response(_)
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}"#),
            Message::Error(ErrorResponse { id: None, .. })
        ));
    }

    /// A response in the canonical shape (read by position) reads as the
    /// same response with a space after `"id":` (read by the member walk).
    #[test]
    fn canonical_responses_read_as_the_walk_reads_them() {
        let reading = |line: &str| match Message::from_slice(line.as_bytes()) {
            Ok(Message::Response(r)) => Some((
                r.id,
                r.result.as_bytes().to_vec(),
                r.result
                    .head_members()
                    .map(|h| h.map(|m| m.map(<[u8]>::to_vec))),
                r.result.checked_meta(),
            )),
            _ => None,
        };
        for (id, result) in [
            ("1", r#"{"content":[{"type":"text","text":"hi"}]}"#),
            (
                "42",
                r#"{"content":[],"resultType":"complete","ttlMs":5,"_meta":{"k":[1]}}"#,
            ),
            ("7", r#"{"nextCursor":"c","tools":[]} "#),
            ("0", "[1,2]"),
            ("3", r#""text""#),
            ("5", "17"),
            ("5", "null"),
            ("01", "{}"),
            ("123456789012345678901", "{}"),
            ("9", r#"{"a":tru}"#),
            ("9", r#"{"a\u0062":1}"#),
            ("9", r#"{"_meta":{"n":1e3},"_meta":{}}"#),
            ("9", "{}}"),
            ("9", "{} x"),
        ] {
            let canonical = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
            let walked = format!(r#"{{"jsonrpc":"2.0","id": {id},"result":{result}}}"#);
            assert!(canonical_response(walked.as_bytes()).is_none());
            assert_eq!(reading(&canonical), reading(&walked), "{canonical}");
        }
        let line = r#"{"jsonrpc":"2.0","id":1,"result":{"ttlMs":5}}"#;
        assert!(
            reading(line).and_then(|r| r.2).is_some(),
            "read, head noted"
        );
    }

    #[test]
    fn plain_ids_read_as_serde_reads_them() {
        for id in [
            "0",
            "7",
            "01",
            "-3",
            "1.0",
            "1e3",
            "123456789012345678",
            "1234567890123456789",
            "9223372036854775807",
            "9223372036854775808",
            "\"17\"",
        ] {
            let serde = serde_json::from_str::<RequestId>(id).ok();
            assert_eq!(plain_id(id.as_bytes()), serde, "{id}");
        }
    }

    #[test]
    fn rejects_malformed_envelopes_without_panicking() {
        for bad in [
            r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0"}"#,
            r#"[{"jsonrpc":"2.0","method":"x"}]"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            "not json",
        ] {
            assert!(Message::from_slice(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn writes_strictly_and_round_trips() {
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}"#;
        let m = parse(line);
        assert_eq!(String::from_utf8(m.to_vec().unwrap()).unwrap(), line);
        let n = Message::Notification(Notification {
            method: "x".into(),
            params: None,
        });
        assert_eq!(
            String::from_utf8(n.to_vec().unwrap()).unwrap(),
            r#"{"jsonrpc":"2.0","method":"x"}"#
        );
    }

    #[test]
    fn tolerates_unknown_fields_and_missing_version() {
        assert!(matches!(
            parse(r#"{"id":1,"result":{},"extra":true}"#),
            Message::Response(_)
        ));
    }
}

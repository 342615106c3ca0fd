//! One frame the client sent, as the scripted peer saw it: the exact bytes,
//! their JSON, and when (virtual time since the peer was created).

use std::time::Duration;

use serde_json::Value;

/// A frame the client sent through a [`ScriptedTransport`](crate::ScriptedTransport).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// When it was sent, on tokio's clock, since [`scripted`](crate::scripted) was called.
    pub at: Duration,
    /// The exact bytes the client sent.
    pub bytes: Vec<u8>,
    /// The bytes parsed as JSON (`Value::Null` when they are not JSON).
    pub json: Value,
}

impl Frame {
    /// Wraps the bytes sent at `at`.
    pub fn new(at: Duration, bytes: Vec<u8>) -> Frame {
        let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Frame { at, bytes, json }
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        self.json.get("method").and_then(Value::as_str)
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&Value> {
        self.json.get("id")
    }

    /// The params (`Value::Null` when absent).
    pub fn params(&self) -> &Value {
        self.json.get("params").unwrap_or(&Value::Null)
    }

    /// A request: it has a method and an id.
    pub fn is_request(&self) -> bool {
        self.method().is_some() && self.id().is_some()
    }

    /// A notification: a method and no id.
    pub fn is_notification(&self) -> bool {
        self.method().is_some() && self.id().is_none()
    }

    /// A response or error response: an id and no method.
    pub fn is_response(&self) -> bool {
        self.method().is_none() && self.id().is_some()
    }

    /// The frame as text (lossy for bytes that are not UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

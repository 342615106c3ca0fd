//! What the scripted peer sends the client, and when: a message, a broken
//! frame, a read error or the end of the connection, after a delay on
//! tokio's clock.

use std::time::Duration;

use serde_json::{Value, json};

use crate::Frame;

/// What arrives at the client.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Payload {
    /// A frame: parsed by the transport like any received frame.
    Bytes(Vec<u8>),
    /// A read error (`recv` yields `Some(Err(..))` with this message).
    Error(String),
    /// The connection ends: `recv` yields `None` from then on.
    Close,
}

/// One thing the peer sends the client, `after` a delay counted from when it
/// is scheduled (when the request that triggered it was sent, for a rule).
///
/// ```
/// use std::time::Duration;
/// use mcp_testkit::Delivery;
/// use serde_json::json;
///
/// let progress = Delivery::message(json!({
///     "jsonrpc": "2.0", "method": "notifications/progress",
///     "params": {"progressToken": 1, "progress": 1}
/// }))
/// .after(Duration::from_secs(2));
/// assert_eq!(progress.delay(), Duration::from_secs(2));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub(crate) after: Duration,
    pub(crate) payload: Payload,
}

impl Delivery {
    /// Any JSON-RPC message (a notification, a server request, a response).
    pub fn message(message: Value) -> Delivery {
        Delivery::bytes(message.to_string().into_bytes())
    }

    /// Exactly these bytes as one frame (for broken or odd frames).
    pub fn bytes(bytes: impl Into<Vec<u8>>) -> Delivery {
        Delivery {
            after: Duration::ZERO,
            payload: Payload::Bytes(bytes.into()),
        }
    }

    /// The result of the request `to`.
    pub fn result(to: &Frame, result: Value) -> Delivery {
        Delivery::message(json!({"jsonrpc": "2.0", "id": to.id(), "result": result}))
    }

    /// A JSON-RPC error answering the request `to`.
    pub fn error(to: &Frame, code: i64, message: &str) -> Delivery {
        let error = json!({"code": code, "message": message});
        Delivery::message(json!({"jsonrpc": "2.0", "id": to.id(), "error": error}))
    }

    /// A read error on the connection.
    pub fn io_error(message: &str) -> Delivery {
        Delivery {
            after: Duration::ZERO,
            payload: Payload::Error(message.to_owned()),
        }
    }

    /// The end of the connection (the server hung up).
    pub fn close() -> Delivery {
        Delivery {
            after: Duration::ZERO,
            payload: Payload::Close,
        }
    }

    /// The same delivery, `delay` later.
    #[must_use]
    pub fn after(mut self, delay: Duration) -> Delivery {
        self.after = delay;
        self
    }

    /// How long after scheduling it arrives.
    pub fn delay(&self) -> Duration {
        self.after
    }
}

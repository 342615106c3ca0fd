//! Envelope checks on received lines.
//!
//! A line the lenient reader rejects but whose envelope names a request
//! (both `result` and `error`, say) is reported as a [`BrokenEnvelope`], so
//! the request it answers can fail at once instead of at its deadline. With
//! checks on (a client's strict mode), so is a line the lenient reader
//! accepts despite a broken rule (a missing `jsonrpc`). Either way the
//! report names the id and the rules, never the payload.

use mcp_types::jsonrpc::EnvelopeViolation;
use mcp_types::{Message, RequestId};

/// A line that broke the JSON-RPC envelope rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BrokenEnvelope {
    /// The `id` it carried, when readable (the request a broken reply
    /// answers).
    pub id: Option<RequestId>,
    /// The rules it broke.
    pub violations: Vec<EnvelopeViolation>,
}

/// What one line holds.
pub(crate) enum Read {
    Message(Message),
    Broken(BrokenEnvelope),
    Invalid(serde_json::Error),
}

/// Reads one line: leniently (one parse; a second only for a rejected
/// line), or with every envelope rule checked (one parse).
pub(crate) fn read_line(line: &[u8], check: bool) -> Read {
    if !check {
        let err = match Message::from_slice(line) {
            Ok(message) => return Read::Message(message),
            Err(e) => e,
        };
        return match Message::from_slice_checked(line) {
            Ok(c) if c.id.is_some() => Read::Broken(BrokenEnvelope {
                id: c.id,
                violations: c.violations,
            }),
            _ => Read::Invalid(err),
        };
    }
    match Message::from_slice_checked(line) {
        Ok(c) => match c.message {
            Some(message) if c.is_complete() => Read::Message(message),
            _ => Read::Broken(BrokenEnvelope {
                id: c.id,
                violations: c.violations,
            }),
        },
        Err(e) => Read::Invalid(e),
    }
}

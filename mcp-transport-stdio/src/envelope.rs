//! A received line that broke the JSON-RPC envelope.
//!
//! Lines are read with [`mcp_types::jsonrpc::Message::read`]: a line the
//! lenient reader rejects but whose envelope names a request (both `result`
//! and `error`, say) is reported as a [`BrokenEnvelope`], so the request it
//! answers can fail at once instead of at its deadline. With checks on (a
//! client's strict mode), so is a line the lenient reader accepts despite a
//! broken rule (a missing `jsonrpc`). The report names the id and the
//! rules, never the payload.

use mcp_types::RequestId;
use mcp_types::jsonrpc::EnvelopeViolation;

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

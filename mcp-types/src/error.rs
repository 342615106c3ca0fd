//! The JSON-RPC error code space, open by design.
//!
//! [`ErrorCode`] wraps any `i32`; named constants cover JSON-RPC's own codes
//! and the ones MCP allocates. Which revision allocated a code is part of its
//! documentation: `-32000` to `-32019` are legacy codes that a 2026-07-28
//! client gives no meaning to, except `-32002` ("resource not found").

use std::fmt;

use serde::{Deserialize, Serialize};

/// A JSON-RPC error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// Invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// Resource not found (legacy servers; still accepted from older servers).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// 2026-07-28: HTTP headers do not match the body, or are missing or malformed.
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// 2026-07-28: the request needs a client capability the client did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// 2026-07-28: the request's protocol version is unknown to or unsupported by the server.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
    /// 2025-11-25 only: the request needs a URL-mode elicitation first.
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);

    /// The numeric value.
    pub fn get(self) -> i32 {
        self.0
    }

    /// Whether the code lies in the legacy sub-range `-32000..=-32019`, to
    /// which a 2026-07-28 client assigns no meaning (but `-32002`).
    pub fn is_legacy_server_range(self) -> bool {
        (-32019..=-32000).contains(&self.0)
    }

    /// The spec's name for a known code.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::PARSE_ERROR => "ParseError",
            ErrorCode::INVALID_REQUEST => "InvalidRequest",
            ErrorCode::METHOD_NOT_FOUND => "MethodNotFound",
            ErrorCode::INVALID_PARAMS => "InvalidParams",
            ErrorCode::INTERNAL_ERROR => "InternalError",
            ErrorCode::RESOURCE_NOT_FOUND => "ResourceNotFound",
            ErrorCode::HEADER_MISMATCH => "HeaderMismatch",
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => "MissingRequiredClientCapability",
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => "UnsupportedProtocolVersion",
            ErrorCode::URL_ELICITATION_REQUIRED => "UrlElicitationRequired",
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} {name}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

impl From<i32> for ErrorCode {
    fn from(code: i32) -> Self {
        ErrorCode(code)
    }
}

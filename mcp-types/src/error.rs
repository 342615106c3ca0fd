//! The JSON-RPC error code space, open by design.
//!
//! [`ErrorCode`] wraps any `i32`; named constants cover JSON-RPC's own codes
//! and the ones MCP allocates. Which revision allocated a code is part of its
//! documentation: `-32000` to `-32019` are legacy codes that a 2026-07-28
//! client gives no meaning to, except `-32002` ("resource not found").

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::capabilities::ClientCapabilities;
use crate::elicitation::UrlElicitationRequiredData;
use crate::jsonrpc::ErrorObject;
use crate::version::ProtocolVersion;

/// A JSON-RPC error code.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
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
    /// 2025-11-25: the user rejected a sampling request (example code used
    /// by the sampling page).
    pub const USER_REJECTED: ErrorCode = ErrorCode(-1);

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

/// `data` of `-32022` UnsupportedProtocolVersion (2026-07-28), also the
/// shape 2025-11-25 servers use with `-32602` on a version mismatch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct UnsupportedProtocolVersionData {
    /// Versions the server supports.
    pub supported: Vec<ProtocolVersion>,
    /// The version the client asked for.
    pub requested: ProtocolVersion,
}

impl UnsupportedProtocolVersionData {
    /// The data of an unsupported-version error.
    pub fn new(supported: Vec<ProtocolVersion>, requested: ProtocolVersion) -> Self {
        UnsupportedProtocolVersionData {
            supported,
            requested,
        }
    }
}

/// `data` of `-32021` MissingRequiredClientCapability (2026-07-28).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request needs.
    pub required_capabilities: ClientCapabilities,
}

impl MissingRequiredClientCapabilityData {
    /// The data naming `required`.
    pub fn new(required_capabilities: ClientCapabilities) -> Self {
        MissingRequiredClientCapabilityData {
            required_capabilities,
        }
    }
}

/// An error response classified by its code, with typed `data` where the
/// specs define one.
#[allow(
    clippy::large_enum_variant,
    reason = "wire data: boxing would only complicate matching"
)]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum KnownError {
    /// `-32022` (2026-07-28), with supported and requested versions.
    UnsupportedProtocolVersion(UnsupportedProtocolVersionData),
    /// `-32020` (2026-07-28): headers and body disagree. The spec defines no
    /// `data`; the message names the mismatch.
    HeaderMismatch {
        /// The server's description.
        message: String,
    },
    /// `-32021` (2026-07-28), with the capabilities the request needs.
    MissingRequiredClientCapability(MissingRequiredClientCapabilityData),
    /// `-32042` (2025-11-25 only), with the URL elicitations to complete.
    UrlElicitationRequired(UrlElicitationRequiredData),
    /// Any other error, or a known code whose `data` has another shape.
    Other(ErrorObject),
}

impl KnownError {
    /// Classifies an error object. A known code with malformed `data` is
    /// kept as [`KnownError::Other`], never a panic.
    ///
    /// ```
    /// use mcp_types::error::KnownError;
    /// use mcp_types::jsonrpc::ErrorObject;
    /// let e: ErrorObject = serde_json::from_str(
    ///     r#"{"code":-32022,"message":"nope","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}"#,
    /// ).unwrap();
    /// assert!(matches!(KnownError::classify(&e), KnownError::UnsupportedProtocolVersion(d) if d.supported.len() == 1));
    /// ```
    pub fn classify(error: &ErrorObject) -> KnownError {
        fn data<T: serde::de::DeserializeOwned>(e: &ErrorObject) -> Option<T> {
            e.data.as_ref().and_then(|d| T::deserialize(d).ok())
        }
        let typed = match error.code {
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
                data(error).map(KnownError::UnsupportedProtocolVersion)
            }
            ErrorCode::HEADER_MISMATCH => Some(KnownError::HeaderMismatch {
                message: error.message.clone(),
            }),
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => {
                data(error).map(KnownError::MissingRequiredClientCapability)
            }
            ErrorCode::URL_ELICITATION_REQUIRED => {
                data(error).map(KnownError::UrlElicitationRequired)
            }
            _ => None,
        };
        typed.unwrap_or_else(|| KnownError::Other(error.clone()))
    }
}

impl ErrorObject {
    /// Decodes `data` as `T`; `Ok(None)` when there is no data.
    ///
    /// # Errors
    /// When `data` does not have the shape of `T`.
    pub fn data_as<T: serde::de::DeserializeOwned>(&self) -> Result<Option<T>, serde_json::Error> {
        self.data.as_ref().map(T::deserialize).transpose()
    }
}

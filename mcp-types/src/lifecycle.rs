//! Connection setup, which differs by era.
//!
//! * 2025-11-25 (legacy): `initialize` ([`InitializeRequestParams`] →
//!   [`InitializeResult`]) then `notifications/initialized`.
//! * 2026-07-28 (modern): no handshake; optional `server/discover`
//!   ([`RequestParams`](crate::common::RequestParams) → [`DiscoverResult`]).

use serde::{Deserialize, Serialize};

use crate::capabilities::{ClientCapabilities, ServerCapabilities};
use crate::common::Implementation;
use crate::meta::Meta;
use crate::results::{CacheScope, ResultType, complete};
use crate::version::ProtocolVersion;

/// Params of `initialize` (2025-11-25).
///
/// ```
/// use mcp_types::capabilities::ClientCapabilities;
/// use mcp_types::common::Implementation;
/// use mcp_types::lifecycle::InitializeRequestParams;
/// use mcp_types::ProtocolVersion;
/// let p = InitializeRequestParams::new(
///     ProtocolVersion::V2025_11_25,
///     ClientCapabilities::new().with_roots_list_changed(),
///     Implementation::new("c", "1"),
/// );
/// assert_eq!(serde_json::to_value(&p).unwrap()["protocolVersion"], "2025-11-25");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The newest version the client supports.
    pub protocol_version: ProtocolVersion,
    /// The client's capabilities.
    pub capabilities: ClientCapabilities,
    /// The client's identity.
    pub client_info: Implementation,
}

impl InitializeRequestParams {
    /// Initialize params.
    pub fn new(
        protocol_version: ProtocolVersion,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        InitializeRequestParams {
            meta: Meta::new(),
            protocol_version,
            capabilities,
            client_info,
        }
    }
}

/// Result of `initialize` (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The version the server chose (may differ from the request).
    pub protocol_version: ProtocolVersion,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// The server's identity (display only).
    pub server_info: Implementation,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl InitializeResult {
    /// An initialize result.
    pub fn new(
        protocol_version: ProtocolVersion,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        InitializeResult {
            meta: Meta::new(),
            protocol_version,
            capabilities,
            server_info,
            instructions: None,
        }
    }
}

/// Result of `server/discover` (2026-07-28). The server's identity is in
/// `_meta["io.modelcontextprotocol/serverInfo"]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// `_meta` (with `io.modelcontextprotocol/serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Every version the server supports.
    pub supported_versions: Vec<ProtocolVersion>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Cache lifetime in milliseconds (required by the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (required by the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl DiscoverResult {
    /// A discover result, `resultType: "complete"`.
    pub fn new(supported_versions: Vec<ProtocolVersion>, capabilities: ServerCapabilities) -> Self {
        DiscoverResult {
            meta: Meta::new(),
            result_type: complete(),
            supported_versions,
            capabilities,
            instructions: None,
            ttl_ms: None,
            cache_scope: None,
        }
    }

    /// Sets the caching fields.
    #[must_use]
    pub fn with_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self.cache_scope = Some(scope);
        self
    }
}

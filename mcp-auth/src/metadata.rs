//! OAuth metadata and message types (serde): protected resource metadata (RFC 9728),
//! authorization server metadata (RFC 8414 / OpenID Connect Discovery), dynamic client
//! registration (RFC 7591), token responses (RFC 6749 §5.1, RFC 8693 §2.2) and error
//! responses (RFC 6749 §5.2).
//!
//! Every type keeps unknown members in `extra`, so nothing a server adds is lost.

use serde::{Deserialize, Deserializer, Serialize};

use crate::secret::Secret;

/// A JSON object of members this crate does not model.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// RFC 9728 protected resource metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the value to send as RFC 8707 `resource`.
    pub resource: String,
    /// Issuer identifiers of the authorization servers for this resource.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource uses (the fallback initial scope set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Ways the resource accepts bearer tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// DPoP algorithms the resource accepts (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Whether the resource always requires DPoP-bound tokens.
    #[serde(default)]
    pub dpop_bound_access_tokens_required: bool,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// Other members.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ProtectedResourceMetadata {
    /// Metadata for `resource` served by `authorization_servers`.
    pub fn new(resource: impl Into<String>, authorization_servers: Vec<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers,
            scopes_supported: None,
            bearer_methods_supported: None,
            dpop_signing_alg_values_supported: None,
            dpop_bound_access_tokens_required: false,
            resource_name: None,
            extra: Extra::new(),
        }
    }

    /// Sets `scopes_supported`.
    #[must_use]
    pub fn with_scopes_supported(mut self, scopes: Vec<String>) -> Self {
        self.scopes_supported = Some(scopes);
        self
    }
}

/// RFC 8414 authorization server metadata (also the OpenID provider configuration).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; must equal the one the metadata URL was built from.
    pub issuer: String,
    /// The authorization endpoint (absent for grant types without a user agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// The token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The RFC 7591 registration endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Scopes the server knows (used for `offline_access`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Supported `response_type` values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_types_supported: Option<Vec<String>>,
    /// Supported grant types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// Supported client authentication methods at the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Supported JWS algorithms for `private_key_jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// PKCE methods; absence means no PKCE and the client must refuse to proceed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// RFC 9207: the server puts `iss` in authorization responses.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// Client ID Metadata Documents are accepted as `client_id`.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// DPoP algorithms the server accepts (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Other members.
    #[serde(flatten)]
    pub extra: Extra,
}

impl AuthorizationServerMetadata {
    /// Metadata with only an issuer; add endpoints with the `with_*` builders.
    pub fn new(issuer: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            authorization_endpoint: None,
            token_endpoint: None,
            registration_endpoint: None,
            scopes_supported: None,
            response_types_supported: None,
            grant_types_supported: None,
            token_endpoint_auth_methods_supported: None,
            token_endpoint_auth_signing_alg_values_supported: None,
            code_challenge_methods_supported: None,
            authorization_response_iss_parameter_supported: false,
            client_id_metadata_document_supported: false,
            dpop_signing_alg_values_supported: None,
            extra: Extra::new(),
        }
    }

    /// Whether `method` is listed in `token_endpoint_auth_methods_supported`; an
    /// absent list means the RFC 8414 default, `client_secret_basic`.
    pub fn supports_auth_method(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(list) => list.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// Whether `scopes_supported` lists `scope`.
    pub fn advertises_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }
}

/// RFC 7591 client metadata, the body of a registration request (and the core of a
/// Client ID Metadata Document).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientMetadata {
    /// Redirect URIs (loopback or HTTPS).
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    /// How the client authenticates at the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// Grant types the client will use (only those it needs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grant_types: Vec<String>,
    /// Response types the client will use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response_types: Vec<String>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// The client's home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_uri: Option<String>,
    /// Space-separated scopes the client may request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// OpenID Connect `application_type`: `native` or `web`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application_type: Option<String>,
    /// Software identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_id: Option<String>,
    /// Software version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_version: Option<String>,
    /// Other members (`jwks_uri`, `logo_uri`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

impl ClientMetadata {
    /// Metadata with the given redirect URIs and nothing else.
    pub fn new(redirect_uris: Vec<String>) -> Self {
        Self {
            redirect_uris,
            token_endpoint_auth_method: None,
            grant_types: Vec::new(),
            response_types: Vec::new(),
            client_name: None,
            client_uri: None,
            scope: None,
            application_type: None,
            software_id: None,
            software_version: None,
            extra: Extra::new(),
        }
    }

    /// Sets `client_name`.
    #[must_use]
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }
}

/// RFC 7591 §3.2.1 registration response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientInformation {
    /// The issued client identifier.
    pub client_id: String,
    /// The issued secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// When the secret expires (seconds since the epoch; 0 = never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<u64>,
    /// The authentication method the server registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// Other members (the echoed metadata).
    #[serde(flatten)]
    pub extra: Extra,
}

/// A token endpoint success response (RFC 6749 §5.1, RFC 8693 §2.2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenResponse {
    /// The access token (for token exchange: the issued token, e.g. an ID-JAG).
    pub access_token: Secret,
    /// `Bearer`, `DPoP` or `N_A` (token exchange).
    pub token_type: String,
    /// Lifetime in seconds. Tolerates a numeric string.
    #[serde(
        default,
        deserialize_with = "lenient_u64",
        skip_serializing_if = "Option::is_none"
    )]
    pub expires_in: Option<u64>,
    /// A refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// The granted scope, when it differs from the requested one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// RFC 8693: the type of the issued token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_token_type: Option<String>,
    /// An OpenID Connect ID token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<Secret>,
    /// Other members.
    #[serde(flatten)]
    pub extra: Extra,
}

/// An OAuth error response (RFC 6749 §5.2, RFC 7591 §3.2.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OAuthErrorResponse {
    /// The error code (`invalid_grant`, `use_dpop_nonce`, ...).
    pub error: String,
    /// A human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
    /// A page about the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_uri: Option<String>,
}

fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Num {
        N(serde_json::Number),
        S(String),
    }
    Ok(match Option::<Num>::deserialize(d)? {
        None => None,
        Some(Num::N(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Some(Num::S(s)) => s.trim().parse().ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_response_parses_and_redacts() {
        let r: TokenResponse = serde_json::from_str(
            r#"{"access_token":"AT-1","token_type":"Bearer","expires_in":"3600","refresh_token":"RT-1","x":1}"#,
        )
        .unwrap();
        assert_eq!(r.expires_in, Some(3600));
        assert_eq!(r.extra["x"], 1);
        let dbg = format!("{r:?}");
        assert!(!dbg.contains("AT-1") && !dbg.contains("RT-1"), "{dbg}");
    }

    #[test]
    fn as_metadata_defaults() {
        let m: AuthorizationServerMetadata =
            serde_json::from_str(r#"{"issuer":"https://as"}"#).unwrap();
        assert!(!m.authorization_response_iss_parameter_supported);
        assert!(m.supports_auth_method("client_secret_basic"));
        assert!(!m.supports_auth_method("none"));
        let info: ClientInformation =
            serde_json::from_str(r#"{"client_id":"c","client_secret":"S3CR3T"}"#).unwrap();
        assert!(!format!("{info:?}").contains("S3CR3T"));
    }

    #[test]
    fn negative_expires_in_is_dropped() {
        let r: TokenResponse =
            serde_json::from_str(r#"{"access_token":"a","token_type":"Bearer","expires_in":-5}"#)
                .unwrap();
        assert_eq!(r.expires_in, None);
    }
}

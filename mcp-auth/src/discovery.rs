//! Discovery as pure functions: which URLs to try, in which order, and how to
//! validate what comes back.
//!
//! Protected resource metadata (RFC 9728): the challenge's `resource_metadata` URL
//! first, then `/.well-known/oauth-protected-resource{path}`, then the root variant.
//!
//! Authorization server metadata: both revisions (2025-11-25 "Authorization Server
//! Metadata Discovery" and 2026-07-28 `authorization-server-discovery.mdx`) give the
//! same order. With an issuer path (`https://a/t1`): RFC 8414 path insertion
//! (`/.well-known/oauth-authorization-server/t1`), OIDC path insertion
//! (`/.well-known/openid-configuration/t1`), OIDC path appending
//! (`/t1/.well-known/openid-configuration`). Without a path: RFC 8414, then OIDC.
//! The fetched document's `issuer` must be identical to the issuer the URL was built
//! from (RFC 8414 §3.3), and PKCE `S256` must be advertised.

use url::Url;

use crate::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use crate::security::{self, SecurityError, SecurityPolicy};

/// Well-known suffix of RFC 9728.
pub const PRM_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
/// Well-known suffix of RFC 8414.
pub const OAUTH_AS_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
/// Well-known suffix of OpenID Connect Discovery.
pub const OIDC_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// Why discovery metadata was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// A URL broke a security rule.
    #[error(transparent)]
    Security(#[from] SecurityError),
    /// The metadata's `issuer` is not the issuer the URL was built from.
    #[error("issuer mismatch: expected {expected}, metadata says {actual}")]
    IssuerMismatch {
        /// The issuer used to build the well-known URL.
        expected: String,
        /// The `issuer` in the document.
        actual: String,
    },
    /// The server does not advertise PKCE `S256`.
    #[error("authorization server does not support PKCE S256")]
    PkceNotSupported,
    /// The protected resource metadata names a different resource.
    #[error("protected resource metadata is for {resource}, not {server}")]
    ResourceMismatch {
        /// The metadata's `resource`.
        resource: String,
        /// The server URL in use.
        server: String,
    },
    /// The protected resource metadata lists no authorization server.
    #[error("protected resource metadata lists no authorization server")]
    NoAuthorizationServer,
    /// A required endpoint is missing from the metadata.
    #[error("authorization server metadata has no {0}")]
    MissingEndpoint(&'static str),
}

fn with_path(base: &Url, path: &str) -> Url {
    let mut u = base.clone();
    u.set_path(path);
    u.set_query(None);
    u.set_fragment(None);
    u
}

/// The protected resource metadata URLs to try for `server`, in order.
///
/// `header_url` is the challenge's `resource_metadata`, already checked with
/// [`security::check_resource_metadata_url`]. Duplicates are removed.
pub fn protected_resource_metadata_urls(server: &Url, header_url: Option<&Url>) -> Vec<Url> {
    let mut out: Vec<Url> = Vec::with_capacity(3);
    if let Some(h) = header_url {
        out.push(h.clone());
    }
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        out.push(with_path(server, &format!("{PRM_WELL_KNOWN}{path}")));
    }
    out.push(with_path(server, PRM_WELL_KNOWN));
    out.dedup_by(|a, b| a == b);
    let mut unique = Vec::with_capacity(out.len());
    for u in out {
        if !unique.contains(&u) {
            unique.push(u);
        }
    }
    unique
}

/// The authorization server metadata URLs to try for `issuer`, in the order both
/// revisions specify.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            with_path(issuer, OAUTH_AS_WELL_KNOWN),
            with_path(issuer, OIDC_WELL_KNOWN),
        ]
    } else {
        vec![
            with_path(issuer, &format!("{OAUTH_AS_WELL_KNOWN}{path}")),
            with_path(issuer, &format!("{OIDC_WELL_KNOWN}{path}")),
            with_path(issuer, &format!("{path}{OIDC_WELL_KNOWN}")),
        ]
    }
}

/// Validates protected resource metadata fetched for `server` and returns the
/// chosen authorization server issuer (the first listed, RFC 9728 §7.6).
pub fn validate_protected_resource_metadata(
    prm: &ProtectedResourceMetadata,
    server: &Url,
) -> Result<String, DiscoveryError> {
    if !security::resource_matches_server(&prm.resource, server) {
        return Err(DiscoveryError::ResourceMismatch {
            resource: prm.resource.clone(),
            server: server.to_string(),
        });
    }
    prm.authorization_servers
        .first()
        .cloned()
        .ok_or(DiscoveryError::NoAuthorizationServer)
}

/// Validates authorization server metadata fetched for `expected_issuer`: identical
/// issuer (no normalization) and HTTPS endpoints (loopback excepted by policy).
pub fn validate_authorization_server_metadata(
    meta: &AuthorizationServerMetadata,
    expected_issuer: &str,
    policy: &SecurityPolicy,
) -> Result<(), DiscoveryError> {
    if meta.issuer != expected_issuer {
        return Err(DiscoveryError::IssuerMismatch {
            expected: expected_issuer.to_owned(),
            actual: meta.issuer.clone(),
        });
    }
    for endpoint in [
        &meta.authorization_endpoint,
        &meta.token_endpoint,
        &meta.registration_endpoint,
    ]
    .into_iter()
    .flatten()
    {
        let url = security::parse_http_url(endpoint)?;
        security::check_as_endpoint(&url, policy)?;
    }
    Ok(())
}

/// Requires PKCE `S256` in `code_challenge_methods_supported`; absence of the field
/// means no PKCE, and the client must refuse to proceed.
pub fn require_pkce_s256(meta: &AuthorizationServerMetadata) -> Result<(), DiscoveryError> {
    match &meta.code_challenge_methods_supported {
        Some(m) if m.iter().any(|x| x == "S256") => Ok(()),
        _ => Err(DiscoveryError::PkceNotSupported),
    }
}

/// The 2025-03-26 fallback for servers without protected resource metadata: the MCP
/// server's origin acts as the authorization server, with default endpoints
/// `/authorize`, `/token` and `/register`. PKCE support is assumed, as that revision did.
pub fn legacy_default_metadata(server: &Url) -> AuthorizationServerMetadata {
    let origin = with_path(server, "");
    let issuer = origin.as_str().trim_end_matches('/').to_owned();
    let mut meta = AuthorizationServerMetadata::new(issuer);
    meta.authorization_endpoint = Some(with_path(server, "/authorize").to_string());
    meta.token_endpoint = Some(with_path(server, "/token").to_string());
    meta.registration_endpoint = Some(with_path(server, "/register").to_string());
    meta.code_challenge_methods_supported = Some(vec!["S256".to_owned()]);
    meta
}

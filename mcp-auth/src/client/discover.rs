//! Discovery over the HTTP client: protected resource metadata, then authorization
//! server metadata, each location tried in order and every target checked first.
//!
//! 2025-03-26 back-compatibility (on by default, see
//! [`OAuthClientBuilder::legacy_fallback`](crate::OAuthClientBuilder::legacy_fallback)):
//! only when no protected resource metadata is found at all, the MCP server's
//! origin (its path discarded) is the authorization server. Its metadata is
//! used when served, and must then pass the same checks as any other (identical
//! issuer, PKCE `S256`): a bad document is refused, never replaced. When it is
//! not served (any non-success status), the default endpoints `/authorize`,
//! `/token` and `/register` at the origin are used. A server that has protected
//! resource metadata never falls back. `tests/legacy_fallback.rs` holds one test
//! per decision.

use serde::de::DeserializeOwned;
use url::Url;

use super::OAuthClient;
use crate::discovery;
use crate::error::AuthError;
use crate::http::HttpRequest;
use crate::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use crate::security;

/// How many of the listed authorization servers are tried.
const MAX_AUTHORIZATION_SERVERS: usize = 4;

/// What discovery established for one MCP server.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Discovered {
    /// The resource to send as RFC 8707 `resource`.
    pub(crate) resource: String,
    /// The protected resource metadata, if the server had any.
    pub(crate) prm: Option<ProtectedResourceMetadata>,
    /// Validated authorization server metadata.
    pub(crate) as_meta: AuthorizationServerMetadata,
}

/// The outcome of one GET of a JSON document.
enum Fetched<T> {
    Found(T),
    /// Not there (404 and other non-success): try the next location.
    Absent,
}

impl OAuthClient {
    async fn get_json<T: DeserializeOwned>(
        &self,
        url: &Url,
        what: &'static str,
    ) -> Result<Fetched<T>, AuthError> {
        let resp = self.inner.http.send(HttpRequest::get(url.as_str())).await?;
        if !resp.is_success() {
            return Ok(Fetched::Absent);
        }
        serde_json::from_slice(&resp.body)
            .map(Fetched::Found)
            .map_err(|e| AuthError::InvalidDocument {
                what,
                detail: e.to_string(),
            })
    }

    /// Fetches and validates protected resource metadata. `header_url` is the
    /// challenge's `resource_metadata`.
    async fn fetch_prm(
        &self,
        header_url: Option<&str>,
    ) -> Result<Option<ProtectedResourceMetadata>, AuthError> {
        let server = &self.inner.server_url;
        let policy = &self.inner.policy;
        let header = header_url
            .map(|h| security::check_resource_metadata_url(server, h, policy))
            .transpose()?;
        for url in discovery::protected_resource_metadata_urls(server, header.as_ref()) {
            security::check_discovery_target(server, &url, policy)?;
            match self
                .get_json::<ProtectedResourceMetadata>(&url, "protected resource metadata")
                .await
            {
                Ok(Fetched::Found(prm)) => return Ok(Some(prm)),
                Ok(Fetched::Absent) => {}
                // A malformed document at one location does not stop the probe.
                Err(AuthError::InvalidDocument { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// Fetches authorization server metadata for `issuer`, in the specified order.
    async fn fetch_as_metadata(
        &self,
        issuer: &str,
    ) -> Result<Option<AuthorizationServerMetadata>, AuthError> {
        let server = &self.inner.server_url;
        let policy = &self.inner.policy;
        let issuer_url = security::parse_http_url(issuer)?;
        security::check_as_endpoint(&issuer_url, policy)?;
        security::check_discovery_target(server, &issuer_url, policy)?;
        for url in discovery::authorization_server_metadata_urls(&issuer_url) {
            match self
                .get_json::<AuthorizationServerMetadata>(&url, "authorization server metadata")
                .await?
            {
                Fetched::Found(meta) => {
                    discovery::validate_authorization_server_metadata(&meta, issuer, policy)?;
                    return Ok(Some(meta));
                }
                Fetched::Absent => {}
            }
        }
        Ok(None)
    }

    /// Runs discovery for the current challenge.
    pub(crate) async fn discover(&self, header_url: Option<&str>) -> Result<Discovered, AuthError> {
        let server = &self.inner.server_url;
        if let Some(prm) = self.fetch_prm(header_url).await? {
            let first = discovery::validate_protected_resource_metadata(&prm, server)?;
            // RFC 9728 §7.6: the client picks; take the first whose metadata is
            // found and valid, trying a bounded number in the listed order.
            let mut last_err = AuthError::NoAuthorizationServerMetadata(first);
            for issuer in prm
                .authorization_servers
                .iter()
                .take(MAX_AUTHORIZATION_SERVERS)
            {
                match self.fetch_as_metadata(issuer).await {
                    Ok(Some(as_meta)) => {
                        return Ok(Discovered {
                            resource: prm.resource.clone(),
                            prm: Some(prm),
                            as_meta,
                        });
                    }
                    Ok(None) => {
                        last_err = AuthError::NoAuthorizationServerMetadata(issuer.clone());
                    }
                    Err(AuthError::Http(e)) => return Err(AuthError::Http(e)),
                    Err(e) => last_err = e,
                }
            }
            return Err(last_err);
        }
        if !self.inner.legacy_fallback {
            return Err(AuthError::NoResourceMetadata(server.to_string()));
        }
        // 2025-03-26 compatibility: the MCP server's origin is the authorization
        // server; its metadata if present, else the default endpoints.
        let fallback = discovery::legacy_default_metadata(server);
        let as_meta = self
            .fetch_as_metadata(&fallback.issuer)
            .await?
            .unwrap_or(fallback);
        Ok(Discovered {
            resource: canonical_resource(server),
            prm: None,
            as_meta,
        })
    }
}

/// The canonical resource URI for a server URL: no fragment, no query, and no
/// trailing slash on a bare origin.
pub(crate) fn canonical_resource(server: &Url) -> String {
    let mut u = server.clone();
    u.set_fragment(None);
    u.set_query(None);
    let s = u.to_string();
    if u.path() == "/" {
        s.trim_end_matches('/').to_owned()
    } else {
        s
    }
}

//! Security rules as pure functions: where discovery may go, which endpoints are
//! acceptable, and how a token may leave the process.
//!
//! - Authorization server endpoints must be HTTPS, except on loopback (development).
//! - A remote HTTPS resource cannot send discovery to loopback or plain HTTP (SSRF and
//!   downgrade protection), nor to a private, link-local (cloud metadata), shared or
//!   unspecified IP address unless the resource itself lives on such an address.
//!   Host names are not resolved here: the rule covers IP literals, the form an
//!   attacker-controlled metadata document uses to reach internal services.
//! - A `resource_metadata` URL from a challenge must pass the same rule, and with
//!   [`SecurityPolicy::same_origin_resource_metadata`] must share the resource's origin.
//! - Redirect URIs are loopback or HTTPS.
//! - Tokens travel only in the `Authorization` header (see [`authorization_header`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

use crate::secret::Secret;

/// Knobs for the rules. The default is the strict profile with loopback allowed
/// for local development.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SecurityPolicy {
    /// Accept `http://` on loopback hosts (default `true`).
    pub allow_http_loopback: bool,
    /// Require a challenge's `resource_metadata` to share the resource's origin
    /// (default `false`: any URL that passes [`check_discovery_target`]).
    pub same_origin_resource_metadata: bool,
}

impl Default for SecurityPolicy {
    fn default() -> Self {
        Self {
            allow_http_loopback: true,
            same_origin_resource_metadata: false,
        }
    }
}

impl SecurityPolicy {
    /// Sets [`SecurityPolicy::same_origin_resource_metadata`].
    #[must_use]
    pub fn with_same_origin_resource_metadata(mut self, on: bool) -> Self {
        self.same_origin_resource_metadata = on;
        self
    }

    /// Sets [`SecurityPolicy::allow_http_loopback`].
    #[must_use]
    pub fn with_http_loopback(mut self, on: bool) -> Self {
        self.allow_http_loopback = on;
        self
    }
}

/// A URL refused by a security rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecurityError {
    /// The string is not an absolute URL.
    #[error("not an absolute URL: {0}")]
    InvalidUrl(String),
    /// An endpoint that must use HTTPS does not.
    #[error("endpoint must use https: {0}")]
    InsecureEndpoint(String),
    /// Discovery from a remote resource pointed at loopback or plain HTTP.
    #[error("discovery target {target} not allowed from resource {resource}")]
    DiscoveryTargetRefused {
        /// The resource the client talks to.
        resource: String,
        /// The refused URL.
        target: String,
    },
    /// `resource_metadata` pointed at another origin under a same-origin policy.
    #[error("resource_metadata {0} is not on the resource's origin")]
    CrossOriginMetadata(String),
    /// The URL carries credentials (`user:pass@`) or a fragment.
    #[error("URL must not carry userinfo or a fragment: {0}")]
    UnsafeUrlParts(String),
}

/// Whether the URL's host is loopback: `localhost`, `*.localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Whether the URL's host is an IP literal in a non-public range: private
/// (10/8, 172.16/12, 192.168/16), link-local (169.254/16, the cloud metadata
/// range, and `fe80::/10`), shared address space (100.64/10), unspecified
/// (`0.0.0.0`, `::`), unique-local IPv6 (`fc00::/7`), or an IPv4-mapped IPv6
/// address in any of those. Loopback is reported by [`is_loopback`] instead.
pub fn is_private_network(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => private_v4(ip),
        Some(Host::Ipv6(ip)) => private_v6(ip),
        Some(Host::Domain(_)) | None => false,
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || (a == 100 && (64..128).contains(&b))
        || a == 0
}

fn private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4) || v4.is_loopback();
    }
    let first = ip.segments()[0];
    ip.is_unspecified() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80
}

/// Parses an absolute `http`/`https` URL without userinfo or fragment.
pub fn parse_http_url(s: &str) -> Result<Url, SecurityError> {
    let url = Url::parse(s).map_err(|_| SecurityError::InvalidUrl(s.to_owned()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(SecurityError::InvalidUrl(s.to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(SecurityError::UnsafeUrlParts(s.to_owned()));
    }
    Ok(url)
}

/// An authorization server endpoint (metadata, authorization, token, registration)
/// must be HTTPS, or HTTP on loopback when the policy allows.
pub fn check_as_endpoint(url: &Url, policy: &SecurityPolicy) -> Result<(), SecurityError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if policy.allow_http_loopback && is_loopback(url) => Ok(()),
        _ => Err(SecurityError::InsecureEndpoint(url.to_string())),
    }
}

/// Whether the client may fetch `target` while discovering auth for `resource`.
///
/// A remote (non-loopback) resource may only lead to remote HTTPS targets: never to
/// loopback (SSRF into the user's machine) and never to plain HTTP (downgrade). A
/// public resource may not lead to a private or link-local IP literal either (see
/// [`is_private_network`]); a resource on a private address (an internal
/// deployment) may. A loopback resource (development) may lead to loopback or
/// HTTPS targets.
pub fn check_discovery_target(
    resource: &Url,
    target: &Url,
    policy: &SecurityPolicy,
) -> Result<(), SecurityError> {
    let refused = || SecurityError::DiscoveryTargetRefused {
        resource: resource.to_string(),
        target: target.to_string(),
    };
    let target_loopback = is_loopback(target);
    let ok = if is_loopback(resource) {
        target.scheme() == "https" || (target_loopback && policy.allow_http_loopback)
    } else {
        let private_ok = is_private_network(resource) || !is_private_network(target);
        target.scheme() == "https" && !target_loopback && private_ok
    };
    if ok { Ok(()) } else { Err(refused()) }
}

/// Validates a challenge's `resource_metadata` URL for `resource`.
pub fn check_resource_metadata_url(
    resource: &Url,
    metadata: &str,
    policy: &SecurityPolicy,
) -> Result<Url, SecurityError> {
    let url = parse_http_url(metadata)?;
    check_discovery_target(resource, &url, policy)?;
    if policy.same_origin_resource_metadata && url.origin() != resource.origin() {
        return Err(SecurityError::CrossOriginMetadata(metadata.to_owned()));
    }
    Ok(url)
}

/// Whether a redirect URI is acceptable: HTTPS, or HTTP on a loopback host.
pub fn check_redirect_uri(uri: &str) -> Result<Url, SecurityError> {
    let url = parse_http_url(uri)?;
    if url.scheme() == "https" || is_loopback(&url) {
        Ok(url)
    } else {
        Err(SecurityError::InsecureEndpoint(uri.to_owned()))
    }
}

/// Whether the protected resource metadata's `resource` identifies the server the
/// client is talking to (RFC 9728 §3.3): same origin (scheme and host compared
/// case-insensitively), and the metadata path a segment-wise prefix of the server's.
pub fn resource_matches_server(resource: &str, server: &Url) -> bool {
    let Ok(res) = Url::parse(resource) else {
        return false;
    };
    if res.origin() != server.origin() || res.fragment().is_some() {
        return false;
    }
    let rp = res.path().trim_end_matches('/');
    let sp = server.path().trim_end_matches('/');
    rp.is_empty() || sp == rp || sp.starts_with(&format!("{rp}/"))
}

/// The `Authorization` header value for a token: `Bearer <t>` or `DPoP <t>`. This is
/// the only place a token is rendered for the wire; it never goes into a URL.
pub fn authorization_header(token_type: TokenScheme, token: &Secret) -> Secret {
    Secret::new(format!("{} {}", token_type.as_str(), token.expose()))
}

/// The scheme an access token is presented with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TokenScheme {
    /// RFC 6750 bearer token.
    Bearer,
    /// RFC 9449 DPoP-bound token.
    #[serde(rename = "DPoP")]
    Dpop,
}

impl TokenScheme {
    /// The scheme name for the `Authorization` header.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bearer => "Bearer",
            Self::Dpop => "DPoP",
        }
    }

    /// The scheme of a token response's `token_type` (case-insensitive).
    pub fn from_token_type(token_type: &str) -> Option<Self> {
        if token_type.eq_ignore_ascii_case("bearer") {
            Some(Self::Bearer)
        } else if token_type.eq_ignore_ascii_case("dpop") {
            Some(Self::Dpop)
        } else {
            None
        }
    }
}

/// Whether `url` contains any of `secrets` (a last-line check before sending a URL
/// anywhere a human or a log could see it).
pub fn url_leaks_secret(url: &str, secrets: &[&Secret]) -> bool {
    secrets
        .iter()
        .any(|s| !s.is_empty() && url.contains(s.expose()))
}

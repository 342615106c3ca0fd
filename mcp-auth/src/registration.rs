//! Client registration in the spec's order of preference: pre-registered
//! credentials for the authorization server, then a Client ID Metadata Document
//! (when the server advertises `client_id_metadata_document_supported`), then
//! Dynamic Client Registration (when it has a `registration_endpoint`).
//!
//! Credentials are bound to the issuer that issued them. A CIMD client id is
//! portable and carries no binding.

use serde::{Deserialize, Serialize};
use url::Url;

use crate::metadata::{AuthorizationServerMetadata, ClientInformation, ClientMetadata};
use crate::secret::Secret;
use crate::security::{self, SecurityError};

/// Client credentials and the authorization server they belong to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCredentials {
    /// The client identifier.
    pub client_id: String,
    /// The secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// The token endpoint authentication method (`none`, `client_secret_basic`, ...).
    pub auth_method: String,
    /// The issuer the credentials belong to (`None`: portable CIMD id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

impl ClientCredentials {
    /// Credentials for `issuer`. The method defaults to `client_secret_basic` when a
    /// secret is given and to `none` otherwise.
    pub fn new(
        client_id: impl Into<String>,
        client_secret: Option<Secret>,
        issuer: Option<String>,
    ) -> Self {
        let auth_method = if client_secret.is_some() {
            "client_secret_basic"
        } else {
            "none"
        };
        Self {
            client_id: client_id.into(),
            client_secret,
            auth_method: auth_method.to_owned(),
            issuer,
        }
    }

    /// Sets the authentication method.
    #[must_use]
    pub fn with_auth_method(mut self, method: impl Into<String>) -> Self {
        self.auth_method = method.into();
        self
    }

    /// Whether these credentials may be used with `issuer`.
    pub fn usable_with(&self, issuer: &str) -> bool {
        self.issuer.as_deref().is_none_or(|i| i == issuer)
    }

    /// Credentials from a registration response for `issuer`.
    pub fn from_registration(info: ClientInformation, issuer: &str) -> Self {
        let method = info.token_endpoint_auth_method.clone().unwrap_or_else(|| {
            if info.client_secret.is_some() {
                "client_secret_basic".to_owned()
            } else {
                "none".to_owned()
            }
        });
        Self {
            client_id: info.client_id,
            client_secret: info.client_secret,
            auth_method: method,
            issuer: Some(issuer.to_owned()),
        }
    }
}

/// What the host offers for registration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegistrationConfig {
    /// Pre-registered credentials, each bound to its issuer.
    pub pre_registered: Vec<ClientCredentials>,
    /// The HTTPS URL of the client's metadata document, if it hosts one.
    pub client_metadata_url: Option<String>,
    /// Client name for dynamic registration.
    pub client_name: Option<String>,
    /// Redirect URIs for the authorization code flow.
    pub redirect_uris: Vec<String>,
    /// Whether dynamic registration may be used.
    pub allow_dynamic: bool,
}

impl RegistrationConfig {
    /// A configuration with redirect URIs and dynamic registration allowed.
    pub fn new(redirect_uris: Vec<String>) -> Self {
        Self {
            redirect_uris,
            allow_dynamic: true,
            ..Self::default()
        }
    }

    /// Adds pre-registered credentials.
    #[must_use]
    pub fn with_pre_registered(mut self, creds: ClientCredentials) -> Self {
        self.pre_registered.push(creds);
        self
    }

    /// Sets the Client ID Metadata Document URL.
    #[must_use]
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets the client name used in dynamic registration.
    #[must_use]
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// Enables or disables dynamic registration.
    #[must_use]
    pub fn with_dynamic(mut self, allow: bool) -> Self {
        self.allow_dynamic = allow;
        self
    }
}

/// The chosen registration route.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RegistrationPlan {
    /// Use these credentials (pre-registered or stored from an earlier registration).
    Use(ClientCredentials),
    /// Register dynamically at `endpoint` with `metadata`.
    Dynamic {
        /// The registration endpoint.
        endpoint: String,
        /// The request body.
        metadata: Box<ClientMetadata>,
    },
}

/// No registration route is available.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationError {
    /// Pre-registered credentials exist but for other issuers; the host must
    /// configure credentials for this one (the spec says surface an error).
    #[error("pre-registered credentials do not match authorization server {0}")]
    PreRegisteredMismatch(String),
    /// Nothing applies: no credentials, no CIMD support, no registration endpoint.
    #[error("no way to obtain a client id for authorization server {0}")]
    NoRoute(String),
    /// The CIMD URL is not an HTTPS URL with a path.
    #[error("client metadata document URL must be https with a path: {0}")]
    InvalidClientMetadataUrl(String),
    /// A URL broke a security rule.
    #[error(transparent)]
    Security(#[from] SecurityError),
}

/// Checks a Client ID Metadata Document URL: `https` and a non-root path.
pub fn validate_client_metadata_url(url: &str) -> Result<(), RegistrationError> {
    let bad = || RegistrationError::InvalidClientMetadataUrl(url.to_owned());
    let u = Url::parse(url).map_err(|_| bad())?;
    if u.scheme() != "https" || u.path() == "/" || u.path().is_empty() || u.fragment().is_some() {
        return Err(bad());
    }
    Ok(())
}

/// Chooses the registration route for `as_meta`. `stored` are credentials saved
/// from an earlier dynamic registration (matched by issuer).
pub fn plan(
    config: &RegistrationConfig,
    as_meta: &AuthorizationServerMetadata,
    stored: Option<ClientCredentials>,
    grant_types: &[&str],
) -> Result<RegistrationPlan, RegistrationError> {
    let issuer = &as_meta.issuer;
    if let Some(c) = config
        .pre_registered
        .iter()
        .find(|c| c.issuer.as_deref() == Some(issuer.as_str()))
    {
        return Ok(RegistrationPlan::Use(c.clone()));
    }
    if let Some(c) = config.pre_registered.iter().find(|c| c.issuer.is_none()) {
        return Ok(RegistrationPlan::Use(c.clone()));
    }
    if let Some(c) = stored.filter(|c| c.issuer.as_deref() == Some(issuer.as_str())) {
        return Ok(RegistrationPlan::Use(c));
    }
    if let Some(url) = &config.client_metadata_url
        && as_meta.client_id_metadata_document_supported
    {
        validate_client_metadata_url(url)?;
        return Ok(RegistrationPlan::Use(ClientCredentials::new(
            url.clone(),
            None,
            None,
        )));
    }
    if let (true, Some(endpoint)) = (config.allow_dynamic, &as_meta.registration_endpoint) {
        let metadata = dynamic_registration_request(config, as_meta, grant_types)?;
        return Ok(RegistrationPlan::Dynamic {
            endpoint: endpoint.clone(),
            metadata: Box::new(metadata),
        });
    }
    if !config.pre_registered.is_empty() {
        return Err(RegistrationError::PreRegisteredMismatch(issuer.clone()));
    }
    Err(RegistrationError::NoRoute(issuer.clone()))
}

/// The RFC 7591 request: only the grant types needed, `application_type` from the
/// redirect URIs (`native` for loopback, `web` otherwise), and an authentication
/// method the server supports (`none` preferred for a public client).
pub fn dynamic_registration_request(
    config: &RegistrationConfig,
    as_meta: &AuthorizationServerMetadata,
    grant_types: &[&str],
) -> Result<ClientMetadata, RegistrationError> {
    let mut native = true;
    for uri in &config.redirect_uris {
        let u = security::check_redirect_uri(uri)?;
        native &= security::is_loopback(&u);
    }
    let mut m = ClientMetadata::new(config.redirect_uris.clone());
    m.client_name = config.client_name.clone();
    m.grant_types = grant_types.iter().map(|g| (*g).to_owned()).collect();
    if grant_types.contains(&"authorization_code") {
        m.response_types = vec!["code".to_owned()];
    }
    m.application_type = Some(if native { "native" } else { "web" }.to_owned());
    let method = match &as_meta.token_endpoint_auth_methods_supported {
        None => "none",
        Some(list) => ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| list.iter().any(|x| x == m))
            .unwrap_or("none"),
    };
    m.token_endpoint_auth_method = Some(method.to_owned());
    Ok(m)
}

/// The token endpoint authentication method to use: the credentials' own method
/// when the server supports it (or lists nothing), else the first the server lists
/// among those the credentials allow (`client_secret_basic`, `client_secret_post`
/// with a secret; `private_key_jwt` with a key; `none` for a public client).
pub fn choose_auth_method(
    creds: &ClientCredentials,
    as_meta: &AuthorizationServerMetadata,
    has_signing_key: bool,
) -> String {
    let Some(list) = &as_meta.token_endpoint_auth_methods_supported else {
        return creds.auth_method.clone();
    };
    if list.contains(&creds.auth_method) {
        return creds.auth_method.clone();
    }
    let secret = creds.client_secret.is_some();
    let candidates = [
        ("client_secret_basic", secret),
        ("client_secret_post", secret),
        ("private_key_jwt", has_signing_key),
        ("none", !secret),
    ];
    candidates
        .iter()
        .find(|(m, ok)| *ok && list.iter().any(|x| x == m))
        .map_or_else(|| creds.auth_method.clone(), |(m, _)| (*m).to_owned())
}

/// The Client ID Metadata Document to host at `client_id_url`: `client_id` equal to
/// the URL, `client_name`, `redirect_uris`, the authorization code and refresh grant
/// types, and `token_endpoint_auth_method` `none` (a public client).
pub fn client_id_metadata_document(
    client_id_url: &str,
    client_name: &str,
    redirect_uris: Vec<String>,
) -> Result<serde_json::Value, RegistrationError> {
    validate_client_metadata_url(client_id_url)?;
    let mut m = ClientMetadata::new(redirect_uris).with_client_name(client_name);
    m.grant_types = vec!["authorization_code".to_owned(), "refresh_token".to_owned()];
    m.response_types = vec!["code".to_owned()];
    m.token_endpoint_auth_method = Some("none".to_owned());
    let mut v = serde_json::to_value(&m)
        .map_err(|_| RegistrationError::InvalidClientMetadataUrl(client_id_url.to_owned()))?;
    v["client_id"] = serde_json::Value::String(client_id_url.to_owned());
    Ok(v)
}

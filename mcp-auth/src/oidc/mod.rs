//! OpenID Connect sign-in at an enterprise identity provider, the source of the ID
//! token that [`Flow::EnterpriseManaged`] exchanges for an ID-JAG.
//!
//! [`IdentityProvider`] discovers the provider (`/.well-known/openid-configuration`,
//! issuer identical, HTTPS endpoints, PKCE `S256`), runs the authorization code flow
//! with PKCE, `state`, `nonce` and scopes `openid offline_access` through the host's
//! [`AuthorizationHandler`], and keeps the result as an [`IdpSession`]: the ID token
//! with its refresh token, serializable for the host's store. The ID token is checked
//! as [`id_token`] describes. [`IdpAssertion`] hands a current ID token to the
//! enterprise flow, refreshing it (single-flight) when it has expired.
//!
//! ```
//! use std::sync::Arc;
//! use mcp_auth::oidc::IdentityProvider;
//! # fn demo(http: Arc<dyn mcp_auth::http::HttpClient>) -> Result<(), mcp_auth::AuthError> {
//! let idp = IdentityProvider::new("https://login.example.com", "mcp-cli", None, http)?;
//! assert_eq!(idp.issuer(), "https://login.example.com");
//! # Ok(()) }
//! ```

pub mod id_token;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::authorize::{self, AuthorizationParams};
use crate::client::Flow;
use crate::discovery::{self, DiscoveryError};
use crate::error::AuthError;
use crate::handler::{AssertionProvider, AuthorizationHandler, Clock, SystemClock};
use crate::http::{BoxFuture, HttpClient, HttpRequest};
use crate::metadata::{AuthorizationServerMetadata, TokenResponse};
use crate::random::{RandomSource, SystemRandomSource, random_b64url};
use crate::registration::{ClientCredentials, choose_auth_method};
use crate::secret::Secret;
use crate::security::{self, SecurityPolicy};
use crate::token::unix_secs;
use crate::token_request::{ClientAuth, Grant, ID_TOKEN_TYPE, TokenRequest, parse_token_response};

pub use id_token::IdTokenError;
use id_token::{Expected, validate};

/// The scopes of the sign-in: an ID token, and a refresh token to renew it.
pub const DEFAULT_SCOPE: &str = "openid offline_access";
/// An ID token this close to `exp` is refreshed before use.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// A signed-in session at the identity provider. `Debug` shows no token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IdpSession {
    /// The provider's issuer.
    pub issuer: String,
    /// The client id at the provider.
    pub client_id: String,
    /// The provider's token endpoint (ID-JAG exchange and refresh).
    pub token_endpoint: String,
    /// The provider's RP-initiated logout endpoint, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_session_endpoint: Option<String>,
    /// The current ID token.
    pub id_token: Secret,
    /// The refresh token, when the provider issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// The ID token's `exp`.
    pub expires_at: u64,
    /// How this client authenticates at the token endpoint, as chosen from the
    /// provider's metadata at sign-in (`None`: the credentials' default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_auth_method: Option<String>,
    /// The ID token's `sub`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// `email` or `preferred_username`, for status displays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

impl IdpSession {
    /// Whether the ID token expires within `margin` of `now_unix`.
    pub fn needs_refresh(&self, now_unix: u64, margin: Duration) -> bool {
        self.expires_at <= now_unix.saturating_add(margin.as_secs())
    }

    /// The RP-initiated logout URL (OpenID Connect RP-Initiated Logout 1.0) naming
    /// the client, never the ID token, so no token reaches a URL or a browser
    /// history. `None` when the provider has no `end_session_endpoint`.
    pub fn logout_url(&self) -> Option<Url> {
        let mut url = Url::parse(self.end_session_endpoint.as_deref()?).ok()?;
        url.query_pairs_mut()
            .append_pair("client_id", &self.client_id);
        Some(url)
    }
}

/// An OpenID Connect provider this client signs in at.
pub struct IdentityProvider {
    issuer: String,
    credentials: ClientCredentials,
    http: Arc<dyn HttpClient>,
    policy: SecurityPolicy,
    rng: Arc<dyn RandomSource>,
    clock: Arc<dyn Clock>,
    scope: String,
}

impl std::fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("issuer", &self.issuer)
            .field("client_id", &self.credentials.client_id)
            .finish_non_exhaustive()
    }
}

impl IdentityProvider {
    /// The provider at `issuer` (HTTPS, or loopback HTTP with
    /// [`Self::with_policy`]), for `client_id` (confidential when a secret is given).
    pub fn new(
        issuer: &str,
        client_id: impl Into<String>,
        client_secret: Option<Secret>,
        http: Arc<dyn HttpClient>,
    ) -> Result<Self, AuthError> {
        security::parse_http_url(issuer)?;
        Ok(Self {
            issuer: issuer.to_owned(),
            credentials: ClientCredentials::new(client_id, client_secret, Some(issuer.to_owned())),
            http,
            policy: SecurityPolicy::default(),
            rng: Arc::new(SystemRandomSource::new()),
            clock: Arc::new(SystemClock),
            scope: DEFAULT_SCOPE.to_owned(),
        })
    }

    /// Replaces the security policy (e.g. to allow loopback HTTP in development).
    #[must_use]
    pub fn with_policy(mut self, policy: SecurityPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Replaces the random source (tests).
    #[must_use]
    pub fn with_random(mut self, rng: Arc<dyn RandomSource>) -> Self {
        self.rng = rng;
        self
    }

    /// Replaces the clock (tests).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The issuer.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The client's credentials at the provider.
    pub fn credentials(&self) -> &ClientCredentials {
        &self.credentials
    }

    fn now_unix(&self) -> u64 {
        unix_secs(self.clock.now())
    }

    /// Fetches and checks `{issuer}/.well-known/openid-configuration`.
    pub async fn discover(&self) -> Result<AuthorizationServerMetadata, AuthError> {
        let url = format!(
            "{}/.well-known/openid-configuration",
            self.issuer.trim_end_matches('/')
        );
        security::check_as_endpoint(&security::parse_http_url(&url)?, &self.policy)?;
        let resp = self.http.send(HttpRequest::get(&url)).await?;
        if !resp.is_success() {
            return Err(AuthError::UnexpectedResponse {
                what: "OpenID provider configuration",
                status: resp.status,
            });
        }
        let meta: AuthorizationServerMetadata =
            serde_json::from_slice(&resp.body).map_err(|e| AuthError::InvalidDocument {
                what: "OpenID provider configuration",
                detail: e.to_string(),
            })?;
        discovery::validate_authorization_server_metadata(&meta, &self.issuer, &self.policy)?;
        discovery::require_pkce_s256(&meta)?;
        if let Some(end) = end_session_endpoint(&meta) {
            security::check_as_endpoint(&security::parse_http_url(end)?, &self.policy)?;
        }
        Ok(meta)
    }

    /// Signs the user in: the handler opens the authorization URL and returns the
    /// redirect to `redirect_uri`; the code is redeemed and the ID token checked.
    pub async fn sign_in(
        &self,
        handler: &dyn AuthorizationHandler,
        redirect_uri: &str,
    ) -> Result<IdpSession, AuthError> {
        security::check_redirect_uri(redirect_uri)?;
        let meta = self.discover().await?;
        let endpoint = required(
            meta.authorization_endpoint.as_deref(),
            "authorization_endpoint",
        )?;
        let params = AuthorizationParams::new(
            security::parse_http_url(endpoint)?,
            self.credentials.client_id.clone(),
            redirect_uri,
            meta.issuer.clone(),
        )
        .with_scope(Some(self.scope.clone()))
        .with_iss_parameter_supported(meta.authorization_response_iss_parameter_supported);
        let mut pending = authorize::begin(params, &*self.rng).map_err(|_| AuthError::Random)?;
        let nonce = Secret::new(random_b64url(&*self.rng, 32).map_err(|_| AuthError::Random)?);
        pending
            .url
            .query_pairs_mut()
            .append_pair("nonce", nonce.expose());
        let redirect = handler
            .authorize(pending.url.as_str())
            .await
            .map_err(AuthError::Handler)?;
        let code = pending.complete(&redirect)?;
        let request = TokenRequest::new(Grant::AuthorizationCode {
            code,
            redirect_uri: pending.redirect_uri.clone(),
            code_verifier: pending.pkce.verifier.clone(),
        });
        let token_endpoint = required(meta.token_endpoint.as_deref(), "token_endpoint")?;
        let resp = self.token_call(token_endpoint, &meta, &request).await?;
        let base = IdpSession {
            issuer: meta.issuer.clone(),
            client_id: self.credentials.client_id.clone(),
            token_endpoint: token_endpoint.to_owned(),
            end_session_endpoint: end_session_endpoint(&meta).map(str::to_owned),
            id_token: Secret::new(""),
            refresh_token: None,
            expires_at: 0,
            client_auth_method: Some(self.auth_method(&meta)),
            subject: None,
            display_name: None,
        };
        self.session_from(base, resp, Some(&nonce))
    }

    /// Renews the session with its refresh token. The provider must return a new ID
    /// token (OpenID Connect Core §12.2); its `iss`, `aud` and `exp` are checked.
    pub async fn refresh(&self, session: &IdpSession) -> Result<IdpSession, AuthError> {
        let refresh_token =
            session
                .refresh_token
                .clone()
                .ok_or(AuthError::MissingConfiguration(
                    "identity provider refresh token (sign in again)",
                ))?;
        let meta = self.discover().await?;
        let endpoint = required(meta.token_endpoint.as_deref(), "token_endpoint")?;
        let request = TokenRequest::new(Grant::RefreshToken { refresh_token });
        let resp = self.token_call(endpoint, &meta, &request).await?;
        self.session_from(session.clone(), resp, None)
    }

    /// The session with its ID token checked and stored from `resp`.
    fn session_from(
        &self,
        mut session: IdpSession,
        resp: TokenResponse,
        nonce: Option<&Secret>,
    ) -> Result<IdpSession, AuthError> {
        let id_token = resp.id_token.ok_or(IdTokenError::Missing)?;
        let claims = validate(
            &id_token,
            Expected {
                issuer: &self.issuer,
                client_id: &self.credentials.client_id,
                nonce,
                now_unix: self.now_unix(),
            },
        )?;
        session.id_token = id_token;
        if resp.refresh_token.is_some() {
            session.refresh_token = resp.refresh_token;
        }
        session.expires_at = claims.expires_at;
        session.subject = claims.subject;
        session.display_name = claims.display_name;
        Ok(session)
    }

    async fn token_call(
        &self,
        endpoint: &str,
        meta: &AuthorizationServerMetadata,
        request: &TokenRequest,
    ) -> Result<TokenResponse, AuthError> {
        security::check_as_endpoint(&security::parse_http_url(endpoint)?, &self.policy)?;
        let auth = self.client_auth(meta)?;
        let http = request.to_http(endpoint, &auth, self.now_unix(), &*self.rng)?;
        let resp = self.http.send(http).await?;
        parse_token_response(&resp)
    }

    /// `none` for a public client, else the secret method the metadata allows.
    fn auth_method(&self, meta: &AuthorizationServerMetadata) -> String {
        match self.credentials.client_secret {
            None => "none".to_owned(),
            Some(_) => choose_auth_method(&self.credentials, meta, false),
        }
    }

    fn client_auth(&self, meta: &AuthorizationServerMetadata) -> Result<ClientAuth, AuthError> {
        let client_id = self.credentials.client_id.clone();
        let Some(client_secret) = self.credentials.client_secret.clone() else {
            return Ok(ClientAuth::None { client_id });
        };
        Ok(match self.auth_method(meta).as_str() {
            "client_secret_post" => ClientAuth::SecretPost {
                client_id,
                client_secret,
            },
            _ => ClientAuth::SecretBasic {
                client_id,
                client_secret,
            },
        })
    }

    /// The [`Flow::EnterpriseManaged`] that exchanges this session's ID token (kept
    /// fresh by an [`IdpAssertion`]) for an ID-JAG, then redeems it at the MCP
    /// authorization server with `mcp_credentials`.
    pub fn enterprise_flow(
        self: &Arc<Self>,
        assertion: Arc<IdpAssertion>,
        mcp_credentials: ClientCredentials,
    ) -> Flow {
        let mut idp_credentials = self.credentials.clone();
        if let Some(method) = &assertion.client_auth_method {
            idp_credentials = idp_credentials.with_auth_method(method.clone());
        }
        Flow::EnterpriseManaged {
            idp_token_endpoint: assertion.token_endpoint.clone(),
            idp_credentials,
            id_token: assertion,
            subject_token_type: ID_TOKEN_TYPE.to_owned(),
            credentials: mcp_credentials,
        }
    }
}

fn required<'a>(value: Option<&'a str>, name: &'static str) -> Result<&'a str, AuthError> {
    value.ok_or(AuthError::Discovery(DiscoveryError::MissingEndpoint(name)))
}

fn end_session_endpoint(meta: &AuthorizationServerMetadata) -> Option<&str> {
    meta.extra
        .get("end_session_endpoint")
        .and_then(serde_json::Value::as_str)
}

/// Called with the renewed session after each refresh, so the host can store it.
pub type OnRefresh = Box<dyn Fn(&IdpSession) + Send + Sync>;

/// Supplies a current ID token from an [`IdpSession`], refreshing it first when it
/// is within [`REFRESH_MARGIN`] of expiry. Concurrent callers share one refresh.
pub struct IdpAssertion {
    provider: Arc<IdentityProvider>,
    token_endpoint: String,
    client_auth_method: Option<String>,
    session: futures::lock::Mutex<IdpSession>,
    on_refresh: Option<OnRefresh>,
}

impl std::fmt::Debug for IdpAssertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdpAssertion")
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}

impl IdpAssertion {
    /// An assertion source over `session`, refreshed through `provider`. Refuses a
    /// session signed in at another issuer or for another client.
    pub fn new(
        provider: Arc<IdentityProvider>,
        session: IdpSession,
        on_refresh: Option<OnRefresh>,
    ) -> Result<Self, AuthError> {
        if session.issuer != provider.issuer || session.client_id != provider.credentials.client_id
        {
            return Err(AuthError::MissingConfiguration(
                "a signed-in session for this identity provider and client (sign in again)",
            ));
        }
        Ok(Self {
            provider,
            token_endpoint: session.token_endpoint.clone(),
            client_auth_method: session.client_auth_method.clone(),
            session: futures::lock::Mutex::new(session),
            on_refresh,
        })
    }

    /// The current session (after any refresh).
    pub async fn session(&self) -> IdpSession {
        self.session.lock().await.clone()
    }

    /// A current ID token, refreshed first when needed.
    pub async fn id_token(&self) -> Result<Secret, AuthError> {
        let mut session = self.session.lock().await;
        if session.needs_refresh(self.provider.now_unix(), REFRESH_MARGIN) {
            let renewed = self.provider.refresh(&session).await?;
            if let Some(hook) = &self.on_refresh {
                hook(&renewed);
            }
            *session = renewed;
        }
        Ok(session.id_token.clone())
    }
}

impl AssertionProvider for IdpAssertion {
    fn assertion(&self) -> BoxFuture<'_, Result<Secret, String>> {
        Box::pin(async move { self.id_token().await.map_err(|e| e.to_string()) })
    }
}

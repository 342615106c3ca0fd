//! OAuth 2.1 for Streamable HTTP, on [`mcp_auth`].
//!
//! Connecting to an OAuth-protected MCP server takes configuration plus an
//! [`AuthorizationHandler`] (the host shows the authorization URL and returns
//! the redirect):
//!
//! * [`OAuthConfig`] says how tokens are obtained (a [`Flow`]: authorization
//!   code with PKCE, client credentials, JWT bearer, enterprise-managed) and
//!   with what (token store, DPoP, signing key, security policy).
//! * [`HttpConfig::with_oauth`] installs an [`OAuthProvider`] as the
//!   transport's [`AuthProvider`](crate::auth::AuthProvider); or build one
//!   with [`OAuthProvider::new`] and keep a clone to inspect or pre-authorize.
//! * All OAuth traffic (discovery, registration, token requests) goes through
//!   [`OAuthHttpClient`], built from the same [`HttpConfig`] as MCP traffic:
//!   same TLS roots and CAs, proxy and connect timeout; no redirects
//!   followed; bounded bodies; a timeout per exchange.
//!
//! The first request goes out without credentials; its `401` starts
//! discovery (protected resource metadata, authorization server metadata),
//! registration (pre-registered, Client ID Metadata Document, dynamic), the
//! grant, and the request is sent again. Expired tokens are refreshed before
//! use, once for all concurrent requests; a `403 insufficient_scope` steps up
//! to the union of scopes within a bounded budget.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcp_auth::handler::AuthorizationHandler;
//! use mcp_auth::registration::RegistrationConfig;
//! use mcp_auth::store::FileStore;
//! use mcp_transport_http::oauth::OAuthConfig;
//! use mcp_transport_http::{HttpConfig, HttpTransport};
//!
//! fn connect(
//!     handler: Arc<dyn AuthorizationHandler>,
//! ) -> Result<HttpTransport, Box<dyn std::error::Error>> {
//!     let registration =
//!         RegistrationConfig::new(vec!["http://127.0.0.1:8976/callback".into()])
//!             .with_client_name("my-mcp-host");
//!     let oauth = OAuthConfig::authorization_code(handler, registration)
//!         .with_store(Arc::new(FileStore::new("/home/me/.config/my-host/oauth.json")));
//!     let config = HttpConfig::new("https://mcp.example.com/mcp")?.with_oauth(oauth)?;
//!     Ok(HttpTransport::new(config)?)
//! }
//! ```

mod http_client;
mod provider;

use std::sync::Arc;
use std::time::Duration;

use mcp_auth::dpop::DpopProver;
use mcp_auth::handler::{AuthorizationHandler, Clock, HeadlessRedirectHandler};
use mcp_auth::http::HttpClient;
use mcp_auth::jwt::SigningKey;
use mcp_auth::random::RandomSource;
use mcp_auth::registration::{ClientCredentials, RegistrationConfig};
use mcp_auth::security::SecurityPolicy;
use mcp_auth::store::TokenStore;
use mcp_auth::{Flow, OAuthClient, Url};

pub use http_client::{DEFAULT_OAUTH_TIMEOUT, OAuthHttpClient};
pub use provider::OAuthProvider;

use crate::config::HttpConfig;
use crate::error::ConfigError;

/// The flow, or the headless flow whose handler needs the HTTP client.
#[derive(Clone, Debug)]
enum FlowSpec {
    Ready(Flow),
    Headless(RegistrationConfig),
}

/// How the transport obtains OAuth tokens. Every setting but the flow has a
/// default: an in-memory token store, the strict [`SecurityPolicy`] (HTTP
/// only on loopback), bearer tokens, `offline_access` when advertised, three
/// attempts, [`DEFAULT_OAUTH_TIMEOUT`] per exchange.
#[derive(Clone)]
#[must_use]
pub struct OAuthConfig {
    flow: FlowSpec,
    store: Option<Arc<dyn TokenStore>>,
    policy: Option<SecurityPolicy>,
    dpop: Option<Arc<DpopProver>>,
    signing_key: Option<SigningKey>,
    offline_access: Option<bool>,
    legacy_fallback: Option<bool>,
    max_attempts: Option<u32>,
    clock: Option<Arc<dyn Clock>>,
    random: Option<Arc<dyn RandomSource>>,
    timeout: Duration,
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("flow", &self.flow)
            .field("dpop", &self.dpop.is_some())
            .field("signing_key", &self.signing_key.is_some())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl OAuthConfig {
    /// Tokens from this flow.
    pub fn new(flow: Flow) -> Self {
        Self::from_spec(FlowSpec::Ready(flow))
    }

    fn from_spec(flow: FlowSpec) -> Self {
        OAuthConfig {
            flow,
            store: None,
            policy: None,
            dpop: None,
            signing_key: None,
            offline_access: None,
            legacy_fallback: None,
            max_attempts: None,
            clock: None,
            random: None,
            timeout: DEFAULT_OAUTH_TIMEOUT,
        }
    }

    /// The authorization code flow with PKCE: `handler` shows the user the
    /// authorization URL and returns the redirect; `registration` lists the
    /// redirect URIs and the registration routes allowed.
    pub fn authorization_code(
        handler: Arc<dyn AuthorizationHandler>,
        registration: RegistrationConfig,
    ) -> Self {
        Self::new(Flow::AuthorizationCode {
            handler,
            registration,
        })
    }

    /// The authorization code flow approved without a user, by a
    /// [`HeadlessRedirectHandler`] that GETs the authorization URL through the
    /// transport's HTTP stack and takes the redirect's `Location`. For tests
    /// and conformance runs only: a real user must see and approve.
    pub fn headless_authorization_code(registration: RegistrationConfig) -> Self {
        Self::from_spec(FlowSpec::Headless(registration))
    }

    /// The client credentials grant (extension `oauth-client-credentials`)
    /// with pre-registered credentials; for `private_key_jwt` add
    /// [`OAuthConfig::with_signing_key`].
    pub fn client_credentials(credentials: ClientCredentials) -> Self {
        Self::new(Flow::ClientCredentials { credentials })
    }

    /// Stores tokens and registrations here (default: in memory).
    pub fn with_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// The URL security rules.
    pub fn with_policy(mut self, policy: SecurityPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Uses DPoP-bound tokens, with a proof on every request (RFC 9449).
    pub fn with_dpop(mut self, prover: Arc<DpopProver>) -> Self {
        self.dpop = Some(prover);
        self
    }

    /// The key for `private_key_jwt` client authentication.
    pub fn with_signing_key(mut self, key: SigningKey) -> Self {
        self.signing_key = Some(key);
        self
    }

    /// Whether to ask for `offline_access` when advertised (default `true`).
    pub fn with_offline_access(mut self, on: bool) -> Self {
        self.offline_access = Some(on);
        self
    }

    /// Whether a server without protected resource metadata gets 2025-03-26
    /// style discovery on its own origin (default `true`).
    pub fn with_legacy_fallback(mut self, on: bool) -> Self {
        self.legacy_fallback = Some(on);
        self
    }

    /// The budget of consecutive refusals and of step-ups per operation
    /// (default 3).
    pub fn with_max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = Some(n);
        self
    }

    /// The time source (tests).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The random source for `state`, PKCE and proofs (tests).
    pub fn with_random(mut self, random: Arc<dyn RandomSource>) -> Self {
        self.random = Some(random);
        self
    }

    /// Bounds each OAuth exchange (default [`DEFAULT_OAUTH_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The OAuth client for `server`, sending through `http`.
    fn build(self, server: Url, http: Arc<dyn HttpClient>) -> OAuthClient {
        let flow = match self.flow {
            FlowSpec::Ready(flow) => flow,
            FlowSpec::Headless(registration) => Flow::AuthorizationCode {
                handler: Arc::new(HeadlessRedirectHandler::new(http.clone())),
                registration,
            },
        };
        let mut builder = OAuthClient::builder(server, http, flow);
        if let Some(store) = self.store {
            builder = builder.store(store);
        }
        if let Some(policy) = self.policy {
            builder = builder.policy(policy);
        }
        if let Some(prover) = self.dpop {
            builder = builder.dpop(prover);
        }
        if let Some(key) = self.signing_key {
            builder = builder.signing_key(key);
        }
        if let Some(on) = self.offline_access {
            builder = builder.offline_access(on);
        }
        if let Some(on) = self.legacy_fallback {
            builder = builder.legacy_fallback(on);
        }
        if let Some(n) = self.max_attempts {
            builder = builder.max_attempts(n);
        }
        if let Some(clock) = self.clock {
            builder = builder.clock(clock);
        }
        if let Some(random) = self.random {
            builder = builder.random(random);
        }
        builder.build()
    }
}

impl HttpConfig {
    /// Authorizes every request with OAuth: installs an [`OAuthProvider`]
    /// built from this configuration (whose TLS, proxy and connect settings
    /// the OAuth requests share) as the authorization provider. To keep a
    /// handle on the provider, use [`OAuthProvider::new`] and
    /// [`HttpConfig::with_auth`] instead. Call it after the TLS, proxy and
    /// timeout settings: the OAuth HTTP client is built from them here.
    ///
    /// # Errors
    /// [`ConfigError`] when the TLS or proxy settings are invalid.
    pub fn with_oauth(self, oauth: OAuthConfig) -> Result<Self, ConfigError> {
        let provider = OAuthProvider::new(&self, oauth)?;
        Ok(self.with_auth(Arc::new(provider)))
    }
}

//! [`OAuthClient`]: the async executor that drives discovery, registration,
//! authorization, token requests and refresh over an [`HttpClient`].
//!
//! The transport asks [`OAuthClient::headers_for`] before every request and reports
//! `401`/`403` answers to [`OAuthClient::on_unauthorized`]; a [`ChallengeOutcome::Retry`]
//! means fresh credentials are in place and the request may be sent again.
//!
//! **Single flight.** All token acquisition (first authorization, refresh, step-up)
//! runs under one async mutex. Every credential carries a generation number; a caller
//! that waited for the mutex and finds the generation moved on uses the new token
//! instead of refreshing again, so N concurrent callers with an expired token cause
//! exactly one refresh.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcp_auth::http::{HttpClient, HttpResponse, Method};
//! use mcp_auth::registration::RegistrationConfig;
//! use mcp_auth::{ChallengeOutcome, Flow, OAuthClient, Url};
//!
//! async fn send_with_auth(
//!     http: Arc<dyn HttpClient>,
//!     handler: Arc<dyn mcp_auth::handler::AuthorizationHandler>,
//! ) -> Result<(), Box<dyn std::error::Error>> {
//!     let server = Url::parse("https://mcp.example.com/mcp")?;
//!     let registration = RegistrationConfig::new(vec!["http://127.0.0.1:8976/callback".into()]);
//!     let flow = Flow::AuthorizationCode { handler, registration };
//!     let oauth = OAuthClient::builder(server.clone(), http, flow).build();
//!     loop {
//!         let auth = oauth.headers_for(Method::Post, &server).await?;
//!         // Send the MCP request with `auth.headers`; here, pretend it was refused.
//!         let response = HttpResponse::new(401, vec![], vec![]);
//!         if response.status != 401 && response.status != 403 {
//!             oauth.on_success("tools/list");
//!             return Ok(());
//!         }
//!         let ChallengeOutcome::Retry =
//!             oauth.on_unauthorized(&response, auth.generation, "tools/list").await?;
//!     }
//! }
//! ```

mod discover;
mod grant;

use std::sync::{Arc, Mutex};

use url::Url;

use crate::challenge::{self, Challenge};
use crate::dpop::{self, DpopProver};
use crate::error::AuthError;
use crate::handler::{AssertionProvider, AuthorizationHandler, Clock, SystemClock};
use crate::http::{HttpClient, HttpResponse, Method};
use crate::jwt::SigningKey;
use crate::random::{RandomSource, SystemRandomSource};
use crate::registration::{ClientCredentials, RegistrationConfig};
use crate::scope::StepUpTracker;
use crate::secret::Secret;
use crate::security::{self, SecurityPolicy};
use crate::store::{MemoryStore, TokenStore};
use crate::token::{DEFAULT_EXPIRY_MARGIN, TokenSet, unix_secs};

use discover::Discovered;

/// How the client obtains tokens.
#[derive(Clone)]
#[non_exhaustive]
pub enum Flow {
    /// Authorization code with PKCE, for a user (the core MCP flow).
    AuthorizationCode {
        /// Shows the URL and returns the redirect.
        handler: Arc<dyn AuthorizationHandler>,
        /// Pre-registration, CIMD and DCR settings.
        registration: RegistrationConfig,
    },
    /// OAuth client credentials (extension `oauth-client-credentials`).
    ClientCredentials {
        /// Pre-registered credentials (`client_secret_basic`/`_post`, or `private_key_jwt`
        /// with [`OAuthClientBuilder::signing_key`]).
        credentials: ClientCredentials,
    },
    /// RFC 7523 JWT bearer grant with an externally issued assertion (workload
    /// identity federation).
    JwtBearer {
        /// The client id (sent with `none` authentication when no secret is set).
        credentials: ClientCredentials,
        /// Supplies the workload JWT.
        assertion: Arc<dyn AssertionProvider>,
    },
    /// Enterprise-managed authorization: exchange the enterprise ID token for an
    /// ID-JAG at the IdP (RFC 8693), then redeem it at the MCP authorization server
    /// (RFC 7523). The user is never sent to the MCP authorization endpoint.
    EnterpriseManaged {
        /// The IdP's token endpoint.
        idp_token_endpoint: String,
        /// Credentials at the IdP.
        idp_credentials: ClientCredentials,
        /// The ID token (or SAML assertion) from SSO.
        id_token: Arc<dyn AssertionProvider>,
        /// `ID_TOKEN_TYPE` or `SAML2_TOKEN_TYPE`.
        subject_token_type: String,
        /// Credentials at the MCP authorization server.
        credentials: ClientCredentials,
    },
}

impl std::fmt::Debug for Flow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Self::AuthorizationCode { .. } => "AuthorizationCode",
            Self::ClientCredentials { .. } => "ClientCredentials",
            Self::JwtBearer { .. } => "JwtBearer",
            Self::EnterpriseManaged { .. } => "EnterpriseManaged",
        };
        f.write_str(name)
    }
}

/// What to do after [`OAuthClient::on_unauthorized`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengeOutcome {
    /// New credentials (or a DPoP nonce) are in place: send the request again.
    Retry,
}

/// Headers for one request: `Authorization` and, with DPoP, the proof.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestAuth {
    /// `(name, value)` pairs, names lower-case.
    pub headers: Vec<(&'static str, Secret)>,
    /// The credential generation these headers came from (pass back on a 401).
    pub generation: u64,
}

struct Inner {
    server_url: Url,
    http: Arc<dyn HttpClient>,
    flow: Flow,
    policy: SecurityPolicy,
    store: Arc<dyn TokenStore>,
    rng: Arc<dyn RandomSource>,
    clock: Arc<dyn Clock>,
    dpop: Option<Arc<DpopProver>>,
    signing_key: Option<SigningKey>,
    offline_access: bool,
    legacy_fallback: bool,
    max_attempts: u32,
    state: Mutex<State>,
    flight: futures::lock::Mutex<()>,
}

#[derive(Default)]
struct State {
    discovered: Option<Discovered>,
    tokens: Option<TokenSet>,
    generation: u64,
    step_up: Option<StepUpTracker>,
    consecutive_failures: u32,
}

/// The OAuth client for one MCP server. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct OAuthClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server_url", &self.inner.server_url.as_str())
            .field("flow", &self.inner.flow)
            .finish_non_exhaustive()
    }
}

/// Builds an [`OAuthClient`].
pub struct OAuthClientBuilder {
    server_url: Url,
    http: Arc<dyn HttpClient>,
    flow: Flow,
    policy: SecurityPolicy,
    store: Arc<dyn TokenStore>,
    rng: Arc<dyn RandomSource>,
    clock: Arc<dyn Clock>,
    dpop: Option<Arc<DpopProver>>,
    signing_key: Option<SigningKey>,
    offline_access: bool,
    legacy_fallback: bool,
    max_attempts: u32,
}

impl std::fmt::Debug for OAuthClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClientBuilder")
            .field("server_url", &self.server_url.as_str())
            .finish_non_exhaustive()
    }
}

impl OAuthClientBuilder {
    /// Sets the security policy.
    #[must_use]
    pub fn policy(mut self, policy: SecurityPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the token store (default: in memory).
    #[must_use]
    pub fn store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// Sets the random source (default: the system CSPRNG).
    #[must_use]
    pub fn random(mut self, rng: Arc<dyn RandomSource>) -> Self {
        self.rng = rng;
        self
    }

    /// Sets the clock (default: the system clock).
    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Uses DPoP-bound tokens with this prover (RFC 9449).
    #[must_use]
    pub fn dpop(mut self, prover: Arc<DpopProver>) -> Self {
        self.dpop = Some(prover);
        self
    }

    /// The key for `private_key_jwt` client authentication.
    #[must_use]
    pub fn signing_key(mut self, key: SigningKey) -> Self {
        self.signing_key = Some(key);
        self
    }

    /// Whether to ask for `offline_access` when advertised (default `true`).
    #[must_use]
    pub fn offline_access(mut self, on: bool) -> Self {
        self.offline_access = on;
        self
    }

    /// Whether to fall back to 2025-03-26 style discovery when a server has no
    /// protected resource metadata (default `true`).
    #[must_use]
    pub fn legacy_fallback(mut self, on: bool) -> Self {
        self.legacy_fallback = on;
        self
    }

    /// How many times new credentials are obtained for refusals in a row, and the
    /// step-up budget per operation (default 3).
    #[must_use]
    pub fn max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n;
        self
    }

    /// Builds the client.
    pub fn build(self) -> OAuthClient {
        OAuthClient {
            inner: Arc::new(Inner {
                server_url: self.server_url,
                http: self.http,
                flow: self.flow,
                policy: self.policy,
                store: self.store,
                rng: self.rng,
                clock: self.clock,
                dpop: self.dpop,
                signing_key: self.signing_key,
                offline_access: self.offline_access,
                legacy_fallback: self.legacy_fallback,
                max_attempts: self.max_attempts,
                state: Mutex::new(State::default()),
                flight: futures::lock::Mutex::new(()),
            }),
        }
    }
}

impl OAuthClient {
    /// A builder for the MCP server at `server_url`.
    pub fn builder(server_url: Url, http: Arc<dyn HttpClient>, flow: Flow) -> OAuthClientBuilder {
        OAuthClientBuilder {
            server_url,
            http,
            flow,
            policy: SecurityPolicy::default(),
            store: Arc::new(MemoryStore::new()),
            rng: Arc::new(SystemRandomSource::new()),
            clock: Arc::new(SystemClock),
            dpop: None,
            signing_key: None,
            offline_access: true,
            legacy_fallback: true,
            max_attempts: 3,
        }
    }

    fn state(&self) -> Result<std::sync::MutexGuard<'_, State>, AuthError> {
        self.inner
            .state
            .lock()
            .map_err(|_| AuthError::MissingConfiguration("state lock poisoned"))
    }

    fn now_unix(&self) -> u64 {
        unix_secs(self.inner.clock.now())
    }

    /// The current token set, if any (for inspection; tokens are redacted in `Debug`).
    pub fn tokens(&self) -> Option<TokenSet> {
        self.state().ok().and_then(|s| s.tokens.clone())
    }

    /// The current credential generation (bumped whenever tokens change). A
    /// transport hook that cannot carry [`RequestAuth::generation`] through a request
    /// may pass this to [`OAuthClient::on_unauthorized`].
    pub fn generation(&self) -> u64 {
        self.state().map_or(0, |s| s.generation)
    }

    /// The `Authorization` header value for the next request, refreshing an expired
    /// token first; `None` before any token exists. For bearer tokens only: a
    /// DPoP-bound token also needs a per-request proof, see [`OAuthClient::headers_for`].
    pub async fn authorization_header(&self) -> Result<Option<Secret>, AuthError> {
        let url = self.inner.server_url.clone();
        let auth = self.headers_for(Method::Post, &url).await?;
        Ok(auth
            .headers
            .into_iter()
            .find(|(n, _)| *n == "authorization")
            .map(|(_, v)| v))
    }

    /// Installs tokens (e.g. loaded by the host), bumping the generation.
    pub fn set_tokens(&self, tokens: TokenSet) -> Result<(), AuthError> {
        let mut s = self.state()?;
        s.tokens = Some(tokens);
        s.generation += 1;
        Ok(())
    }

    /// Headers for a request of `method` to `url`, or an empty list before any
    /// token exists (the first request goes out unauthenticated and its 401 starts
    /// discovery). An expired token is refreshed first (single flight).
    pub async fn headers_for(&self, method: Method, url: &Url) -> Result<RequestAuth, AuthError> {
        let (tokens, generation) = {
            let s = self.state()?;
            (s.tokens.clone(), s.generation)
        };
        let tokens = match tokens {
            Some(t) if t.is_expired(self.inner.clock.now(), DEFAULT_EXPIRY_MARGIN) => {
                self.renew(generation, None, false).await?;
                self.state()?.tokens.clone()
            }
            other => other,
        };
        let generation = self.state()?.generation;
        let Some(tokens) = tokens else {
            return Ok(RequestAuth {
                headers: Vec::new(),
                generation,
            });
        };
        let mut headers = vec![("authorization", tokens.authorization_header())];
        if let (Some(prover), security::TokenScheme::Dpop) = (&self.inner.dpop, tokens.scheme) {
            let proof = prover.proof(
                method,
                url,
                Some(&tokens.access_token),
                self.now_unix(),
                &*self.inner.rng,
            )?;
            headers.push((dpop::PROOF_HEADER, proof));
        }
        Ok(RequestAuth {
            headers,
            generation,
        })
    }

    /// Reacts to a `401` or `403` from the MCP server. `generation` is the one the
    /// failed request's headers came from; `operation` keys the step-up budget
    /// (e.g. the JSON-RPC method). Returns [`ChallengeOutcome::Retry`] when the
    /// request should be sent again, or the error that ends it.
    pub async fn on_unauthorized(
        &self,
        response: &HttpResponse,
        generation: u64,
        operation: &str,
    ) -> Result<ChallengeOutcome, AuthError> {
        let challenges =
            challenge::parse_all(response.header_all("www-authenticate")).unwrap_or_default();
        let prefer_dpop = self.inner.dpop.is_some();
        let ch = challenge::oauth_challenge(&challenges, prefer_dpop).cloned();
        if let Some(prover) = &self.inner.dpop {
            let changed = prover.record_nonce(&self.inner.server_url, response);
            let has_token = self.state()?.tokens.is_some();
            if has_token && changed && dpop::is_rs_nonce_challenge(response.status, &challenges) {
                return Ok(ChallengeOutcome::Retry);
            }
        }
        match response.status {
            // Step up on `insufficient_scope`, and on a 403 whose challenge names the
            // scopes it wants even without the error code (servers that put the
            // error only in the body).
            403 if ch.as_ref().is_some_and(|c| {
                c.error() == Some("insufficient_scope")
                    || (c.error().is_none() && c.scope().is_some())
            }) =>
            {
                self.step_up(generation, ch.as_ref(), operation).await
            }
            401 => {
                self.renew(generation, ch.as_ref(), true).await?;
                Ok(ChallengeOutcome::Retry)
            }
            status => Err(AuthError::UnexpectedResponse {
                what: "MCP server",
                status,
            }),
        }
    }

    /// Records that a request authenticated successfully (resets failure budgets).
    pub fn on_success(&self, operation: &str) {
        if let Ok(mut s) = self.state() {
            s.consecutive_failures = 0;
            if let Some(t) = s.step_up.as_mut() {
                t.succeeded(operation);
            }
        }
    }

    /// Records a `DPoP-Nonce` the MCP server sent on a successful response (RFC
    /// 9449 §9: a resource server may rotate its nonce at any time), so the next
    /// proof carries it. A no-op without DPoP. Returns whether the nonce changed.
    pub fn record_dpop_nonce(&self, response: &HttpResponse) -> bool {
        self.inner
            .dpop
            .as_ref()
            .is_some_and(|p| p.record_nonce(&self.inner.server_url, response))
    }

    /// The MCP server URL this client authorizes for.
    pub fn server_url(&self) -> &Url {
        &self.inner.server_url
    }

    /// Obtains a token now (without waiting for a 401), e.g. for machine-to-machine
    /// flows that authenticate before connecting.
    pub async fn authorize(&self) -> Result<(), AuthError> {
        let generation = self.state()?.generation;
        self.renew(generation, None, false).await
    }

    async fn step_up(
        &self,
        seen: u64,
        ch: Option<&Challenge>,
        operation: &str,
    ) -> Result<ChallengeOutcome, AuthError> {
        let _flight = self.inner.flight.lock().await;
        let scope = {
            let mut s = self.state()?;
            if s.generation != seen {
                // Another caller already stepped up (or renewed) meanwhile.
                return Ok(ChallengeOutcome::Retry);
            }
            let max = self.inner.max_attempts;
            let tracker = s.step_up.get_or_insert_with(|| StepUpTracker::new(max));
            tracker.step_up(operation, ch.and_then(Challenge::scope))?
        };
        self.acquire(
            ch.and_then(Challenge::resource_metadata),
            Some(scope),
            false,
        )
        .await?;
        Ok(ChallengeOutcome::Retry)
    }

    /// Gets fresh credentials unless another caller already did since `seen`.
    /// `rejected`: the server refused the current credentials (counts toward the
    /// budget of consecutive refusals; a proactive renewal does not).
    async fn renew(
        &self,
        seen: u64,
        ch: Option<&Challenge>,
        rejected: bool,
    ) -> Result<(), AuthError> {
        let _flight = self.inner.flight.lock().await;
        {
            let mut s = self.state()?;
            if s.generation != seen {
                return Ok(());
            }
            if rejected {
                let fresh = s
                    .tokens
                    .as_ref()
                    .is_some_and(|t| refused_when_fresh(t, self.now_unix()));
                // A token refused right after it was obtained counts toward the
                // budget; one refused after a normal life starts a new count.
                s.consecutive_failures = if fresh { s.consecutive_failures + 1 } else { 1 };
                if s.consecutive_failures > self.inner.max_attempts {
                    return Err(AuthError::TooManyAttempts(self.inner.max_attempts));
                }
            }
        }
        // First attempt: refresh against the cached discovery (the common case, an
        // expired token). If the refreshed token is refused too, the resource may
        // have moved to another authorization server: run the full flow, which
        // discovers again.
        let (refreshable, first_attempt) = {
            let s = self.state()?;
            let refreshable = s.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some());
            (refreshable, s.consecutive_failures <= 1)
        };
        let insufficient = ch.and_then(Challenge::error) == Some("insufficient_scope");
        if refreshable && first_attempt && !insufficient && self.refresh().await? {
            return Ok(());
        }
        let challenge_scope = ch
            .and_then(Challenge::scope)
            .map(crate::scope::ScopeSet::parse);
        self.acquire(
            ch.and_then(Challenge::resource_metadata),
            challenge_scope,
            true,
        )
        .await
    }

    /// Stores a new token set and bumps the generation.
    fn install(&self, tokens: TokenSet) -> Result<(), AuthError> {
        let mut s = self.state()?;
        if let Some(d) = &s.discovered {
            let key = crate::store::TokenKey::new(&d.resource, &d.as_meta.issuer);
            self.inner.store.save_tokens(&key, &tokens)?;
        }
        s.tokens = Some(tokens);
        s.generation += 1;
        Ok(())
    }

    fn prm_scope_hint(&self) -> Option<Vec<String>> {
        self.state()
            .ok()?
            .discovered
            .as_ref()?
            .prm
            .as_ref()?
            .scopes_supported
            .clone()
    }
}

/// Whether a refused token was still "fresh": younger than half its lifetime, capped
/// at [`FRESH_REFUSAL_SECS`]. Repeated refusals of fresh tokens mean the server will
/// not accept what this client obtains, and must not loop forever.
fn refused_when_fresh(t: &TokenSet, now_unix: u64) -> bool {
    let Some(issued) = t.issued_at else {
        return true;
    };
    let threshold = t.expires_at.map_or(FRESH_REFUSAL_SECS, |e| {
        (e.saturating_sub(issued) / 2).min(FRESH_REFUSAL_SECS)
    });
    now_unix.saturating_sub(issued) < threshold.max(1)
}

/// The age below which a refused token counts as refused when fresh.
const FRESH_REFUSAL_SECS: u64 = 5;

//! Token acquisition over the HTTP client: registration, the authorization code
//! flow, machine-to-machine grants, refresh, and token endpoint calls with DPoP
//! nonce retry.

use super::discover::Discovered;
use super::{Flow, OAuthClient};
use crate::authorize::{self, AuthorizationParams};
use crate::discovery;
use crate::dpop;
use crate::error::AuthError;
use crate::http::{HttpRequest, Method};
use crate::metadata::{AuthorizationServerMetadata, ClientInformation, TokenResponse};
use crate::registration::{self, ClientCredentials, RegistrationError, RegistrationPlan};
use crate::scope::{ScopeSet, StepUpTracker, select_initial_scope, with_offline_access};
use crate::security::{self, TokenScheme};
use crate::store::TokenKey;
use crate::token::{DEFAULT_EXPIRY_MARGIN, TokenSet};
use crate::token_request::{
    ClientAuth, Grant, ID_JAG_TOKEN_TYPE, TokenRequest, parse_token_response,
};

impl OAuthClient {
    /// Client authentication for `creds` at a token endpoint of the server described
    /// by `as_meta` (`None` for the enterprise IdP, whose metadata is not fetched).
    /// A `private_key_jwt` assertion is addressed to the issuer (RFC 7523bis).
    fn client_auth(
        &self,
        creds: &ClientCredentials,
        as_meta: Option<&AuthorizationServerMetadata>,
    ) -> Result<ClientAuth, AuthError> {
        let id = creds.client_id.clone();
        let method = as_meta.map_or_else(
            || creds.auth_method.clone(),
            |m| registration::choose_auth_method(creds, m, self.inner.signing_key.is_some()),
        );
        let secret = || {
            creds
                .client_secret
                .clone()
                .ok_or(AuthError::MissingConfiguration("client secret"))
        };
        Ok(match method.as_str() {
            "client_secret_basic" => ClientAuth::SecretBasic {
                client_id: id,
                client_secret: secret()?,
            },
            "client_secret_post" => ClientAuth::SecretPost {
                client_id: id,
                client_secret: secret()?,
            },
            "private_key_jwt" => ClientAuth::PrivateKeyJwt {
                client_id: id,
                key: self
                    .inner
                    .signing_key
                    .clone()
                    .ok_or(AuthError::MissingConfiguration(
                        "signing key for private_key_jwt",
                    ))?,
                audience: as_meta.map(|m| m.issuer.clone()),
            },
            _ => ClientAuth::None { client_id: id },
        })
    }

    fn expected_scheme(&self) -> TokenScheme {
        if self.inner.dpop.is_some() {
            TokenScheme::Dpop
        } else {
            TokenScheme::Bearer
        }
    }

    /// POSTs a token request, with a DPoP proof when configured and one retry on a
    /// `use_dpop_nonce` challenge.
    pub(super) async fn token_call(
        &self,
        endpoint: &str,
        request: &TokenRequest,
        auth: &ClientAuth,
        dpop_bound: bool,
    ) -> Result<TokenResponse, AuthError> {
        let url = security::parse_http_url(endpoint)?;
        security::check_as_endpoint(&url, &self.inner.policy)?;
        let prover = self.inner.dpop.as_ref().filter(|_| dpop_bound);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let now = self.now_unix();
            let mut http = request.to_http(endpoint, auth, now, &*self.inner.rng)?;
            if let Some(p) = prover {
                let proof = p.proof(Method::Post, &url, None, now, &*self.inner.rng)?;
                http = http.with_header(dpop::PROOF_HEADER, proof.expose());
            }
            let resp = self.inner.http.send(http).await?;
            if let Some(p) = prover {
                let fresh = p.record_nonce(&url, &resp);
                if attempt == 1 && dpop::is_as_nonce_challenge(&resp) && fresh {
                    continue;
                }
            }
            return parse_token_response(&resp);
        }
    }

    fn token_endpoint(d: &Discovered) -> Result<String, AuthError> {
        d.as_meta.token_endpoint.clone().ok_or(AuthError::Discovery(
            discovery::DiscoveryError::MissingEndpoint("token_endpoint"),
        ))
    }

    /// Refreshes with the refresh token. `Ok(false)` means the refresh token was
    /// refused and a full authorization is needed.
    pub(super) async fn refresh(&self) -> Result<bool, AuthError> {
        let (tokens, discovered) = {
            let s = self.state()?;
            (s.tokens.clone(), s.discovered.clone())
        };
        let (Some(tokens), Some(d)) = (tokens, discovered) else {
            return Ok(false);
        };
        let Some(rt) = tokens.refresh_token.clone() else {
            return Ok(false);
        };
        let creds = self.credentials_for(&d).await?;
        let auth = self.client_auth(&creds, Some(&d.as_meta))?;
        let request = TokenRequest::new(Grant::RefreshToken { refresh_token: rt })
            .with_resource(Some(d.resource.clone()));
        let endpoint = Self::token_endpoint(&d)?;
        match self.token_call(&endpoint, &request, &auth, true).await {
            Ok(resp) => {
                let now = self.inner.clock.now();
                let set = TokenSet::from_response(
                    resp,
                    now,
                    Some(&tokens),
                    tokens.scope.as_deref(),
                    self.expected_scheme(),
                )?;
                self.install(set)?;
                Ok(true)
            }
            Err(AuthError::OAuth { .. }) => {
                let key = TokenKey::new(&d.resource, &d.as_meta.issuer);
                self.inner.store.remove_tokens(&key)?;
                self.state()?.tokens = None;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Installs tokens persisted for this resource and issuer (refreshing them when
    /// expired), unless they are the ones just refused. Returns whether usable
    /// tokens are now in place.
    async fn use_stored_tokens(
        &self,
        d: &Discovered,
        current: Option<&TokenSet>,
    ) -> Result<bool, AuthError> {
        let key = TokenKey::new(&d.resource, &d.as_meta.issuer);
        let Some(stored) = self.inner.store.load_tokens(&key)? else {
            return Ok(false);
        };
        if current.is_some_and(|c| c.access_token == stored.access_token) {
            return Ok(false);
        }
        let expired = stored.is_expired(self.inner.clock.now(), DEFAULT_EXPIRY_MARGIN);
        let refreshable = stored.refresh_token.is_some();
        {
            let mut s = self.state()?;
            s.tokens = Some(stored);
            s.generation += 1;
        }
        if !expired {
            return Ok(true);
        }
        Ok(refreshable && self.refresh().await?)
    }

    /// Registered credentials for the discovered server (flow-specific).
    async fn credentials_for(&self, d: &Discovered) -> Result<ClientCredentials, AuthError> {
        match &self.inner.flow {
            Flow::AuthorizationCode { registration, .. } => {
                let issuer = &d.as_meta.issuer;
                let stored = self.inner.store.load_client(issuer)?;
                let grants: &[&str] = &["authorization_code", "refresh_token"];
                match registration::plan(registration, &d.as_meta, stored, grants)? {
                    RegistrationPlan::Use(c) => Ok(c),
                    RegistrationPlan::Dynamic { endpoint, metadata } => {
                        let url = security::parse_http_url(&endpoint)?;
                        security::check_as_endpoint(&url, &self.inner.policy)?;
                        let body = serde_json::to_vec(&metadata).map_err(|e| {
                            AuthError::InvalidDocument {
                                what: "registration request",
                                detail: e.to_string(),
                            }
                        })?;
                        let resp = self
                            .inner
                            .http
                            .send(HttpRequest::post_json(endpoint.as_str(), body))
                            .await?;
                        if !resp.is_success() {
                            return Err(match serde_json::from_slice(&resp.body) {
                                Ok(error) => AuthError::OAuth {
                                    endpoint: "registration",
                                    status: resp.status,
                                    error,
                                },
                                Err(_) => AuthError::UnexpectedResponse {
                                    what: "registration endpoint",
                                    status: resp.status,
                                },
                            });
                        }
                        let info: ClientInformation =
                            serde_json::from_slice(&resp.body).map_err(|e| {
                                AuthError::InvalidDocument {
                                    what: "registration response",
                                    detail: e.to_string(),
                                }
                            })?;
                        let creds = ClientCredentials::from_registration(info, issuer);
                        self.inner.store.save_client(issuer, &creds)?;
                        Ok(creds)
                    }
                }
            }
            Flow::ClientCredentials { credentials }
            | Flow::JwtBearer { credentials, .. }
            | Flow::EnterpriseManaged { credentials, .. } => {
                if !credentials.usable_with(&d.as_meta.issuer) {
                    return Err(
                        RegistrationError::PreRegisteredMismatch(d.as_meta.issuer.clone()).into(),
                    );
                }
                Ok(credentials.clone())
            }
        }
    }

    /// Full acquisition: discovery, registration, then the flow's grant.
    /// `use_stored`: tokens persisted in the store for this resource and issuer may
    /// be used instead of running the flow (not for step-up, which needs new scopes).
    pub(super) async fn acquire(
        &self,
        resource_metadata: Option<&str>,
        scope: Option<ScopeSet>,
        use_stored: bool,
    ) -> Result<(), AuthError> {
        let d = self.discover(resource_metadata).await?;
        let current = {
            let mut s = self.state()?;
            let changed_issuer = s
                .discovered
                .as_ref()
                .is_some_and(|old| old.as_meta.issuer != d.as_meta.issuer);
            if changed_issuer {
                s.tokens = None;
            }
            s.discovered = Some(d.clone());
            s.tokens.clone()
        };
        if use_stored && self.use_stored_tokens(&d, current.as_ref()).await? {
            return Ok(());
        }
        let prm_scopes = self.prm_scope_hint();
        let mut scope = match scope {
            Some(s) if !s.is_empty() => s,
            _ => select_initial_scope(None, prm_scopes.as_deref()),
        };
        let creds = self.credentials_for(&d).await?;
        let auth = self.client_auth(&creds, Some(&d.as_meta))?;
        let endpoint = Self::token_endpoint(&d)?;
        let resource = Some(d.resource.clone());
        let request = match &self.inner.flow {
            Flow::AuthorizationCode { handler, .. } => {
                discovery::require_pkce_s256(&d.as_meta)?;
                if self.inner.offline_access {
                    scope = with_offline_access(scope, d.as_meta.scopes_supported.as_deref());
                }
                let auth_endpoint = d.as_meta.authorization_endpoint.as_deref().ok_or(
                    discovery::DiscoveryError::MissingEndpoint("authorization_endpoint"),
                )?;
                let auth_url = security::parse_http_url(auth_endpoint)?;
                security::check_as_endpoint(&auth_url, &self.inner.policy)?;
                let Flow::AuthorizationCode { registration, .. } = &self.inner.flow else {
                    return Err(AuthError::MissingConfiguration("flow"));
                };
                let redirect_uri = registration
                    .redirect_uris
                    .first()
                    .cloned()
                    .ok_or(AuthError::MissingConfiguration("redirect URI"))?;
                security::check_redirect_uri(&redirect_uri)?;
                let params = AuthorizationParams::new(
                    auth_url,
                    &creds.client_id,
                    redirect_uri,
                    &d.as_meta.issuer,
                )
                .with_scope(scope.to_param())
                .with_resource(resource.clone())
                .with_iss_parameter_supported(
                    d.as_meta.authorization_response_iss_parameter_supported,
                );
                let pending =
                    authorize::begin(params, &*self.inner.rng).map_err(|_| AuthError::Random)?;
                let redirect = handler
                    .authorize(pending.url.as_str())
                    .await
                    .map_err(AuthError::Handler)?;
                let code = pending.complete(&redirect)?;
                TokenRequest::new(Grant::AuthorizationCode {
                    code,
                    redirect_uri: pending.redirect_uri.clone(),
                    code_verifier: pending.pkce.verifier.clone(),
                })
            }
            Flow::ClientCredentials { .. } => TokenRequest::new(Grant::ClientCredentials),
            Flow::JwtBearer { assertion, .. } => TokenRequest::new(Grant::JwtBearer {
                assertion: assertion.assertion().await.map_err(AuthError::Handler)?,
            }),
            Flow::EnterpriseManaged {
                idp_token_endpoint,
                idp_credentials,
                id_token,
                subject_token_type,
                ..
            } => {
                let exchange = TokenRequest::new(Grant::TokenExchange {
                    subject_token: id_token.assertion().await.map_err(AuthError::Handler)?,
                    subject_token_type: subject_token_type.clone(),
                    requested_token_type: ID_JAG_TOKEN_TYPE.to_owned(),
                    audience: Some(d.as_meta.issuer.clone()),
                })
                .with_resource(resource.clone())
                .with_scope(scope.to_param());
                let idp_auth = self.client_auth(idp_credentials, None)?;
                let jag = self
                    .token_call(idp_token_endpoint, &exchange, &idp_auth, false)
                    .await?;
                if jag.issued_token_type.as_deref() != Some(ID_JAG_TOKEN_TYPE) {
                    return Err(AuthError::InvalidDocument {
                        what: "token exchange response",
                        detail: "issued_token_type is not an ID-JAG".to_owned(),
                    });
                }
                TokenRequest::new(Grant::JwtBearer {
                    assertion: jag.access_token,
                })
            }
        };
        let request = request.with_resource(resource).with_scope(scope.to_param());
        let resp = self.token_call(&endpoint, &request, &auth, true).await?;
        let set = TokenSet::from_response(
            resp,
            self.inner.clock.now(),
            None,
            request.scope.as_deref(),
            self.expected_scheme(),
        )?;
        let max = self.inner.max_attempts;
        self.state()?
            .step_up
            .get_or_insert_with(|| StepUpTracker::new(max))
            .record_requested(&scope);
        self.install(set)
    }
}

//! The authorization code request (with PKCE, `state` and RFC 8707 `resource`) and
//! validation of the redirect that comes back (`state`, RFC 9207 `iss`).
//!
//! [`PendingAuthorization`] is the per-flow record both revisions require: the PKCE
//! verifier, the `state`, and the issuer recorded from validated metadata *before*
//! the user agent is sent away. [`PendingAuthorization::complete`] checks the
//! redirect in the order that keeps error responses from a mixed-up server from
//! being acted on: `state`, then `iss` (the 2026-07-28 table), then `error`/`code`.

use url::Url;

use crate::pkce::Pkce;
use crate::random::{RandomError, RandomSource, random_b64url};
use crate::secret::Secret;

/// Inputs of an authorization request.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationParams {
    /// The authorization endpoint from validated metadata.
    pub authorization_endpoint: Url,
    /// The client identifier (possibly a Client ID Metadata Document URL).
    pub client_id: String,
    /// The registered redirect URI.
    pub redirect_uri: String,
    /// The scope parameter, `None` to omit it.
    pub scope: Option<String>,
    /// The RFC 8707 resource, exactly as the protected resource metadata gives it.
    pub resource: Option<String>,
    /// The validated metadata's `issuer`.
    pub issuer: String,
    /// The metadata's `authorization_response_iss_parameter_supported`.
    pub iss_parameter_supported: bool,
}

impl AuthorizationParams {
    /// Parameters for a request to `authorization_endpoint` on behalf of `client_id`.
    pub fn new(
        authorization_endpoint: Url,
        client_id: impl Into<String>,
        redirect_uri: impl Into<String>,
        issuer: impl Into<String>,
    ) -> Self {
        Self {
            authorization_endpoint,
            client_id: client_id.into(),
            redirect_uri: redirect_uri.into(),
            scope: None,
            resource: None,
            issuer: issuer.into(),
            iss_parameter_supported: false,
        }
    }

    /// Sets the scope (`None` omits the parameter).
    #[must_use]
    pub fn with_scope(mut self, scope: Option<String>) -> Self {
        self.scope = scope;
        self
    }

    /// Sets the RFC 8707 resource.
    #[must_use]
    pub fn with_resource(mut self, resource: Option<String>) -> Self {
        self.resource = resource;
        self
    }

    /// Sets whether the server advertises RFC 9207 `iss`.
    #[must_use]
    pub fn with_iss_parameter_supported(mut self, on: bool) -> Self {
        self.iss_parameter_supported = on;
        self
    }
}

/// The record kept between sending the user agent away and the redirect.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingAuthorization {
    /// The URL to open in the user agent.
    pub url: Url,
    /// The `state` sent.
    pub state: Secret,
    /// The PKCE pair.
    pub pkce: Pkce,
    /// The issuer recorded from validated metadata.
    pub issuer: String,
    /// Whether the server advertised `iss` in responses.
    pub iss_parameter_supported: bool,
    /// The redirect URI sent (needed again at the token endpoint).
    pub redirect_uri: String,
    /// The resource sent (needed again at the token endpoint).
    pub resource: Option<String>,
    /// The scope sent.
    pub scope: Option<String>,
}

/// The redirect did not yield a usable authorization code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RedirectError {
    /// The redirect URL could not be parsed.
    #[error("redirect URL is not a valid URL")]
    InvalidUrl,
    /// The redirect does not go to the registered redirect URI.
    #[error("redirect does not target the registered redirect URI")]
    WrongRedirectUri,
    /// A response parameter appears more than once.
    #[error("duplicate `{0}` parameter in the authorization response")]
    DuplicateParameter(String),
    /// `state` is missing or differs; the response is discarded.
    #[error("state missing or mismatched")]
    StateMismatch,
    /// RFC 9207: `iss` differs from the recorded issuer; nothing else in the response
    /// (including an `error`) is acted on.
    #[error("authorization response issuer does not match the recorded issuer")]
    IssuerMismatch,
    /// RFC 9207: the server advertises `iss` but the response lacks it.
    #[error("authorization response lacks the advertised iss parameter")]
    IssuerMissing,
    /// The server returned an error (only reported after `state`/`iss` passed).
    #[error("authorization denied: {error}")]
    Denied {
        /// The `error` code.
        error: String,
        /// The `error_description`, if any.
        description: Option<String>,
    },
    /// No `code` in a non-error response.
    #[error("authorization response has no code")]
    MissingCode,
}

/// Starts an authorization: fresh PKCE and `state`, and the URL to open.
pub fn begin(
    params: AuthorizationParams,
    rng: &dyn RandomSource,
) -> Result<PendingAuthorization, RandomError> {
    let pkce = Pkce::generate(rng)?;
    let state = Secret::new(random_b64url(rng, 32)?);
    let mut url = params.authorization_endpoint.clone();
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", &params.client_id)
            .append_pair("redirect_uri", &params.redirect_uri)
            .append_pair("state", state.expose())
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", pkce.method());
        if let Some(scope) = &params.scope {
            q.append_pair("scope", scope);
        }
        if let Some(resource) = &params.resource {
            q.append_pair("resource", resource);
        }
    }
    Ok(PendingAuthorization {
        url,
        state,
        pkce,
        issuer: params.issuer,
        iss_parameter_supported: params.iss_parameter_supported,
        redirect_uri: params.redirect_uri,
        resource: params.resource,
        scope: params.scope,
    })
}

/// Constant-time equality for secrets of public length.
fn ct_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl PendingAuthorization {
    /// Validates the redirect URL the user agent landed on and returns the code.
    pub fn complete(&self, redirect: &str) -> Result<Secret, RedirectError> {
        let url = Url::parse(redirect).map_err(|_| RedirectError::InvalidUrl)?;
        let registered =
            Url::parse(&self.redirect_uri).map_err(|_| RedirectError::WrongRedirectUri)?;
        if url.origin() != registered.origin() || url.path() != registered.path() {
            return Err(RedirectError::WrongRedirectUri);
        }
        let mut state = None;
        let mut iss = None;
        let mut code = None;
        let mut error = None;
        let mut description = None;
        for (k, v) in url.query_pairs() {
            let slot = match k.as_ref() {
                "state" => &mut state,
                "iss" => &mut iss,
                "code" => &mut code,
                "error" => &mut error,
                "error_description" => &mut description,
                _ => continue,
            };
            if slot.is_some() {
                return Err(RedirectError::DuplicateParameter(k.into_owned()));
            }
            *slot = Some(v.into_owned());
        }
        match &state {
            Some(s) if ct_eq(s, self.state.expose()) => {}
            _ => return Err(RedirectError::StateMismatch),
        }
        check_issuer(iss.as_deref(), &self.issuer, self.iss_parameter_supported)?;
        if let Some(error) = error {
            return Err(RedirectError::Denied { error, description });
        }
        code.map(Secret::new).ok_or(RedirectError::MissingCode)
    }
}

/// The RFC 9207 check as the 2026-07-28 table specifies: a present `iss` is compared
/// by simple string comparison (no normalization) whatever the metadata says; an
/// absent `iss` is rejected only when the server advertises the parameter.
pub fn check_issuer(
    iss: Option<&str>,
    recorded: &str,
    advertised: bool,
) -> Result<(), RedirectError> {
    match (iss, advertised) {
        (Some(i), _) if i == recorded => Ok(()),
        (Some(_), _) => Err(RedirectError::IssuerMismatch),
        (None, true) => Err(RedirectError::IssuerMissing),
        (None, false) => Ok(()),
    }
}

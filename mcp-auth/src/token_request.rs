//! Token endpoint requests: the grant (authorization code, refresh, client
//! credentials, RFC 8693 token exchange, RFC 7523 JWT bearer) and the client
//! authentication (`client_secret_basic`, `client_secret_post`, `none`,
//! `private_key_jwt`), rendered as a form POST.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use url::form_urlencoded;

use crate::error::AuthError;
use crate::http::{HttpRequest, HttpResponse};
use crate::jwt::{KeyError, SigningKey, client_assertion};
use crate::metadata::{OAuthErrorResponse, TokenResponse};
use crate::random::RandomSource;
use crate::secret::Secret;

/// RFC 7523 grant type.
pub const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 8693 grant type.
pub const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 7523 client assertion type.
pub const JWT_BEARER_ASSERTION_TYPE: &str =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// Identity Assertion JWT Authorization Grant token type (enterprise-managed auth).
pub const ID_JAG_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// OpenID Connect ID token type (RFC 8693 §3).
pub const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// SAML 2 assertion token type (RFC 8693 §3).
pub const SAML2_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:saml2";
/// Refresh token type (RFC 8693 §3), for an IdP refresh token exchanged for an ID-JAG.
pub const REFRESH_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:refresh_token";
/// Lifetime of generated client assertions.
pub const ASSERTION_LIFETIME_SECS: u64 = 300;

/// Reads a token endpoint's answer: the token response on 2xx, otherwise the OAuth
/// error it carries (or an unexpected-response error naming the status).
pub fn parse_token_response(resp: &HttpResponse) -> Result<TokenResponse, AuthError> {
    if resp.is_success() {
        return serde_json::from_slice(&resp.body).map_err(|e| AuthError::InvalidDocument {
            what: "token response",
            detail: e.to_string(),
        });
    }
    Err(
        match serde_json::from_slice::<OAuthErrorResponse>(&resp.body) {
            Ok(error) => AuthError::OAuth {
                endpoint: "token",
                status: resp.status,
                error,
            },
            Err(_) => AuthError::UnexpectedResponse {
                what: "token endpoint",
                status: resp.status,
            },
        },
    )
}

/// The grant of a token request.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grant {
    /// Redeem an authorization code (with the PKCE verifier).
    AuthorizationCode {
        /// The code from the redirect.
        code: Secret,
        /// The redirect URI used in the authorization request.
        redirect_uri: String,
        /// The PKCE verifier.
        code_verifier: Secret,
    },
    /// Refresh an access token.
    RefreshToken {
        /// The refresh token.
        refresh_token: Secret,
    },
    /// Client credentials (machine-to-machine).
    ClientCredentials,
    /// RFC 8693 token exchange (e.g. an ID token for an ID-JAG at the enterprise IdP).
    TokenExchange {
        /// The subject token.
        subject_token: Secret,
        /// Its type (`ID_TOKEN_TYPE`, `SAML2_TOKEN_TYPE`).
        subject_token_type: String,
        /// The requested type (`ID_JAG_TOKEN_TYPE`).
        requested_token_type: String,
        /// The audience (the MCP authorization server's issuer).
        audience: Option<String>,
    },
    /// RFC 7523 JWT bearer grant (an ID-JAG, or a workload identity token).
    JwtBearer {
        /// The assertion.
        assertion: Secret,
    },
}

impl Grant {
    /// The `grant_type` value.
    pub fn grant_type(&self) -> &'static str {
        match self {
            Self::AuthorizationCode { .. } => "authorization_code",
            Self::RefreshToken { .. } => "refresh_token",
            Self::ClientCredentials => "client_credentials",
            Self::TokenExchange { .. } => TOKEN_EXCHANGE_GRANT,
            Self::JwtBearer { .. } => JWT_BEARER_GRANT,
        }
    }
}

/// How the client authenticates at the token endpoint.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ClientAuth {
    /// A public client: `client_id` in the body (`none`).
    None {
        /// The client identifier.
        client_id: String,
    },
    /// HTTP Basic with the form-encoded id and secret (`client_secret_basic`).
    SecretBasic {
        /// The client identifier.
        client_id: String,
        /// The secret.
        client_secret: Secret,
    },
    /// Id and secret in the body (`client_secret_post`).
    SecretPost {
        /// The client identifier.
        client_id: String,
        /// The secret.
        client_secret: Secret,
    },
    /// A signed JWT assertion (`private_key_jwt`, RFC 7523 §2.2).
    PrivateKeyJwt {
        /// The client identifier (`iss` and `sub` of the assertion).
        client_id: String,
        /// The signing key.
        key: SigningKey,
        /// The assertion audience; defaults to the token endpoint URL.
        audience: Option<String>,
    },
}

impl ClientAuth {
    /// The client identifier.
    pub fn client_id(&self) -> &str {
        match self {
            Self::None { client_id }
            | Self::SecretBasic { client_id, .. }
            | Self::SecretPost { client_id, .. }
            | Self::PrivateKeyJwt { client_id, .. } => client_id,
        }
    }

    /// The `token_endpoint_auth_method` name.
    pub fn method(&self) -> &'static str {
        match self {
            Self::None { .. } => "none",
            Self::SecretBasic { .. } => "client_secret_basic",
            Self::SecretPost { .. } => "client_secret_post",
            Self::PrivateKeyJwt { .. } => "private_key_jwt",
        }
    }
}

/// A token request before rendering.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenRequest {
    /// The grant.
    pub grant: Grant,
    /// The scope (`None` omits it).
    pub scope: Option<String>,
    /// The RFC 8707 resource (`None` omits it).
    pub resource: Option<String>,
}

impl TokenRequest {
    /// A request for `grant` with no scope or resource.
    pub fn new(grant: Grant) -> Self {
        Self {
            grant,
            scope: None,
            resource: None,
        }
    }

    /// Sets the scope.
    #[must_use]
    pub fn with_scope(mut self, scope: Option<String>) -> Self {
        self.scope = scope;
        self
    }

    /// Sets the resource.
    #[must_use]
    pub fn with_resource(mut self, resource: Option<String>) -> Self {
        self.resource = resource;
        self
    }

    /// The form fields, in order, before client authentication.
    pub fn form_fields(&self) -> Vec<(&'static str, String)> {
        let mut f: Vec<(&'static str, String)> =
            vec![("grant_type", self.grant.grant_type().to_owned())];
        match &self.grant {
            Grant::AuthorizationCode {
                code,
                redirect_uri,
                code_verifier,
            } => {
                f.push(("code", code.expose().to_owned()));
                f.push(("redirect_uri", redirect_uri.clone()));
                f.push(("code_verifier", code_verifier.expose().to_owned()));
            }
            Grant::RefreshToken { refresh_token } => {
                f.push(("refresh_token", refresh_token.expose().to_owned()));
            }
            Grant::ClientCredentials => {}
            Grant::TokenExchange {
                subject_token,
                subject_token_type,
                requested_token_type,
                audience,
            } => {
                f.push(("requested_token_type", requested_token_type.clone()));
                if let Some(a) = audience {
                    f.push(("audience", a.clone()));
                }
                f.push(("subject_token", subject_token.expose().to_owned()));
                f.push(("subject_token_type", subject_token_type.clone()));
            }
            Grant::JwtBearer { assertion } => {
                f.push(("assertion", assertion.expose().to_owned()));
            }
        }
        if let Some(r) = &self.resource {
            f.push(("resource", r.clone()));
        }
        if let Some(s) = &self.scope {
            f.push(("scope", s.clone()));
        }
        f
    }

    /// Renders the POST to `token_endpoint` with client authentication applied.
    pub fn to_http(
        &self,
        token_endpoint: &str,
        auth: &ClientAuth,
        now_unix: u64,
        rng: &dyn RandomSource,
    ) -> Result<HttpRequest, KeyError> {
        let mut fields = self.form_fields();
        let mut basic = None;
        match auth {
            ClientAuth::None { client_id } => fields.push(("client_id", client_id.clone())),
            ClientAuth::SecretPost {
                client_id,
                client_secret,
            } => {
                fields.push(("client_id", client_id.clone()));
                fields.push(("client_secret", client_secret.expose().to_owned()));
            }
            ClientAuth::SecretBasic {
                client_id,
                client_secret,
            } => basic = Some(basic_credentials(client_id, client_secret)),
            ClientAuth::PrivateKeyJwt {
                client_id,
                key,
                audience,
            } => {
                let aud = audience.as_deref().unwrap_or(token_endpoint);
                let jwt =
                    client_assertion(key, client_id, aud, now_unix, ASSERTION_LIFETIME_SECS, rng)?;
                fields.push((
                    "client_assertion_type",
                    JWT_BEARER_ASSERTION_TYPE.to_owned(),
                ));
                fields.push(("client_assertion", jwt.expose().to_owned()));
            }
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let mut req = HttpRequest::post_form(token_endpoint, body);
        if let Some(b) = basic {
            req = req.with_header("authorization", b.expose());
        }
        Ok(req)
    }
}

/// `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1).
pub fn basic_credentials(client_id: &str, client_secret: &Secret) -> Secret {
    let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let raw = format!("{}:{}", enc(client_id), enc(client_secret.expose()));
    Secret::new(format!("Basic {}", STANDARD.encode(raw)))
}

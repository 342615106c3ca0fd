//! [`OAuthProvider`]: the transport's [`AuthProvider`] over an
//! [`mcp_auth::OAuthClient`].

use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue};
use mcp_auth::http::{HttpResponse, Method};
use mcp_auth::{AuthError as OAuthError, ChallengeOutcome, OAuthClient, Url};

use super::OAuthConfig;
use super::http_client::OAuthHttpClient;
use crate::auth::{
    AuthChallenge, AuthDecision, AuthError, AuthProvider, AuthRequest, BoxFuture, Credentials,
};
use crate::config::HttpConfig;
use crate::error::ConfigError;

/// The step-up budget key of requests whose JSON-RPC method is unknown.
const UNKNOWN_OPERATION: &str = "";

/// OAuth 2.1 for the transport: attaches the current access token (and, with
/// DPoP, a proof per request), and answers `401`/`403` by running discovery,
/// registration, the configured grant, refresh or step-up through
/// [`OAuthClient`]. Concurrent refusals cause one token request (single
/// flight); the transport re-sends the refused request afterwards.
///
/// Cheap to clone; clones share tokens. Keep a clone to inspect tokens or
/// authorize ahead of the first request ([`OAuthProvider::authorize`]).
#[derive(Clone)]
pub struct OAuthProvider {
    client: OAuthClient,
}

impl std::fmt::Debug for OAuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProvider")
            .field("client", &self.client)
            .finish()
    }
}

impl OAuthProvider {
    /// A provider for the endpoint of `http`, whose OAuth requests use the same
    /// TLS, proxy and connect settings (see [`OAuthHttpClient`]).
    ///
    /// # Errors
    /// [`ConfigError`] when the TLS or proxy settings are invalid, or the
    /// endpoint is not a URL the OAuth client accepts.
    pub fn new(http: &HttpConfig, oauth: OAuthConfig) -> Result<Self, ConfigError> {
        let server = Url::parse(&http.endpoint().to_string())
            .map_err(|e| ConfigError::InvalidEndpoint(e.to_string()))?;
        let transport = Arc::new(OAuthHttpClient::new(http)?.with_timeout(oauth.timeout));
        Ok(OAuthProvider {
            client: oauth.build(server, transport),
        })
    }

    /// A provider around an [`OAuthClient`] built by hand (full control over
    /// its [`mcp_auth::OAuthClientBuilder`]). Its server URL should be the
    /// transport's endpoint.
    pub fn from_client(client: OAuthClient) -> Self {
        OAuthProvider { client }
    }

    /// The underlying OAuth client (tokens, generation, proactive calls).
    pub fn client(&self) -> &OAuthClient {
        &self.client
    }

    /// Obtains a token now instead of waiting for the first `401`: useful for
    /// machine-to-machine flows, or to log the user in before connecting.
    ///
    /// # Errors
    /// The [`mcp_auth::AuthError`] that stopped authorization.
    pub async fn authorize(&self) -> Result<(), OAuthError> {
        self.client.authorize().await
    }
}

fn auth_method(method: &http::Method) -> Method {
    match *method {
        http::Method::GET => Method::Get,
        http::Method::DELETE => Method::Delete,
        _ => Method::Post,
    }
}

fn failed(error: OAuthError) -> AuthError {
    AuthError::with_source(format!("OAuth authorization failed: {error}"), error)
}

/// The response as `mcp-auth` sees it (headers as lossy text).
fn to_response(status: u16, headers: &HeaderMap, body: &[u8]) -> HttpResponse {
    let headers = headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    HttpResponse::new(status, headers, body.to_vec())
}

impl AuthProvider for OAuthProvider {
    fn credentials<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Credentials, AuthError>> {
        Box::pin(async move {
            // The endpoint is almost always the server URL: skip the parse.
            let server = self.client.server_url();
            let url = if *request.uri == *server.as_str() {
                server.clone()
            } else {
                Url::parse(&request.uri.to_string())
                    .map_err(|e| AuthError::new(format!("endpoint is not a URL: {e}")))?
            };
            let auth = self
                .client
                .headers_for(auth_method(request.method), &url)
                .await
                .map_err(failed)?;
            let mut credentials = Credentials::none(auth.generation);
            for (name, value) in auth.headers {
                let name = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| AuthError::new("a credential header name is invalid"))?;
                let mut value = HeaderValue::from_str(value.expose())
                    .map_err(|_| AuthError::new("a credential is not valid header text"))?;
                value.set_sensitive(true);
                credentials = credentials.with_header(name, value);
            }
            Ok(credentials)
        })
    }

    fn on_unauthorized<'a>(
        &'a self,
        challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<AuthDecision, AuthError>> {
        Box::pin(async move {
            let response = to_response(
                challenge.status.as_u16(),
                &challenge.headers,
                &challenge.body,
            );
            let operation = challenge.operation.as_deref().unwrap_or(UNKNOWN_OPERATION);
            match self
                .client
                .on_unauthorized(&response, challenge.generation, operation)
                .await
            {
                Ok(ChallengeOutcome::Retry) => Ok(AuthDecision::Retry),
                // A refusal OAuth cannot fix (a plain 403): surface it as such.
                Err(OAuthError::UnexpectedResponse {
                    what: "MCP server", ..
                }) => Ok(AuthDecision::Fail),
                Err(e) => Err(failed(e)),
            }
        })
    }

    fn on_success(&self, operation: Option<&str>, headers: &HeaderMap) {
        if headers.contains_key(mcp_auth::dpop::NONCE_HEADER) {
            self.client
                .record_dpop_nonce(&to_response(200, headers, &[]));
        }
        self.client
            .on_success(operation.unwrap_or(UNKNOWN_OPERATION));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_map_for_dpop_htm() {
        assert_eq!(auth_method(&http::Method::POST), Method::Post);
        assert_eq!(auth_method(&http::Method::GET), Method::Get);
        assert_eq!(auth_method(&http::Method::DELETE), Method::Delete);
        assert_eq!(Method::Delete.as_str(), "DELETE");
    }

    #[test]
    fn responses_keep_every_challenge_and_header() {
        let mut headers = HeaderMap::new();
        headers.append("www-authenticate", HeaderValue::from_static("Bearer a"));
        headers.append("www-authenticate", HeaderValue::from_static("DPoP b"));
        headers.append("dpop-nonce", HeaderValue::from_static("n1"));
        let response = to_response(401, &headers, b"{}");
        assert_eq!(response.status, 401);
        assert_eq!(response.header_all("WWW-Authenticate").count(), 2);
        assert_eq!(response.header("dpop-nonce"), Some("n1"));
        assert_eq!(response.body, b"{}");
    }
}

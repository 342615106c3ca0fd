//! The `auth` family: every `auth/*` client scenario of the suite.
//!
//! Each scenario configures the public OAuth API (`mcp_client::oauth`) the
//! way a host application would, hands it to the HTTP transport with
//! [`HttpConfig::with_oauth`], and then does ordinary MCP work: connect
//! (`initialize` or `server/discover`, per the pinned revision), `tools/list`,
//! `tools/call test-tool`. The 401 challenge, discovery, registration,
//! authorization and token exchange all happen inside the transport; the
//! suite grades that traffic.
//!
//! Three shapes:
//!
//! * **Authorization code**, run headlessly (the suite's `/authorize`
//!   redirects at once): the core scenarios, with the redirect URI and Client
//!   ID Metadata Document URL the suite expects; `pre-registration` adds the
//!   context's credentials. The two `2025-03-26-*` scenarios are this shape
//!   too: the server has no protected resource metadata and `mcp-auth`
//!   falls back to the 2025-03-26 discovery (its origin's metadata, else the
//!   default endpoints) on its own.
//! * **Refusals**: in `resource-mismatch`, `iss-supported-missing`,
//!   `iss-wrong-issuer`, `iss-unexpected`, `iss-normalized` and
//!   `metadata-issuer-mismatch` a correct client refuses to authorize. The
//!   scenario succeeds only when the connection fails with an OAuth error
//!   (an [`AuthError`] in the error's source chain), and fails if the client
//!   got through.
//! * **Extensions** (client credentials, JWT bearer, enterprise-managed
//!   authorization, DPoP): credentials and keys come from the suite's
//!   context (`MCP_CONFORMANCE_CONTEXT`).

use std::sync::Arc;

use mcp_client::HttpConfig;
use mcp_client::oauth::dpop::DpopProver;
use mcp_client::oauth::handler::StaticAssertion;
use mcp_client::oauth::jwt::{Algorithm, SigningKey};
use mcp_client::oauth::registration::{ClientCredentials, RegistrationConfig};
use mcp_client::oauth::token_request::ID_TOKEN_TYPE;
use mcp_client::oauth::{AuthError, Flow, OAuthConfig, Secret};
use serde_json::json;

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{
    BOTH, MODERN, SINCE_2025_06_18, V2025_03_26, builder, expect_success, text_of, unexpected,
};

/// The redirect URI the suite's authorization server accepts.
pub const REDIRECT_URI: &str = "http://localhost:3333/callback";

/// The Client ID Metadata Document URL the suite's `basic-cimd` expects as
/// `client_id` (used whenever the server advertises CIMD support).
pub const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The tool every auth scenario's resource server offers.
const TEST_TOOL: &str = "test-tool";

/// Registers one scenario whose function takes the invocation.
macro_rules! scenario {
    ($name:literal, $revisions:expr, $run:path) => {
        Scenario::new($name, $revisions, |inv| {
            Box::pin($run(inv)) as ScenarioFuture<'_>
        })
    };
}

/// The family.
pub const FAMILY: Family = Family::new(
    "auth",
    &[
        scenario!("auth/metadata-default", BOTH, authorization_code),
        scenario!("auth/metadata-var1", BOTH, authorization_code),
        scenario!("auth/metadata-var2", BOTH, authorization_code),
        scenario!("auth/metadata-var3", BOTH, authorization_code),
        scenario!("auth/basic-cimd", BOTH, authorization_code),
        scenario!("auth/scope-from-www-authenticate", BOTH, authorization_code),
        scenario!("auth/scope-from-scopes-supported", BOTH, authorization_code),
        scenario!(
            "auth/scope-omitted-when-undefined",
            BOTH,
            authorization_code
        ),
        scenario!("auth/scope-step-up", BOTH, authorization_code),
        scenario!("auth/scope-retry-limit", BOTH, refusal),
        scenario!(
            "auth/token-endpoint-auth-basic",
            SINCE_2025_06_18,
            authorization_code
        ),
        scenario!(
            "auth/token-endpoint-auth-post",
            SINCE_2025_06_18,
            authorization_code
        ),
        scenario!(
            "auth/token-endpoint-auth-none",
            SINCE_2025_06_18,
            authorization_code
        ),
        scenario!("auth/pre-registration", BOTH, pre_registration),
        scenario!(
            "auth/2025-03-26-oauth-metadata-backcompat",
            V2025_03_26,
            authorization_code
        ),
        scenario!(
            "auth/2025-03-26-oauth-endpoint-fallback",
            V2025_03_26,
            authorization_code
        ),
        scenario!("auth/offline-access-scope", MODERN, authorization_code),
        scenario!(
            "auth/offline-access-not-supported",
            MODERN,
            authorization_code
        ),
        scenario!(
            "auth/authorization-server-migration",
            MODERN,
            authorization_code
        ),
        scenario!("auth/iss-supported", MODERN, authorization_code),
        scenario!("auth/iss-not-advertised", MODERN, authorization_code),
        scenario!("auth/resource-mismatch", MODERN, refusal),
        scenario!("auth/iss-supported-missing", MODERN, refusal),
        scenario!("auth/iss-wrong-issuer", MODERN, refusal),
        scenario!("auth/iss-unexpected", MODERN, refusal),
        scenario!("auth/iss-normalized", MODERN, refusal),
        scenario!("auth/metadata-issuer-mismatch", MODERN, refusal),
        scenario!(
            "auth/client-credentials-basic",
            BOTH,
            client_credentials_basic
        ),
        scenario!("auth/client-credentials-jwt", BOTH, client_credentials_jwt),
        scenario!("auth/wif-jwt-bearer", BOTH, wif_jwt_bearer),
        scenario!(
            "auth/enterprise-managed-authorization",
            BOTH,
            enterprise_managed
        ),
        scenario!("auth/dpop", BOTH, dpop),
        scenario!("auth/dpop-nonce", BOTH, dpop),
    ],
);

/// The registration settings a headless host would use against the suite.
fn registration() -> RegistrationConfig {
    RegistrationConfig::new(vec![REDIRECT_URI.to_owned()])
        .with_client_metadata_url(CLIENT_METADATA_URL)
}

/// A required string field of the scenario context.
fn context<'i>(invocation: &'i Invocation, key: &str) -> Result<&'i str, ScenarioError> {
    invocation
        .context_str(key)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| unexpected("context", format!("MCP_CONFORMANCE_CONTEXT has no {key:?}")))
}

/// A required secret field of the scenario context.
fn context_secret(invocation: &Invocation, key: &str) -> Result<Secret, ScenarioError> {
    context(invocation, key).map(Secret::new)
}

/// A failed run, and whether it ended in an authorization refusal: the
/// server still answered 401/403 ([`mcp_client::Error::is_unauthorized`]) or
/// an OAuth error ([`AuthError`]) is in the error's source chain.
/// A refusal by the client's own OAuth checks (a wrong `iss`, a mismatched
/// `resource`) arrives as a typed [`AuthError`] in that chain too
/// ([`mcp_client::Error::is_authorization_failed`]).
#[derive(Debug)]
struct Failure {
    error: ScenarioError,
    refused_by_oauth: bool,
}

impl Failure {
    /// A client error at `step`.
    fn client(step: &str, error: &mcp_client::Error) -> Failure {
        let mut refused_by_oauth = error.is_unauthorized();
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(e) = source {
            refused_by_oauth |= e.is::<AuthError>();
            source = e.source();
        }
        Failure {
            error: unexpected(step, error),
            refused_by_oauth,
        }
    }
}

impl From<ScenarioError> for Failure {
    fn from(error: ScenarioError) -> Failure {
        Failure {
            error,
            refused_by_oauth: false,
        }
    }
}

impl From<Failure> for ScenarioError {
    fn from(failure: Failure) -> ScenarioError {
        failure.error
    }
}

/// Connects with `oauth` and does the scenario's MCP work: list the tools,
/// check `test-tool` is there, call it.
async fn run_with(invocation: &Invocation, oauth: OAuthConfig) -> Result<(), Failure> {
    let http = HttpConfig::new(&invocation.server_url)
        .and_then(|c| c.with_oauth(oauth))
        .map_err(|e| unexpected("HTTP configuration", e))?;
    let client = builder(invocation)
        .http_config(http)
        .connect()
        .await
        .map_err(|e| Failure::client("connect", &e))?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| Failure::client("tools/list", &e))?;
    if !tools.iter().any(|t| t.name == TEST_TOOL) {
        return Err(unexpected("tools/list", format!("no tool {TEST_TOOL:?}")).into());
    }
    let result = client
        .call_tool(TEST_TOOL, json!({}))
        .await
        .map_err(|e| Failure::client("tools/call test-tool", &e))?;
    expect_success(TEST_TOOL, &result)?;
    if text_of(&result).is_empty() {
        return Err(unexpected("tools/call test-tool", "the result has no text").into());
    }
    client.close().await;
    Ok(())
}

/// The authorization code flow with PKCE, registering by CIMD or DCR as the
/// server allows.
async fn authorization_code(invocation: &Invocation) -> Result<(), ScenarioError> {
    Ok(run_with(invocation, headless()).await?)
}

/// The headless authorization code configuration.
fn headless() -> OAuthConfig {
    OAuthConfig::headless_authorization_code(registration())
}

/// Scenarios in which a correct client refuses to authorize: the run
/// fails if the client got through. This includes `scope-retry-limit`, where
/// the server answers 403 `insufficient_scope` forever: the transport
/// re-authorizes a bounded number of times and then gives up with an OAuth
/// error.
async fn refusal(invocation: &Invocation) -> Result<(), ScenarioError> {
    expect_auth_error(run_with(invocation, headless()).await)
}

/// Turns "the flow was refused by the OAuth layer" into success, and
/// anything else (success included) into a failure.
fn expect_auth_error(outcome: Result<(), Failure>) -> Result<(), ScenarioError> {
    match outcome {
        Ok(()) => Err(unexpected(
            "authorization",
            "the client completed a flow it must refuse",
        )),
        Err(Failure {
            error,
            refused_by_oauth: true,
        }) => {
            eprintln!("conformance: refused as required: {error}");
            Ok(())
        }
        Err(Failure { error, .. }) => Err(error),
    }
}

/// `pre-registration`: the client credentials come from the context (the
/// server has no registration endpoint).
async fn pre_registration(invocation: &Invocation) -> Result<(), ScenarioError> {
    let credentials = ClientCredentials::new(
        context(invocation, "client_id")?,
        Some(context_secret(invocation, "client_secret")?),
        Some(context(invocation, "issuer")?.to_owned()),
    );
    Ok(run_with(
        invocation,
        OAuthConfig::headless_authorization_code(registration().with_pre_registered(credentials)),
    )
    .await?)
}

/// `client-credentials-basic`: the client credentials grant, authenticating
/// with `client_secret_basic`.
async fn client_credentials_basic(invocation: &Invocation) -> Result<(), ScenarioError> {
    let credentials = ClientCredentials::new(
        context(invocation, "client_id")?,
        Some(context_secret(invocation, "client_secret")?),
        None,
    );
    Ok(run_with(invocation, OAuthConfig::client_credentials(credentials)).await?)
}

/// `client-credentials-jwt`: the client credentials grant, authenticating
/// with a `private_key_jwt` assertion signed by the context's ES256 key.
async fn client_credentials_jwt(invocation: &Invocation) -> Result<(), ScenarioError> {
    let credentials = ClientCredentials::new(context(invocation, "client_id")?, None, None)
        .with_auth_method("private_key_jwt");
    let key = SigningKey::from_pem(context(invocation, "private_key_pem")?, Algorithm::Es256)
        .map_err(|e| unexpected("signing key", e))?;
    Ok(run_with(
        invocation,
        OAuthConfig::client_credentials(credentials).with_signing_key(key),
    )
    .await?)
}

/// `wif-jwt-bearer`: workload identity federation, the JWT bearer grant
/// with the workload's token from the context.
async fn wif_jwt_bearer(invocation: &Invocation) -> Result<(), ScenarioError> {
    let flow = Flow::JwtBearer {
        credentials: ClientCredentials::new(context(invocation, "client_id")?, None, None),
        assertion: Arc::new(StaticAssertion(context_secret(invocation, "valid_jwt")?)),
    };
    Ok(run_with(invocation, OAuthConfig::new(flow)).await?)
}

/// `enterprise-managed-authorization`: exchange the IdP's ID token for an
/// ID-JAG at the IdP, then the ID-JAG for an access token at the MCP
/// server's authorization server.
async fn enterprise_managed(invocation: &Invocation) -> Result<(), ScenarioError> {
    let flow = Flow::EnterpriseManaged {
        idp_token_endpoint: context(invocation, "idp_token_endpoint")?.to_owned(),
        idp_credentials: ClientCredentials::new(context(invocation, "idp_client_id")?, None, None),
        id_token: Arc::new(StaticAssertion(context_secret(invocation, "idp_id_token")?)),
        subject_token_type: ID_TOKEN_TYPE.to_owned(),
        credentials: ClientCredentials::new(
            context(invocation, "client_id")?,
            Some(context_secret(invocation, "client_secret")?),
            None,
        ),
    };
    Ok(run_with(invocation, OAuthConfig::new(flow)).await?)
}

/// `dpop` and `dpop-nonce`: the authorization code flow with DPoP-bound
/// tokens (a fresh P-256 key; server nonces are retried by the transport).
async fn dpop(invocation: &Invocation) -> Result<(), ScenarioError> {
    let prover = DpopProver::generate().map_err(|e| unexpected("DPoP key", e))?;
    Ok(run_with(
        invocation,
        OAuthConfig::headless_authorization_code(registration()).with_dpop(Arc::new(prover)),
    )
    .await?)
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn invocation(context: Option<&str>) -> Invocation {
        let env = |name: &str| match name {
            "MCP_CONFORMANCE_SCENARIO" => Some(OsString::from("auth/pre-registration")),
            "MCP_CONFORMANCE_CONTEXT" => context.map(OsString::from),
            _ => None,
        };
        Invocation::parse([OsString::from("http://127.0.0.1:9/mcp")], env).expect("valid")
    }

    #[test]
    fn context_fields_are_required_and_non_empty() {
        let inv = invocation(Some(r#"{"client_id":"c1","client_secret":"","n":1}"#));
        assert_eq!(context(&inv, "client_id").map_err(|e| e.0), Ok("c1"));
        for key in ["client_secret", "n", "issuer"] {
            let err = context(&inv, key).map(str::to_owned).map_err(|e| e.0);
            assert!(
                err.as_ref().is_err_and(|e| e.contains(key)),
                "{key}: {err:?}"
            );
        }
        assert!(context(&invocation(None), "client_id").is_err());
    }

    #[test]
    fn a_refusal_scenario_passes_only_on_an_authorization_refusal() {
        let refused = Failure {
            error: ScenarioError("connect: 403".into()),
            refused_by_oauth: true,
        };
        let other = Failure::from(ScenarioError("connect: connection refused".into()));
        assert!(expect_auth_error(Err(refused)).is_ok());
        assert_eq!(
            expect_auth_error(Err(other)).map_err(|e| e.0),
            Err("connect: connection refused".to_owned())
        );
        assert!(expect_auth_error(Ok(())).is_err());
    }

    #[tokio::test]
    async fn a_missing_credential_fails_before_any_network_traffic() {
        // Port 9 on loopback: nothing is sent because the context check
        // comes first.
        let inv = invocation(Some(r#"{"client_id":"c1"}"#));
        let err = pre_registration(&inv).await.map_err(|e| e.0);
        assert!(
            err.as_ref().is_err_and(|e| e.contains("client_secret")),
            "{err:?}"
        );
        let err = client_credentials_jwt(&inv).await.map_err(|e| e.0);
        assert!(
            err.as_ref().is_err_and(|e| e.contains("private_key_pem")),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn an_invalid_signing_key_is_a_typed_error() {
        let inv = invocation(Some(
            r#"{"client_id":"c1","private_key_pem":"-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"}"#,
        ));
        let err = client_credentials_jwt(&inv).await.map_err(|e| e.0);
        assert!(
            err.as_ref().is_err_and(|e| e.starts_with("signing key")),
            "{err:?}"
        );
    }
}

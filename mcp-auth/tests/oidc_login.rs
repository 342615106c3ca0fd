//! OpenID Connect sign-in at an enterprise IdP, refresh, and the ID token feeding
//! the enterprise-managed flow, against an in-process IdP (no sockets).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_auth::handler::{AuthorizationHandler, Clock};
use mcp_auth::http::{BoxFuture, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use mcp_auth::oidc::{IdTokenError, IdentityProvider, IdpAssertion, IdpSession};
use mcp_auth::pkce::s256_challenge;
use mcp_auth::random::SeededRandom;
use mcp_auth::registration::ClientCredentials;
use mcp_auth::{AuthError, OAuthClient};
use serde_json::{Value, json};
use support::*;
use url::Url;

const IDP: &str = "https://idp.example.com";
const CLIENT: &str = "cli-at-idp";

/// What the IdP was asked and how it misbehaves.
#[derive(Default)]
struct IdpState {
    /// code -> (challenge, nonce)
    codes: HashMap<String, (String, String)>,
    grants: Vec<HashMap<String, String>>,
    issued: u32,
    /// The `iss` put in ID tokens (default: the issuer).
    token_iss: Option<String>,
    /// Replace the nonce in the ID token.
    wrong_nonce: bool,
}

/// The IdP at `idp.example.com`; everything else goes to the MCP fake.
struct Idp {
    mcp: Arc<Fake>,
    state: Mutex<IdpState>,
    clock: Arc<TestClock>,
}

fn jwt(claims: &Value) -> String {
    let enc = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.sig", enc(&json!({"alg": "RS256"})), enc(claims))
}

impl Idp {
    fn new(clock: Arc<TestClock>) -> Arc<Self> {
        Arc::new(Self {
            mcp: Fake::new(Knobs::default()),
            state: Mutex::new(IdpState::default()),
            clock,
        })
    }

    fn id_token(&self, st: &mut IdpState, nonce: Option<&str>) -> String {
        st.issued += 1;
        let mut c = json!({
            "iss": st.token_iss.clone().unwrap_or_else(|| IDP.to_owned()),
            "aud": CLIENT, "sub": "alice", "email": "alice@example.com",
            "exp": mcp_auth::token::unix_secs(self.clock.now()) + 600, "n": st.issued,
        });
        if let Some(n) = nonce {
            c["nonce"] = json!(if st.wrong_nonce { "other" } else { n });
        }
        jwt(&c)
    }

    fn token(&self, body: &[u8]) -> HttpResponse {
        let f: HashMap<String, String> = url::form_urlencoded::parse(body).into_owned().collect();
        let mut st = self.state.lock().unwrap();
        st.grants.push(f.clone());
        let bad = || HttpResponse::json(400, &json!({"error": "invalid_grant"}));
        match f.get("grant_type").map(String::as_str) {
            Some("authorization_code") => {
                let Some((challenge, nonce)) = st.codes.remove(&f["code"]) else {
                    return bad();
                };
                if s256_challenge(&f["code_verifier"]) != challenge {
                    return bad();
                }
                let id = self.id_token(&mut st, Some(&nonce));
                HttpResponse::json(
                    200,
                    &json!({"access_token": "idp-at", "token_type": "Bearer",
                            "id_token": id, "refresh_token": "idp-rt-1"}),
                )
            }
            Some("refresh_token") if f["refresh_token"] == "idp-rt-1" => {
                let id = self.id_token(&mut st, None);
                HttpResponse::json(
                    200,
                    &json!({"access_token": "idp-at-2", "token_type": "Bearer", "id_token": id}),
                )
            }
            Some("urn:ietf:params:oauth:grant-type:token-exchange") => HttpResponse::json(
                200,
                &json!({"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                        "access_token": "jag-1", "token_type": "N_A", "expires_in": 300}),
            ),
            _ => bad(),
        }
    }
}

impl HttpClient for Idp {
    fn send(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, HttpError>> {
        Box::pin(async move {
            let url = Url::parse(&req.url).unwrap();
            if url.host_str() != Some("idp.example.com") {
                return self.mcp.send(req).await;
            }
            Ok(match (req.method, url.path()) {
                (Method::Get, "/.well-known/openid-configuration") => HttpResponse::json(
                    200,
                    &json!({
                        "issuer": IDP,
                        "authorization_endpoint": format!("{IDP}/authorize"),
                        "token_endpoint": format!("{IDP}/token"),
                        "end_session_endpoint": format!("{IDP}/logout"),
                        "code_challenge_methods_supported": ["S256"],
                        "token_endpoint_auth_methods_supported": ["client_secret_post"],
                    }),
                ),
                (Method::Post, "/token") => self.token(&req.body),
                _ => HttpResponse::new(404, vec![], vec![]),
            })
        })
    }
}

/// The user at the IdP: approves and redirects with a code.
struct IdpBrowser(Arc<Idp>);

impl AuthorizationHandler for IdpBrowser {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let q: HashMap<String, String> = Url::parse(url)
                .unwrap()
                .query_pairs()
                .into_owned()
                .collect();
            assert_eq!(q["scope"], "openid offline_access");
            assert_eq!(q["client_id"], CLIENT);
            assert!(!url.contains("secret"), "{url}");
            let mut st = self.0.state.lock().unwrap();
            st.codes.insert(
                "c1".into(),
                (q["code_challenge"].clone(), q["nonce"].clone()),
            );
            let mut r = Url::parse(&q["redirect_uri"]).unwrap();
            r.query_pairs_mut()
                .append_pair("code", "c1")
                .append_pair("state", &q["state"]);
            Ok(r.to_string())
        })
    }
}

fn provider(idp: &Arc<Idp>, clock: Arc<TestClock>) -> Arc<IdentityProvider> {
    Arc::new(
        IdentityProvider::new(IDP, CLIENT, Some("idp-secret".into()), idp.clone())
            .unwrap()
            .with_random(Arc::new(SeededRandom::new(5)))
            .with_clock(clock),
    )
}

async fn sign_in(idp: &Arc<Idp>) -> Result<IdpSession, AuthError> {
    provider(idp, idp.clock.clone())
        .sign_in(&IdpBrowser(idp.clone()), REDIRECT)
        .await
}

#[tokio::test]
async fn sign_in_keeps_a_checked_id_token_with_its_refresh_token() {
    let idp = Idp::new(TestClock::at(1_000));
    let session = sign_in(&idp).await.unwrap();
    assert_eq!(session.issuer, IDP);
    assert_eq!(session.expires_at, 1_600);
    assert_eq!(session.display_name.as_deref(), Some("alice@example.com"));
    assert_eq!(session.refresh_token.as_ref().unwrap().expose(), "idp-rt-1");
    let st = idp.state.lock().unwrap();
    // client_secret_post, as the IdP metadata asks; the code redeemed with PKCE.
    assert_eq!(st.grants[0]["client_secret"], "idp-secret");
    assert_eq!(st.grants[0]["redirect_uri"], REDIRECT);
    let printed = format!("{session:?}");
    assert!(
        !printed.contains("idp-rt-1") && !printed.contains(".sig"),
        "{printed}"
    );
    let logout = session.logout_url().unwrap();
    assert_eq!(logout.as_str(), format!("{IDP}/logout?client_id={CLIENT}"));
}

#[tokio::test]
async fn sign_in_refuses_a_wrong_nonce_or_issuer() {
    let idp = Idp::new(TestClock::at(1_000));
    idp.state.lock().unwrap().wrong_nonce = true;
    let err = sign_in(&idp).await.unwrap_err();
    assert!(
        matches!(err, AuthError::IdToken(IdTokenError::Nonce)),
        "{err}"
    );
    let idp = Idp::new(TestClock::at(1_000));
    idp.state.lock().unwrap().token_iss = Some("https://evil.example.com".into());
    let err = sign_in(&idp).await.unwrap_err();
    assert!(
        matches!(err, AuthError::IdToken(IdTokenError::Issuer { .. })),
        "{err}"
    );
}

#[tokio::test]
async fn expired_id_token_is_refreshed_before_the_enterprise_exchange() {
    let clock = TestClock::at(1_000);
    let idp = Idp::new(clock.clone());
    let session = sign_in(&idp).await.unwrap();
    let first = session.id_token.clone();
    let provider = provider(&idp, clock.clone());
    let saved = Arc::new(Mutex::new(Vec::new()));
    let hook = saved.clone();
    let on_refresh = Box::new(move |s: &IdpSession| hook.lock().unwrap().push(s.clone()));
    let assertion =
        Arc::new(IdpAssertion::new(provider.clone(), session, Some(on_refresh)).unwrap());
    // Still fresh: no refresh.
    assert_eq!(assertion.id_token().await.unwrap(), first);
    assert_eq!(idp.state.lock().unwrap().grants.len(), 1);
    clock.advance(600);
    let flow = provider.enterprise_flow(
        assertion.clone(),
        ClientCredentials::new("mcp-client", Some("mcp-secret".into()), None),
    );
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), idp.clone(), flow)
        .clock(clock.clone())
        .build();
    let resp = call(&client, &idp.mcp, "x").await.unwrap();
    assert_eq!(resp.status, 200);
    let refreshed = assertion.session().await;
    assert_ne!(refreshed.id_token, first);
    assert_eq!(refreshed.expires_at, 2_200);
    // The refresh kept the refresh token the IdP did not rotate.
    assert_eq!(
        refreshed.refresh_token.as_ref().unwrap().expose(),
        "idp-rt-1"
    );
    assert_eq!(*saved.lock().unwrap(), vec![refreshed.clone()]);
    let st = idp.state.lock().unwrap();
    let kinds: Vec<&str> = st.grants.iter().map(|g| g["grant_type"].as_str()).collect();
    assert_eq!(
        kinds,
        [
            "authorization_code",
            "refresh_token",
            "urn:ietf:params:oauth:grant-type:token-exchange"
        ]
    );
    assert_eq!(st.grants[2]["subject_token"], refreshed.id_token.expose());
    assert_eq!(st.grants[2]["audience"], ISSUER);
    // The exchange authenticates as the sign-in did (the IdP allows only _post).
    assert_eq!(st.grants[2]["client_secret"], "idp-secret");
    // The MCP authorization server redeemed the ID-JAG.
    let mcp = idp.mcp.log.lock().unwrap();
    assert_eq!(mcp.grants.last().unwrap()["assertion"], "jag-1");
    assert!(mcp.authorize_queries.is_empty());
}

#[tokio::test]
async fn a_session_without_refresh_token_asks_to_sign_in_again() {
    let clock = TestClock::at(1_000);
    let idp = Idp::new(clock.clone());
    let mut session = sign_in(&idp).await.unwrap();
    session.refresh_token = None;
    let assertion = IdpAssertion::new(provider(&idp, clock.clone()), session, None).unwrap();
    clock.advance(700);
    let err = assertion.id_token().await.unwrap_err();
    assert!(err.to_string().contains("sign in again"), "{err}");
    let other = IdentityProvider::new(IDP, "someone-else", None, idp.clone()).unwrap();
    let s = sign_in(&idp).await.unwrap();
    assert!(IdpAssertion::new(Arc::new(other), s, None).is_err());
}

#[tokio::test]
async fn the_file_store_keeps_idp_sessions_next_to_tokens() {
    use mcp_auth::store::{FileStore, TokenKey, TokenStore};
    let idp = Idp::new(TestClock::at(1_000));
    let session = sign_in(&idp).await.unwrap();
    let dir = std::env::temp_dir().join(format!("mcp-auth-oidc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = FileStore::new(dir.join("oauth.json"));
    store.save_idp_session(&session).unwrap();
    let key = TokenKey::new("r", "i");
    let tokens =
        mcp_auth::token::TokenSet::new("at".into(), mcp_auth::security::TokenScheme::Bearer);
    // Saving OAuth tokens keeps the sign-in, and the reverse.
    store.save_tokens(&key, &tokens).unwrap();
    let again = FileStore::new(dir.join("oauth.json"));
    assert_eq!(again.idp_sessions().unwrap(), vec![session.clone()]);
    assert_eq!(again.load_tokens(&key).unwrap(), Some(tokens));
    assert_eq!(again.remove_idp_session(IDP).unwrap(), Some(session));
    assert!(store.idp_sessions().unwrap().is_empty());
    assert_eq!(store.remove_idp_session(IDP).unwrap(), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

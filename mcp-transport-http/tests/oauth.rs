//! OAuth 2.1 end to end over loopback: the transport with an
//! [`OAuthProvider`] against an in-test authorization server and protected
//! MCP server (authorization code with PKCE and DCR, refresh single flight,
//! step-up, client credentials, DPoP with nonces), and the OAuth HTTP client
//! on the transport's stack (TLS, proxy, no redirects, bounded bodies,
//! timeouts).
#![allow(clippy::unwrap_used)]

mod oauth_server;
mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_auth::Secret;
use mcp_auth::dpop::DpopProver;
use mcp_auth::handler::Clock;
use mcp_auth::http::{HttpClient, HttpError as OAuthHttpError, HttpRequest};
use mcp_auth::registration::{ClientCredentials, RegistrationConfig};
use mcp_auth::store::{MemoryStore, TokenStore};
use mcp_transport_http::oauth::{OAuthConfig, OAuthHttpClient, OAuthProvider};
use mcp_transport_http::{
    HttpConfig, HttpError, HttpTransport, ProxyConfig, Reply, RootStore, TlsConfig,
};
use oauth_server::{Knobs, OAuthWorld};
use support::{Step, config, modern, ms, request, within};

const REDIRECT: &str = "http://127.0.0.1:8976/callback";

fn headless() -> OAuthConfig {
    OAuthConfig::headless_authorization_code(RegistrationConfig::new(vec![REDIRECT.into()]))
}

fn transport(world: &OAuthWorld, oauth: OAuthConfig) -> HttpTransport {
    let config = config(&world.mcp_url()).with_oauth(oauth).unwrap();
    HttpTransport::new(config).unwrap()
}

async fn call(t: &HttpTransport, id: i64, method: &str) -> Result<(), HttpError> {
    match within(ms(10_000), t.send(request(id, method), &modern(id, method))).await? {
        Reply::Message(m) => {
            assert!(format!("{m:?}").contains("tools"), "{m:?}");
            Ok(())
        }
        other => panic!("unexpected reply {other:?}"),
    }
}

#[tokio::test]
async fn authorization_code_flow_with_pkce_and_dynamic_registration() {
    let world = OAuthWorld::start(Knobs::default()).await;
    let t = transport(&world, headless());
    call(&t, 1, "tools/list").await.unwrap();
    call(&t, 2, "tools/list").await.unwrap();

    let record = world.record.lock().unwrap();
    // Discovery: the challenge's PRM, then RFC 8414 metadata of the issuer.
    assert_eq!(
        record.metadata_gets,
        [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server"
        ]
    );
    // One registration, asking only for what the flow needs.
    assert_eq!(record.registrations.len(), 1);
    let reg = &record.registrations[0];
    assert_eq!(reg["application_type"], "native");
    assert_eq!(reg["redirect_uris"], serde_json::json!([REDIRECT]));
    assert_eq!(
        reg["grant_types"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );
    // One authorization with PKCE S256, state and the exact resource.
    assert_eq!(record.authorizations.len(), 1);
    let auth = &record.authorizations[0];
    assert_eq!(auth["client_id"], "dyn-client");
    assert_eq!(auth["resource"], world.mcp_url());
    assert!(auth["state"].len() >= 16);
    assert_eq!(auth["code_challenge"].len(), 43);
    assert!(!auth.contains_key("scope"), "no scope anywhere: omit it");
    // One code redemption (the server checked the verifier and resource).
    assert_eq!(record.token_calls.len(), 1);
    assert_eq!(
        record.token_calls[0].form["grant_type"],
        "authorization_code"
    );
    // The first call went out bare, was retried with the token, the second
    // reused it.
    let calls: Vec<Option<&str>> = record.mcp_calls.iter().map(|c| c.1.as_deref()).collect();
    assert_eq!(calls, [None, Some("Bearer tok-2"), Some("Bearer tok-2")]);
}

#[tokio::test]
async fn a_new_transport_resumes_from_the_token_store() {
    let world = OAuthWorld::start(Knobs::default()).await;
    let store: Arc<dyn TokenStore> = Arc::new(MemoryStore::new());
    let first = transport(&world, headless().with_store(store.clone()));
    call(&first, 1, "tools/list").await.unwrap();
    drop(first);
    let second = transport(&world, headless().with_store(store));
    call(&second, 2, "tools/list").await.unwrap();
    let record = world.record.lock().unwrap();
    assert_eq!(record.registrations.len(), 1);
    assert_eq!(record.authorizations.len(), 1);
    assert_eq!(record.token_calls.len(), 1);
    let last = record.mcp_calls.last().unwrap().1.as_deref();
    assert_eq!(last, Some("Bearer tok-2"));
}

#[tokio::test]
async fn the_legacy_era_authorizes_the_same_way() {
    let world = OAuthWorld::start(Knobs::default()).await;
    let t = transport(&world, headless());
    let reply = t
        .send(request(1, "initialize"), &support::legacy(1, None))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Message(_)));
    assert_eq!(world.grants("authorization_code"), 1);
}

/// A clock the test moves forward.
#[derive(Debug, Default)]
struct TestClock(AtomicU64);

impl TestClock {
    fn advance(&self, secs: u64) {
        self.0.fetch_add(secs, Ordering::SeqCst);
    }
}

impl Clock for TestClock {
    fn now(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000 + self.0.load(Ordering::SeqCst))
    }
}

#[tokio::test]
async fn concurrent_requests_authorize_once_then_refresh_once_on_expiry() {
    let knobs = Knobs {
        first_expires_in: 600,
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let clock = Arc::new(TestClock::default());
    let t = transport(&world, headless().with_clock(clock.clone()));
    let burst = |from: i64| {
        let calls = (from..from + 8).map(|i| {
            let t = t.clone();
            async move { call(&t, i, "tools/list").await }
        });
        futures::future::join_all(calls)
    };
    // Eight first requests, all refused: one login between them.
    for result in burst(0).await {
        result.unwrap();
    }
    {
        let record = world.record.lock().unwrap();
        assert_eq!(record.registrations.len(), 1);
        assert_eq!(record.authorizations.len(), 1);
    }
    assert_eq!(world.grants("authorization_code"), 1);
    assert_eq!(world.grants("refresh_token"), 0);
    // The token expires: eight requests, one refresh before they go out.
    clock.advance(3600);
    let before = world.record.lock().unwrap().mcp_calls.len();
    for result in burst(100).await {
        result.unwrap();
    }
    assert_eq!(world.grants("refresh_token"), 1, "single flight");
    assert_eq!(world.grants("authorization_code"), 1);
    let record = world.record.lock().unwrap();
    assert_eq!(
        record.mcp_calls.len() - before,
        8,
        "refreshed before sending"
    );
    assert!(
        record.mcp_calls[before..]
            .iter()
            .all(|c| c.1.as_deref() == Some("Bearer tok-3"))
    );
    drop(record);
    // The refresh sent the refresh token and the resource.
    let refresh = world
        .token_calls()
        .into_iter()
        .find(|c| c.form["grant_type"] == "refresh_token")
        .unwrap();
    assert_eq!(refresh.form["resource"], world.mcp_url());
    assert_eq!(refresh.form["refresh_token"], "rt-2");
}

#[tokio::test]
async fn a_401_on_a_revoked_token_refreshes_once_for_concurrent_requests() {
    let world = OAuthWorld::start(Knobs::default()).await;
    let t = transport(&world, headless());
    call(&t, 1, "tools/list").await.unwrap();
    world.revoke_all();
    let calls = (10..16).map(|i| {
        let t = t.clone();
        async move { call(&t, i, "tools/list").await }
    });
    for result in futures::future::join_all(calls).await {
        result.unwrap();
    }
    assert_eq!(world.grants("refresh_token"), 1, "single flight");
    assert_eq!(world.grants("authorization_code"), 1, "no new login");
    assert_eq!(world.record.lock().unwrap().authorizations.len(), 1);
}

#[tokio::test]
async fn step_up_on_insufficient_scope_requests_the_union() {
    let knobs = Knobs {
        challenge_scope: Some("read".into()),
        needs: HashMap::from([("tools/call".to_owned(), "read write".to_owned())]),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let t = transport(&world, headless());
    call(&t, 1, "tools/list").await.unwrap();
    call(&t, 2, "tools/call").await.unwrap();
    call(&t, 3, "tools/call").await.unwrap();
    let record = world.record.lock().unwrap();
    assert_eq!(record.authorizations.len(), 2);
    assert_eq!(record.authorizations[0]["scope"], "read");
    let mut second: Vec<&str> = record.authorizations[1]["scope"].split(' ').collect();
    second.sort_unstable();
    assert_eq!(second, ["read", "write"]);
    assert_eq!(record.registrations.len(), 1, "the client is reused");
}

#[tokio::test]
async fn step_up_that_never_satisfies_the_server_is_bounded() {
    let knobs = Knobs {
        needs: HashMap::from([("tools/call".to_owned(), "admin".to_owned())]),
        grant_scope: Some("read".into()),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    // The server never grants the scope it wants: step-up cannot succeed.
    let t = transport(&world, headless().with_max_attempts(2));
    call(&t, 1, "tools/list").await.unwrap();
    let mut errors = 0;
    for id in 2..8 {
        match call(&t, id, "tools/call").await {
            Err(HttpError::Unauthorized { status, .. }) => {
                assert_eq!(status, 403);
                errors += 1;
            }
            Err(HttpError::Auth(_)) => errors += 1,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    assert_eq!(errors, 6);
    let authorizations = world.record.lock().unwrap().authorizations.len();
    assert!(authorizations <= 1 + 2, "{authorizations} authorizations");
}

#[tokio::test]
async fn client_credentials_with_basic_authentication_ahead_of_time() {
    let knobs = Knobs {
        auth_methods: vec!["client_secret_basic".into()],
        dcr: false,
        basic_client: Some(("svc".into(), "s3cret".into())),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let creds = ClientCredentials::new("svc", Some(Secret::new("s3cret")), None);
    let base = config(&world.mcp_url());
    let provider = OAuthProvider::new(&base, OAuthConfig::client_credentials(creds)).unwrap();
    // Pre-authorization runs discovery without a challenge (well-known PRM).
    within(ms(10_000), provider.authorize()).await.unwrap();
    let t = HttpTransport::new(base.with_auth(Arc::new(provider.clone()))).unwrap();
    call(&t, 1, "tools/list").await.unwrap();
    let record = world.record.lock().unwrap();
    assert!(record.authorizations.is_empty());
    assert!(record.registrations.is_empty());
    assert_eq!(record.token_calls.len(), 1);
    let token = &record.token_calls[0];
    assert_eq!(token.form["grant_type"], "client_credentials");
    assert_eq!(token.form["resource"], world.mcp_url());
    assert!(!token.form.contains_key("client_secret"));
    assert_eq!(record.mcp_calls.len(), 1, "no 401 round trip");
    assert!(!format!("{provider:?}").contains("tok-"));
}

#[tokio::test]
async fn client_credentials_on_the_first_401() {
    let knobs = Knobs {
        auth_methods: vec!["client_secret_basic".into()],
        dcr: false,
        basic_client: Some(("svc".into(), "s3cret".into())),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let creds = ClientCredentials::new("svc", Some(Secret::new("s3cret")), None);
    let t = transport(&world, OAuthConfig::client_credentials(creds));
    call(&t, 1, "tools/list").await.unwrap();
    assert_eq!(world.grants("client_credentials"), 1);
}

#[tokio::test]
async fn dpop_bound_tokens_with_server_nonces() {
    let knobs = Knobs {
        dpop: true,
        as_nonce: Some("as-nonce-1".into()),
        rs_nonce: Some("rs-nonce-1".into()),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let prover = Arc::new(DpopProver::generate().unwrap());
    let t = transport(&world, headless().with_dpop(prover.clone()));
    call(&t, 1, "tools/list").await.unwrap();
    call(&t, 2, "tools/list").await.unwrap();
    // The token endpoint asked for its nonce once; the retry carried it.
    let token_calls = world.token_calls();
    assert_eq!(token_calls.len(), 2);
    assert!(token_calls[0].dpop.as_ref().unwrap().get("nonce").is_none());
    assert_eq!(token_calls[1].dpop.as_ref().unwrap()["nonce"], "as-nonce-1");
    // The MCP requests carried the DPoP scheme (the server checked proof,
    // `ath` and its nonce).
    let record = world.record.lock().unwrap();
    let last = record.mcp_calls.last().unwrap().1.clone().unwrap();
    assert!(last.starts_with("DPoP tok-"), "{last}");
    let calls: Vec<&str> = record
        .mcp_calls
        .iter()
        .map(|c| c.1.as_deref().unwrap_or("-").split(' ').next().unwrap())
        .collect();
    // Bare; with the token but no nonce (refused); with the nonce; again.
    assert_eq!(calls, ["-", "DPoP", "DPoP", "DPoP"]);
}

#[tokio::test]
async fn a_nonce_rotated_on_a_success_is_used_without_a_new_challenge() {
    let knobs = Knobs {
        dpop: true,
        rs_nonce: Some("rs-nonce-1".into()),
        rotate_rs_nonce: Some("rs-nonce-2".into()),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let prover = Arc::new(DpopProver::generate().unwrap());
    let t = transport(&world, headless().with_dpop(prover));
    call(&t, 1, "tools/list").await.unwrap();
    call(&t, 2, "tools/list").await.unwrap();
    let record = world.record.lock().unwrap();
    let nonces: Vec<Option<&str>> = record
        .rs_proof_nonces
        .iter()
        .map(Option::as_deref)
        .collect();
    assert_eq!(nonces, [None, Some("rs-nonce-1"), Some("rs-nonce-2")]);
    assert_eq!(record.mcp_calls.len(), 4, "no 401 after the rotation");
}

#[tokio::test]
async fn one_request_may_authorize_learn_a_nonce_and_step_up() {
    let knobs = Knobs {
        dpop: true,
        rs_nonce: Some("rs-nonce-1".into()),
        challenge_scope: Some("read".into()),
        needs: HashMap::from([("tools/list".to_owned(), "read write".to_owned())]),
        ..Knobs::default()
    };
    let world = OAuthWorld::start(knobs).await;
    let prover = Arc::new(DpopProver::generate().unwrap());
    let t = transport(&world, headless().with_dpop(prover));
    call(&t, 1, "tools/list").await.unwrap();
    let record = world.record.lock().unwrap();
    // 401 (authorize), 401 (nonce), 403 (step up), then success.
    assert_eq!(record.mcp_calls.len(), 4);
    assert_eq!(record.authorizations.len(), 2);
    assert_eq!(record.authorizations[1]["scope"], "read write");
}

// ---- the OAuth HTTP client on the transport's stack ----

#[tokio::test]
async fn oauth_http_client_does_not_follow_redirects() {
    let server = support::serve(|_, _| {
        http::Response::builder()
            .status(302)
            .header("location", "http://127.0.0.1:1/elsewhere")
            .body(support::full(""))
            .unwrap()
    })
    .await;
    let http = OAuthHttpClient::new(&config(&server.url)).unwrap();
    let resp = http
        .send(HttpRequest::get(server.url.clone()))
        .await
        .unwrap();
    assert_eq!(resp.status, 302);
    assert_eq!(
        resp.header("location"),
        Some("http://127.0.0.1:1/elsewhere")
    );
    assert_eq!(server.state.seen().len(), 1);
}

#[tokio::test]
async fn oauth_http_client_bounds_bodies_and_time() {
    let server = support::serve(|seen, _| {
        if seen.path == "/big" {
            support::json(200, &format!("\"{}\"", "x".repeat(10_000)))
        } else {
            support::sse(vec![Step::Hang], None)
        }
    })
    .await;
    let base = format!("http://{}", server.addr);
    let http = OAuthHttpClient::new(&config(&server.url))
        .unwrap()
        .with_timeout(ms(300));
    let mut big = HttpRequest::get(format!("{base}/big"));
    big.max_body_bytes = 1_000;
    assert!(matches!(
        http.send(big).await,
        Err(OAuthHttpError::BodyTooLarge { limit: 1_000 })
    ));
    let hang = within(
        ms(5_000),
        http.send(HttpRequest::get(format!("{base}/hang"))),
    )
    .await;
    assert!(matches!(hang, Err(OAuthHttpError::Timeout)), "{hang:?}");
    for bad in [
        "ftp://127.0.0.1/x",
        "not a url",
        "http://user:pw@127.0.0.1/",
    ] {
        assert!(matches!(
            http.send(HttpRequest::get(bad)).await,
            Err(OAuthHttpError::InvalidUrl(_))
        ));
    }
}

#[tokio::test]
async fn oauth_http_client_uses_the_configured_tls_roots_and_proxy() {
    let pki = support::test_pki();
    let server = support::serve_tls(|_, _| support::json(200, "{}"), pki.server).await;
    // Without the test CA the metadata server is not trusted.
    let untrusted = OAuthHttpClient::new(&config(&server.url)).unwrap();
    assert!(matches!(
        untrusted.send(HttpRequest::get(server.url.clone())).await,
        Err(OAuthHttpError::Transport(_))
    ));
    // With it (and a proxy), OAuth requests take the same route as MCP ones.
    let proxy = support::connect_proxy().await;
    let tls = TlsConfig::default()
        .with_roots(RootStore::Empty)
        .with_ca_pem(pki.ca_pem);
    let configured = HttpConfig::new(&server.url)
        .unwrap()
        .with_tls(tls)
        .with_proxy(ProxyConfig::Explicit {
            url: proxy.url.clone(),
            no_proxy: String::new(),
        });
    let http = OAuthHttpClient::new(&configured).unwrap();
    let resp = http
        .send(HttpRequest::get(server.url.clone()))
        .await
        .unwrap();
    assert_eq!(resp.status, 200);
    assert_eq!(proxy.connects.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn configuration_debug_output_hides_secrets() {
    let creds = ClientCredentials::new("svc", Some(Secret::new("very-secret")), None);
    let oauth = OAuthConfig::client_credentials(creds);
    assert!(!format!("{oauth:?}").contains("very-secret"));
    let config = HttpConfig::new("https://mcp.example.com/mcp")
        .unwrap()
        .with_oauth(oauth)
        .unwrap();
    assert!(!format!("{config:?}").contains("very-secret"));
}

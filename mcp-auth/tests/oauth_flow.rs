//! The async orchestration against the in-process fake servers.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::Arc;

use mcp_auth::discovery::DiscoveryError;
use mcp_auth::dpop::DpopProver;
use mcp_auth::http::Method;
use mcp_auth::jwt::SigningKey;
use mcp_auth::random::SeededRandom;
use mcp_auth::registration::{ClientCredentials, RegistrationConfig};
use mcp_auth::security::TokenScheme;
use mcp_auth::store::{MemoryStore, TokenKey, TokenStore};
use mcp_auth::{AuthError, Flow, OAuthClient};
use support::*;
use url::Url;

fn auth_code_client(fake: &Arc<Fake>, clock: Arc<TestClock>) -> OAuthClient {
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(fake.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]).with_client_name("test"),
    };
    OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow)
        .random(Arc::new(SeededRandom::new(11)))
        .clock(clock)
        .build()
}

#[tokio::test]
async fn authorization_code_flow_with_dcr() {
    let fake = Fake::new(Knobs::default());
    let client = auth_code_client(&fake, TestClock::at(1_000));
    let resp = call(&client, &fake, "tools/list").await.unwrap();
    assert_eq!(resp.status, 200);
    let log = fake.log.lock().unwrap();
    // Discovery order: the header's PRM URL, then RFC 8414 metadata; DCR; token.
    assert_eq!(
        log.requests,
        vec![
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            "https://auth.example.com/.well-known/oauth-authorization-server",
            "https://auth.example.com/register",
            "https://auth.example.com/token",
        ]
    );
    let reg = &log.registrations[0];
    assert_eq!(reg["application_type"], "native");
    assert_eq!(
        reg["grant_types"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(reg["redirect_uris"], serde_json::json!([REDIRECT]));
    let q = &log.authorize_queries[0];
    assert_eq!(q["client_id"], "dcr-client");
    assert_eq!(q["resource"], MCP);
    // The challenge's scope, plus offline_access as the AS advertises it.
    assert_eq!(q["scope"], "mcp:read offline_access");
    let g = &log.grants[0];
    assert_eq!(g["grant_type"], "authorization_code");
    assert_eq!(g["resource"], MCP);
    assert_eq!(g["client_id"], "dcr-client");
    drop(log);
    let t = client.tokens().unwrap();
    assert_eq!(t.scheme, TokenScheme::Bearer);
    assert_eq!(t.expires_at, Some(1_000 + 3600));
    assert!(t.refresh_token.is_some());
    // Tokens never appear in any URL the client fetched.
    let log = fake.log.lock().unwrap();
    assert!(
        log.requests
            .iter()
            .all(|u| !u.contains(t.access_token.expose()))
    );
    // The MCP request carried the bearer token in the Authorization header.
    let last = log.mcp_auth_headers.last().unwrap();
    assert_eq!(
        last[0],
        (
            "authorization".to_owned(),
            format!("Bearer {}", t.access_token.expose())
        )
    );
}

#[tokio::test]
async fn well_known_fallback_without_header() {
    let fake = Fake::new(Knobs {
        header_metadata: false,
        prm_path_only: false,
        challenge_scope: None,
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert_eq!(
        log.requests[0],
        "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
    );
    // No challenge scope: the PRM scopes_supported is used.
    assert_eq!(log.authorize_queries[0]["scope"], "mcp:read offline_access");
}

#[tokio::test]
async fn issuer_mismatch_is_refused_before_any_redirect() {
    let fake = Fake::new(Knobs {
        issuer_in_metadata: "https://evil.example".into(),
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    let err = call(&client, &fake, "x").await.unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::Discovery(DiscoveryError::IssuerMismatch { .. })
        ),
        "{err}"
    );
    assert!(fake.log.lock().unwrap().authorize_queries.is_empty());
}

#[tokio::test]
async fn no_pkce_support_refuses_to_proceed() {
    for methods in [None, Some(vec!["plain".to_owned()])] {
        let fake = Fake::new(Knobs {
            pkce_methods: methods,
            ..Knobs::default()
        });
        let client = auth_code_client(&fake, TestClock::at(0));
        let err = call(&client, &fake, "x").await.unwrap_err();
        assert!(
            matches!(err, AuthError::Discovery(DiscoveryError::PkceNotSupported)),
            "{err}"
        );
        assert!(fake.log.lock().unwrap().authorize_queries.is_empty());
    }
}

#[tokio::test]
async fn iss_mismatch_stops_before_the_token_endpoint() {
    let fake = Fake::new(Knobs {
        redirect_iss: Some("https://auth.example.com/".into()),
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    let err = call(&client, &fake, "x").await.unwrap_err();
    assert!(matches!(err, AuthError::Redirect(_)), "{err}");
    assert!(fake.log.lock().unwrap().grants.is_empty());
    // Advertised but absent: rejected too.
    let fake = Fake::new(Knobs {
        redirect_iss: None,
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    assert!(call(&client, &fake, "x").await.is_err());
    // Not advertised and absent: proceed.
    let fake = Fake::new(Knobs {
        redirect_iss: None,
        iss_supported: false,
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    assert!(call(&client, &fake, "x").await.is_ok());
}

#[tokio::test(flavor = "current_thread")]
async fn concurrent_expired_callers_refresh_once() {
    let fake = Fake::new(Knobs {
        token_delay_ms: 20,
        ..Knobs::default()
    });
    let clock = TestClock::at(0);
    let client = auth_code_client(&fake, clock.clone());
    call(&client, &fake, "x").await.unwrap();
    let first = client.tokens().unwrap();
    clock.advance(7200);
    let url = Url::parse(MCP).unwrap();
    let calls = (0..8).map(|_| client.headers_for(Method::Post, &url));
    let results = futures::future::join_all(calls).await;
    let log = fake.log.lock().unwrap();
    let refreshes = log
        .grants
        .iter()
        .filter(|g| g["grant_type"] == "refresh_token")
        .count();
    assert_eq!(refreshes, 1, "single flight");
    let g = log
        .grants
        .iter()
        .find(|g| g["grant_type"] == "refresh_token")
        .unwrap();
    assert_eq!(g["resource"], MCP);
    drop(log);
    let now = client.tokens().unwrap();
    assert_ne!(now.access_token, first.access_token);
    // The AS returned no new refresh token: the old one is kept.
    assert_eq!(now.refresh_token, first.refresh_token);
    assert_eq!(now.expires_at, Some(7200 + 3600));
    for r in results {
        let r = r.unwrap();
        assert_eq!(
            r.headers[0].1.expose(),
            format!("Bearer {}", now.access_token.expose())
        );
    }
}

#[tokio::test]
async fn step_up_unions_scopes_and_is_bounded() {
    let fake = Fake::new(Knobs {
        required_scope: vec!["mcp:read".into(), "mcp:write".into()],
        step_up_challenge: Some("mcp:write".into()),
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    call(&client, &fake, "tools/call").await.unwrap();
    {
        let log = fake.log.lock().unwrap();
        assert_eq!(log.authorize_queries.len(), 2);
        assert_eq!(
            log.authorize_queries[1]["scope"],
            "mcp:read offline_access mcp:write"
        );
    }

    // A server that never accepts: the step-up budget ends it.
    let fake = Fake::new(Knobs {
        required_scope: vec!["mcp:admin".into()],
        step_up_challenge: Some("mcp:write".into()),
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    let err = call(&client, &fake, "tools/call").await.unwrap_err();
    assert!(matches!(err, AuthError::StepUp(_)), "{err}");
    assert_eq!(fake.log.lock().unwrap().authorize_queries.len(), 1 + 3);
}

#[tokio::test]
async fn client_credentials_with_private_key_jwt() {
    let fake = Fake::new(Knobs {
        challenge_scope: Some("mcp:read".into()),
        ..Knobs::default()
    });
    let creds = ClientCredentials::new("svc", None, None).with_auth_method("private_key_jwt");
    let client = OAuthClient::builder(
        Url::parse(MCP).unwrap(),
        fake.clone(),
        Flow::ClientCredentials { credentials: creds },
    )
    .signing_key(SigningKey::generate_es256().unwrap())
    .build();
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    let g = &log.grants[0];
    assert_eq!(g["grant_type"], "client_credentials");
    assert_eq!(
        g["client_assertion_type"],
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    );
    // RFC 7523bis: the assertion's audience is the issuer.
    use base64::Engine as _;
    let claims = g["client_assertion"].split('.').nth(1).unwrap();
    let claims: serde_json::Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(claims)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(claims["aud"], ISSUER);
    assert_eq!(claims["iss"], "svc");
    assert_eq!(g["scope"], "mcp:read");
    assert_eq!(g["resource"], MCP);
    assert!(log.authorize_queries.is_empty() && log.registrations.is_empty());
}

#[tokio::test]
async fn client_credentials_basic_proactively() {
    let fake = Fake::new(Knobs::default());
    let creds = ClientCredentials::new("svc", Some("s3cret".into()), None);
    let client = OAuthClient::builder(
        Url::parse(MCP).unwrap(),
        fake.clone(),
        Flow::ClientCredentials { credentials: creds },
    )
    .build();
    client.authorize().await.unwrap();
    let log = fake.log.lock().unwrap();
    let auth = log.token_headers[0]
        .iter()
        .find(|(n, _)| n == "authorization")
        .unwrap();
    assert!(auth.1.starts_with("Basic "));
    assert!(!log.grants[0].contains_key("client_secret"));
}

#[tokio::test]
async fn dpop_with_server_nonces() {
    let fake = Fake::new(Knobs {
        dpop_nonce: true,
        ..Knobs::default()
    });
    let creds = ClientCredentials::new("svc", Some("sec".into()), None);
    let client = OAuthClient::builder(
        Url::parse(MCP).unwrap(),
        fake.clone(),
        Flow::ClientCredentials { credentials: creds },
    )
    .dpop(Arc::new(DpopProver::generate().unwrap()))
    .build();
    call(&client, &fake, "x").await.unwrap();
    assert_eq!(client.tokens().unwrap().scheme, TokenScheme::Dpop);
    let log = fake.log.lock().unwrap();
    // One nonce retry at the token endpoint.
    assert_eq!(log.grants.len(), 2);
    let last = log.mcp_auth_headers.last().unwrap();
    assert!(last[0].1.starts_with("DPoP "));
    assert!(proof_has_nonce(&last[1].1, "rs-nonce"));
    // Every MCP request carried a distinct proof.
    let proofs: Vec<&String> = log
        .mcp_auth_headers
        .iter()
        .filter_map(|h| h.get(1).map(|p| &p.1))
        .collect();
    let mut unique = proofs.clone();
    unique.dedup();
    assert_eq!(unique.len(), proofs.len());
}

#[tokio::test]
async fn tokens_are_persisted_per_resource_and_issuer() {
    let fake = Fake::new(Knobs::default());
    let store = Arc::new(MemoryStore::new());
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(fake.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow)
        .store(store.clone())
        .build();
    call(&client, &fake, "x").await.unwrap();
    let saved = store
        .load_tokens(&TokenKey::new(MCP, ISSUER))
        .unwrap()
        .unwrap();
    assert_eq!(saved, client.tokens().unwrap());
    assert_eq!(
        store.load_client(ISSUER).unwrap().unwrap().client_id,
        "dcr-client"
    );
}

#[tokio::test]
async fn cimd_client_id_is_used_when_advertised() {
    let fake = Fake::new(Knobs {
        cimd: true,
        ..Knobs::default()
    });
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(fake.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()])
            .with_client_metadata_url("https://app.example/client.json"),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow).build();
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert!(log.registrations.is_empty());
    assert_eq!(
        log.authorize_queries[0]["client_id"],
        "https://app.example/client.json"
    );
}

#[tokio::test]
async fn workload_identity_jwt_bearer_does_not_retry_on_error() {
    use mcp_auth::handler::StaticAssertion;
    let fake = Fake::new(Knobs::default());
    let flow = Flow::JwtBearer {
        credentials: ClientCredentials::new("wif-client", None, None),
        assertion: Arc::new(StaticAssertion("workload.jwt.sig".into())),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow).build();
    call(&client, &fake, "x").await.unwrap();
    {
        let log = fake.log.lock().unwrap();
        assert_eq!(log.grants.len(), 1);
        let g = &log.grants[0];
        assert_eq!(
            g["grant_type"],
            "urn:ietf:params:oauth:grant-type:jwt-bearer"
        );
        assert_eq!(g["assertion"], "workload.jwt.sig");
        assert_eq!(g["client_id"], "wif-client");
    }

    // A rejected grant surfaces as an OAuth error, with no retry and no other grant
    // type (the nonce knob makes the fake's token endpoint refuse non-DPoP requests).
    let fake2 = Fake::new(Knobs {
        dpop_nonce: true,
        ..Knobs::default()
    });
    let flow = Flow::JwtBearer {
        credentials: ClientCredentials::new("wif-client", None, None),
        assertion: Arc::new(StaticAssertion("x".into())),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake2.clone(), flow).build();
    let err = client.authorize().await.unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::OAuth {
                endpoint: "token",
                status: 400,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(fake2.log.lock().unwrap().grants.len(), 1, "no retry");
}

#[tokio::test]
async fn enterprise_managed_exchanges_id_token_for_id_jag() {
    use mcp_auth::handler::StaticAssertion;
    use mcp_auth::token_request::{ID_JAG_TOKEN_TYPE, ID_TOKEN_TYPE};
    let fake = Fake::new(Knobs::default());
    let flow = Flow::EnterpriseManaged {
        idp_token_endpoint: "https://idp.example.com/token".into(),
        idp_credentials: ClientCredentials::new("idp-client", Some("idp-secret".into()), None)
            .with_auth_method("client_secret_post"),
        id_token: Arc::new(StaticAssertion("id-token-1".into())),
        subject_token_type: ID_TOKEN_TYPE.into(),
        credentials: ClientCredentials::new("mcp-client", Some("mcp-secret".into()), None),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow).build();
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert_eq!(log.grants.len(), 2);
    let x = &log.grants[0];
    assert_eq!(
        x["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(x["requested_token_type"], ID_JAG_TOKEN_TYPE);
    assert_eq!(x["audience"], ISSUER);
    assert_eq!(x["resource"], MCP);
    assert_eq!(x["subject_token_type"], ID_TOKEN_TYPE);
    assert_eq!(x["client_id"], "idp-client");
    let j = &log.grants[1];
    assert_eq!(
        j["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(j["assertion"], "jag-1");
    // The user was never sent to the MCP authorization endpoint.
    assert!(log.authorize_queries.is_empty());
}

#[tokio::test]
async fn rejected_refresh_token_falls_back_to_full_authorization() {
    let fake = Fake::new(Knobs::default());
    let clock = TestClock::at(0);
    let client = auth_code_client(&fake, clock.clone());
    call(&client, &fake, "x").await.unwrap();
    let mut t = client.tokens().unwrap();
    t.refresh_token = Some("revoked".into());
    t.expires_at = Some(1);
    client.set_tokens(t).unwrap();
    clock.advance(100);
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert_eq!(log.authorize_queries.len(), 2);
    assert!(
        log.grants
            .iter()
            .any(|g| g["grant_type"] == "refresh_token")
    );
}

#[tokio::test]
async fn legacy_fallback_probes_origin_metadata() {
    let fake = Fake::new(Knobs {
        header_metadata: false,
        prm_path_only: true,
        ..Knobs::default()
    });
    // Serve no PRM at all by pointing the client at another path on the server.
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(fake.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]),
    };
    let client = OAuthClient::builder(
        Url::parse("https://mcp.example.com/other").unwrap(),
        fake.clone(),
        flow,
    )
    .build();
    let err = client.authorize().await.unwrap_err();
    assert!(matches!(err, AuthError::UnexpectedResponse { .. }), "{err}");
    {
        let log = fake.log.lock().unwrap();
        assert_eq!(
            log.requests[..4],
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/other",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
                "https://mcp.example.com/.well-known/oauth-authorization-server",
                "https://mcp.example.com/.well-known/openid-configuration",
            ]
        );
        // Default endpoints at the server's origin.
        assert!(
            log.requests
                .contains(&"https://mcp.example.com/register".to_owned())
        );
    }
    let strict = OAuthClient::builder(
        Url::parse("https://mcp.example.com/other").unwrap(),
        fake.clone(),
        Flow::ClientCredentials {
            credentials: ClientCredentials::new("c", None, None),
        },
    )
    .legacy_fallback(false)
    .build();
    assert!(matches!(
        strict.authorize().await,
        Err(AuthError::NoResourceMetadata(_))
    ));
}

#[tokio::test]
async fn handler_failure_and_debug_redaction() {
    struct Decline;
    impl mcp_auth::handler::AuthorizationHandler for Decline {
        fn authorize<'a>(
            &'a self,
            _: &'a str,
        ) -> mcp_auth::http::BoxFuture<'a, Result<String, String>> {
            Box::pin(async { Err("user closed the browser".to_owned()) })
        }
    }
    let fake = Fake::new(Knobs::default());
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Decline),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow).build();
    let err = client.authorize().await.unwrap_err();
    assert_eq!(err.fault(), mcp_auth::Fault::User);

    let ok = auth_code_client(&fake, TestClock::at(0));
    call(&ok, &fake, "x").await.unwrap();
    let t = ok.tokens().unwrap();
    let printed = format!(
        "{ok:?} {t:?} {:?}",
        ClientCredentials::new("id", Some("sekrit".into()), None)
    );
    assert!(!printed.contains(t.access_token.expose()));
    assert!(!printed.contains("sekrit"));
    assert!(!printed.contains(t.refresh_token.as_ref().unwrap().expose()));
}

#[tokio::test]
async fn step_up_when_the_403_challenge_only_names_scopes() {
    let fake = Fake::new(Knobs {
        required_scope: vec!["mcp:read".into(), "mcp:write".into()],
        step_up_without_error: true,
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    call(&client, &fake, "tools/call").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert_eq!(log.authorize_queries.len(), 2);
    assert_eq!(
        log.authorize_queries[1]["scope"],
        "mcp:read offline_access mcp:write"
    );
}

#[tokio::test]
async fn plain_403_is_not_retried() {
    let fake = Fake::new(Knobs::default());
    let client = auth_code_client(&fake, TestClock::at(0));
    let resp = mcp_auth::http::HttpResponse::new(
        403,
        vec![(
            "www-authenticate".into(),
            "Bearer error=\"access_denied\"".into(),
        )],
        vec![],
    );
    let err = client.on_unauthorized(&resp, 0, "x").await.unwrap_err();
    assert!(
        matches!(err, AuthError::UnexpectedResponse { status: 403, .. }),
        "{err}"
    );
    assert!(fake.log.lock().unwrap().requests.is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn concurrent_401s_for_one_token_renew_once() {
    let fake = Fake::new(Knobs {
        token_delay_ms: 20,
        ..Knobs::default()
    });
    let client = auth_code_client(&fake, TestClock::at(0));
    call(&client, &fake, "x").await.unwrap();
    let generation = client.generation();
    let refused = mcp_auth::http::HttpResponse::new(
        401,
        vec![(
            "www-authenticate".into(),
            "Bearer error=\"invalid_token\"".into(),
        )],
        vec![],
    );
    let calls = (0..6).map(|_| client.on_unauthorized(&refused, generation, "x"));
    for r in futures::future::join_all(calls).await {
        assert_eq!(r.unwrap(), mcp_auth::ChallengeOutcome::Retry);
    }
    {
        let log = fake.log.lock().unwrap();
        let refreshes = log
            .grants
            .iter()
            .filter(|g| g["grant_type"] == "refresh_token")
            .count();
        assert_eq!(refreshes, 1);
        assert_eq!(client.generation(), generation + 1);
    }
    let header = client.authorization_header().await.unwrap().unwrap();
    assert_eq!(
        header.expose(),
        format!("Bearer {}", client.tokens().unwrap().access_token.expose())
    );
}

#[tokio::test]
async fn a_new_client_resumes_from_the_store() {
    let fake = Fake::new(Knobs::default());
    let store = Arc::new(MemoryStore::new());
    let clock = TestClock::at(0);
    let make = |store: Arc<MemoryStore>| {
        let flow = Flow::AuthorizationCode {
            handler: Arc::new(Browser(fake.clone())),
            registration: RegistrationConfig::new(vec![REDIRECT.into()]),
        };
        OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow)
            .store(store)
            .clock(clock.clone())
            .build()
    };
    call(&make(store.clone()), &fake, "x").await.unwrap();
    // "Tomorrow": a fresh process with the same store; the token is still valid.
    let second = make(store.clone());
    call(&second, &fake, "x").await.unwrap();
    assert_eq!(fake.log.lock().unwrap().authorize_queries.len(), 1);
    // Later still: the stored token expired; it is refreshed, not re-authorized.
    clock.advance(10_000);
    let third = make(store.clone());
    call(&third, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert_eq!(log.authorize_queries.len(), 1);
    assert_eq!(
        log.grants
            .iter()
            .filter(|g| g["grant_type"] == "refresh_token")
            .count(),
        1
    );
    // The client registered once; later clients reused the stored registration.
    assert_eq!(log.registrations.len(), 1);
}

#[tokio::test]
async fn authorization_server_migration_registers_again() {
    let fake = Fake::new(Knobs::default());
    let store = Arc::new(MemoryStore::new());
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(fake.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow)
        .store(store.clone())
        .build();
    call(&client, &fake, "x").await.unwrap();
    // The resource moves to another authorization server and forgets old tokens.
    *fake.prm_servers.lock().unwrap() = vec!["https://auth2.example.com".to_owned()];
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert_eq!(log.registrations.len(), 2);
    assert_eq!(log.registrations[1]["registered_at"], "auth2.example.com");
    let q = log.authorize_queries.last().unwrap();
    assert_eq!(q["client_id"], "dcr-auth2.example.com");
    // One refresh at the old server (its token is then refused too), and the old
    // refresh token never goes to the new server.
    let refreshes: Vec<_> = log
        .grants
        .iter()
        .filter(|g| g["grant_type"] == "refresh_token")
        .collect();
    assert_eq!(refreshes.len(), 1);
    assert_eq!(
        log.token_issuer
            .values()
            .filter(|i| i.contains("auth2"))
            .count(),
        1
    );
    assert!(
        store
            .load_client("https://auth2.example.com")
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn next_listed_authorization_server_is_tried() {
    let fake = Fake::new(Knobs::default());
    *fake.prm_servers.lock().unwrap() = vec![
        "https://nowhere.example.com".to_owned(),
        "https://auth2.example.com".to_owned(),
    ];
    let client = auth_code_client(&fake, TestClock::at(0));
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert!(
        log.requests
            .contains(&"https://nowhere.example.com/.well-known/openid-configuration".to_owned())
    );
    assert_eq!(log.registrations[0]["registered_at"], "auth2.example.com");
}

#[tokio::test]
async fn refusals_of_aged_tokens_do_not_exhaust_the_budget() {
    let fake = Fake::new(Knobs::default());
    let clock = TestClock::at(0);
    let client = auth_code_client(&fake, clock.clone());
    call(&client, &fake, "x").await.unwrap();
    let refused = mcp_auth::http::HttpResponse::new(401, vec![], vec![]);
    // Ten refusals, each of a token that lived a normal life: always renewed.
    for _ in 0..10 {
        clock.advance(600);
        let g = client.generation();
        assert!(client.on_unauthorized(&refused, g, "x").await.is_ok());
    }
    // Refusals of brand-new tokens: bounded.
    let mut result = Ok(mcp_auth::ChallengeOutcome::Retry);
    for _ in 0..10 {
        let g = client.generation();
        result = client.on_unauthorized(&refused, g, "x").await;
        if result.is_err() {
            break;
        }
    }
    assert!(
        matches!(result, Err(AuthError::TooManyAttempts(3))),
        "{result:?}"
    );
}

#[tokio::test]
async fn headless_handler_follows_the_authorization_redirect() {
    use mcp_auth::handler::HeadlessRedirectHandler;
    let fake = Fake::new(Knobs::default());
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(HeadlessRedirectHandler::new(fake.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow).build();
    call(&client, &fake, "x").await.unwrap();
    let log = fake.log.lock().unwrap();
    assert!(
        log.requests
            .iter()
            .any(|u| u.starts_with("https://auth.example.com/authorize?"))
    );
    assert_eq!(log.grants[0]["grant_type"], "authorization_code");
}

#[tokio::test]
async fn insecure_redirect_uri_is_refused() {
    let fake = Fake::new(Knobs::default());
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(fake.clone())),
        registration: RegistrationConfig::new(vec!["http://app.example.com/cb".into()])
            .with_client_metadata_url("https://app.example/client.json"),
    };
    let client = OAuthClient::builder(Url::parse(MCP).unwrap(), fake.clone(), flow).build();
    let err = client.authorize().await.unwrap_err();
    assert!(
        matches!(err, AuthError::Registration(_) | AuthError::Security(_)),
        "{err}"
    );
    assert!(fake.log.lock().unwrap().authorize_queries.is_empty());
}

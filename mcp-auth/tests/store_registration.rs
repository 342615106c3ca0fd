//! Token stores, registration planning and token endpoint requests.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use mcp_auth::jwt::{Algorithm, SigningKey};
use mcp_auth::metadata::AuthorizationServerMetadata;
use mcp_auth::random::SeededRandom;
use mcp_auth::registration::*;
use mcp_auth::secret::Secret;
use mcp_auth::security::TokenScheme;
use mcp_auth::store::*;
use mcp_auth::token::TokenSet;
use mcp_auth::token_request::*;

fn tokens() -> TokenSet {
    let mut t = TokenSet::new(Secret::new("AT"), TokenScheme::Bearer);
    t.refresh_token = Some(Secret::new("RT"));
    t.expires_at = Some(100);
    t
}

fn exercise(store: &dyn TokenStore) {
    let key = TokenKey::new("https://mcp/mcp", "https://as");
    assert!(store.load_tokens(&key).unwrap().is_none());
    store.save_tokens(&key, &tokens()).unwrap();
    assert_eq!(store.load_tokens(&key).unwrap(), Some(tokens()));
    let other = TokenKey::new("https://mcp/mcp", "https://as2");
    assert!(store.load_tokens(&other).unwrap().is_none());
    let c = ClientCredentials::new("cid", Some(Secret::new("sec")), Some("https://as".into()));
    store.save_client("https://as", &c).unwrap();
    assert_eq!(store.load_client("https://as").unwrap(), Some(c));
    assert!(store.load_client("https://as2").unwrap().is_none());
    store.remove_tokens(&key).unwrap();
    assert!(store.load_tokens(&key).unwrap().is_none());
}

#[test]
fn memory_store_round_trip() {
    exercise(&MemoryStore::new());
}

#[test]
fn file_store_round_trip_and_permissions() {
    let dir = std::env::temp_dir().join(format!("mcp-auth-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tokens.json");
    let _ = std::fs::remove_file(&path);
    let store = FileStore::new(&path);
    exercise(&store);
    let key = TokenKey::new("r", "i");
    store.save_tokens(&key, &tokens()).unwrap();
    // A second instance reads what the first wrote.
    assert_eq!(
        FileStore::new(&path).load_tokens(&key).unwrap(),
        Some(tokens())
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1);
    std::fs::write(&path, b"{not json").unwrap();
    assert!(matches!(
        store.load_tokens(&key),
        Err(StoreError::Corrupt(_))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn as_meta() -> AuthorizationServerMetadata {
    let mut m = AuthorizationServerMetadata::new("https://as");
    m.registration_endpoint = Some("https://as/register".into());
    m
}

#[test]
fn registration_preference_order() {
    let pre = ClientCredentials::new("pre", None, Some("https://as".into()));
    let cfg = RegistrationConfig::new(vec!["http://127.0.0.1:1/cb".into()])
        .with_pre_registered(pre.clone())
        .with_client_metadata_url("https://app.example/client.json");
    let mut m = as_meta();
    m.client_id_metadata_document_supported = true;
    // 1. pre-registered for this issuer
    assert_eq!(
        plan(&cfg, &m, None, &["authorization_code"]).unwrap(),
        RegistrationPlan::Use(pre)
    );
    // 2. CIMD when advertised (pre-registered creds for another issuer are not used)
    let cfg2 = RegistrationConfig::new(vec!["http://127.0.0.1:1/cb".into()])
        .with_pre_registered(ClientCredentials::new(
            "x",
            None,
            Some("https://other".into()),
        ))
        .with_client_metadata_url("https://app.example/client.json");
    match plan(&cfg2, &m, None, &["authorization_code"]).unwrap() {
        RegistrationPlan::Use(c) => {
            assert_eq!(c.client_id, "https://app.example/client.json");
            assert_eq!(c.issuer, None);
        }
        other => panic!("{other:?}"),
    }
    // 3. DCR otherwise; stored credentials of this issuer win over a new DCR.
    m.client_id_metadata_document_supported = false;
    let stored = ClientCredentials::new("dcr-1", None, Some("https://as".into()));
    assert_eq!(
        plan(&cfg2, &m, Some(stored.clone()), &["authorization_code"]).unwrap(),
        RegistrationPlan::Use(stored)
    );
    // Credentials of another issuer are never reused: register again.
    let foreign = ClientCredentials::new("dcr-old", None, Some("https://old-as".into()));
    assert!(matches!(
        plan(
            &cfg2,
            &m,
            Some(foreign),
            &["authorization_code", "refresh_token"]
        )
        .unwrap(),
        RegistrationPlan::Dynamic { .. }
    ));
    // No route: surface an error naming the mismatch.
    m.registration_endpoint = None;
    assert!(matches!(
        plan(&cfg2, &m, None, &["authorization_code"]),
        Err(RegistrationError::PreRegisteredMismatch(_))
    ));
    assert!(matches!(
        plan(&RegistrationConfig::new(vec![]), &m, None, &[]),
        Err(RegistrationError::NoRoute(_))
    ));
}

#[test]
fn dcr_request_shape() {
    let cfg = RegistrationConfig::new(vec!["http://localhost:8080/callback".into()])
        .with_client_name("demo");
    let m =
        dynamic_registration_request(&cfg, &as_meta(), &["authorization_code", "refresh_token"])
            .unwrap();
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(v["application_type"], "native");
    assert_eq!(
        v["grant_types"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(v["response_types"], serde_json::json!(["code"]));
    assert_eq!(v["token_endpoint_auth_method"], "none");
    assert_eq!(v["client_name"], "demo");
    let web = RegistrationConfig::new(vec!["https://app.example/cb".into()]);
    let mut meta = as_meta();
    meta.token_endpoint_auth_methods_supported = Some(vec!["client_secret_post".into()]);
    let m = dynamic_registration_request(&web, &meta, &["authorization_code"]).unwrap();
    assert_eq!(m.application_type.as_deref(), Some("web"));
    assert_eq!(
        m.token_endpoint_auth_method.as_deref(),
        Some("client_secret_post")
    );
    let bad = RegistrationConfig::new(vec!["http://app.example/cb".into()]);
    assert!(dynamic_registration_request(&bad, &meta, &[]).is_err());
}

#[test]
fn cimd_url_rules() {
    assert!(validate_client_metadata_url("https://app.example/client.json").is_ok());
    for bad in [
        "http://app.example/c.json",
        "https://app.example",
        "https://app.example/",
        "nope",
    ] {
        assert!(validate_client_metadata_url(bad).is_err(), "{bad}");
    }
}

fn form(req: &mcp_auth::http::HttpRequest) -> Vec<(String, String)> {
    url::form_urlencoded::parse(&req.body)
        .into_owned()
        .collect()
}

fn get<'a>(f: &'a [(String, String)], k: &str) -> Option<&'a str> {
    f.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

#[test]
fn token_requests_per_grant_and_auth_method() {
    let rng = SeededRandom::new(5);
    let code = TokenRequest::new(Grant::AuthorizationCode {
        code: Secret::new("c0de"),
        redirect_uri: "http://127.0.0.1/cb".into(),
        code_verifier: Secret::new("v3r"),
    })
    .with_resource(Some("https://mcp.example.com/mcp".into()))
    .with_scope(Some("a b".into()));
    let none = ClientAuth::None {
        client_id: "cid".into(),
    };
    let req = code.to_http("https://as/token", &none, 0, &rng).unwrap();
    assert_eq!(
        req.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert!(req.header("authorization").is_none());
    let f = form(&req);
    assert_eq!(get(&f, "grant_type"), Some("authorization_code"));
    assert_eq!(get(&f, "code"), Some("c0de"));
    assert_eq!(get(&f, "code_verifier"), Some("v3r"));
    assert_eq!(get(&f, "resource"), Some("https://mcp.example.com/mcp"));
    assert_eq!(get(&f, "scope"), Some("a b"));
    assert_eq!(get(&f, "client_id"), Some("cid"));
    assert!(!format!("{req:?}").contains("c0de"));

    // client_secret_basic form-encodes before base64 (RFC 6749 §2.3.1).
    let basic = ClientAuth::SecretBasic {
        client_id: "id:1".into(),
        client_secret: Secret::new("s p"),
    };
    let req = TokenRequest::new(Grant::ClientCredentials)
        .to_http("https://as/token", &basic, 0, &rng)
        .unwrap();
    assert_eq!(req.header("authorization"), Some("Basic aWQlM0ExOnMrcA=="));
    let f = form(&req);
    assert!(get(&f, "client_id").is_none() && get(&f, "client_secret").is_none());
    assert_eq!(get(&f, "grant_type"), Some("client_credentials"));

    let post = ClientAuth::SecretPost {
        client_id: "id".into(),
        client_secret: Secret::new("sec"),
    };
    let f = form(
        &TokenRequest::new(Grant::RefreshToken {
            refresh_token: Secret::new("rt"),
        })
        .to_http("https://as/token", &post, 0, &rng)
        .unwrap(),
    );
    assert_eq!(get(&f, "grant_type"), Some("refresh_token"));
    assert_eq!(get(&f, "refresh_token"), Some("rt"));
    assert_eq!(get(&f, "client_secret"), Some("sec"));

    let key = SigningKey::generate_es256().unwrap();
    let jwt = ClientAuth::PrivateKeyJwt {
        client_id: "svc".into(),
        key,
        audience: None,
    };
    let f = form(
        &TokenRequest::new(Grant::ClientCredentials)
            .to_http("https://as/token", &jwt, 10, &rng)
            .unwrap(),
    );
    assert_eq!(
        get(&f, "client_assertion_type"),
        Some(JWT_BEARER_ASSERTION_TYPE)
    );
    assert_eq!(get(&f, "client_assertion").unwrap().split('.').count(), 3);
    assert!(get(&f, "client_id").is_none());

    let x = TokenRequest::new(Grant::TokenExchange {
        subject_token: Secret::new("idt"),
        subject_token_type: ID_TOKEN_TYPE.into(),
        requested_token_type: ID_JAG_TOKEN_TYPE.into(),
        audience: Some("https://as.example/".into()),
    })
    .with_resource(Some("https://mcp.example/".into()));
    let f = form(&x.to_http("https://idp/token", &post, 0, &rng).unwrap());
    assert_eq!(get(&f, "grant_type"), Some(TOKEN_EXCHANGE_GRANT));
    assert_eq!(get(&f, "requested_token_type"), Some(ID_JAG_TOKEN_TYPE));
    assert_eq!(get(&f, "audience"), Some("https://as.example/"));
    assert_eq!(get(&f, "subject_token"), Some("idt"));

    let f = form(
        &TokenRequest::new(Grant::JwtBearer {
            assertion: Secret::new("a.b.c"),
        })
        .to_http("https://as/token", &none, 0, &rng)
        .unwrap(),
    );
    assert_eq!(get(&f, "grant_type"), Some(JWT_BEARER_GRANT));
    assert_eq!(get(&f, "assertion"), Some("a.b.c"));
    let _ = Algorithm::Es256;
}

#[test]
fn auth_method_follows_server_support() {
    let mut m = as_meta();
    let secret = ClientCredentials::new("id", Some(Secret::new("s")), None);
    // Nothing listed: keep the credentials' method.
    assert_eq!(
        choose_auth_method(&secret, &m, false),
        "client_secret_basic"
    );
    m.token_endpoint_auth_methods_supported = Some(vec!["client_secret_post".into()]);
    assert_eq!(choose_auth_method(&secret, &m, false), "client_secret_post");
    m.token_endpoint_auth_methods_supported = Some(vec!["private_key_jwt".into()]);
    let jwt = ClientCredentials::new("id", None, None);
    assert_eq!(choose_auth_method(&jwt, &m, true), "private_key_jwt");
    assert_eq!(choose_auth_method(&jwt, &m, false), "none");
    m.token_endpoint_auth_methods_supported =
        Some(vec!["none".into(), "client_secret_basic".into()]);
    assert_eq!(choose_auth_method(&jwt, &m, false), "none");
}

#[test]
fn cimd_document_shape() {
    let doc = client_id_metadata_document(
        "https://app.example/client.json",
        "Demo",
        vec!["http://127.0.0.1:3000/callback".into()],
    )
    .unwrap();
    assert_eq!(doc["client_id"], "https://app.example/client.json");
    assert_eq!(doc["client_name"], "Demo");
    assert_eq!(doc["redirect_uris"][0], "http://127.0.0.1:3000/callback");
    assert_eq!(
        doc["grant_types"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );
    assert!(client_id_metadata_document("http://app.example/c.json", "x", vec![]).is_err());
}

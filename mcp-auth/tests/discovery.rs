//! Discovery ordering, metadata validation and the security rules.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use mcp_auth::discovery::*;
use mcp_auth::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use mcp_auth::security::*;
use url::Url;

fn u(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn strs(v: Vec<Url>) -> Vec<String> {
    v.into_iter().map(String::from).collect()
}

#[test]
fn prm_order_header_then_path_then_root() {
    let server = u("https://example.com/public/mcp?x=1");
    let header = u("https://example.com/custom/prm");
    assert_eq!(
        strs(protected_resource_metadata_urls(&server, Some(&header))),
        vec![
            "https://example.com/custom/prm",
            "https://example.com/.well-known/oauth-protected-resource/public/mcp",
            "https://example.com/.well-known/oauth-protected-resource",
        ]
    );
    // Server at the root: no path-aware variant.
    assert_eq!(
        strs(protected_resource_metadata_urls(
            &u("https://example.com/"),
            None
        )),
        vec!["https://example.com/.well-known/oauth-protected-resource"]
    );
    // The header URL equal to a well-known one is not fetched twice.
    let root = u("https://example.com/.well-known/oauth-protected-resource");
    assert_eq!(
        protected_resource_metadata_urls(&u("https://example.com/mcp"), Some(&root)).len(),
        2
    );
}

#[test]
fn as_metadata_order_with_and_without_path() {
    assert_eq!(
        strs(authorization_server_metadata_urls(&u(
            "https://auth.example.com/tenant1"
        ))),
        vec![
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            "https://auth.example.com/tenant1/.well-known/openid-configuration",
        ]
    );
    assert_eq!(
        strs(authorization_server_metadata_urls(&u(
            "https://auth.example.com"
        ))),
        vec![
            "https://auth.example.com/.well-known/oauth-authorization-server",
            "https://auth.example.com/.well-known/openid-configuration",
        ]
    );
    // A trailing slash on the issuer path does not create an empty segment.
    assert_eq!(
        strs(authorization_server_metadata_urls(&u(
            "https://a.example/t1/"
        )))[0],
        "https://a.example/.well-known/oauth-authorization-server/t1"
    );
}

#[test]
fn issuer_must_be_identical() {
    let policy = SecurityPolicy::default();
    let mut m = AuthorizationServerMetadata::new("https://honest.example");
    assert!(validate_authorization_server_metadata(&m, "https://honest.example", &policy).is_ok());
    for other in [
        "https://honest.example/",
        "https://HONEST.example",
        "https://attacker.example",
    ] {
        assert!(matches!(
            validate_authorization_server_metadata(&m, other, &policy),
            Err(DiscoveryError::IssuerMismatch { .. })
        ));
    }
    m.token_endpoint = Some("http://honest.example/token".into());
    assert!(matches!(
        validate_authorization_server_metadata(&m, "https://honest.example", &policy),
        Err(DiscoveryError::Security(SecurityError::InsecureEndpoint(_)))
    ));
    m.token_endpoint = Some("http://127.0.0.1:9/token".into());
    assert!(validate_authorization_server_metadata(&m, "https://honest.example", &policy).is_ok());
    let strict = SecurityPolicy::default().with_http_loopback(false);
    assert!(validate_authorization_server_metadata(&m, "https://honest.example", &strict).is_err());
}

#[test]
fn pkce_s256_required() {
    let mut m = AuthorizationServerMetadata::new("https://as");
    assert_eq!(require_pkce_s256(&m), Err(DiscoveryError::PkceNotSupported));
    m.code_challenge_methods_supported = Some(vec!["plain".into()]);
    assert_eq!(require_pkce_s256(&m), Err(DiscoveryError::PkceNotSupported));
    m.code_challenge_methods_supported = Some(vec!["plain".into(), "S256".into()]);
    assert_eq!(require_pkce_s256(&m), Ok(()));
}

#[test]
fn prm_resource_must_match_server() {
    let server = u("https://mcp.example.com/server/mcp");
    let prm = |r: &str| ProtectedResourceMetadata::new(r, vec!["https://as".into()]);
    for ok in [
        "https://mcp.example.com/server/mcp",
        "https://MCP.example.com/server",
        "https://mcp.example.com",
    ] {
        assert_eq!(
            validate_protected_resource_metadata(&prm(ok), &server).unwrap(),
            "https://as"
        );
    }
    for bad in [
        "https://evil.example/server/mcp",
        "https://mcp.example.com/serv",
        "http://mcp.example.com/server/mcp",
        "not a url",
    ] {
        assert!(matches!(
            validate_protected_resource_metadata(&prm(bad), &server),
            Err(DiscoveryError::ResourceMismatch { .. })
        ));
    }
    let empty = ProtectedResourceMetadata::new("https://mcp.example.com", vec![]);
    assert_eq!(
        validate_protected_resource_metadata(&empty, &server),
        Err(DiscoveryError::NoAuthorizationServer)
    );
}

#[test]
fn remote_resource_cannot_discover_into_loopback_or_http() {
    let p = SecurityPolicy::default();
    let remote = u("https://mcp.example.com/mcp");
    for bad in [
        "http://mcp.example.com/x",
        "https://127.0.0.1/x",
        "https://localhost/x",
        "http://[::1]/x",
        "https://foo.localhost/x",
    ] {
        assert!(
            check_discovery_target(&remote, &u(bad), &p).is_err(),
            "{bad}"
        );
    }
    assert!(check_discovery_target(&remote, &u("https://auth.example.com/x"), &p).is_ok());
    let local = u("http://127.0.0.1:3000/mcp");
    assert!(check_discovery_target(&local, &u("http://localhost:4000/x"), &p).is_ok());
    assert!(check_discovery_target(&local, &u("https://auth.example.com"), &p).is_ok());
    assert!(check_discovery_target(&local, &u("http://auth.example.com"), &p).is_err());
}

#[test]
fn resource_metadata_origin_rules() {
    let remote = u("https://mcp.example.com/mcp");
    let p = SecurityPolicy::default();
    assert!(check_resource_metadata_url(&remote, "https://other.example/prm", &p).is_ok());
    assert!(check_resource_metadata_url(&remote, "http://mcp.example.com/prm", &p).is_err());
    assert!(check_resource_metadata_url(&remote, "https://127.0.0.1/prm", &p).is_err());
    assert!(
        check_resource_metadata_url(&remote, "https://user:pw@mcp.example.com/prm", &p).is_err()
    );
    assert!(check_resource_metadata_url(&remote, "file:///etc/passwd", &p).is_err());
    let strict = SecurityPolicy::default().with_same_origin_resource_metadata(true);
    assert!(matches!(
        check_resource_metadata_url(&remote, "https://other.example/prm", &strict),
        Err(SecurityError::CrossOriginMetadata(_))
    ));
    assert!(
        check_resource_metadata_url(&remote, "https://mcp.example.com/.well-known/x", &strict)
            .is_ok()
    );
}

#[test]
fn as_endpoints_https_except_loopback() {
    let p = SecurityPolicy::default();
    assert!(check_as_endpoint(&u("https://as.example/token"), &p).is_ok());
    assert!(check_as_endpoint(&u("http://as.example/token"), &p).is_err());
    assert!(check_as_endpoint(&u("http://localhost:8080/token"), &p).is_ok());
    assert!(check_as_endpoint(&u("http://127.0.0.2/token"), &p).is_ok());
    assert!(check_redirect_uri("http://127.0.0.1:3000/callback").is_ok());
    assert!(check_redirect_uri("https://app.example/cb").is_ok());
    assert!(check_redirect_uri("http://app.example/cb").is_err());
}

#[test]
fn legacy_fallback_uses_origin_endpoints() {
    let m = legacy_default_metadata(&u("https://mcp.example.com/some/mcp?q"));
    assert_eq!(m.issuer, "https://mcp.example.com");
    assert_eq!(
        m.token_endpoint.as_deref(),
        Some("https://mcp.example.com/token")
    );
    assert_eq!(
        m.authorization_endpoint.as_deref(),
        Some("https://mcp.example.com/authorize")
    );
}

#[test]
fn tokens_only_in_authorization_headers() {
    use mcp_auth::Secret;
    let t = Secret::new("tok");
    assert_eq!(
        authorization_header(TokenScheme::Bearer, &t).expose(),
        "Bearer tok"
    );
    assert_eq!(
        authorization_header(TokenScheme::Dpop, &t).expose(),
        "DPoP tok"
    );
    assert!(format!("{:?}", authorization_header(TokenScheme::Bearer, &t)).contains("***"));
    assert!(url_leaks_secret("https://x/?access_token=tok", &[&t]));
    assert!(!url_leaks_secret("https://x/?a=b", &[&t]));
    assert!(!url_leaks_secret("https://x/", &[&Secret::new("")]));
    assert_eq!(
        TokenScheme::from_token_type("bEaReR"),
        Some(TokenScheme::Bearer)
    );
    assert_eq!(TokenScheme::from_token_type("N_A"), None);
}

proptest::proptest! {
    #[test]
    fn url_rules_never_panic(s in "\\PC{0,120}") {
        let resource = u("https://mcp.example.com/mcp");
        let p = SecurityPolicy::default();
        let _ = check_resource_metadata_url(&resource, &s, &p);
        let _ = check_redirect_uri(&s);
        let _ = resource_matches_server(&s, &resource);
        if let Ok(url) = parse_http_url(&s) {
            let _ = authorization_server_metadata_urls(&url);
            let _ = protected_resource_metadata_urls(&url, None);
        }
    }
}

#[test]
fn public_resource_cannot_discover_into_private_or_metadata_addresses() {
    let p = SecurityPolicy::default();
    let remote = u("https://mcp.example.com/mcp");
    for bad in [
        "https://10.0.0.5/x",
        "https://172.16.3.4/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest/meta-data",
        "https://100.64.0.1/x",
        "https://0.0.0.0/x",
        "https://[fd00::1]/x",
        "https://[fe80::1]/x",
        "https://[::]/x",
        "https://[::ffff:10.0.0.1]/x",
        "https://[::ffff:127.0.0.1]/x",
    ] {
        assert!(
            check_discovery_target(&remote, &u(bad), &p).is_err(),
            "{bad}"
        );
    }
    // Public literals and the neighbours of the private ranges pass.
    for good in [
        "https://8.8.8.8/x",
        "https://172.32.0.1/x",
        "https://100.128.0.1/x",
        "https://[2001:db8::1]/x",
    ] {
        assert!(
            check_discovery_target(&remote, &u(good), &p).is_ok(),
            "{good}"
        );
    }
    // An internal deployment may use internal authorization servers.
    let internal = u("https://10.1.2.3/mcp");
    assert!(check_discovery_target(&internal, &u("https://10.9.9.9/as"), &p).is_ok());
    assert!(check_discovery_target(&internal, &u("https://127.0.0.1/as"), &p).is_err());
    assert!(check_resource_metadata_url(&remote, "https://169.254.169.254/prm", &p).is_err());
}

//! Authorization URL building and redirect validation (state, RFC 9207 iss).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use mcp_auth::authorize::*;
use mcp_auth::random::SeededRandom;
use url::Url;

fn pending(iss_supported: bool) -> PendingAuthorization {
    let params = AuthorizationParams::new(
        Url::parse("https://auth.example.com/authorize?tenant=1").unwrap(),
        "https://app.example.com/client.json",
        "http://127.0.0.1:3000/callback",
        "https://auth.example.com",
    )
    .with_scope(Some("files:read offline_access".into()))
    .with_resource(Some("https://mcp.example.com/mcp".into()))
    .with_iss_parameter_supported(iss_supported);
    begin(params, &SeededRandom::new(42)).unwrap()
}

fn redirect(p: &PendingAuthorization, extra: &str) -> String {
    format!(
        "http://127.0.0.1:3000/callback?state={}&{extra}",
        p.state.expose()
    )
}

#[test]
fn authorization_url_carries_every_parameter() {
    let p = pending(true);
    let pairs: Vec<(String, String)> = p.url.query_pairs().into_owned().collect();
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("tenant"), Some("1"));
    assert_eq!(get("response_type"), Some("code"));
    assert_eq!(
        get("client_id"),
        Some("https://app.example.com/client.json")
    );
    assert_eq!(get("redirect_uri"), Some("http://127.0.0.1:3000/callback"));
    assert_eq!(get("code_challenge_method"), Some("S256"));
    assert_eq!(get("code_challenge"), Some(p.pkce.challenge.as_str()));
    assert_eq!(get("state"), Some(p.state.expose()));
    assert_eq!(get("scope"), Some("files:read offline_access"));
    assert_eq!(get("resource"), Some("https://mcp.example.com/mcp"));
    // The verifier never appears in the URL.
    assert!(!p.url.as_str().contains(p.pkce.verifier.expose()));
    assert!(
        p.url
            .as_str()
            .contains("resource=https%3A%2F%2Fmcp.example.com%2Fmcp")
    );
}

#[test]
fn scope_and_resource_omitted_when_none() {
    let params = AuthorizationParams::new(
        Url::parse("https://as/authorize").unwrap(),
        "c",
        "http://localhost/cb",
        "https://as",
    );
    let p = begin(params, &SeededRandom::new(1)).unwrap();
    assert!(
        p.url
            .query_pairs()
            .all(|(k, _)| k != "scope" && k != "resource")
    );
}

#[test]
fn good_redirect_yields_code() {
    let p = pending(true);
    let code = p
        .complete(&redirect(&p, "code=abc&iss=https%3A%2F%2Fauth.example.com"))
        .unwrap();
    assert_eq!(code.expose(), "abc");
}

#[test]
fn state_checks() {
    let p = pending(false);
    assert_eq!(
        p.complete("http://127.0.0.1:3000/callback?code=abc"),
        Err(RedirectError::StateMismatch)
    );
    assert_eq!(
        p.complete("http://127.0.0.1:3000/callback?code=abc&state=wrong"),
        Err(RedirectError::StateMismatch)
    );
    assert!(matches!(
        p.complete(&redirect(&p, "code=a&code=b")),
        Err(RedirectError::DuplicateParameter(_))
    ));
    assert_eq!(
        p.complete(&format!(
            "http://127.0.0.1:3001/callback?state={}&code=a",
            p.state.expose()
        )),
        Err(RedirectError::WrongRedirectUri)
    );
    assert_eq!(p.complete("::"), Err(RedirectError::InvalidUrl));
}

#[test]
fn iss_table_of_the_2026_revision() {
    // advertised + present + equal
    let p = pending(true);
    assert!(
        p.complete(&redirect(&p, "code=a&iss=https://auth.example.com"))
            .is_ok()
    );
    // advertised + absent
    assert_eq!(
        p.complete(&redirect(&p, "code=a")),
        Err(RedirectError::IssuerMissing)
    );
    // not advertised + present: still compared
    let q = pending(false);
    assert_eq!(
        q.complete(&redirect(&q, "code=a&iss=https://evil.example")),
        Err(RedirectError::IssuerMismatch)
    );
    // not advertised + absent: proceed
    assert!(q.complete(&redirect(&q, "code=a")).is_ok());
}

#[test]
fn iss_is_not_normalized() {
    let p = pending(true);
    for variant in [
        "https://auth.example.com/",
        "https://AUTH.example.com",
        "HTTPS://auth.example.com",
        "https://auth.example.com:443",
        "https://auth.example.co%6D",
    ] {
        let enc: String = url::form_urlencoded::byte_serialize(variant.as_bytes()).collect();
        assert_eq!(
            p.complete(&redirect(&p, &format!("code=a&iss={enc}"))),
            Err(RedirectError::IssuerMismatch),
            "{variant}"
        );
    }
}

#[test]
fn errors_are_not_acted_on_when_iss_mismatches() {
    let p = pending(true);
    assert_eq!(
        p.complete(&redirect(
            &p,
            "error=access_denied&iss=https://evil.example"
        )),
        Err(RedirectError::IssuerMismatch)
    );
    assert_eq!(
        p.complete(&redirect(
            &p,
            "error=access_denied&error_description=no&iss=https://auth.example.com"
        )),
        Err(RedirectError::Denied {
            error: "access_denied".into(),
            description: Some("no".into())
        })
    );
    assert_eq!(
        p.complete(&redirect(&p, "iss=https://auth.example.com")),
        Err(RedirectError::MissingCode)
    );
}

#[test]
fn debug_of_pending_hides_state_and_verifier() {
    let p = pending(true);
    let dbg = format!("{p:?}");
    assert!(!dbg.contains(p.pkce.verifier.expose()));
    // The state appears in the URL field (it is a public parameter), but not as a
    // field value of its own.
    assert!(dbg.contains("state: Secret(***)"));
}

proptest::proptest! {
    #[test]
    fn redirect_parsing_never_panics(s in "\\PC{0,200}") {
        let p = pending(true);
        let _ = p.complete(&s);
        let _ = p.complete(&format!("http://127.0.0.1:3000/callback?{s}"));
    }

    #[test]
    fn wrong_state_is_always_refused(state in "[A-Za-z0-9_-]{1,64}") {
        let p = pending(false);
        proptest::prop_assume!(state != p.state.expose());
        let r = p.complete(&format!("http://127.0.0.1:3000/callback?code=c&state={state}"));
        proptest::prop_assert_eq!(r, Err(RedirectError::StateMismatch));
    }
}

//! WWW-Authenticate parser: examples from the RFCs and the MCP spec, and properties.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use mcp_auth::challenge::{ChallengeError, oauth_challenge, parse_all, parse_www_authenticate};
use proptest::prelude::*;

#[test]
fn mcp_spec_401_example() {
    let v = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",
                         scope="files:read""#;
    let c = parse_www_authenticate(v).unwrap();
    assert_eq!(c.len(), 1);
    assert!(c[0].is_bearer());
    assert_eq!(
        c[0].resource_metadata(),
        Some("https://mcp.example.com/.well-known/oauth-protected-resource")
    );
    assert_eq!(c[0].scope(), Some("files:read"));
}

#[test]
fn insufficient_scope_403_example() {
    let v = r#"Bearer error="insufficient_scope", scope="files:read files:write user:profile", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="Additional file write permission required""#;
    let c = &parse_www_authenticate(v).unwrap()[0];
    assert_eq!(c.error(), Some("insufficient_scope"));
    assert_eq!(c.scope(), Some("files:read files:write user:profile"));
    assert_eq!(
        c.error_description(),
        Some("Additional file write permission required")
    );
}

#[test]
fn multiple_challenges_and_dpop() {
    let v = r#"DPoP algs="ES256 PS256", error="use_dpop_nonce", Bearer realm="x", Basic"#;
    let c = parse_www_authenticate(v).unwrap();
    assert_eq!(c.len(), 3);
    assert!(c[0].is_dpop());
    assert_eq!(c[0].dpop_algs(), vec!["ES256", "PS256"]);
    assert_eq!(c[0].error(), Some("use_dpop_nonce"));
    assert_eq!(c[1].param("REALM"), Some("x"));
    assert_eq!(c[2].scheme, "basic");
    assert!(c[2].params.is_empty());
    assert!(oauth_challenge(&c, true).unwrap().is_dpop());
    assert!(oauth_challenge(&c, false).unwrap().is_bearer());
}

#[test]
fn case_insensitive_scheme_and_names_token_values() {
    let c = &parse_www_authenticate("bEaReR Scope=read ,ERROR = invalid_token").unwrap()[0];
    assert!(c.is_bearer());
    assert_eq!(c.scope(), Some("read"));
    assert_eq!(c.error(), Some("invalid_token"));
}

#[test]
fn quoted_pairs_are_unescaped() {
    let c = &parse_www_authenticate(r#"Bearer error_description="say \"hi\" \\ ok""#).unwrap()[0];
    assert_eq!(c.error_description(), Some(r#"say "hi" \ ok"#));
}

#[test]
fn token68_and_bare_scheme() {
    let c = parse_www_authenticate("Negotiate abc+/de==, Bearer").unwrap();
    assert_eq!(c[0].token68.as_deref(), Some("abc+/de=="));
    assert!(c[1].is_bearer());
}

#[test]
fn separate_header_lines() {
    let c = parse_all([r#"Bearer scope="a""#, "DPoP algs=ES256"]).unwrap();
    assert_eq!(c.len(), 2);
}

#[test]
fn garbage_is_a_typed_error() {
    assert_eq!(parse_www_authenticate(""), Err(ChallengeError::Empty));
    assert_eq!(parse_www_authenticate(" , ,"), Err(ChallengeError::Empty));
    assert_eq!(
        parse_www_authenticate(r#"Bearer scope="unterminated"#),
        Err(ChallengeError::Unterminated)
    );
    assert!(matches!(
        parse_www_authenticate("Bearer scope=a, scope=b"),
        Err(ChallengeError::DuplicateParam(_))
    ));
    assert!(parse_www_authenticate("Bearer scope=\"a\" junk").is_err());
    assert!(parse_www_authenticate("\"Bearer\"").is_err());
    assert!(parse_www_authenticate("Bearer=x").is_err());
    assert!(matches!(
        parse_www_authenticate(&"a".repeat(20_000)),
        Err(ChallengeError::TooLong(_))
    ));
    let many = vec!["Basic"; 40].join(", ");
    assert_eq!(parse_www_authenticate(&many), Err(ChallengeError::TooMany));
}

fn render(scheme: &str, params: &[(String, String)]) -> String {
    let ps: Vec<String> = params
        .iter()
        .map(|(n, v)| {
            let esc = v.replace('\\', "\\\\").replace('"', "\\\"");
            format!("{n}=\"{esc}\"")
        })
        .collect();
    if ps.is_empty() {
        scheme.to_owned()
    } else {
        format!("{scheme} {}", ps.join(", "))
    }
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,200}") {
        let _ = parse_www_authenticate(&s);
    }

    #[test]
    fn never_panics_on_near_valid(s in "[ ,=\"\\\\a-zA-Z_\t]{0,120}") {
        let _ = parse_www_authenticate(&s);
    }

    #[test]
    fn rendered_challenges_round_trip(
        challenges in proptest::collection::vec(
            ("[A-Za-z][A-Za-z0-9]{0,8}",
             proptest::collection::btree_map("[a-z_]{1,10}", "[ -~]{0,20}", 0..5)),
            1..4)
    ) {
        let rendered: Vec<String> = challenges.iter().map(|(s, p)| {
            let params: Vec<(String, String)> = p.clone().into_iter().collect();
            render(s, &params)
        }).collect();
        let parsed = parse_www_authenticate(&rendered.join(", ")).unwrap();
        prop_assert_eq!(parsed.len(), challenges.len());
        for (got, (scheme, params)) in parsed.iter().zip(&challenges) {
            prop_assert_eq!(&got.scheme, &scheme.to_ascii_lowercase());
            let want: Vec<(String, String)> = params.clone().into_iter().collect();
            prop_assert_eq!(&got.params, &want);
        }
    }
}

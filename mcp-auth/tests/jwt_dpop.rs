//! JWS signing (ES256, RS256), client assertions and DPoP proofs, verified with ring.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_auth::dpop::*;
use mcp_auth::http::{HttpResponse, Method};
use mcp_auth::jwt::*;
use mcp_auth::random::SeededRandom;
use mcp_auth::secret::Secret;
use ring::signature;
use serde_json::Value;
use url::Url;

fn b64(s: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(s).unwrap()
}

fn split(jwt: &Secret) -> (Value, Value, String, Vec<u8>) {
    let parts: Vec<&str> = jwt.expose().split('.').collect();
    assert_eq!(parts.len(), 3);
    (
        serde_json::from_slice(&b64(parts[0])).unwrap(),
        serde_json::from_slice(&b64(parts[1])).unwrap(),
        format!("{}.{}", parts[0], parts[1]),
        b64(parts[2]),
    )
}

fn verify(jwk: &Value, input: &str, sig: &[u8]) {
    match jwk["kty"].as_str().unwrap() {
        "EC" => {
            let mut pk = vec![4u8];
            pk.extend(b64(jwk["x"].as_str().unwrap()));
            pk.extend(b64(jwk["y"].as_str().unwrap()));
            signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, pk)
                .verify(input.as_bytes(), sig)
                .unwrap();
        }
        "RSA" => {
            let c = signature::RsaPublicKeyComponents {
                n: b64(jwk["n"].as_str().unwrap()),
                e: b64(jwk["e"].as_str().unwrap()),
            };
            c.verify(
                &signature::RSA_PKCS1_2048_8192_SHA256,
                input.as_bytes(),
                sig,
            )
            .unwrap();
        }
        other => panic!("unexpected kty {other}"),
    }
}

#[test]
fn es256_client_assertion_verifies() {
    let key = SigningKey::from_pem(include_str!("fixtures/ec-test-key.pem"), Algorithm::Es256)
        .unwrap()
        .with_kid("k1");
    let jwt = client_assertion(
        &key,
        "svc",
        "https://as/token",
        1000,
        300,
        &SeededRandom::new(3),
    )
    .unwrap();
    let (h, c, input, sig) = split(&jwt);
    assert_eq!(h["alg"], "ES256");
    assert_eq!(h["kid"], "k1");
    assert_eq!(c["iss"], "svc");
    assert_eq!(c["sub"], "svc");
    assert_eq!(c["aud"], "https://as/token");
    assert_eq!(c["exp"], 1300);
    assert!(c["jti"].as_str().unwrap().len() >= 16);
    assert_eq!(sig.len(), 64);
    verify(&key.public_jwk(), &input, &sig);
}

#[test]
fn rs256_pkcs8_and_pkcs1_verify() {
    for pem in [
        include_str!("fixtures/rsa-test-key.pem"),
        include_str!("fixtures/rsa-test-key-pkcs1.pem"),
    ] {
        let key = SigningKey::from_pem(pem, Algorithm::Rs256).unwrap();
        let jwt =
            client_assertion(&key, "svc", "https://as", 1, 60, &SeededRandom::new(4)).unwrap();
        let (h, _, input, sig) = split(&jwt);
        assert_eq!(h["alg"], "RS256");
        verify(&key.public_jwk(), &input, &sig);
        assert!(!format!("{key:?}").contains("MII"));
    }
}

#[test]
fn bad_keys_are_typed_errors() {
    assert_eq!(
        SigningKey::from_pem("nothing", Algorithm::Es256).unwrap_err(),
        KeyError::NoPem
    );
    assert!(matches!(
        SigningKey::from_pem(include_str!("fixtures/rsa-test-key.pem"), Algorithm::Es256),
        Err(KeyError::Rejected(_))
    ));
    assert!(SigningKey::es256_from_pkcs8(b"garbage").is_err());
}

#[test]
fn thumbprint_is_sha256_of_the_rfc7638_canonical_jwk() {
    let key = SigningKey::generate_es256().unwrap();
    let jwk = key.public_jwk();
    let canonical = format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["x"].as_str().unwrap(),
        jwk["y"].as_str().unwrap()
    );
    let d = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
    assert_eq!(key.jwk_thumbprint(), URL_SAFE_NO_PAD.encode(d.as_ref()));
    assert_eq!(b64(jwk["x"].as_str().unwrap()).len(), 32);
    assert_eq!(b64(jwk["y"].as_str().unwrap()).len(), 32);
}

#[test]
fn dpop_proof_shape_and_signature() {
    let prover = DpopProver::generate().unwrap();
    let url = Url::parse("https://mcp.example.com/mcp?x=1#f").unwrap();
    let token = Secret::new("AT");
    let rng = SeededRandom::new(9);
    let p1 = prover
        .proof(Method::Post, &url, Some(&token), 1_700_000_000, &rng)
        .unwrap();
    let p2 = prover
        .proof(Method::Post, &url, Some(&token), 1_700_000_000, &rng)
        .unwrap();
    let (h, c, input, sig) = split(&p1);
    assert_eq!(h["typ"], "dpop+jwt");
    assert_eq!(h["alg"], "ES256");
    assert!(
        h["jwk"].get("d").is_none(),
        "private key must not be embedded"
    );
    assert_eq!(c["htm"], "POST");
    assert_eq!(c["htu"], "https://mcp.example.com/mcp");
    assert_eq!(c["iat"], 1_700_000_000);
    assert_eq!(c["ath"], access_token_hash(&token));
    assert!(c.get("nonce").is_none());
    verify(&h["jwk"], &input, &sig);
    let (_, c2, _, _) = split(&p2);
    assert_ne!(c["jti"], c2["jti"], "each proof has a fresh jti");
}

#[test]
fn dpop_nonces_are_per_origin() {
    let prover = DpopProver::generate().unwrap();
    let rs = Url::parse("https://mcp.example.com/mcp").unwrap();
    let asu = Url::parse("https://as.example.com/token").unwrap();
    let resp = HttpResponse::new(401, vec![("DPoP-Nonce".into(), "n-1".into())], vec![]);
    assert!(prover.record_nonce(&rs, &resp));
    assert!(!prover.record_nonce(&rs, &resp));
    assert_eq!(prover.nonce_for(&rs).as_deref(), Some("n-1"));
    assert_eq!(prover.nonce_for(&asu), None);
    let (_, c, _, _) = split(
        &prover
            .proof(Method::Post, &rs, None, 1, &SeededRandom::new(1))
            .unwrap(),
    );
    assert_eq!(c["nonce"], "n-1");
    assert!(c.get("ath").is_none());
    let bad = HttpResponse::new(400, vec![("dpop-nonce".into(), "x".repeat(600))], vec![]);
    assert!(!prover.record_nonce(&asu, &bad));
}

#[test]
fn nonce_challenge_detection() {
    let as_resp = HttpResponse::json(400, &serde_json::json!({"error": "use_dpop_nonce"}));
    assert!(is_as_nonce_challenge(&as_resp));
    assert!(!is_as_nonce_challenge(&HttpResponse::json(
        400,
        &serde_json::json!({"error": "invalid_grant"})
    )));
    let ch = mcp_auth::challenge::parse_www_authenticate(
        r#"DPoP error="use_dpop_nonce", error_description="fresh nonce""#,
    )
    .unwrap();
    assert!(is_rs_nonce_challenge(401, &ch));
    assert!(!is_rs_nonce_challenge(403, &ch));
}

#[test]
fn persisted_dpop_key_keeps_its_thumbprint() {
    let (key, der) = SigningKey::generate_es256_pkcs8().unwrap();
    let again = SigningKey::es256_from_pkcs8(&der).unwrap();
    assert_eq!(key.jwk_thumbprint(), again.jwk_thumbprint());
    assert_eq!(
        DpopProver::new(again).thumbprint(),
        DpopProver::new(key).thumbprint()
    );
}

/// The conformance suite hands `private_key_jwt` clients a PKCS#8 key exported
/// by WebCrypto (`exportPKCS8`); such a key must load and sign.
#[test]
fn webcrypto_pkcs8_ec_key_loads_and_signs() {
    let key = SigningKey::from_pem(
        include_str!("fixtures/node-webcrypto-ec.pem"),
        Algorithm::Es256,
    )
    .unwrap();
    let jwt = client_assertion(
        &key,
        "svc",
        "http://localhost:1",
        1000,
        300,
        &SeededRandom::new(4),
    )
    .unwrap();
    let (h, c, _, _) = split(&jwt);
    assert_eq!(h["alg"], "ES256");
    assert_eq!(c["aud"], "http://localhost:1");
}

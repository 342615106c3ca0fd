//! The OAuth mode of the demo server over loopback HTTP: `/mcp` refuses
//! requests without a valid bearer (`401` + `WWW-Authenticate` pointing at
//! the protected resource metadata), the metadata lead to the endpoints,
//! and the token endpoint refuses a wrong PKCE verifier, a reused code, and
//! the authorization endpoint an unregistered redirect URI; a wrong and an
//! expired token are refused at `/mcp`.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::{Http, modern, roundtrip};
use demo_server::{DemoOptions, OAuthOptions};
use http::Method;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

const REDIRECT: &str = "http://127.0.0.1:9/callback";
/// RFC 7636 appendix B: this verifier and its S256 challenge.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

struct Reply {
    status: u16,
    headers: http::HeaderMap,
    body: Value,
}

/// One request to `path` of the server at `addr`.
async fn send(addr: SocketAddr, method: Method, path: &str, body: Option<(&str, String)>) -> Reply {
    let mut req = http::Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string());
    let bytes = match body {
        Some((content_type, text)) => {
            req = req.header("content-type", content_type);
            text.into_bytes()
        }
        None => Vec::new(),
    };
    let req = req.body(Full::new(Bytes::from(bytes))).unwrap();
    let (parts, body) = roundtrip(addr, req).await.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    Reply {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

fn form(pairs: &[(&str, &str)]) -> Option<(&'static str, String)> {
    let text = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    Some(("application/x-www-form-urlencoded", text))
}

async fn start(opts: OAuthOptions) -> (Http, SocketAddr) {
    let h = Http::start(DemoOptions::default().with_oauth(opts)).await;
    let addr = h.handle.local_addr();
    (h, addr)
}

/// Registers a client; returns its id.
async fn register(addr: SocketAddr) -> String {
    let body = json!({ "redirect_uris": [REDIRECT], "client_name": "test" }).to_string();
    let r = send(
        addr,
        Method::POST,
        "/register",
        Some(("application/json", body)),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body["client_id"].as_str().unwrap().to_owned()
}

/// Runs the authorization endpoint; returns the redirect's query.
async fn authorize(addr: SocketAddr, client_id: &str) -> HashMap<String, String> {
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", REDIRECT),
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
            ("state", "st-1"),
        ])
        .finish();
    let r = send(addr, Method::GET, &format!("/authorize?{query}"), None).await;
    assert_eq!(r.status, 302);
    let location = r.headers["location"].to_str().unwrap();
    let (target, query) = location.split_once('?').unwrap();
    assert_eq!(target, REDIRECT);
    form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect()
}

async fn exchange(addr: SocketAddr, client_id: &str, code: &str, verifier: &str) -> Reply {
    let pairs = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier),
    ];
    send(addr, Method::POST, "/token", form(&pairs)).await
}

/// A token from the whole flow.
async fn token(addr: SocketAddr) -> String {
    let client_id = register(addr).await;
    let code = authorize(addr, &client_id).await["code"].clone();
    let r = exchange(addr, &client_id, &code, VERIFIER).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["access_token"].as_str().unwrap().to_owned()
}

async fn discover(h: &Http, bearer: Option<&str>) -> common::HttpResponse {
    let auth: Vec<(&str, String)> = bearer
        .map(|t| vec![("authorization", format!("Bearer {t}"))])
        .unwrap_or_default();
    h.modern(
        json!(1),
        "server/discover",
        modern(json!({}), json!({})),
        None,
        &auth,
    )
    .await
}

fn challenge(r: &common::HttpResponse) -> String {
    r.headers["www-authenticate"].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn metadata_lead_from_the_401_to_every_endpoint() {
    let (h, addr) = start(OAuthOptions::default()).await;
    let r = discover(&h, None).await;
    assert_eq!(r.status, 401);
    let base = format!("http://{addr}");
    let prm_url = format!("{base}/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        challenge(&r),
        format!("Bearer resource_metadata=\"{prm_url}\"")
    );
    let prm = send(
        addr,
        Method::GET,
        "/.well-known/oauth-protected-resource/mcp",
        None,
    )
    .await;
    assert_eq!(prm.body["resource"], format!("{base}/mcp"));
    assert_eq!(prm.body["authorization_servers"][0], base);
    let meta = send(
        addr,
        Method::GET,
        "/.well-known/oauth-authorization-server",
        None,
    )
    .await;
    assert_eq!(meta.body["issuer"], base);
    assert_eq!(
        meta.body["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(meta.body["token_endpoint"], format!("{base}/token"));
    h.stop().await;
}

#[tokio::test]
async fn a_valid_token_opens_mcp_and_a_wrong_one_does_not() {
    let (h, addr) = start(OAuthOptions::default()).await;
    let good = token(addr).await;
    let r = discover(&h, Some(&good)).await;
    assert_eq!(r.status, 200);
    let r = discover(&h, Some("not-a-token")).await;
    assert_eq!(r.status, 401);
    let c = challenge(&r);
    assert!(
        c.contains("error=\"invalid_token\"") && c.contains("unknown access token"),
        "{c}"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let (h, addr) = start(OAuthOptions::default().with_token_ttl(Duration::ZERO)).await;
    let expired = token(addr).await;
    let r = discover(&h, Some(&expired)).await;
    assert_eq!(r.status, 401);
    assert!(
        challenge(&r).contains("the access token expired"),
        "{}",
        challenge(&r)
    );
    h.stop().await;
}

#[tokio::test]
async fn a_bad_pkce_verifier_is_refused_and_burns_the_code() {
    let (h, addr) = start(OAuthOptions::default()).await;
    let client_id = register(addr).await;
    let redirect = authorize(addr, &client_id).await;
    assert_eq!(redirect["state"], "st-1");
    assert_eq!(redirect["iss"], format!("http://{addr}"));
    let wrong = "A".repeat(43);
    let r = exchange(addr, &client_id, &redirect["code"], &wrong).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["error"], "invalid_grant");
    assert!(
        r.body["error_description"]
            .as_str()
            .unwrap()
            .contains("does not match")
    );
    let r = exchange(addr, &client_id, &redirect["code"], VERIFIER).await;
    assert_eq!(
        r.status, 400,
        "a code is used once, even by a failed exchange"
    );
    h.stop().await;
}

#[tokio::test]
async fn an_unregistered_redirect_is_not_followed() {
    let (h, addr) = start(OAuthOptions::default()).await;
    let client_id = register(addr).await;
    let path = format!(
        "/authorize?response_type=code&client_id={client_id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fother&code_challenge={CHALLENGE}&code_challenge_method=S256"
    );
    let r = send(addr, Method::GET, &path, None).await;
    assert_eq!(r.status, 400);
    assert!(r.headers.get("location").is_none());
    // Without PKCE the error goes back to the client's redirect URI.
    let path = format!(
        "/authorize?response_type=code&client_id={client_id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback"
    );
    let r = send(addr, Method::GET, &path, None).await;
    assert_eq!(r.status, 302);
    assert!(
        r.headers["location"]
            .to_str()
            .unwrap()
            .contains("error=invalid_request")
    );
    h.stop().await;
}

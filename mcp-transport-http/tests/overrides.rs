//! Per-request credentials and settings changed after build.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http::{HeaderMap, HeaderValue, StatusCode};
use mcp_transport_http::auth::{
    AuthChallenge, AuthDecision, AuthError, AuthProvider, AuthRequest, BearerToken, BoxFuture,
    Credentials,
};
use mcp_transport_http::{HttpError, HttpTransport};
use support::*;

/// A provider that counts what it is asked and always wants a retry.
#[derive(Debug, Default)]
struct Counting {
    asked: AtomicUsize,
    refused: AtomicUsize,
}

impl AuthProvider for Counting {
    fn credentials<'a>(
        &'a self,
        _request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Credentials, AuthError>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let value = HeaderValue::from_static("Bearer provider");
        let c = Credentials::none(0).with_header(http::header::AUTHORIZATION, value);
        Box::pin(async move { Ok(c) })
    }

    fn on_unauthorized<'a>(
        &'a self,
        _challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<AuthDecision, AuthError>> {
        self.refused.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(AuthDecision::Retry) })
    }
}

fn override_token(token: &str) -> HeaderMap {
    let mut extra = HeaderMap::new();
    let value = HeaderValue::try_from(format!("Bearer {token}")).unwrap();
    extra.insert(http::header::AUTHORIZATION, value);
    extra
}

#[tokio::test]
async fn a_request_authorization_replaces_the_provider_for_that_request_only() {
    let server = serve(|seen, _| match seen.header("authorization") {
        Some("Bearer rejected") => status(401),
        _ => json(200, &result(request_id(seen), "{}")),
    })
    .await;
    let provider = Arc::new(Counting::default());
    let t = HttpTransport::new(config(&server.url).with_auth(provider.clone())).unwrap();

    let r = modern(1, "tools/list");
    t.send_with(request(1, "tools/list"), &r, &override_token("per-call"))
        .await
        .unwrap();
    assert_eq!(provider.asked.load(Ordering::SeqCst), 0, "not consulted");
    t.send(request(2, "tools/list"), &modern(2, "tools/list"))
        .await
        .unwrap();
    assert_eq!(provider.asked.load(Ordering::SeqCst), 1);
    let seen = server.state.seen();
    assert_eq!(seen[0].header("authorization"), Some("Bearer per-call"));
    assert_eq!(seen[0].headers.get_all("authorization").iter().count(), 1);
    assert_eq!(seen[1].header("authorization"), Some("Bearer provider"));

    // A refused override is surfaced at once: the provider cannot fix it.
    let r = modern(3, "tools/list");
    let err = t
        .send_with(request(3, "tools/list"), &r, &override_token("rejected"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, HttpError::Unauthorized { status, .. } if status == StatusCode::UNAUTHORIZED)
    );
    assert_eq!(provider.refused.load(Ordering::SeqCst), 0);
    assert_eq!(server.state.seen().len(), 3, "no retry");
}

#[tokio::test]
async fn headers_and_provider_set_after_build_reach_later_requests() {
    let server = serve(|seen, _| json(200, &result(request_id(seen), "{}"))).await;
    let t = HttpTransport::new(config(&server.url).with_header("x-a", "1").unwrap()).unwrap();
    t.send(request(1, "tools/list"), &modern(1, "tools/list"))
        .await
        .unwrap();
    t.set_header("x-a", "2").unwrap();
    t.set_header("x-tenant", "acme").unwrap();
    t.set_auth(Some(Arc::new(BearerToken::new("later").unwrap())));
    t.send(request(2, "tools/list"), &modern(2, "tools/list"))
        .await
        .unwrap();
    assert!(t.remove_header("x-tenant").unwrap());
    t.set_auth(None);
    t.send(request(3, "tools/list"), &modern(3, "tools/list"))
        .await
        .unwrap();
    let seen = server.state.seen();
    assert_eq!(seen[0].header("x-a"), Some("1"));
    assert_eq!(seen[0].header("authorization"), None);
    assert_eq!(seen[1].header("x-a"), Some("2"));
    assert_eq!(seen[1].header("x-tenant"), Some("acme"));
    assert_eq!(seen[1].header("authorization"), Some("Bearer later"));
    assert_eq!(seen[2].header("x-tenant"), None);
    assert_eq!(seen[2].header("authorization"), None);
    assert!(t.set_header("mcp-session-id", "spoof").is_err());
}

#[test]
fn a_token_set_at_runtime_stays_out_of_debug_output() {
    let t = HttpTransport::new(config("http://127.0.0.1:9/mcp")).unwrap();
    t.set_header("authorization", "Bearer s3cr3t").unwrap();
    t.set_auth(Some(Arc::new(BearerToken::new("t0ps3cr3t").unwrap())));
    let debug = format!("{t:?}");
    assert!(!debug.contains("s3cr3t"), "{debug}");
}

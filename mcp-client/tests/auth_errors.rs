//! An authorization provider's failure reaches the caller typed:
//! [`Error::is_authorization_failed`] and the provider's error in the
//! `source()` chain, during connect and on a later request.

use mcp_testkit::demo as common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{Server, Via};
use mcp_client::{Error, HttpConfig};
use mcp_transport_http::auth::{
    AuthChallenge, AuthDecision, AuthError, AuthProvider, AuthRequest, BoxFuture, Credentials,
};
use serde_json::json;

/// Fails `credentials` while `failing` is set, with an OAuth error as the
/// cause, the way the OAuth provider reports a refused metadata document.
#[derive(Debug)]
struct FailingProvider {
    failing: AtomicBool,
}

impl AuthProvider for FailingProvider {
    fn credentials<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Credentials, AuthError>> {
        let _ = request;
        let fail = self.failing.load(Ordering::SeqCst);
        Box::pin(async move {
            if fail {
                let cause = mcp_auth::AuthError::NoResourceMetadata("http://127.0.0.1/".into());
                Err(AuthError::with_source("OAuth authorization failed", cause))
            } else {
                Ok(Credentials::default())
            }
        })
    }

    fn on_unauthorized<'a>(
        &'a self,
        _challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<AuthDecision, AuthError>> {
        Box::pin(async { Ok(AuthDecision::Fail) })
    }
}

fn oauth_cause(e: &Error) -> Option<&mcp_auth::AuthError> {
    let mut next: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(s) = next {
        if let Some(found) = s.downcast_ref::<mcp_auth::AuthError>() {
            return Some(found);
        }
        next = s.source();
    }
    None
}

fn builder(server: &Server, failing: bool) -> (mcp_client::ClientBuilder, Arc<FailingProvider>) {
    let url = server.url().expect("an HTTP server");
    let provider = Arc::new(FailingProvider {
        failing: AtomicBool::new(failing),
    });
    let config = HttpConfig::new(&url)
        .expect("config")
        .with_auth(provider.clone());
    (server.builder().http_config(config), provider)
}

#[tokio::test]
async fn a_provider_failure_during_connect_is_an_authorization_failure() {
    for via in [Via::HttpLegacy, Via::HttpModern] {
        let server = Server::start(via).await;
        let e = builder(&server, true)
            .0
            .connect()
            .await
            .expect_err("the provider fails");
        assert!(e.is_authorization_failed(), "{via:?}: {e:?}");
        assert!(
            matches!(e.http_error(), Some(mcp_transport_http::HttpError::Auth(_))),
            "{via:?}: {e:?}"
        );
        let cause = oauth_cause(&e).expect("the OAuth error in the source chain");
        assert!(matches!(cause, mcp_auth::AuthError::NoResourceMetadata(_)));
    }
}

#[tokio::test]
async fn a_provider_failure_on_a_request_is_an_authorization_failure() {
    for via in [Via::HttpLegacy, Via::HttpModern] {
        let server = Server::start(via).await;
        let (builder, provider) = builder(&server, false);
        let client = builder.connect().await.expect("connect");
        provider.failing.store(true, Ordering::SeqCst);
        let e = client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .expect_err("the provider fails");
        assert!(e.is_authorization_failed(), "{via:?}: {e:?}");
        assert!(oauth_cause(&e).is_some(), "{via:?}: {e:?}");
        // Later requests are unaffected once the provider recovers.
        provider.failing.store(false, Ordering::SeqCst);
        let listed = client.list_tools(None).await.expect("list");
        assert!(!listed.tools.is_empty());
    }
}

#[tokio::test]
async fn other_errors_are_not_authorization_failures() {
    let server = Server::start(Via::HttpModern).await;
    let client = builder(&server, false).0.connect().await.expect("connect");
    let e = client
        .call_tool("no_such_tool", json!({}))
        .await
        .expect_err("unknown tool");
    assert!(!e.is_authorization_failed(), "{e:?}");
    assert!(oauth_cause(&e).is_none());
}

//! What the host plugs in: the [`AuthorizationHandler`] that shows the user the
//! authorization URL, the [`Clock`], and [`AssertionProvider`]s for grants whose
//! input comes from outside (workload identity tokens, enterprise ID tokens).

use std::time::SystemTime;

use crate::http::BoxFuture;
use crate::secret::Secret;

/// Presents an authorization URL to the user and returns the redirect URL the user
/// agent arrived at (for example from a loopback listener or a custom scheme).
pub trait AuthorizationHandler: Send + Sync {
    /// Opens or shows `authorization_url`; resolves to the full redirect URL.
    fn authorize<'a>(&'a self, authorization_url: &'a str)
    -> BoxFuture<'a, Result<String, String>>;
}

/// The time source. Tests inject a fixed or stepping clock.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods)] // the one place that reads the wall clock
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// Supplies an assertion on demand: a workload identity JWT (RFC 7523 grant), or
/// an enterprise ID token / SAML assertion to exchange for an ID-JAG.
pub trait AssertionProvider: Send + Sync {
    /// A current assertion.
    fn assertion(&self) -> BoxFuture<'_, Result<Secret, String>>;
}

/// A fixed assertion (tests, short-lived processes).
#[derive(Clone, Debug)]
pub struct StaticAssertion(pub Secret);

impl AssertionProvider for StaticAssertion {
    fn assertion(&self) -> BoxFuture<'_, Result<Secret, String>> {
        let value = self.0.clone();
        Box::pin(async move { Ok(value) })
    }
}

/// An [`AuthorizationHandler`] for tests and conformance runs: it GETs the
/// authorization URL through the [`HttpClient`](crate::http::HttpClient) (which never
/// follows redirects) and returns the `Location` of the authorization server's
/// redirect, as a user agent that approves everything would. Not for production:
/// a real user must see and approve the request.
pub struct HeadlessRedirectHandler {
    http: std::sync::Arc<dyn crate::http::HttpClient>,
}

impl std::fmt::Debug for HeadlessRedirectHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HeadlessRedirectHandler")
    }
}

impl HeadlessRedirectHandler {
    /// A handler sending its request through `http`.
    pub fn new(http: std::sync::Arc<dyn crate::http::HttpClient>) -> Self {
        Self { http }
    }
}

impl AuthorizationHandler for HeadlessRedirectHandler {
    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let base = url::Url::parse(authorization_url).map_err(|e| e.to_string())?;
            let resp = self
                .http
                .send(crate::http::HttpRequest::get(authorization_url))
                .await
                .map_err(|e| e.to_string())?;
            if !(300..400).contains(&resp.status) {
                return Err(format!(
                    "authorization endpoint answered {} instead of a redirect",
                    resp.status
                ));
            }
            let location = resp
                .header("location")
                .ok_or_else(|| "redirect without a Location header".to_owned())?;
            base.join(location)
                .map(String::from)
                .map_err(|e| e.to_string())
        })
    }
}

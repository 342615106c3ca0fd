//! The opt-in OAuth mode of the HTTP transport (`--oauth`): a small
//! authorization server on the same loopback address as the MCP endpoint,
//! and the bearer check in front of `/mcp`.
//!
//! What it keeps: clients registered dynamically (RFC 7591) with their
//! redirect URIs, authorization codes bound to a client, redirect URI and
//! PKCE S256 challenge (single use, one minute), and access and refresh
//! tokens. The authorization endpoint approves at once, without a browser
//! or a user, so examples and tests can follow its redirect themselves;
//! everything else is checked as a real server would (`client_id`,
//! `redirect_uri`, the PKCE verifier, token expiry). Every table is
//! bounded; tokens are random, never logged, and kept out of `Debug`.
//! The endpoints themselves are in `oauth_http.rs`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};

use crate::server::lock;

/// How long an authorization code may wait for its exchange.
const CODE_TTL: Duration = Duration::from_secs(60);
/// The most clients, codes, or tokens kept at once.
const MAX_ENTRIES: usize = 1024;

/// Settings of the OAuth mode.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// The lifetime of an access token (`expires_in`).
    pub token_ttl: Duration,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        OAuthOptions {
            token_ttl: Duration::from_secs(3600),
        }
    }
}

impl OAuthOptions {
    /// Sets the access token lifetime (`Duration::ZERO`: every token is
    /// expired when issued, which tests use to see expiry refused).
    #[must_use]
    pub fn with_token_ttl(mut self, ttl: Duration) -> Self {
        self.token_ttl = ttl;
        self
    }
}

/// Why a request to the authorization server was refused: the OAuth
/// `error` code and a description naming the cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) error: &'static str,
    pub(crate) description: String,
}

fn refuse(error: &'static str, description: impl Into<String>) -> Refusal {
    Refusal {
        error,
        description: description.into(),
    }
}

/// An issued authorization code, waiting for its exchange.
struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    expires: Instant,
}

#[derive(Default)]
struct Tables {
    /// Registered clients: `client_id` to redirect URIs.
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, Grant>,
    /// Access tokens and when they expire.
    tokens: HashMap<String, Instant>,
    /// Refresh tokens and their client.
    refresh: HashMap<String, String>,
}

/// Issued tokens: the access token, its lifetime, and a refresh token.
pub(crate) struct Issued {
    pub(crate) access_token: String,
    pub(crate) expires_in: Duration,
    pub(crate) refresh_token: String,
}

/// The authorization server's state.
pub(crate) struct AuthServer {
    pub(crate) opts: OAuthOptions,
    base: OnceLock<String>,
    tables: Mutex<Tables>,
    rng: SystemRandom,
}

impl std::fmt::Debug for AuthServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthServer")
            .field("opts", &self.opts)
            .field("base", &self.base.get())
            .finish_non_exhaustive()
    }
}

impl AuthServer {
    pub(crate) fn new(opts: OAuthOptions) -> AuthServer {
        AuthServer {
            opts,
            base: OnceLock::new(),
            tables: Mutex::new(Tables::default()),
            rng: SystemRandom::new(),
        }
    }

    /// Records the bound address: `http://ADDR` is the issuer and the
    /// origin of every endpoint.
    pub(crate) fn set_base(&self, addr: std::net::SocketAddr) {
        let _ = self.base.set(format!("http://{addr}"));
    }

    /// The issuer, `http://ADDR`.
    pub(crate) fn base(&self) -> &str {
        self.base.get().map_or("http://127.0.0.1", String::as_str)
    }

    /// A fresh random value (256 bits, base64url).
    fn random(&self) -> Result<String, Refusal> {
        let mut bytes = [0u8; 32];
        self.rng
            .fill(&mut bytes)
            .map_err(|_| refuse("server_error", "no randomness available"))?;
        Ok(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Registers a client with its redirect URIs; returns its `client_id`.
    pub(crate) fn register(&self, redirect_uris: Vec<String>) -> Result<String, Refusal> {
        if redirect_uris.is_empty() {
            return Err(refuse("invalid_redirect_uri", "redirect_uris is empty"));
        }
        if let Some(bad) = redirect_uris.iter().find(|u| !redirect_uri_ok(u)) {
            return Err(refuse(
                "invalid_redirect_uri",
                format!("{bad:?} is neither https nor a loopback http URI"),
            ));
        }
        let id = self.random()?;
        let mut t = lock(&self.tables);
        if t.clients.len() >= MAX_ENTRIES {
            return Err(refuse(
                "temporarily_unavailable",
                "too many registered clients",
            ));
        }
        t.clients.insert(id.clone(), redirect_uris);
        Ok(id)
    }

    /// Whether `redirect_uri` is registered for `client_id` (the
    /// authorization endpoint must not redirect anywhere else).
    pub(crate) fn redirect_allowed(&self, client_id: &str, redirect_uri: &str) -> bool {
        lock(&self.tables)
            .clients
            .get(client_id)
            .is_some_and(|uris| uris.iter().any(|u| u == redirect_uri))
    }

    /// Issues an authorization code for a checked client and redirect URI.
    pub(crate) fn issue_code(
        &self,
        client_id: &str,
        redirect_uri: &str,
        challenge: &str,
        now: Instant,
    ) -> Result<String, Refusal> {
        let code = self.random()?;
        let mut t = lock(&self.tables);
        t.codes.retain(|_, g| g.expires > now);
        if t.codes.len() >= MAX_ENTRIES {
            return Err(refuse("temporarily_unavailable", "too many pending codes"));
        }
        t.codes.insert(
            code.clone(),
            Grant {
                client_id: client_id.to_owned(),
                redirect_uri: redirect_uri.to_owned(),
                challenge: challenge.to_owned(),
                expires: now + CODE_TTL,
            },
        );
        Ok(code)
    }

    /// Exchanges a code (consumed whatever the outcome, RFC 6749 §4.1.2).
    pub(crate) fn exchange_code(
        &self,
        code: &str,
        client_id: &str,
        redirect_uri: &str,
        verifier: &str,
        now: Instant,
    ) -> Result<Issued, Refusal> {
        let grant = lock(&self.tables)
            .codes
            .remove(code)
            .ok_or_else(|| refuse("invalid_grant", "unknown or already used code"))?;
        if grant.expires <= now {
            return Err(refuse("invalid_grant", "the code expired"));
        }
        if grant.client_id != client_id {
            return Err(refuse(
                "invalid_grant",
                "the code was issued to another client",
            ));
        }
        if grant.redirect_uri != redirect_uri {
            return Err(refuse(
                "invalid_grant",
                "redirect_uri differs from the authorization request",
            ));
        }
        if !verifier_ok(verifier) {
            return Err(refuse(
                "invalid_grant",
                "code_verifier must be 43 to 128 unreserved characters",
            ));
        }
        if s256(verifier) != grant.challenge {
            return Err(refuse(
                "invalid_grant",
                "code_verifier does not match the code_challenge",
            ));
        }
        self.issue_tokens(client_id, now)
    }

    /// Exchanges a refresh token (rotated: the old one stops working).
    pub(crate) fn refresh(
        &self,
        token: &str,
        client_id: &str,
        now: Instant,
    ) -> Result<Issued, Refusal> {
        let owner = lock(&self.tables)
            .refresh
            .remove(token)
            .ok_or_else(|| refuse("invalid_grant", "unknown refresh token"))?;
        if owner != client_id {
            return Err(refuse(
                "invalid_grant",
                "the refresh token belongs to another client",
            ));
        }
        self.issue_tokens(client_id, now)
    }

    fn issue_tokens(&self, client_id: &str, now: Instant) -> Result<Issued, Refusal> {
        let access_token = self.random()?;
        let refresh_token = self.random()?;
        let mut t = lock(&self.tables);
        t.tokens.retain(|_, expires| *expires > now);
        if t.tokens.len() >= MAX_ENTRIES || t.refresh.len() >= MAX_ENTRIES {
            return Err(refuse("temporarily_unavailable", "too many tokens issued"));
        }
        t.tokens
            .insert(access_token.clone(), now + self.opts.token_ttl);
        t.refresh
            .insert(refresh_token.clone(), client_id.to_owned());
        Ok(Issued {
            access_token,
            expires_in: self.opts.token_ttl,
            refresh_token,
        })
    }

    /// Checks a bearer token at `now`: `Err` says why it is refused.
    pub(crate) fn check_token(&self, token: &str, now: Instant) -> Result<(), &'static str> {
        match lock(&self.tables).tokens.get(token) {
            None => Err("unknown access token"),
            Some(expires) if *expires <= now => Err("the access token expired"),
            Some(_) => Ok(()),
        }
    }
}

/// `BASE64URL(SHA256(verifier))`, the S256 code challenge (RFC 7636).
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        verifier.as_bytes(),
    ))
}

/// RFC 7636 §4.1: 43 to 128 characters of `[A-Za-z0-9-._~]`.
fn verifier_ok(v: &str) -> bool {
    (43..=128).contains(&v.len())
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// A redirect URI the server accepts: https, or http on a loopback host.
fn redirect_uri_ok(uri: &str) -> bool {
    if uri.len() > 2048 || uri.contains('#') {
        return false;
    }
    if uri.starts_with("https://") {
        return true;
    }
    let Some(rest) = uri.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = match host.rsplit_once(':') {
        Some((h, _)) if !host.ends_with(']') => h,
        _ => host,
    };
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256(VERIFIER),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn a_code_is_bound_to_client_redirect_and_verifier_and_used_once() {
        let a = AuthServer::new(OAuthOptions::default());
        let now = Instant::now();
        let id = a.register(vec!["http://127.0.0.1:9/cb".into()]).unwrap();
        assert!(a.redirect_allowed(&id, "http://127.0.0.1:9/cb"));
        assert!(!a.redirect_allowed(&id, "http://127.0.0.1:9/other"));
        let code = a
            .issue_code(&id, "http://127.0.0.1:9/cb", &s256(VERIFIER), now)
            .unwrap();
        let wrong = "x".repeat(43);
        let e = a
            .exchange_code(&code, &id, "http://127.0.0.1:9/cb", &wrong, now)
            .err()
            .unwrap();
        assert!(e.description.contains("does not match"), "{e:?}");
        // The failed exchange consumed the code.
        let e = a
            .exchange_code(&code, &id, "http://127.0.0.1:9/cb", VERIFIER, now)
            .err()
            .unwrap();
        assert!(e.description.contains("already used"), "{e:?}");
        let code = a
            .issue_code(&id, "http://127.0.0.1:9/cb", &s256(VERIFIER), now)
            .unwrap();
        let issued = a
            .exchange_code(&code, &id, "http://127.0.0.1:9/cb", VERIFIER, now)
            .unwrap();
        assert_eq!(a.check_token(&issued.access_token, now), Ok(()));
        let later = now + Duration::from_secs(3600);
        assert_eq!(
            a.check_token(&issued.access_token, later),
            Err("the access token expired")
        );
        let again = a.refresh(&issued.refresh_token, &id, later).unwrap();
        assert_eq!(a.check_token(&again.access_token, later), Ok(()));
        assert!(
            a.refresh(&issued.refresh_token, &id, later).is_err(),
            "rotated"
        );
    }

    #[test]
    fn registration_refuses_foreign_http_redirects() {
        let a = AuthServer::new(OAuthOptions::default());
        assert!(a.register(vec![]).is_err());
        assert!(a.register(vec!["http://evil.example/cb".into()]).is_err());
        assert!(
            a.register(vec!["http://localhost.evil.example/cb".into()])
                .is_err()
        );
        assert!(a.register(vec!["https://app.example/cb".into()]).is_ok());
        assert!(a.register(vec!["http://[::1]:8080/cb".into()]).is_ok());
        assert!(a.register(vec!["http://[::1]/cb".into()]).is_ok());
        assert!(
            a.register(vec!["http://127.0.0.1@evil.example/cb".into()])
                .is_err()
        );
    }
}

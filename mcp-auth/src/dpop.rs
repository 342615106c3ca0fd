//! DPoP proofs (RFC 9449) with an ES256 key, and server nonce bookkeeping.
//!
//! A proof is a `dpop+jwt` JWS carrying the public JWK in its header and the claims
//! `jti` (fresh per proof), `htm`, `htu` (no query or fragment), `iat`, plus `ath`
//! (base64url SHA-256 of the access token) on resource requests and `nonce` once a
//! server has supplied one through `DPoP-Nonce`. Nonces are kept per origin: the
//! authorization server and the MCP server have their own.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;
use url::Url;

use crate::challenge::Challenge;
use crate::http::{HttpResponse, Method};
use crate::jwt::{KeyError, SigningKey};
use crate::random::{RandomSource, random_b64url};
use crate::secret::Secret;

/// The `DPoP-Nonce` response header.
pub const NONCE_HEADER: &str = "dpop-nonce";
/// The `DPoP` request header.
pub const PROOF_HEADER: &str = "dpop";
/// The error code a server uses to demand a nonce.
pub const USE_DPOP_NONCE: &str = "use_dpop_nonce";
/// The longest nonce accepted from a server.
pub const MAX_NONCE_LEN: usize = 512;

/// Creates proofs with one key and remembers server nonces per origin.
#[derive(Debug)]
pub struct DpopProver {
    key: SigningKey,
    nonces: Mutex<HashMap<String, String>>,
}

/// `htu`: the URL without query and fragment.
pub fn htu(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

/// `ath`: base64url SHA-256 of the access token.
pub fn access_token_hash(token: &Secret) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, token.expose().as_bytes());
    URL_SAFE_NO_PAD.encode(d.as_ref())
}

fn origin_key(url: &Url) -> String {
    url.origin().ascii_serialization()
}

impl DpopProver {
    /// A prover with a fresh ES256 key.
    pub fn generate() -> Result<Self, KeyError> {
        Ok(Self::new(SigningKey::generate_es256()?))
    }

    /// A prover with the given key.
    pub fn new(key: SigningKey) -> Self {
        Self {
            key,
            nonces: Mutex::new(HashMap::new()),
        }
    }

    /// The key's JWK thumbprint (`cnf.jkt` of bound tokens).
    pub fn thumbprint(&self) -> String {
        self.key.jwk_thumbprint()
    }

    /// A proof for `method url`, bound to `access_token` when given.
    pub fn proof(
        &self,
        method: Method,
        url: &Url,
        access_token: Option<&Secret>,
        now_unix: u64,
        rng: &dyn RandomSource,
    ) -> Result<Secret, KeyError> {
        let mut claims = json!({
            "jti": random_b64url(rng, 16).map_err(|_| KeyError::Random)?,
            "htm": method.as_str(),
            "htu": htu(url),
            "iat": now_unix,
        });
        if let Some(t) = access_token {
            claims["ath"] = access_token_hash(t).into();
        }
        if let Some(n) = self.nonce_for(url) {
            claims["nonce"] = n.into();
        }
        let header = json!({"typ": "dpop+jwt", "jwk": self.key.public_jwk()});
        self.key.sign_jwt(header, &claims)
    }

    /// The nonce last supplied by `url`'s origin.
    pub fn nonce_for(&self, url: &Url) -> Option<String> {
        self.nonces
            .lock()
            .ok()
            .and_then(|m| m.get(&origin_key(url)).cloned())
    }

    /// Records a `DPoP-Nonce` from a response of `url`'s origin. Returns whether the
    /// nonce changed. Oversized or non-visible-ASCII nonces are ignored.
    pub fn record_nonce(&self, url: &Url, response: &HttpResponse) -> bool {
        let Some(n) = response.header(NONCE_HEADER) else {
            return false;
        };
        let n = n.trim();
        if n.is_empty() || n.len() > MAX_NONCE_LEN || !n.bytes().all(|b| b.is_ascii_graphic()) {
            return false;
        }
        let Ok(mut map) = self.nonces.lock() else {
            return false;
        };
        map.insert(origin_key(url), n.to_owned()).as_deref() != Some(n)
    }
}

/// Whether a token endpoint response asks for a (new) nonce: 400 with
/// `{"error":"use_dpop_nonce"}` (RFC 9449 §8).
pub fn is_as_nonce_challenge(response: &HttpResponse) -> bool {
    response.status == 400
        && serde_json::from_slice::<serde_json::Value>(&response.body)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str().map(str::to_owned)))
            .is_some_and(|e| e == USE_DPOP_NONCE)
}

/// Whether a resource server response asks for a nonce: 401 with a `DPoP`
/// challenge whose `error` is `use_dpop_nonce` (RFC 9449 §9).
pub fn is_rs_nonce_challenge(status: u16, challenges: &[Challenge]) -> bool {
    status == 401
        && challenges
            .iter()
            .any(|c| c.is_dpop() && c.error() == Some(USE_DPOP_NONCE))
}

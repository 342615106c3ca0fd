//! PKCE (RFC 7636) with the `S256` method only.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::random::{RandomError, RandomSource, random_b64url};
use crate::secret::Secret;

/// A PKCE verifier and its `S256` challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Pkce {
    /// The verifier, sent only to the token endpoint.
    pub verifier: Secret,
    /// `BASE64URL(SHA256(verifier))`, sent in the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair from 32 random bytes (a 43-character verifier).
    pub fn generate(rng: &dyn RandomSource) -> Result<Self, RandomError> {
        Ok(Self::from_verifier(Secret::new(random_b64url(rng, 32)?)))
    }

    /// The pair for a given verifier.
    pub fn from_verifier(verifier: Secret) -> Self {
        let challenge = s256_challenge(verifier.expose());
        Self {
            verifier,
            challenge,
        }
    }

    /// The method name, always `S256`.
    pub fn method(&self) -> &'static str {
        "S256"
    }
}

/// `BASE64URL-ENCODE(SHA256(ASCII(verifier)))`.
pub fn s256_challenge(verifier: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SeededRandom;

    #[test]
    fn rfc7636_appendix_b_vector() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn generated_verifier_is_in_range_and_unreserved() {
        let p = Pkce::generate(&SeededRandom::new(1)).unwrap();
        let v = p.verifier.expose();
        assert!((43..=128).contains(&v.len()));
        assert!(
            v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
        );
        assert_eq!(p.challenge, s256_challenge(v));
        assert!(!format!("{p:?}").contains(v));
    }
}

//! Compact JWS signing with ring: ES256 (P-256, fixed-length signatures as JWS
//! requires) and RS256 (PKCS#1 v1.5 with SHA-256). Used for `private_key_jwt` client
//! assertions (RFC 7523 §2.2), workload assertions and DPoP proofs (RFC 9449).
//!
//! Keys load from PKCS#8 (DER or PEM) or, for RSA, PKCS#1 `RSA PRIVATE KEY` PEM.
//! [`SigningKey`] never prints key material.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair as _, RsaKeyPair};
use serde_json::{Value, json};

use crate::random::{RandomSource, random_b64url};
use crate::secret::Secret;

/// A key could not be loaded or used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The PEM text has no usable block.
    #[error("no PEM private key block found")]
    NoPem,
    /// The key bytes were rejected.
    #[error("key rejected: {0}")]
    Rejected(String),
    /// Signing failed.
    #[error("signing failed")]
    Signing,
    /// The random generator failed.
    #[error("random generator failure")]
    Random,
}

/// The JWS algorithm of a [`SigningKey`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// ECDSA P-256 with SHA-256.
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

impl Algorithm {
    /// The JWS `alg` name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Rs256 => "RS256",
        }
    }
}

enum KeyInner {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

/// A private signing key, cheap to clone.
#[derive(Clone)]
pub struct SigningKey {
    inner: Arc<KeyInner>,
    kid: Option<String>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("alg", &self.algorithm())
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

fn rejected(e: impl std::fmt::Display) -> KeyError {
    KeyError::Rejected(e.to_string())
}

/// Decodes the first PEM block whose label ends in `PRIVATE KEY`.
fn pem_private_key(pem: &str) -> Result<(String, Vec<u8>), KeyError> {
    let begin = pem.find("-----BEGIN ").ok_or(KeyError::NoPem)?;
    let rest = &pem[begin + 11..];
    let label_end = rest.find("-----").ok_or(KeyError::NoPem)?;
    let label = rest[..label_end].to_owned();
    if !label.ends_with("PRIVATE KEY") {
        return Err(KeyError::NoPem);
    }
    let body_start = label_end + 5;
    let end = rest.find("-----END ").ok_or(KeyError::NoPem)?;
    if end < body_start {
        return Err(KeyError::NoPem);
    }
    let b64: String = rest[body_start..end]
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let der = STANDARD.decode(b64).map_err(|_| KeyError::NoPem)?;
    Ok((label, der))
}

impl SigningKey {
    /// Generates a fresh ES256 key (for DPoP).
    pub fn generate_es256() -> Result<Self, KeyError> {
        Ok(Self::generate_es256_pkcs8()?.0)
    }

    /// Generates a fresh ES256 key and returns its PKCS#8 DER too, so the host can
    /// persist a DPoP key next to the DPoP-bound tokens it stores (a bound token is
    /// useless without its key). Load it again with [`SigningKey::es256_from_pkcs8`].
    pub fn generate_es256_pkcs8() -> Result<(Self, Vec<u8>), KeyError> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| KeyError::Random)?;
        let der = pkcs8.as_ref().to_vec();
        Ok((Self::es256_from_pkcs8(&der)?, der))
    }

    /// An ES256 key from PKCS#8 DER.
    pub fn es256_from_pkcs8(der: &[u8]) -> Result<Self, KeyError> {
        let rng = SystemRandom::new();
        let kp = EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng)
            .map_err(rejected)?;
        Ok(Self {
            inner: Arc::new(KeyInner::Es256(kp)),
            kid: None,
        })
    }

    /// An RS256 key from PKCS#8 DER.
    pub fn rs256_from_pkcs8(der: &[u8]) -> Result<Self, KeyError> {
        let kp = RsaKeyPair::from_pkcs8(der).map_err(rejected)?;
        Ok(Self {
            inner: Arc::new(KeyInner::Rs256(kp)),
            kid: None,
        })
    }

    /// A key from PEM: `PRIVATE KEY` (PKCS#8; the algorithm is the one requested)
    /// or `RSA PRIVATE KEY` (PKCS#1).
    pub fn from_pem(pem: &str, alg: Algorithm) -> Result<Self, KeyError> {
        let (label, der) = pem_private_key(pem)?;
        match (alg, label.as_str()) {
            (Algorithm::Rs256, "RSA PRIVATE KEY") => {
                let kp = RsaKeyPair::from_der(&der).map_err(rejected)?;
                Ok(Self {
                    inner: Arc::new(KeyInner::Rs256(kp)),
                    kid: None,
                })
            }
            (Algorithm::Rs256, _) => Self::rs256_from_pkcs8(&der),
            (Algorithm::Es256, _) => Self::es256_from_pkcs8(&der),
        }
    }

    /// Sets the `kid` put in JWS headers.
    #[must_use]
    pub fn with_kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = Some(kid.into());
        self
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        match *self.inner {
            KeyInner::Es256(_) => Algorithm::Es256,
            KeyInner::Rs256(_) => Algorithm::Rs256,
        }
    }

    /// The public key as a JWK (members required by RFC 7638 only).
    pub fn public_jwk(&self) -> Value {
        match &*self.inner {
            KeyInner::Es256(kp) => {
                // Uncompressed point: 0x04 || X (32) || Y (32).
                let p = kp.public_key().as_ref();
                let (x, y) = p
                    .get(1..)
                    .unwrap_or_default()
                    .split_at(p.len().saturating_sub(1) / 2);
                json!({"kty": "EC", "crv": "P-256", "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)})
            }
            KeyInner::Rs256(kp) => {
                let c: signature::RsaPublicKeyComponents<Vec<u8>> = kp.public().into();
                json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode(&c.n), "e": URL_SAFE_NO_PAD.encode(&c.e)})
            }
        }
    }

    /// The RFC 7638 SHA-256 JWK thumbprint, base64url (the DPoP `jkt`).
    pub fn jwk_thumbprint(&self) -> String {
        let jwk = self.public_jwk();
        let s = |k: &str| {
            jwk.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        // Required members in lexicographic order, no whitespace.
        let canonical = match self.algorithm() {
            Algorithm::Es256 => format!(
                r#"{{"crv":"{}","kty":"{}","x":"{}","y":"{}"}}"#,
                s("crv"),
                s("kty"),
                s("x"),
                s("y")
            ),
            Algorithm::Rs256 => {
                format!(
                    r#"{{"e":"{}","kty":"{}","n":"{}"}}"#,
                    s("e"),
                    s("kty"),
                    s("n")
                )
            }
        };
        let d = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
        URL_SAFE_NO_PAD.encode(d.as_ref())
    }

    /// Signs a compact JWS. `header` members are merged over `{"alg", "kid"?}`.
    pub fn sign_jwt(&self, header: Value, claims: &Value) -> Result<Secret, KeyError> {
        let mut h = json!({"alg": self.algorithm().as_str()});
        if let Some(kid) = &self.kid {
            h["kid"] = Value::String(kid.clone());
        }
        if let (Some(base), Value::Object(extra)) = (h.as_object_mut(), header) {
            base.extend(extra);
        }
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(h.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let rng = SystemRandom::new();
        let sig = match &*self.inner {
            KeyInner::Es256(kp) => kp
                .sign(&rng, signing_input.as_bytes())
                .map_err(|_| KeyError::Signing)?
                .as_ref()
                .to_vec(),
            KeyInner::Rs256(kp) => {
                let mut out = vec![0u8; kp.public().modulus_len()];
                kp.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &rng,
                    signing_input.as_bytes(),
                    &mut out,
                )
                .map_err(|_| KeyError::Signing)?;
                out
            }
        };
        Ok(Secret::new(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(sig)
        )))
    }
}

/// Claims of an RFC 7523 client assertion (`private_key_jwt`) or a self-issued
/// JWT-bearer grant: `iss` = `sub` = client id, `aud`, `iat`, `exp` = `iat` + lifetime,
/// and a random `jti`.
pub fn client_assertion(
    key: &SigningKey,
    client_id: &str,
    audience: &str,
    now_unix: u64,
    lifetime_secs: u64,
    rng: &dyn RandomSource,
) -> Result<Secret, KeyError> {
    let jti = random_b64url(rng, 16).map_err(|_| KeyError::Random)?;
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now_unix,
        "exp": now_unix.saturating_add(lifetime_secs),
        "jti": jti,
    });
    key.sign_jwt(json!({"typ": "JWT"}), &claims)
}

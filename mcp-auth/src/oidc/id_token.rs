//! OpenID Connect ID token checks a client can make without the provider's keys.
//!
//! The ID token arrives straight from the identity provider's token endpoint over a
//! connection whose TLS server certificate the HTTP stack verified, which OpenID
//! Connect Core 1.0 §3.1.3.7 (item 6) accepts in place of checking the signature.
//! What remains is checked here: the JWS shape, `iss` identical to the discovered
//! issuer, `aud` containing the client id (and `azp` naming it when several
//! audiences are present), `exp` in the future, and the `nonce` sent with the
//! authorization request. The token itself stays a [`Secret`]; only these claims
//! are read from it.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use crate::secret::Secret;

/// The largest ID token accepted (64 KiB): the claims are parsed from it.
pub const MAX_ID_TOKEN_BYTES: usize = 64 * 1024;
/// Clock skew tolerated when comparing `exp` with the local clock.
pub const CLOCK_SKEW_SECS: u64 = 60;

/// Why an ID token was refused. Messages name the claim, never the token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdTokenError {
    /// The token endpoint answered without an `id_token`.
    #[error("the identity provider's token response has no id_token")]
    Missing,
    /// Not a three-part JWS with a JSON object payload, or larger than the limit.
    #[error("id_token is not a well-formed JWT: {0}")]
    Malformed(&'static str),
    /// `iss` is absent or differs from the discovered issuer.
    #[error("id_token issuer {actual:?} is not the identity provider {expected:?}")]
    Issuer {
        /// The discovered issuer.
        expected: String,
        /// The token's `iss` (empty when absent).
        actual: String,
    },
    /// `aud` does not contain the client id, or `azp` names another client.
    #[error("id_token audience does not include client {0:?}")]
    Audience(String),
    /// `exp` is absent or past.
    #[error("id_token expired or has no exp claim")]
    Expired,
    /// `nonce` is absent or differs from the one sent.
    #[error("id_token nonce missing or not the one sent with the authorization request")]
    Nonce,
}

/// The claims of a checked ID token that the client uses.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdTokenClaims {
    /// `iss`.
    pub issuer: String,
    /// `sub`, if present.
    pub subject: Option<String>,
    /// `exp`, seconds since the Unix epoch.
    pub expires_at: u64,
    /// `email` or `preferred_username`, for status displays.
    pub display_name: Option<String>,
}

/// What a checked ID token must match.
#[derive(Clone, Copy, Debug)]
pub struct Expected<'a> {
    /// The discovered issuer.
    pub issuer: &'a str,
    /// This client's id.
    pub client_id: &'a str,
    /// The nonce sent (`None` after a refresh, where none is sent).
    pub nonce: Option<&'a Secret>,
    /// The current time, seconds since the Unix epoch.
    pub now_unix: u64,
}

/// Reads the payload of a compact JWS as a JSON object, without checking anything.
pub fn decode_claims(token: &Secret) -> Result<serde_json::Map<String, Value>, IdTokenError> {
    let raw = token.expose();
    if raw.len() > MAX_ID_TOKEN_BYTES {
        return Err(IdTokenError::Malformed("larger than 64 KiB"));
    }
    let parts: Vec<&str> = raw.split('.').collect();
    if parts.len() != 3 {
        return Err(IdTokenError::Malformed("not three dot-separated parts"));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(parts[1])
        .map_err(|_| IdTokenError::Malformed("payload is not base64url"))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(IdTokenError::Malformed("payload is not a JSON object")),
    }
}

/// Checks `token` against `expected` and returns its claims.
pub fn validate(token: &Secret, expected: Expected<'_>) -> Result<IdTokenClaims, IdTokenError> {
    let claims = decode_claims(token)?;
    let text = |name: &str| claims.get(name).and_then(Value::as_str);
    let issuer = text("iss").unwrap_or_default();
    if issuer != expected.issuer {
        return Err(IdTokenError::Issuer {
            expected: expected.issuer.to_owned(),
            actual: issuer.to_owned(),
        });
    }
    let audiences: Vec<&str> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let azp_ok = match text("azp") {
        Some(azp) => azp == expected.client_id,
        None => audiences.len() == 1,
    };
    if !audiences.contains(&expected.client_id) || !azp_ok {
        return Err(IdTokenError::Audience(expected.client_id.to_owned()));
    }
    let expires_at = claims
        .get("exp")
        .and_then(Value::as_u64)
        .ok_or(IdTokenError::Expired)?;
    if expires_at.saturating_add(CLOCK_SKEW_SECS) <= expected.now_unix {
        return Err(IdTokenError::Expired);
    }
    if let Some(nonce) = expected.nonce
        && text("nonce") != Some(nonce.expose())
    {
        return Err(IdTokenError::Nonce);
    }
    Ok(IdTokenClaims {
        issuer: issuer.to_owned(),
        subject: text("sub").map(str::to_owned),
        expires_at,
        display_name: text("email")
            .or_else(|| text("preferred_username"))
            .map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jwt(claims: &Value) -> Secret {
        let enc = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
        Secret::new(format!(
            "{}.{}.sig",
            enc(&json!({"alg": "RS256"})),
            enc(claims)
        ))
    }

    fn good() -> Value {
        json!({"iss": "https://idp", "aud": "cli", "exp": 2000, "nonce": "n1",
               "sub": "u1", "email": "u@example.com"})
    }

    fn expect(nonce: Option<&Secret>) -> Expected<'_> {
        Expected {
            issuer: "https://idp",
            client_id: "cli",
            nonce,
            now_unix: 1000,
        }
    }

    #[test]
    fn accepts_a_matching_token() {
        let n = Secret::new("n1");
        let c = validate(&jwt(&good()), expect(Some(&n))).unwrap();
        assert_eq!(c.expires_at, 2000);
        assert_eq!(c.display_name.as_deref(), Some("u@example.com"));
    }

    #[test]
    fn refuses_each_broken_claim() {
        let n = Secret::new("n1");
        let case = |patch: Value| {
            let mut c = good();
            for (k, v) in patch.as_object().unwrap() {
                c[k] = v.clone();
            }
            validate(&jwt(&c), expect(Some(&n))).unwrap_err()
        };
        assert!(matches!(
            case(json!({"iss": "https://idp/"})),
            IdTokenError::Issuer { .. }
        ));
        assert_eq!(
            case(json!({"aud": "other"})),
            IdTokenError::Audience("cli".into())
        );
        assert_eq!(
            case(json!({"aud": ["cli", "x"]})),
            IdTokenError::Audience("cli".into())
        );
        assert!(
            validate(
                &jwt(
                    &json!({"iss": "https://idp", "aud": ["cli", "x"], "azp": "cli", "exp": 2000})
                ),
                expect(None)
            )
            .is_ok()
        );
        assert_eq!(case(json!({"exp": 900})), IdTokenError::Expired);
        assert_eq!(case(json!({"exp": "2000"})), IdTokenError::Expired);
        assert_eq!(case(json!({"nonce": "n2"})), IdTokenError::Nonce);
    }

    #[test]
    fn refuses_malformed_tokens_without_echoing_them() {
        for bad in ["abc", "a.b", "a.!!!.c", "a.bnVsbA.c"] {
            let e = validate(&Secret::new(bad), expect(None)).unwrap_err();
            assert!(matches!(e, IdTokenError::Malformed(_)), "{bad}: {e}");
        }
        let huge = Secret::new("a".repeat(MAX_ID_TOKEN_BYTES + 1));
        assert!(matches!(
            decode_claims(&huge),
            Err(IdTokenError::Malformed(_))
        ));
    }
}

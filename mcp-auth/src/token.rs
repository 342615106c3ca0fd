//! Token lifecycle: absolute expiry from an injected `now`, refresh-token retention,
//! and the `Authorization` header value.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::metadata::TokenResponse;
use crate::secret::Secret;
use crate::security::{TokenScheme, authorization_header};

/// How long before expiry a token counts as expired (clock skew and latency).
pub const DEFAULT_EXPIRY_MARGIN: Duration = Duration::from_secs(30);
/// The longest lifetime believed from `expires_in` (10 years); larger values are
/// clamped so expiry arithmetic cannot overflow.
pub const MAX_LIFETIME: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// A token response rejected before use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// `token_type` is neither `Bearer` nor `DPoP`.
    #[error("unsupported token_type `{0}`")]
    UnsupportedTokenType(String),
    /// A DPoP-bound token was issued but no DPoP key is in use.
    #[error("token_type `{got}` does not match the requested binding `{expected}`")]
    BindingMismatch {
        /// The scheme requested.
        expected: &'static str,
        /// The `token_type` received.
        got: String,
    },
    /// The access token is empty.
    #[error("empty access token")]
    Empty,
    /// A token holds characters that cannot travel in an HTTP header (only visible
    /// ASCII is accepted, which also rules out header injection).
    #[error("token contains characters not allowed in a header")]
    InvalidCharacters,
}

/// Access token, optional refresh token, and absolute expiry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenSet {
    /// The access token.
    pub access_token: Secret,
    /// How it is presented.
    pub scheme: TokenScheme,
    /// The refresh token, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// Absolute expiry, seconds since the Unix epoch (`None`: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The granted scope (the response's, else the requested one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// When the token was received, seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
}

/// Seconds since the epoch (0 for times before it).
pub fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl TokenSet {
    /// A token set with only an access token.
    pub fn new(access_token: Secret, scheme: TokenScheme) -> Self {
        Self {
            access_token,
            scheme,
            refresh_token: None,
            expires_at: None,
            scope: None,
            issued_at: None,
        }
    }

    /// Builds the set from a token response received at `now`.
    ///
    /// `previous` is the set being refreshed: its refresh token is kept when the
    /// response has none. `requested_scope` stands in for an absent `scope`.
    /// `expected` is the scheme asked for (DPoP when a proof was sent); a bearer
    /// token is accepted either way.
    pub fn from_response(
        resp: TokenResponse,
        now: SystemTime,
        previous: Option<&TokenSet>,
        requested_scope: Option<&str>,
        expected: TokenScheme,
    ) -> Result<Self, TokenError> {
        if resp.access_token.is_empty() {
            return Err(TokenError::Empty);
        }
        let visible = |t: &Secret| t.expose().bytes().all(|b| b.is_ascii_graphic());
        if !visible(&resp.access_token) || resp.refresh_token.as_ref().is_some_and(|r| !visible(r))
        {
            return Err(TokenError::InvalidCharacters);
        }
        let scheme = TokenScheme::from_token_type(&resp.token_type)
            .ok_or_else(|| TokenError::UnsupportedTokenType(resp.token_type.clone()))?;
        // RFC 9449 §5: a server without DPoP support ignores the proof and issues a
        // bearer token, which is usable as such. The reverse is not: a DPoP-bound
        // token needs proofs this client is not making.
        if scheme == TokenScheme::Dpop && expected == TokenScheme::Bearer {
            return Err(TokenError::BindingMismatch {
                expected: expected.as_str(),
                got: resp.token_type,
            });
        }
        let expires_at = resp.expires_in.map(|secs| {
            let life = Duration::from_secs(secs).min(MAX_LIFETIME);
            unix_secs(now).saturating_add(life.as_secs())
        });
        Ok(Self {
            access_token: resp.access_token,
            scheme,
            refresh_token: resp
                .refresh_token
                .or_else(|| previous.and_then(|p| p.refresh_token.clone())),
            expires_at,
            scope: resp.scope.or_else(|| requested_scope.map(str::to_owned)),
            issued_at: Some(unix_secs(now)),
        })
    }

    /// Whether the token is expired at `now`, counting `margin` early. The margin
    /// never exceeds half the token's lifetime, so short-lived tokens are still used.
    pub fn is_expired(&self, now: SystemTime, margin: Duration) -> bool {
        let Some(at) = self.expires_at else {
            return false;
        };
        let margin = match self.issued_at {
            Some(issued) => margin.as_secs().min(at.saturating_sub(issued) / 2),
            None => margin.as_secs(),
        };
        unix_secs(now).saturating_add(margin) >= at
    }

    /// The `Authorization` header value (`Bearer …` or `DPoP …`).
    pub fn authorization_header(&self) -> Secret {
        authorization_header(self.scheme, &self.access_token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(json: &str) -> TokenResponse {
        serde_json::from_str(json).unwrap()
    }

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn absolute_expiry_from_injected_now() {
        let t = TokenSet::from_response(
            resp(r#"{"access_token":"a","token_type":"bearer","expires_in":3600}"#),
            at(1000),
            None,
            Some("read"),
            TokenScheme::Bearer,
        )
        .unwrap();
        assert_eq!(t.expires_at, Some(4600));
        assert_eq!(t.scope.as_deref(), Some("read"));
        assert!(!t.is_expired(at(4500), DEFAULT_EXPIRY_MARGIN));
        assert!(t.is_expired(at(4571), DEFAULT_EXPIRY_MARGIN));
        // A 2-second token is usable for its first second despite the 30 s margin.
        let short = TokenSet::from_response(
            resp(r#"{"access_token":"a","token_type":"Bearer","expires_in":2}"#),
            at(100),
            None,
            None,
            TokenScheme::Bearer,
        )
        .unwrap();
        assert!(!short.is_expired(at(100), DEFAULT_EXPIRY_MARGIN));
        assert!(short.is_expired(at(101), DEFAULT_EXPIRY_MARGIN));
        assert!(short.is_expired(at(102), Duration::ZERO));
        assert_eq!(t.authorization_header().expose(), "Bearer a");
    }

    #[test]
    fn refresh_keeps_old_refresh_token_when_none_returned() {
        let mut old = TokenSet::new(Secret::new("old"), TokenScheme::Bearer);
        old.refresh_token = Some(Secret::new("rt-1"));
        let t = TokenSet::from_response(
            resp(r#"{"access_token":"new","token_type":"Bearer"}"#),
            at(0),
            Some(&old),
            None,
            TokenScheme::Bearer,
        )
        .unwrap();
        assert_eq!(t.refresh_token, Some(Secret::new("rt-1")));
        assert_eq!(t.expires_at, None);
        assert!(!t.is_expired(at(u64::MAX / 2), DEFAULT_EXPIRY_MARGIN));
        let rotated = TokenSet::from_response(
            resp(r#"{"access_token":"n2","token_type":"Bearer","refresh_token":"rt-2"}"#),
            at(0),
            Some(&t),
            None,
            TokenScheme::Bearer,
        )
        .unwrap();
        assert_eq!(rotated.refresh_token, Some(Secret::new("rt-2")));
    }

    #[test]
    fn rejects_wrong_types_and_huge_lifetimes_are_clamped() {
        let r = |j: &str, s| TokenSet::from_response(resp(j), at(5), None, None, s);
        assert!(matches!(
            r(
                r#"{"access_token":"a","token_type":"mac"}"#,
                TokenScheme::Bearer
            ),
            Err(TokenError::UnsupportedTokenType(_))
        ));
        assert!(matches!(
            r(
                r#"{"access_token":"a","token_type":"DPoP"}"#,
                TokenScheme::Bearer
            ),
            Err(TokenError::BindingMismatch { .. })
        ));
        let downgraded = r(
            r#"{"access_token":"a","token_type":"Bearer"}"#,
            TokenScheme::Dpop,
        );
        assert_eq!(downgraded.unwrap().scheme, TokenScheme::Bearer);
        assert_eq!(
            r(
                r#"{"access_token":"","token_type":"Bearer"}"#,
                TokenScheme::Bearer
            ),
            Err(TokenError::Empty)
        );
        for bad in [
            r#"{"access_token":"a\r\nX-Evil: 1","token_type":"Bearer"}"#,
            r#"{"access_token":"a b","token_type":"Bearer"}"#,
            r#"{"access_token":"ok","refresh_token":"r\u0000","token_type":"Bearer"}"#,
        ] {
            assert_eq!(
                r(bad, TokenScheme::Bearer),
                Err(TokenError::InvalidCharacters)
            );
        }
        let t = r(
            r#"{"access_token":"a","token_type":"DPoP","expires_in":18446744073709551615}"#,
            TokenScheme::Dpop,
        )
        .unwrap();
        assert_eq!(t.expires_at, Some(5 + MAX_LIFETIME.as_secs()));
        assert_eq!(t.authorization_header().expose(), "DPoP a");
        assert!(!format!("{t:?}").contains("\"a\""));
    }
}

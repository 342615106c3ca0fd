//! A string that must never be printed: access and refresh tokens, client secrets,
//! PKCE verifiers, authorization codes, assertions.
//!
//! [`Secret`] redacts itself in `Debug` and has no `Display`, so a token cannot reach a
//! log line through `{:?}` or `{}` by accident. Reading the value takes an explicit
//! [`Secret::expose`] call, which makes every use greppable.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A secret string (token, client secret, verifier, code). `Debug` prints `Secret(***)`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value. Call only where the value must go on the wire or to storage.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn debug_is_redacted() {
        let s = Secret::new("tok-12345");
        let printed = format!("{s:?} {:#?}", Some(&s));
        assert!(!printed.contains("tok-12345"), "{printed}");
        assert!(printed.contains("***"));
        assert_eq!(s.expose(), "tok-12345");
    }

    #[test]
    fn serde_round_trip_keeps_value() {
        let s = Secret::new("abc");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "\"abc\"");
        let back: Secret = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
    }
}

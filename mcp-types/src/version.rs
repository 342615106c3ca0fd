//! Protocol revisions and the era each belongs to.
//!
//! Versions are values of an enum, never compared as strings: the order of
//! preference lives in [`ProtocolVersion::KNOWN`], and [`ProtocolVersion::era`]
//! says which lifecycle a revision uses. A version string this crate does not
//! know is kept as data in [`ProtocolVersion::Unknown`].

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A protocol revision, as it travels on the wire (`"2025-11-25"`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolVersion {
    /// `2024-11-05`, the first published revision.
    V2024_11_05,
    /// `2025-03-26`, which introduced Streamable HTTP.
    V2025_03_26,
    /// `2025-06-18`, which introduced structured tool output and elicitation.
    V2025_06_18,
    /// `2025-11-25`, the last revision of the legacy (session) era.
    V2025_11_25,
    /// `2026-07-28`, the first revision of the modern (stateless) era.
    V2026_07_28,
    /// A version string this crate does not know, kept verbatim.
    Unknown(String),
}

/// The two lifecycles a client must speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize` handshake, sessions, server-to-client requests.
    Legacy,
    /// Stateless: per-request `_meta`, `server/discover`, `resultType`.
    Modern,
}

impl ProtocolVersion {
    /// Every known revision, newest first: the client's default preference.
    pub const KNOWN: [ProtocolVersion; 5] = [
        ProtocolVersion::V2026_07_28,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2024_11_05,
    ];

    /// The newest revision of the modern era.
    pub const LATEST_MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The newest revision of the legacy era.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// Parses a wire string; unknown strings become [`ProtocolVersion::Unknown`].
    ///
    /// ```
    /// use mcp_types::{Era, ProtocolVersion};
    /// assert_eq!(ProtocolVersion::parse("2025-11-25"), ProtocolVersion::V2025_11_25);
    /// assert_eq!(ProtocolVersion::parse("2026-07-28").era(), Some(Era::Modern));
    /// assert_eq!(ProtocolVersion::parse("DRAFT-2027").era(), None);
    /// ```
    pub fn parse(s: &str) -> ProtocolVersion {
        match s {
            "2024-11-05" => ProtocolVersion::V2024_11_05,
            "2025-03-26" => ProtocolVersion::V2025_03_26,
            "2025-06-18" => ProtocolVersion::V2025_06_18,
            "2025-11-25" => ProtocolVersion::V2025_11_25,
            "2026-07-28" => ProtocolVersion::V2026_07_28,
            other => ProtocolVersion::Unknown(other.to_owned()),
        }
    }

    /// The wire string of this version.
    pub fn as_str(&self) -> &str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
            ProtocolVersion::Unknown(s) => s,
        }
    }

    /// The era of a known revision; `None` for an unknown one.
    pub fn era(&self) -> Option<Era> {
        match self {
            ProtocolVersion::V2024_11_05
            | ProtocolVersion::V2025_03_26
            | ProtocolVersion::V2025_06_18
            | ProtocolVersion::V2025_11_25 => Some(Era::Legacy),
            ProtocolVersion::V2026_07_28 => Some(Era::Modern),
            ProtocolVersion::Unknown(_) => None,
        }
    }

    /// Whether this crate knows the revision.
    pub fn is_known(&self) -> bool {
        !matches!(self, ProtocolVersion::Unknown(_))
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for ProtocolVersion {
    fn from(s: &str) -> Self {
        ProtocolVersion::parse(s)
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(ProtocolVersion::parse(&s))
    }
}

impl schemars::JsonSchema for ProtocolVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ProtocolVersion".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_known_version() {
        for v in ProtocolVersion::KNOWN {
            let json = serde_json::to_string(&v).unwrap();
            let back: ProtocolVersion = serde_json::from_str(&json).unwrap();
            assert_eq!(back, v);
            assert!(v.is_known());
        }
    }

    #[test]
    fn unknown_versions_are_kept_as_data() {
        let v: ProtocolVersion = serde_json::from_str("\"2099-01-01\"").unwrap();
        assert_eq!(v, ProtocolVersion::Unknown("2099-01-01".into()));
        assert_eq!(v.era(), None);
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"2099-01-01\"");
    }

    #[test]
    fn eras() {
        assert_eq!(ProtocolVersion::V2025_03_26.era(), Some(Era::Legacy));
        assert_eq!(ProtocolVersion::LATEST_MODERN.era(), Some(Era::Modern));
    }
}

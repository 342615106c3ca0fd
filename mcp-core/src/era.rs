//! Era selection: which lifecycle to run against a server, as pure functions.
//!
//! ```text
//!   EraPreference::Auto (stdio)            EraPreference::Auto (HTTP)
//!   send server/discover (modern)          send server/discover (modern)
//!     DiscoverResult      -> modern          DiscoverResult        -> modern
//!     -32022 / -32021 / -32020 -> modern     400 + modern error    -> modern
//!     any other error     -> legacy          400 + other/empty body -> legacy
//!     no answer in time   -> legacy          401 / 403 / transport  -> no decision
//! ```
//!
//! Authorization and transport failures never cause a downgrade.
//! The outcome ([`EraOutcome`]) is exposed so a facade can cache it per
//! server and start the next connection with
//! [`EraPreference::Known`].

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{Era, ErrorCode, ProtocolVersion};

/// Which protocol versions the client accepts, in order of preference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EraPreference {
    /// Every known version, newest first; detect the era (the default).
    #[default]
    Auto,
    /// Only 2025-11-25 and older: `initialize` straight away.
    LegacyOnly,
    /// Only 2026-07-28: probe, and fail with an actionable error on a
    /// legacy server.
    ModernOnly,
    /// These versions, most preferred first.
    Versions(Vec<ProtocolVersion>),
    /// A decision cached from an earlier connection: no probe.
    Known(ProtocolVersion),
}

impl EraPreference {
    /// The accepted versions, most preferred first.
    pub fn versions(&self) -> Vec<ProtocolVersion> {
        match self {
            EraPreference::Auto => ProtocolVersion::KNOWN.to_vec(),
            EraPreference::LegacyOnly => era_versions(Era::Legacy),
            EraPreference::ModernOnly => era_versions(Era::Modern),
            EraPreference::Versions(v) => v.iter().filter(|v| v.is_known()).cloned().collect(),
            EraPreference::Known(v) => vec![v.clone()],
        }
    }
}

fn era_versions(era: Era) -> Vec<ProtocolVersion> {
    ProtocolVersion::KNOWN
        .into_iter()
        .filter(|v| v.era() == Some(era))
        .collect()
}

/// The era decision for one server, for the facade to cache.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EraOutcome {
    /// The negotiated version.
    pub version: ProtocolVersion,
    /// Its era.
    pub era: Era,
    /// How it was decided.
    pub decided_by: EraDecision,
}

/// How an era was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EraDecision {
    /// A `DiscoverResult` arrived.
    Discover,
    /// A recognized modern error named the supported versions.
    ModernError,
    /// The probe failed with a non-modern error, or an unrecognized 400.
    FallbackOnError,
    /// The probe got no answer in time (stdio).
    FallbackOnSilence,
    /// The configuration asked for the legacy handshake only.
    Configured,
    /// A cached outcome was reused.
    Cached,
}

/// The verdict on the answer to a modern probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ProbeVerdict {
    /// A modern server: stay modern. `supported` lists the versions it named
    /// (empty when the error carried none).
    Modern {
        /// The versions the server named in `data.supported`.
        supported: Vec<ProtocolVersion>,
    },
    /// Not a modern server: fall back to `initialize`.
    Legacy,
}

/// Whether an error code is one of the modern errors a 2026-07-28 server
/// uses to say "I am modern, fix the request".
pub(crate) fn is_modern_error(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH
    )
}

/// Classifies a JSON-RPC error answering a modern probe (stdio, or an HTTP
/// 400 body). Never keyed on one single code: anything that is not a
/// recognized modern error means a legacy server.
pub(crate) fn classify_probe_error(error: &ErrorObject) -> ProbeVerdict {
    if is_modern_error(error.code) {
        ProbeVerdict::Modern {
            supported: supported_versions(error),
        }
    } else {
        ProbeVerdict::Legacy
    }
}

/// The HTTP facts that answer a modern probe.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum HttpProbeAnswer<'a> {
    /// A 400 whose body held a JSON-RPC error.
    BadRequest(Option<&'a ErrorObject>),
    /// Any other status without a usable body.
    OtherStatus(u16),
}

/// The verdict for an HTTP probe answer; `None` means "no decision" (an
/// authorization or transport problem must not cause a downgrade).
pub(crate) fn classify_http_answer(answer: &HttpProbeAnswer<'_>) -> Option<ProbeVerdict> {
    match answer {
        HttpProbeAnswer::BadRequest(Some(e)) => Some(classify_probe_error(e)),
        HttpProbeAnswer::BadRequest(None) => Some(ProbeVerdict::Legacy),
        // 404/405 without a modern body: an old server.
        HttpProbeAnswer::OtherStatus(404 | 405) => Some(ProbeVerdict::Legacy),
        HttpProbeAnswer::OtherStatus(_) => None,
    }
}

/// `error.data.supported` of an `UnsupportedProtocolVersion` error (R26)
/// or of a legacy `-32602` version error.
pub(crate) fn supported_versions(error: &ErrorObject) -> Vec<ProtocolVersion> {
    error
        .data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(ProtocolVersion::parse))
                .collect()
        })
        .unwrap_or_default()
}

/// The client's most preferred version that the server also supports.
pub(crate) fn best_mutual(
    preferences: &[ProtocolVersion],
    server: &[ProtocolVersion],
) -> Option<ProtocolVersion> {
    preferences.iter().find(|v| server.contains(v)).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: i32, data: Option<serde_json::Value>) -> ErrorObject {
        let e = ErrorObject::new(ErrorCode(code), "x");
        match data {
            Some(d) => e.with_data(d),
            None => e,
        }
    }

    #[test]
    fn probe_errors_are_not_keyed_on_one_code() {
        for code in [-32601, -32600, -32602, -32603, -32000, -32001, -32004, 1] {
            assert_eq!(
                classify_probe_error(&err(code, None)),
                ProbeVerdict::Legacy,
                "{code}"
            );
        }
        for code in [-32020, -32021] {
            assert_eq!(
                classify_probe_error(&err(code, None)),
                ProbeVerdict::Modern { supported: vec![] }
            );
        }
        let e = err(
            -32022,
            Some(serde_json::json!({"supported": ["2026-07-28", "2099-01-01"]})),
        );
        assert_eq!(
            classify_probe_error(&e),
            ProbeVerdict::Modern {
                supported: vec![
                    ProtocolVersion::V2026_07_28,
                    ProtocolVersion::Unknown("2099-01-01".into())
                ]
            }
        );
    }

    #[test]
    fn http_answers() {
        assert_eq!(
            classify_http_answer(&HttpProbeAnswer::OtherStatus(401)),
            None
        );
        assert_eq!(
            classify_http_answer(&HttpProbeAnswer::OtherStatus(502)),
            None
        );
        assert_eq!(
            classify_http_answer(&HttpProbeAnswer::BadRequest(None)),
            Some(ProbeVerdict::Legacy)
        );
        let modern = err(-32022, None);
        assert!(matches!(
            classify_http_answer(&HttpProbeAnswer::BadRequest(Some(&modern))),
            Some(ProbeVerdict::Modern { .. })
        ));
    }

    #[test]
    fn preferences_and_mutual_versions() {
        assert_eq!(
            EraPreference::Auto.versions()[0],
            ProtocolVersion::V2026_07_28
        );
        assert!(
            EraPreference::LegacyOnly
                .versions()
                .iter()
                .all(|v| v.era() == Some(Era::Legacy))
        );
        let prefs = EraPreference::Versions(vec![
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2026_07_28,
        ])
        .versions();
        let server = [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_06_18];
        assert_eq!(
            best_mutual(&prefs, &server),
            Some(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(best_mutual(&prefs, &[ProtocolVersion::V2024_11_05]), None);
    }
}

//! Strict mode: what a violation looks like.
//!
//! With [`Config::strict`](crate::Config::strict) on, every response is
//! checked as a complete JSON-RPC envelope and (by the facade, which owns
//! the schema validator) its result is validated against the negotiated
//! revision's schema. A response that fails fails its request with
//! [`RequestError::Peer`](crate::RequestError::Peer) carrying
//! [`PeerMisbehaved::Strict`](crate::PeerMisbehaved::Strict) and a
//! [`StrictViolation`] that names the method, the id and the failed places.
//!
//! A violation never keeps a value from the peer's payload: it holds the
//! rule that was broken, JSON Pointers into the payload and schema keywords,
//! each bounded ([`MAX_FAILURES`], [`MAX_LOCATION_LEN`]), so it is cheap to
//! keep and safe to log.

use std::fmt;

use mcp_types::jsonrpc::EnvelopeViolation;
use mcp_types::{ProtocolVersion, RequestId};

/// At most this many schema failures are kept per violation.
pub const MAX_FAILURES: usize = 16;

/// A location longer than this many bytes is cut (at a character boundary)
/// and ends with `…`.
pub const MAX_LOCATION_LEN: usize = 256;

/// A response that was refused: by strict mode (an id mismatch, a schema
/// failure), or because its envelope broke JSON-RPC (which fails the call
/// in either mode; strict mode also refuses a missing `jsonrpc`).
///
/// ```
/// use mcp_core::strict::{StrictProblem, StrictViolation};
/// use mcp_types::jsonrpc::EnvelopeViolation;
/// use mcp_types::RequestId;
///
/// let v = StrictViolation::new(
///     "tools/call",
///     RequestId::Number(3),
///     StrictProblem::Envelope(vec![EnvelopeViolation::MissingVersion]),
/// );
/// assert_eq!(
///     v.to_string(),
///     "the response to `tools/call` (id 3) is not a complete \
///      JSON-RPC envelope: the `jsonrpc` member is missing"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StrictViolation {
    /// The method of the request the response answers (for example
    /// `tasks/get` while a task of a `tools/call` is polled).
    pub method: String,
    /// The id of the response, as received.
    pub id: RequestId,
    /// What was wrong.
    pub problem: StrictProblem,
}

impl StrictViolation {
    /// A violation of a response to `method` with this `id`.
    pub fn new(method: impl Into<String>, id: RequestId, problem: StrictProblem) -> Self {
        StrictViolation {
            method: method.into(),
            id,
            problem,
        }
    }

    /// The failed places: JSON Pointers into the result for a schema
    /// violation, empty for an envelope violation.
    pub fn failed_paths(&self) -> impl Iterator<Item = &str> {
        let failures = match &self.problem {
            StrictProblem::Schema { failures, .. } => failures.as_slice(),
            StrictProblem::Envelope(_) | StrictProblem::IdMismatch => &[],
        };
        failures.iter().map(|f| f.instance_location.as_str())
    }
}

/// What strict mode found wrong with a response.
///
/// ```
/// use mcp_core::strict::StrictProblem;
/// use mcp_types::jsonrpc::EnvelopeViolation;
///
/// fn summary(p: &StrictProblem) -> String {
///     match p {
///         StrictProblem::Envelope(v) => format!("{} envelope violation(s)", v.len()),
///         StrictProblem::IdMismatch => "id mismatch".into(),
///         StrictProblem::Schema { definition, failures, .. } => {
///             format!("{definition}: {} failure(s)", failures.len())
///         }
///         _ => "other".into(),
///     }
/// }
/// let p = StrictProblem::Envelope(vec![EnvelopeViolation::WrongVersion]);
/// assert_eq!(summary(&p), "1 envelope violation(s)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StrictProblem {
    /// The envelope broke JSON-RPC 2.0.
    Envelope(Vec<EnvelopeViolation>),
    /// The response's id is not the id that was sent: the same number,
    /// but as a string (the lenient path accepts that from gateways).
    IdMismatch,
    /// The result does not validate against the revision's schema.
    Schema {
        /// The revision whose schema was used.
        revision: ProtocolVersion,
        /// The schema definition, e.g. `CallToolResult` or
        /// `InputRequiredResult`.
        definition: &'static str,
        /// Where validation failed (at most [`MAX_FAILURES`]).
        failures: Vec<SchemaFailure>,
        /// More failures were found than kept.
        truncated: bool,
    },
}

/// One place where a result failed its schema; no value from the result.
///
/// ```
/// use mcp_core::strict::SchemaFailure;
/// let f = SchemaFailure::new("/content/0", "required", "/$defs/TextContent/required");
/// assert_eq!(f.to_string(), "/content/0: required (/$defs/TextContent/required)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaFailure {
    /// A JSON Pointer into the result (`""` is the result itself).
    pub instance_location: String,
    /// The schema keyword that failed (`required`, `type`, `const`, ...).
    pub keyword: String,
    /// A JSON Pointer into the schema, to the failed keyword.
    pub keyword_location: String,
}

impl SchemaFailure {
    /// A failure; each location is cut to [`MAX_LOCATION_LEN`] bytes.
    pub fn new(
        instance_location: impl Into<String>,
        keyword: impl Into<String>,
        keyword_location: impl Into<String>,
    ) -> Self {
        SchemaFailure {
            instance_location: bounded(instance_location.into()),
            keyword: bounded(keyword.into()),
            keyword_location: bounded(keyword_location.into()),
        }
    }
}

fn bounded(mut s: String) -> String {
    if s.len() > MAX_LOCATION_LEN {
        let mut cut = MAX_LOCATION_LEN;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

impl fmt::Display for SchemaFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_location.is_empty() {
            "(result)"
        } else {
            &self.instance_location
        };
        write!(f, "{at}: {} ({})", self.keyword, self.keyword_location)
    }
}

impl fmt::Display for StrictViolation {
    /// Names the violation by what it is. Only the checks that strict mode
    /// alone makes (an id mismatch, a schema failure) start with
    /// `strict mode:`; a broken envelope fails its call in either mode, so
    /// its message does not name a mode.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !matches!(self.problem, StrictProblem::Envelope(_)) {
            f.write_str("strict mode: ")?;
        }
        write!(f, "the response to `{}` (id {}) ", self.method, self.id)?;
        match &self.problem {
            StrictProblem::Envelope(violations) => {
                f.write_str("is not a complete JSON-RPC envelope: ")?;
                for (i, v) in violations.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
            StrictProblem::IdMismatch => {
                f.write_str("carries the request's numeric id as a string")
            }
            StrictProblem::Schema {
                revision,
                definition,
                failures,
                truncated,
            } => {
                write!(f, "fails {definition} of {}: ", revision.as_str())?;
                for (i, failure) in failures.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{failure}")?;
                }
                if *truncated {
                    f.write_str("; …")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for StrictViolation {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_bounded_at_a_char_boundary() {
        let long = "é".repeat(MAX_LOCATION_LEN);
        let f = SchemaFailure::new(long, "type", "/type");
        assert!(f.instance_location.len() <= MAX_LOCATION_LEN + '…'.len_utf8());
        assert!(f.instance_location.ends_with('…'));
    }

    /// An envelope violation fails its call in either mode, so its message
    /// names what broke and never says "strict mode".
    #[test]
    fn envelope_violations_are_not_called_strict_mode() {
        let v = StrictViolation::new(
            "tools/call",
            RequestId::Number(4),
            StrictProblem::Envelope(vec![EnvelopeViolation::BothResultAndError]),
        );
        assert_eq!(
            v.to_string(),
            "the response to `tools/call` (id 4) is not a complete JSON-RPC envelope: \
             a response carries both `result` and `error`"
        );
        let id = StrictViolation::new("ping", RequestId::Number(5), StrictProblem::IdMismatch);
        assert!(id.to_string().starts_with("strict mode: "), "{id}");
    }

    #[test]
    fn schema_violations_name_method_id_paths_and_keywords() {
        let v = StrictViolation::new(
            "tools/call",
            RequestId::Number(9),
            StrictProblem::Schema {
                revision: ProtocolVersion::V2025_11_25,
                definition: "CallToolResult",
                failures: vec![SchemaFailure::new("", "required", "/required")],
                truncated: true,
            },
        );
        assert_eq!(
            v.to_string(),
            "strict mode: the response to `tools/call` (id 9) fails CallToolResult of \
             2025-11-25: (result): required (/required); …"
        );
        assert_eq!(v.failed_paths().collect::<Vec<_>>(), [""]);
    }
}

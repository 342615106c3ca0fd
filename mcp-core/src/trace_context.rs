//! W3C trace context in a request's `_meta`: the `traceparent`,
//! `tracestate` and `baggage` keys that the 2026-07-28 revision reserves for
//! OpenTelemetry propagation (SEP-414, "OpenTelemetry trace context" in the
//! basic protocol page) and that 2025-11-25 allows as unprefixed `_meta`
//! names. Both eras carry them the same way, in `params._meta`.
//!
//! The core takes the header strings as plain input (a driver gets them
//! from whatever tracing system it runs; `mcp-client` reads the span of the
//! call with its `opentelemetry` feature) and decides how they join the
//! request's `_meta`:
//!
//! * a `traceparent` the caller put in `_meta` (in the request options or in
//!   `params._meta`) wins, and so does the caller's `tracestate` with it: the
//!   given context adds neither (a `tracestate` belongs to its `traceparent`);
//! * `baggage` is independent of the trace: the given one is added unless
//!   the caller set one;
//! * every send of the call carries them: a resend after a version or
//!   session change, each round of a multi-round-trip request, every page of
//!   a listing, the task requests of a task-augmented call (`tasks/get`,
//!   `tasks/result`, `tasks/cancel`, `tasks/update`), the `tools/list`
//!   refresh a header mismatch triggers, and the `notifications/cancelled`
//!   that abandons it, so the server sees them all in the call's trace.

use serde_json::{Map, Value};

use mcp_types::meta::keys::{BAGGAGE, TRACEPARENT, TRACESTATE};

/// The longest `tracestate` accepted (W3C Trace Context: 32 members of at
/// most 256 bytes each, plus their commas).
pub const MAX_TRACESTATE_LEN: usize = 32 * 257;
/// The longest `baggage` accepted (W3C Baggage: 8192 bytes in all).
pub const MAX_BAGGAGE_LEN: usize = 8192;

/// A trace context to propagate in a request's `_meta`: W3C Trace Context
/// headers and W3C Baggage, as strings.
///
/// ```
/// use mcp_core::TraceContext;
/// let cx = TraceContext::new("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")?
///     .with_tracestate("rojo=00f067aa0ba902b7")?;
/// assert_eq!(cx.tracestate(), Some("rojo=00f067aa0ba902b7"));
/// assert!(TraceContext::new("00-not-a-trace-01").is_err());
/// # Ok::<(), mcp_core::InvalidTraceContext>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceContext {
    traceparent: String,
    tracestate: Option<String>,
    baggage: Option<String>,
}

/// A trace context string that is not in its W3C format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {key} for the request's _meta: {reason}")]
#[non_exhaustive]
pub struct InvalidTraceContext {
    /// The `_meta` key: `traceparent`, `tracestate` or `baggage`.
    pub key: &'static str,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl TraceContext {
    /// A context from a W3C `traceparent`
    /// (`{version}-{trace-id}-{parent-id}-{flags}`, lowercase hex; version
    /// `00` has exactly these four fields, a later version may append more).
    ///
    /// # Errors
    /// When `traceparent` does not have that shape, or its trace id or
    /// parent id is all zeros (invalid by the W3C format).
    pub fn new(traceparent: impl Into<String>) -> Result<Self, InvalidTraceContext> {
        let traceparent = traceparent.into();
        check_traceparent(&traceparent)?;
        Ok(TraceContext {
            traceparent,
            tracestate: None,
            baggage: None,
        })
    }

    /// Adds the W3C `tracestate` that goes with the `traceparent`.
    ///
    /// # Errors
    /// When it is longer than [`MAX_TRACESTATE_LEN`] or holds anything but
    /// printable ASCII.
    pub fn with_tracestate(
        mut self,
        state: impl Into<String>,
    ) -> Result<Self, InvalidTraceContext> {
        let state = state.into();
        check_header(TRACESTATE, &state, MAX_TRACESTATE_LEN)?;
        self.tracestate = (!state.is_empty()).then_some(state);
        Ok(self)
    }

    /// Adds W3C `baggage`.
    ///
    /// # Errors
    /// When it is longer than [`MAX_BAGGAGE_LEN`] or holds anything but
    /// printable ASCII (baggage values are percent-encoded).
    pub fn with_baggage(mut self, baggage: impl Into<String>) -> Result<Self, InvalidTraceContext> {
        let baggage = baggage.into();
        check_header(BAGGAGE, &baggage, MAX_BAGGAGE_LEN)?;
        self.baggage = (!baggage.is_empty()).then_some(baggage);
        Ok(self)
    }

    /// The `traceparent`.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The `tracestate`, if any.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The `baggage`, if any.
    pub fn baggage(&self) -> Option<&str> {
        self.baggage.as_deref()
    }

    /// Adds this context to a request's `_meta` without replacing what the
    /// caller put there (see the module doc).
    pub(crate) fn merge_into(self, meta: &mut Map<String, Value>) {
        if !meta.contains_key(TRACEPARENT) {
            meta.insert(TRACEPARENT.into(), Value::String(self.traceparent));
            if let Some(state) = self.tracestate {
                meta.entry(TRACESTATE).or_insert(Value::String(state));
            }
        }
        if let Some(baggage) = self.baggage {
            meta.entry(BAGGAGE).or_insert(Value::String(baggage));
        }
    }
}

/// The trace context members of a call's `_meta`, for the requests and
/// notifications sent on the call's behalf; empty (no allocation) when it
/// carries none.
pub(crate) fn trace_members(meta: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    if meta.is_empty() {
        return out;
    }
    for key in [TRACEPARENT, TRACESTATE, BAGGAGE] {
        if let Some(v) = meta.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    out
}

fn check_traceparent(s: &str) -> Result<(), InvalidTraceContext> {
    let bad = |reason| InvalidTraceContext {
        key: TRACEPARENT,
        reason,
    };
    let mut fields = s.split('-');
    let lens = [2, 32, 16, 2];
    let mut parts = [""; 4];
    for (part, len) in parts.iter_mut().zip(lens) {
        let field = fields.next().ok_or(bad("fewer than four fields"))?;
        let hex = field
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if field.len() != len || !hex {
            return Err(bad("a field is not lowercase hex of its length"));
        }
        *part = field;
    }
    let [version, trace_id, parent_id, _] = parts;
    if version == "ff" {
        return Err(bad("version ff is invalid"));
    }
    if version == "00" && fields.next().is_some() {
        return Err(bad("version 00 has exactly four fields"));
    }
    if trace_id.bytes().all(|b| b == b'0') || parent_id.bytes().all(|b| b == b'0') {
        return Err(bad("an all-zero trace id or parent id"));
    }
    check_header(TRACEPARENT, s, 512)
}

fn check_header(key: &'static str, s: &str, max: usize) -> Result<(), InvalidTraceContext> {
    if s.len() > max {
        return Err(InvalidTraceContext {
            key,
            reason: "longer than the W3C limit",
        });
    }
    if !s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return Err(InvalidTraceContext {
            key,
            reason: "not printable ASCII",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

    #[test]
    fn traceparent_shapes() {
        assert!(TraceContext::new(PARENT).is_ok());
        // A later version may append fields.
        assert!(TraceContext::new(format!("01{}-extra", &PARENT[2..])).is_ok());
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7",
            "00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-x",
        ] {
            assert_eq!(
                TraceContext::new(bad).unwrap_err().key,
                TRACEPARENT,
                "{bad}"
            );
        }
        let cx = TraceContext::new(PARENT).unwrap();
        assert!(cx.clone().with_tracestate("a=b\n").is_err());
        assert!(cx.with_baggage("k=".repeat(MAX_BAGGAGE_LEN)).is_err());
    }

    #[test]
    fn caller_traceparent_wins_with_its_tracestate() {
        let cx = TraceContext::new(PARENT)
            .unwrap()
            .with_tracestate("ours=1")
            .unwrap()
            .with_baggage("user=ours")
            .unwrap();
        let mut meta = Map::new();
        meta.insert(TRACEPARENT.into(), json!("caller"));
        cx.clone().merge_into(&mut meta);
        assert_eq!(
            Value::Object(meta),
            json!({"traceparent": "caller", "baggage": "user=ours"})
        );

        let mut meta = Map::new();
        meta.insert(BAGGAGE.into(), json!("user=caller"));
        cx.merge_into(&mut meta);
        assert_eq!(
            Value::Object(meta),
            json!({"traceparent": PARENT, "tracestate": "ours=1", "baggage": "user=caller"})
        );
    }

    #[test]
    fn trace_members_copies_only_trace_keys() {
        let mut meta = Map::new();
        assert!(trace_members(&meta).is_empty());
        meta.insert("custom".into(), json!(1));
        meta.insert(TRACEPARENT.into(), json!(PARENT));
        assert_eq!(
            Value::Object(trace_members(&meta)),
            json!({"traceparent": PARENT})
        );
    }
}

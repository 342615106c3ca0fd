//! The client span of each call, after OpenTelemetry's semantic conventions
//! for MCP (<https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/>,
//! status Development), and, with the `opentelemetry` feature, the W3C
//! trace context of that span in every request's `params._meta`.
//!
//! # The span
//!
//! Every call the facade starts gets one `tracing` span, at `DEBUG` level
//! (target `mcp_client::telemetry`), created in the caller's context (so a
//! child of the caller's current span) and ended when the call ends. Its
//! `tracing` name is `mcp.request`; the fields follow the "MCP client span"
//! of the conventions, and `tracing-opentelemetry` maps the `otel.*` ones:
//!
//! | field | value |
//! | --- | --- |
//! | `otel.name` | `{mcp.method.name} {target}`, the target being the tool or prompt name of `tools/call` / `prompts/get`; the method alone otherwise |
//! | `otel.kind` | `client` |
//! | `mcp.method.name` | the request method |
//! | `mcp.protocol.version` | the negotiated version, once known |
//! | `mcp.resource.uri` | the `uri` of `resources/read`, `resources/subscribe`, `resources/unsubscribe` |
//! | `gen_ai.tool.name`, `gen_ai.operation.name` | for `tools/call`: the tool, and `execute_tool` |
//! | `gen_ai.prompt.name` | for `prompts/get` |
//! | `jsonrpc.request.id` | the request's JSON-RPC id (its first send; a resend after a version or session change gets a new id) |
//! | `network.transport`, `network.protocol.name` | `pipe` over stdio and byte streams; `tcp` and `http` over Streamable HTTP; unset for a custom transport |
//! | `error.type` | on failure: the JSON-RPC error code, `tool_error` for a `CallToolResult` with `isError`, else `timeout`, `cancelled`, `closed`, `transport`, `protocol_violation`, `unauthorized`, `usage` or `_OTHER` |
//! | `rpc.response.status_code` | the JSON-RPC error code, when the server answered with one |
//! | `otel.status_code`, `otel.status_description` | `error` when `error.type` is set; the description is the server's JSON-RPC error message (at most 256 bytes) |
//!
//! The conventions' `mcp.session.id` is left out on purpose: a 2025-11-25
//! session id is a bearer of the session (whoever holds it can send on it),
//! and this SDK keeps it out of logs and `Debug` output; traces leave the
//! process the same way logs do. A host that wants it can record
//! [`Client::session_id`](crate::Client::session_id) on its own span.
//!
//! When no subscriber wants the span (`Span::is_disabled`), none of these
//! values is computed: a call costs the same as without the span.
//!
//! # Trace context (`opentelemetry` feature)
//!
//! The request carries `traceparent` and `tracestate` from the client span's
//! OpenTelemetry context (so the server span becomes its child, as the
//! conventions' context propagation section says), and `baggage` when the
//! context has any. When no OpenTelemetry layer records the client span (it
//! is filtered out, for every layer or for that one), the context is that
//! of the span the call runs in, or failing that the current OpenTelemetry
//! context. The strings are written in the W3C formats
//! the MCP specification requires for these keys, not through the global
//! propagator (which may be set to another format). A `traceparent` the
//! caller put in `_meta` ([`CallOptions::with_trace_context`](crate::CallOptions::with_trace_context),
//! [`CallOptions::with_meta`](crate::CallOptions::with_meta) or the params'
//! `_meta`) wins; which sends carry the context is
//! [`mcp_core::trace_context`]'s decision (every send of the call, its task
//! requests and its `notifications/cancelled`).
//!
//! The handshake (`server/discover`, `initialize`) has no client span: its
//! requests carry the context of the span `connect` (or
//! `connect_uninitialized`) runs in. Requests the client makes on its own
//! later (a replaced session's `initialize`, session restore) carry none.

use mcp_core::Completed;
use mcp_types::RequestId;
use serde_json::Value;
use tracing::Span;
use tracing::field::Empty;

use crate::client::Client;
use crate::driver::{CallSpec, Outcome};
use crate::error::Error;
use crate::transport::Link;

/// The longest server error message recorded as the span's status.
const MAX_STATUS_DESCRIPTION: usize = 256;

/// Creates the client span of a call about to start, records what is known
/// now, and (with the `opentelemetry` feature) puts the span's trace
/// context in the call's options. With debug tracing off for every
/// subscriber the span is none, decided here, inline: no call out of line
/// on every call for it (the OpenTelemetry context is looked for even
/// then, so that feature always goes the whole way).
#[inline]
pub(crate) fn call_span(client: &Client, spec: &mut CallSpec) -> Span {
    #[cfg(not(feature = "opentelemetry"))]
    if !tracing::level_enabled!(tracing::Level::DEBUG) {
        return Span::none();
    }
    open_call_span(client, spec)
}

fn open_call_span(client: &Client, spec: &mut CallSpec) -> Span {
    let method: &str = &spec.method;
    let span = tracing::debug_span!(
        "mcp.request",
        otel.name = method,
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        mcp.protocol.version = Empty,
        mcp.resource.uri = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        jsonrpc.request.id = Empty,
        network.transport = Empty,
        network.protocol.name = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
    );
    if !span.is_disabled() {
        // A call by tool name carries the name beside its arguments.
        let tool = match &spec.kind {
            crate::driver::SpecKind::Tool(call) => Some(call.name()),
            _ => None,
        };
        record_request(client, &span, method, spec.params.as_deref(), tool);
    }
    #[cfg(feature = "opentelemetry")]
    if spec.opts.core().is_none_or(|c| c.trace.is_none())
        && let Some(trace) = otel::trace_context(&span)
    {
        spec.opts.set_mut().core.trace = Some(trace);
    }
    span
}

fn record_request(
    client: &Client,
    span: &Span,
    method: &str,
    params: Option<&Value>,
    tool: Option<&str>,
) {
    let param = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str);
    match method {
        "tools/call" => {
            span.record("gen_ai.operation.name", "execute_tool");
            if let Some(tool) = tool.or_else(|| param("name")) {
                span.record("gen_ai.tool.name", tool);
                span.record("otel.name", format!("{method} {tool}"));
            }
        }
        "prompts/get" => {
            if let Some(prompt) = param("name") {
                span.record("gen_ai.prompt.name", prompt);
                span.record("otel.name", format!("{method} {prompt}"));
            }
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            if let Some(uri) = param("uri") {
                span.record("mcp.resource.uri", uri);
            }
        }
        _ => {}
    }
    if let Some(version) = client.protocol_version() {
        span.record("mcp.protocol.version", version.as_str());
    }
}

/// The trace context of the span `connect` runs in, for the handshake's
/// requests (`server/discover`, `initialize`).
#[cfg(feature = "opentelemetry")]
pub(crate) fn handshake_trace() -> Option<mcp_core::TraceContext> {
    otel::trace_context(&Span::none())
}

/// Without the `opentelemetry` feature the handshake carries no context.
#[cfg(not(feature = "opentelemetry"))]
pub(crate) fn handshake_trace() -> Option<mcp_core::TraceContext> {
    None
}

/// Records what the driver knows once the call started: its JSON-RPC id
/// and the transport (a look at the span, inline, when it is none).
#[inline]
pub(crate) fn record_started(span: &Span, id: &RequestId, link: Option<&Link>) {
    if !span.is_disabled() {
        record_started_fields(span, id, link);
    }
}

fn record_started_fields(span: &Span, id: &RequestId, link: Option<&Link>) {
    span.record("jsonrpc.request.id", tracing::field::display(id));
    match link {
        Some(Link::Stream { .. }) => {
            span.record("network.transport", "pipe");
        }
        #[cfg(feature = "http")]
        Some(Link::Http(_)) => {
            span.record("network.transport", "tcp");
            span.record("network.protocol.name", "http");
        }
        Some(Link::Custom(_)) | None => {}
    }
}

/// Records how the call ended: `error.type` and the span status on
/// failure, a tool's `isError` included (a look at the span, inline, when
/// it is none).
#[inline]
pub(crate) fn record_end(span: &Span, r: &Result<Outcome, Error>) {
    if !span.is_disabled() {
        record_end_fields(span, r);
    }
}

fn record_end_fields(span: &Span, r: &Result<Outcome, Error>) {
    match r {
        Ok(Outcome::Done(done)) if is_tool_error(done) => {
            span.record("error.type", "tool_error");
            span.record("otel.status_code", "error");
        }
        Ok(_) => {}
        Err(e) => record_error(span, e),
    }
}

fn record_error(span: &Span, e: &Error) {
    if let Some(remote) = e.remote_error() {
        let code = remote.code.0.to_string();
        span.record("error.type", code.as_str());
        span.record("rpc.response.status_code", code.as_str());
        let message = truncate(&remote.message, MAX_STATUS_DESCRIPTION);
        span.record("otel.status_description", message);
        return;
    }
    span.record("error.type", error_type(e));
    span.record("otel.status_code", "error");
}

/// A low-cardinality class of an error that is not the server's JSON-RPC
/// error (`_OTHER` is the conventions' fallback).
fn error_type(e: &Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else if e.is_cancelled() {
        "cancelled"
    } else if e.is_closed() {
        "closed"
    } else if e.is_unauthorized() || e.is_authorization_failed() {
        "unauthorized"
    } else if e.is_transport() {
        "transport"
    } else if e.is_protocol_violation() {
        "protocol_violation"
    } else if e.is_usage() {
        "usage"
    } else {
        "_OTHER"
    }
}

/// Whether a `tools/call` result says `isError: true`, read with the
/// shallow member walk (the result is not parsed here).
fn is_tool_error(done: &Completed) -> bool {
    if done.method != "tools/call" {
        return false;
    }
    let text = done.result.as_bytes();
    mcp_types::raw::object_members(text)
        .map_while(Result::ok)
        .any(|m| m.key == b"isError" && text[m.value].trim_ascii() == b"true")
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(feature = "opentelemetry")]
mod otel {
    use mcp_core::TraceContext;
    use opentelemetry::baggage::BaggageExt;
    use opentelemetry::trace::{TraceContextExt, TraceFlags};
    use tracing::Span;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// The W3C trace context of the client span (or, when no OpenTelemetry
    /// layer records it, of the caller's span, or of the current
    /// OpenTelemetry context); `None` without a valid span context.
    pub(super) fn trace_context(span: &Span) -> Option<TraceContext> {
        // A span filtered out for every layer, or only for the OpenTelemetry
        // one, has no valid context: the caller's span (current here: the
        // client span is not entered yet) is the next best parent.
        let valid = |cx: &opentelemetry::Context| cx.span().span_context().is_valid();
        let mut cx = span.context();
        if !valid(&cx) {
            cx = Span::current().context();
        }
        if !valid(&cx) {
            cx = opentelemetry::Context::current();
        }
        let sc = cx.span().span_context().clone();
        if !sc.is_valid() {
            return None;
        }
        // W3C Trace Context, version 00; only the sampled flag is defined.
        let flags = sc.trace_flags() & TraceFlags::SAMPLED;
        let parent = format!("00-{}-{}-{:02x}", sc.trace_id(), sc.span_id(), flags);
        let mut out = TraceContext::new(parent).ok()?;
        let state = sc.trace_state().header();
        if !state.is_empty() {
            out = out.clone().with_tracestate(state).unwrap_or(out);
        }
        let baggage = cx.baggage();
        if !baggage.is_empty() {
            // Display is the W3C Baggage header (values percent-encoded).
            out = out.clone().with_baggage(baggage.to_string()).unwrap_or(out);
        }
        Some(out)
    }
}

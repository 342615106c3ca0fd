//! W3C trace context in `params._meta` and the client span's attributes
//! (feature `opentelemetry`): a `tracing-opentelemetry` layer over an
//! in-memory exporter, a scripted peer (or a scripted loopback HTTP server)
//! that records each request, and assertions that the request's
//! `_meta.traceparent` names the exported MCP client span (its trace id and
//! its own span id: the server span becomes the client span's child), in
//! both eras, and that the span carries the attributes of OpenTelemetry's
//! semantic conventions for MCP.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_client::{CallOptions, Client, EraPreference, HandlerError};
use mcp_testkit::{Delivery, Frame, Peer, ScriptedHttpServer, capabilities, scripted};
use opentelemetry::baggage::BaggageExt;
use opentelemetry::trace::{SpanId, SpanKind, Status, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tracing::Instrument;
use tracing::subscriber::DefaultGuard;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;

const CALLER_PARENT: &str = "00-11111111111111111111111111111111-2222222222222222-01";

/// A `tracing` subscriber for this thread that exports every span to memory.
struct Otel {
    exporter: InMemorySpanExporter,
    _provider: SdkTracerProvider,
    _guard: DefaultGuard,
}

fn otel() -> Otel {
    otel_at(LevelFilter::TRACE, true)
}

/// [`otel`] with the OpenTelemetry layer filtered at `level`, and whether
/// entering a span makes its context the current OpenTelemetry context.
fn otel_at(level: LevelFilter, activation: bool) -> Otel {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("trace_context"))
        .with_context_activation(activation)
        .with_filter(level);
    let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    Otel {
        exporter,
        _provider: provider,
        _guard: guard,
    }
}

impl Otel {
    /// The one exported span with this name.
    fn span(&self, name: &str) -> SpanData {
        let spans = self.exporter.get_finished_spans().expect("spans");
        let mut found = spans.into_iter().filter(|s| s.name == name);
        let span = found.next().unwrap_or_else(|| panic!("no span {name}"));
        assert!(found.next().is_none(), "two spans named {name}");
        span
    }
}

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

/// The `traceparent` that names `span` as the parent of the server's span.
fn traceparent_of(span: &SpanData) -> String {
    let cx = &span.span_context;
    format!("00-{}-{}-01", cx.trace_id(), cx.span_id())
}

fn meta(frame: &Frame, key: &str) -> Option<String> {
    frame.params()["_meta"][key].as_str().map(str::to_owned)
}

async fn connect(peer: &Peer, transport: mcp_testkit::ScriptedTransport, modern: bool) -> Client {
    let era = if modern {
        peer.serve_modern(capabilities());
        EraPreference::ModernOnly
    } else {
        peer.serve_legacy(capabilities());
        EraPreference::LegacyOnly
    };
    Client::builder()
        .era(era)
        .transport(transport)
        .form_elicitation(form)
        .connect()
        .await
        .expect("connect")
}

async fn form(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    let mut content = std::collections::BTreeMap::new();
    for (field, _) in &params.requested_schema.properties.0 {
        content.insert(field.clone(), ElicitValue::String("Ada".into()));
    }
    Ok(ElicitResult::accept(content))
}

/// Calls the `echo` tool in a span of the caller's, closes the client and
/// returns the request the server got.
async fn echo_in_user_span(client: Client, peer: &mut Peer) -> Frame {
    client
        .call_tool("echo", json!({}))
        .instrument(tracing::info_span!("user work"))
        .await
        .expect("call");
    let request = peer.next_request("tools/call").await;
    client.close().await;
    request
}

fn tool_result() -> Value {
    json!({"content": [{"type": "text", "text": "ok"}]})
}

#[tokio::test(start_paused = true)]
async fn tool_call_carries_its_client_span_in_both_eras() {
    for (modern, version) in [(true, "2026-07-28"), (false, "2025-11-25")] {
        let otel = otel();
        let (transport, mut peer) = scripted();
        peer.answer("tools/call", tool_result());
        let client = connect(&peer, transport, modern).await;

        let request = echo_in_user_span(client, &mut peer).await;

        let user_cx = otel.span("user work").span_context;
        let span = otel.span("tools/call echo");
        assert_eq!(span.span_kind, SpanKind::Client);
        assert_eq!(span.span_context.trace_id(), user_cx.trace_id());
        assert_eq!(span.parent_span_id, user_cx.span_id());
        assert_ne!(span.span_context.span_id(), SpanId::INVALID);
        assert_eq!(
            meta(&request, "traceparent"),
            Some(traceparent_of(&span)),
            "{version}"
        );
        assert_eq!(meta(&request, "tracestate"), None);
        assert_eq!(meta(&request, "baggage"), None);

        let id = request.id().expect("id").to_string();
        for (key, value) in [
            ("mcp.method.name", "tools/call"),
            ("gen_ai.tool.name", "echo"),
            ("gen_ai.operation.name", "execute_tool"),
            ("mcp.protocol.version", version),
            ("jsonrpc.request.id", id.as_str()),
        ] {
            assert_eq!(attr(&span, key).as_deref(), Some(value), "{version} {key}");
        }
        // A custom transport: the conventions' `network.transport` is unknown.
        assert_eq!(attr(&span, "network.transport"), None);
        assert_eq!(attr(&span, "error.type"), None);
        assert_eq!(span.status, Status::Unset);
    }
}

/// The handshake carries the context of the span `connect` runs in; a later
/// call outside any span carries its own client span's (a new trace).
#[tokio::test(start_paused = true)]
async fn the_handshake_carries_the_connecting_span() {
    for (modern, handshake) in [(true, "server/discover"), (false, "initialize")] {
        let otel = otel();
        let (transport, mut peer) = scripted();
        peer.answer("tools/list", json!({"tools": []}));
        let client = connect(&peer, transport, modern)
            .instrument(tracing::info_span!("connecting"))
            .await;
        let first = peer.next_request(handshake).await;
        client.list_tools(None).await.expect("list");
        let list = peer.next_request("tools/list").await;
        client.close().await;

        let connecting = otel.span("connecting");
        assert_eq!(
            meta(&first, "traceparent"),
            Some(traceparent_of(&connecting))
        );
        let list_span = otel.span("tools/list");
        assert_eq!(meta(&list, "traceparent"), Some(traceparent_of(&list_span)));
        assert_ne!(
            list_span.span_context.trace_id(),
            connecting.span_context.trace_id()
        );
    }
}

/// With the client span filtered out (it is `DEBUG`), the request carries
/// the context of the caller's span (read from the span: context
/// activation is off, so the current OpenTelemetry context has none).
#[tokio::test(start_paused = true)]
async fn a_filtered_client_span_propagates_the_callers_span() {
    let otel = otel_at(LevelFilter::INFO, false);
    let (transport, mut peer) = scripted();
    peer.answer("tools/call", tool_result());
    let client = connect(&peer, transport, true).await;
    let request = echo_in_user_span(client, &mut peer).await;

    let spans = otel.exporter.get_finished_spans().expect("spans");
    assert!(spans.iter().all(|s| s.name != "tools/call echo"));
    let user = otel.span("user work");
    assert_eq!(meta(&request, "traceparent"), Some(traceparent_of(&user)));
}

#[tokio::test(start_paused = true)]
async fn the_callers_traceparent_wins() {
    let otel = otel();
    let (transport, mut peer) = scripted();
    peer.answer("tools/list", json!({"tools": []}));
    peer.answer("prompts/get", json!({"messages": []}));
    let client = connect(&peer, transport, true).await;

    let opts = CallOptions::new().with_trace_context(CALLER_PARENT, Some("caller=1"));
    let params = json!({"name": "greet"});
    client
        .send_request("prompts/get", Some(params), opts)
        .instrument(tracing::info_span!("user work"))
        .await
        .expect("prompt");
    let own = peer.next_request("prompts/get").await;
    assert_eq!(meta(&own, "traceparent").as_deref(), Some(CALLER_PARENT));
    assert_eq!(meta(&own, "tracestate").as_deref(), Some("caller=1"));

    // The same in the params' own `_meta`; the next call gets its span's.
    let params = json!({"_meta": {"traceparent": CALLER_PARENT}});
    client
        .send_request("tools/list", Some(params), CallOptions::new())
        .await
        .expect("list");
    let in_params = peer.next_request("tools/list").await;
    assert_eq!(
        meta(&in_params, "traceparent").as_deref(),
        Some(CALLER_PARENT)
    );
    client.list_tools(None).await.expect("list");
    let next = peer.next_request("tools/list").await;
    client.close().await;

    let prompt = otel.span("prompts/get greet");
    assert_eq!(
        attr(&prompt, "gen_ai.prompt.name").as_deref(),
        Some("greet")
    );
    let spans = otel.exporter.get_finished_spans().expect("spans");
    let lists: Vec<_> = spans.iter().filter(|s| s.name == "tools/list").collect();
    assert_eq!(lists.len(), 2);
    assert!(
        lists
            .iter()
            .any(|s| meta(&next, "traceparent") == Some(traceparent_of(s)))
    );
}

/// Every round of a multi-round-trip call carries the one client span.
#[tokio::test(start_paused = true)]
async fn every_round_carries_the_same_context() {
    let otel = otel();
    let (transport, mut peer) = scripted();
    peer.once("tools/call", |req| {
        let ask = json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "name?",
            "requestedSchema": {"type": "object",
                "properties": {"name": {"type": "string"}}, "required": ["name"]}}});
        vec![Delivery::result(
            req,
            json!({
            "resultType": "input_required", "inputRequests": {"q": ask}}),
        )]
    });
    peer.answer("tools/call", tool_result());
    let client = connect(&peer, transport, true).await;
    client
        .call_tool("interview", json!({}))
        .instrument(tracing::info_span!("user work"))
        .await
        .expect("call");
    let first = peer.next_request("tools/call").await;
    let retry = peer.next_request("tools/call").await;
    client.close().await;

    assert!(retry.params().get("inputResponses").is_some());
    let span = otel.span("tools/call interview");
    assert_eq!(meta(&first, "traceparent"), Some(traceparent_of(&span)));
    assert_eq!(meta(&retry, "traceparent"), meta(&first, "traceparent"));
}

/// `notifications/cancelled` belongs to the cancelled call's trace, and the
/// span ends with `error.type` set.
#[tokio::test(start_paused = true)]
async fn cancellation_carries_the_calls_context() {
    let otel = otel();
    let (transport, mut peer) = scripted();
    let client = connect(&peer, transport, false).await;
    let handle = async { client.start_call_tool("slow", json!({}), CallOptions::new()) }
        .instrument(tracing::info_span!("user work"))
        .await;
    let request = peer.next_request("tools/call").await;
    drop(handle);
    let cancelled = peer.next_request("notifications/cancelled").await;
    client.close().await;

    let span = otel.span("tools/call slow");
    assert_eq!(meta(&request, "traceparent"), Some(traceparent_of(&span)));
    assert_eq!(
        meta(&cancelled, "traceparent"),
        meta(&request, "traceparent")
    );
    assert_eq!(attr(&span, "error.type").as_deref(), Some("cancelled"));
    assert!(matches!(span.status, Status::Error { .. }));
}

/// A JSON-RPC error and a tool's `isError` set `error.type` as the
/// conventions say; baggage of the caller's context travels in `_meta`.
#[tokio::test(start_paused = true)]
async fn errors_and_baggage_follow_the_conventions() {
    let otel = otel();
    let (transport, mut peer) = scripted();
    peer.answer_error("resources/read", -32002, "no such resource");
    peer.answer(
        "tools/call",
        json!({"content": [{"type": "text", "text": "bad"}], "isError": true}),
    );
    let client = connect(&peer, transport, true).await;

    let with_baggage = Context::current_with_baggage(vec![KeyValue::new("user", "ada lovelace")]);
    let user = tracing::info_span!("user work");
    user.set_parent(with_baggage).expect("parent");
    let params = json!({"uri": "file:///missing"});
    let err = client
        .send_request("resources/read", Some(params), CallOptions::new())
        .instrument(user.clone())
        .await
        .expect_err("no such resource");
    assert!(err.remote_error().is_some());
    let _ = client
        .send_request(
            "tools/call",
            Some(json!({"name": "fails"})),
            CallOptions::new(),
        )
        .instrument(user)
        .await
        .expect("a tool error is a result");
    let read = peer.next_request("resources/read").await;
    client.close().await;

    assert_eq!(
        meta(&read, "baggage").as_deref(),
        Some("user=ada%20lovelace")
    );
    let span = otel.span("resources/read");
    assert_eq!(meta(&read, "traceparent"), Some(traceparent_of(&span)));
    assert_eq!(
        attr(&span, "mcp.resource.uri").as_deref(),
        Some("file:///missing")
    );
    assert_eq!(attr(&span, "error.type").as_deref(), Some("-32002"));
    assert_eq!(
        attr(&span, "rpc.response.status_code").as_deref(),
        Some("-32002")
    );
    assert_eq!(span.status, Status::error("no such resource"));
    let tool = otel.span("tools/call fails");
    assert_eq!(attr(&tool, "error.type").as_deref(), Some("tool_error"));
}

/// Over Streamable HTTP (2025-11-25): the server reads the client span's
/// context from the POSTed request; the span names the transport, never the
/// session id.
#[tokio::test(flavor = "current_thread")]
async fn http_requests_carry_the_context_and_the_session() {
    let otel = otel();
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let record = seen.clone();
    let server = ScriptedHttpServer::start(false, move |method, params| {
        (method == "tools/call").then(|| {
            record
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(params.clone());
            tool_result()
        })
    })
    .await;
    let client = Client::builder()
        .http(&server.url())
        .era(EraPreference::LegacyOnly)
        .connect()
        .await
        .expect("connect");
    client
        .call_tool("echo", json!({}))
        .instrument(tracing::info_span!("user work"))
        .await
        .expect("call");
    tokio::time::timeout(Duration::from_secs(10), client.close())
        .await
        .expect("close");

    let span = otel.span("tools/call echo");
    let params = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    assert_eq!(params.len(), 1);
    let traceparent = params[0]["_meta"]["traceparent"]
        .as_str()
        .map(str::to_owned);
    assert_eq!(traceparent, Some(traceparent_of(&span)));
    assert_eq!(attr(&span, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(
        attr(&span, "network.protocol.name").as_deref(),
        Some("http")
    );
    // The session id is a bearer of the session: never exported.
    assert_eq!(attr(&span, "mcp.session.id"), None);
}

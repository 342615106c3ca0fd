//! The client span of a call without the `opentelemetry` feature: the same
//! names and fields (OpenTelemetry's semantic conventions for MCP), seen by
//! a plain `tracing` layer that records every span's fields.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_client::{Client, EraPreference};
use mcp_testkit::{capabilities, scripted};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

type Fields = BTreeMap<String, String>;

/// Every `mcp.request` span's fields, by span id, as recorded so far.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<BTreeMap<u64, Fields>>>);

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() == "mcp.request" {
            let mut all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            attrs.record(&mut Collect(all.entry(id.into_u64()).or_default()));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(fields) = all.get_mut(&id.into_u64()) {
            values.record(&mut Collect(fields));
        }
    }
}

impl Spans {
    fn named(&self, otel_name: &str) -> Fields {
        let all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut found = all
            .values()
            .filter(|f| f.get("otel.name").map(String::as_str) == Some(otel_name));
        let fields = found
            .next()
            .cloned()
            .unwrap_or_else(|| panic!("no span {otel_name}"));
        assert!(found.next().is_none(), "two spans {otel_name}");
        fields
    }
}

#[tokio::test(start_paused = true)]
async fn spans_carry_the_conventions_names_without_the_feature() {
    let spans = Spans::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let (transport, mut peer) = scripted();
    peer.serve_legacy(capabilities());
    peer.answer("tools/call", json!({"content": [], "isError": true}));
    peer.answer_error("prompts/get", -32602, "no such prompt");
    let client = Client::builder()
        .era(EraPreference::LegacyOnly)
        .transport(transport)
        .connect()
        .await
        .expect("connect");
    let _ = client.call_tool("echo", json!({})).await;
    let request = peer.next_request("tools/call").await;
    let err = client
        .get_prompt("greet", BTreeMap::new())
        .await
        .expect_err("no such prompt");
    assert!(err.remote_error().is_some());
    // Refused before it is sent: 2025-11-25 has no `server/discover`.
    let err = client
        .send_request("server/discover", None, Default::default())
        .await
        .expect_err("wrong era");
    assert!(err.is_usage(), "{err}");
    client.close().await;

    let tool = spans.named("tools/call echo");
    let id = request.id().expect("id").to_string();
    for (key, value) in [
        ("otel.kind", "client"),
        ("mcp.method.name", "tools/call"),
        ("mcp.protocol.version", "2025-11-25"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", id.as_str()),
        ("error.type", "tool_error"),
        ("otel.status_code", "error"),
    ] {
        assert_eq!(tool.get(key).map(String::as_str), Some(value), "{key}");
    }
    let prompt = spans.named("prompts/get greet");
    for (key, value) in [
        ("gen_ai.prompt.name", "greet"),
        ("error.type", "-32602"),
        ("rpc.response.status_code", "-32602"),
        ("otel.status_description", "no such prompt"),
    ] {
        assert_eq!(prompt.get(key).map(String::as_str), Some(value), "{key}");
    }
    assert!(!prompt.contains_key("gen_ai.operation.name"));
    let refused = spans.named("server/discover");
    assert_eq!(refused.get("error.type").map(String::as_str), Some("usage"));
    assert!(!refused.contains_key("jsonrpc.request.id"));
}

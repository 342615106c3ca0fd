//! Arbitrary JSON (and arbitrary bytes) decoded as the crate's main types:
//! always a value or a typed error, never a panic.

use mcp_types::Message;
use mcp_types::content::ContentBlock;
use mcp_types::elicitation::{ElicitRequestParams, LegacyElicitRequestParams};
use mcp_types::incoming::{LegacyServerRequest, ServerNotification};
use mcp_types::results::{InputRequiredResult, InputResponses, ResultHeader, decode_result};
use mcp_types::tasks::ext::DetailedTask;
use mcp_types::tools::{CallToolResult, ListToolsResult};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("type".to_owned()),
        Just("method".to_owned()),
        Just("params".to_owned()),
        Just("resultType".to_owned()),
        Just("status".to_owned()),
        Just("content".to_owned()),
        Just("mode".to_owned()),
        Just("id".to_owned()),
        "[a-z]{1,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop_oneof![
            Just("text".to_owned()),
            Just("input_required".to_owned()),
            Just("completed".to_owned()),
            Just("url".to_owned()),
            Just("tools/call".to_owned()),
            "[a-z/]{0,10}",
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

fn decode_all(v: &Value) {
    let text = v.to_string();
    let _ = serde_json::from_value::<CallToolResult>(v.clone());
    let _ = serde_json::from_value::<ListToolsResult>(v.clone());
    let _ = serde_json::from_value::<InputRequiredResult>(v.clone());
    let _ = serde_json::from_value::<InputResponses>(v.clone());
    let _ = serde_json::from_value::<DetailedTask>(v.clone());
    let _ = serde_json::from_value::<ContentBlock>(v.clone());
    let _ = serde_json::from_value::<ElicitRequestParams>(v.clone());
    let _ = serde_json::from_value::<LegacyElicitRequestParams>(v.clone());
    let _ = ResultHeader::from_json(&text);
    if let Ok(raw) = serde_json::value::RawValue::from_string(text.clone()) {
        let _ = decode_result::<CallToolResult>(&raw);
    }
    match Message::from_slice(text.as_bytes()) {
        Ok(Message::Notification(n)) => {
            let _ = ServerNotification::decode(&n);
        }
        Ok(Message::Request(r)) => {
            let _ = LegacyServerRequest::decode(&r);
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_json_never_panics(v in json()) {
        decode_all(&v);
    }

    #[test]
    fn arbitrary_envelopes_never_panic(method in "[a-z/]{0,30}", params in json(), id in any::<i64>()) {
        let request = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        decode_all(&request);
        let notification = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        decode_all(&notification);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = Message::from_slice(&bytes);
        let _ = serde_json::from_slice::<CallToolResult>(&bytes);
    }
}

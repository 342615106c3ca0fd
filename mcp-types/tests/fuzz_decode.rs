//! Arbitrary JSON (and arbitrary bytes) decoded as the crate's main types:
//! always a value or a typed error, never a panic.

use mcp_types::Message;
use mcp_types::content::ContentBlock;
use mcp_types::elicitation::{ElicitRequestParams, LegacyElicitRequestParams};
use mcp_types::incoming::{ServerNotification, ServerRequest};
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
    let _ = decode_result::<CallToolResult>(&mcp_types::raw::RawJson::from_bytes(
        text.clone().into_bytes(),
    ));
    match Message::from_slice(text.as_bytes()) {
        Ok(Message::Notification(n)) => {
            let n = ServerNotification::classify(n);
            if let ServerNotification::Progress(p) = &n {
                let _ = p.decode();
            }
            let _ = (n.method(), n.raw());
        }
        Ok(Message::Request(r)) => {
            let r = ServerRequest::classify(r.method, r.params);
            if let ServerRequest::CreateMessage(p) = &r {
                let _ = p.decode();
            }
            let _ = r.into_parts();
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

/// How serde alone reads a frame (the reading `Message::from_slice` must
/// match), rendered for comparison.
fn serde_reading(text: &str) -> Result<String, ()> {
    let m: Message = serde_json::from_str(text).map_err(drop)?;
    Ok(render(&m))
}

fn render(m: &Message) -> String {
    match m {
        Message::Response(r) => {
            let result: Value = r.result.decode().unwrap_or(Value::Null);
            format!("response {:?} {result}", r.id)
        }
        other => format!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The response fast path (the result is not parsed, only delimited)
    /// reads every well-formed response exactly as serde does, whatever the
    /// member order, spacing, ids or payload.
    #[test]
    fn response_fast_path_matches_serde(
        result in json(),
        id in prop_oneof![any::<i64>().prop_map(Value::from), "[a-z0-9]{0,8}".prop_map(Value::from)],
        order in 0usize..6,
        pretty in any::<bool>(),
        version in any::<bool>(),
    ) {
        let mut members = vec![("id", id), ("result", result)];
        if version {
            members.push(("jsonrpc", Value::from("2.0")));
        }
        let n = members.len();
        members.rotate_left(order % n);
        if order >= 3 {
            members.reverse();
        }
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| {
                let v = if pretty { serde_json::to_string_pretty(v) } else { serde_json::to_string(v) };
                format!("{k:?}{}:{}", if pretty { " " } else { "" }, v.unwrap())
            })
            .collect();
        let sep = if pretty { ",\n  " } else { "," };
        let text = format!("{{{}}}{}", body.join(sep), if pretty { "\n" } else { "" });
        let fast = Message::from_slice(text.as_bytes()).map(|m| render(&m)).map_err(drop);
        prop_assert_eq!(fast, serde_reading(&text), "{}", text);
        let shared = Message::from_bytes(&bytes::Bytes::from(text.clone())).map(|m| render(&m)).map_err(drop);
        prop_assert_eq!(shared, serde_reading(&text), "{}", text);
        let own = Message::from_own_bytes(&bytes::Bytes::from(text.clone())).map(|m| render(&m)).map_err(drop);
        prop_assert_eq!(own, serde_reading(&text), "{}", text);
    }

    /// Any bytes: the fast path never accepts a frame serde would read as a
    /// different message, and never panics.
    #[test]
    fn response_fast_path_never_disagrees(bytes in prop::collection::vec(prop_oneof![
        Just(b'{'), Just(b'}'), Just(b'"'), Just(b':'), Just(b','), Just(b'['), Just(b']'),
        Just(b'\\'), Just(b' '), Just(b'1'), Just(b'n'), Just(b'x'),
    ], 0..64), prefix in prop_oneof![
        Just(&br#"{"jsonrpc":"2.0","id":1,"result":"#[..]),
        Just(&br#"{"id":"a","result":{"#[..]),
        Just(&b""[..]),
    ]) {
        let mut frame = prefix.to_vec();
        frame.extend_from_slice(&bytes);
        let text = String::from_utf8_lossy(&frame).into_owned();
        if let Ok(expected) = serde_reading(&text) {
            let fast = Message::from_slice(text.as_bytes()).map(|m| render(&m));
            prop_assert_eq!(fast.ok(), Some(expected), "{}", text);
        }
    }
}

#[test]
fn response_fast_path_defers_to_serde_on_odd_envelopes() {
    for (text, ok) in [
        (r#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#, true),
        (r#"{"id":1,"result":{}}"#, true),
        (r#"{"jsonrpc":"2.0","id":null,"result":{}}"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":null}"#, false),
        (r#"{"jsonrpc":"1.0","id":1,"result":{}}"#, false),
        (r#"{"jsonrpc":"2\u002e0","id":1,"result":{}}"#, true),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
            false,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"result":{},"id":2}"#, false),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{},"extra":[1,2]}"#,
            true,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"res\u0075lt":{}}"#, true),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}} trailing"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}} "#, true),
        (r#"{"jsonrpc":"2.0","id":1,"result":{} }"#, true),
        (r#"{"jsonrpc":"2.0","id":01,"result":{}}"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}}"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#, false),
    ] {
        assert_eq!(Message::from_slice(text.as_bytes()).is_ok(), ok, "{text}");
        assert_eq!(serde_reading(text).is_ok(), ok, "serde agrees on {text}");
    }
    // The one thing the fast path forgives until decoding: a result that is
    // delimited but not JSON. The frame reads; decoding the result fails.
    let m = Message::from_slice(br#"{"jsonrpc":"2.0","id":1,"result":{"a":tru}}"#).unwrap();
    let Message::Response(r) = m else {
        panic!("a response")
    };
    assert!(r.result.decode::<Value>().is_err());
}

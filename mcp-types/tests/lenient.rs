//! Lenient reading: what servers send that is odd but legal (or harmlessly
//! beyond the schema) is read, and what is unknown is kept as data.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use mcp_types::capabilities::ServerCapabilities;
use mcp_types::common::NotificationParams;
use mcp_types::content::ContentBlock;
use mcp_types::elicitation::schema::PrimitiveSchemaDefinition;
use mcp_types::elicitation::{ElicitRequestParams, LegacyElicitRequestParams};
use mcp_types::logging::LoggingLevel;
use mcp_types::meta::ProgressToken;
use mcp_types::notifications::ProgressNotificationParams;
use mcp_types::results::{
    InputRequest, InputResponse, InputResponses, ResultHeader, ResultOutcome, ResultType,
    decode_result,
};
use mcp_types::tasks::TaskStatus;
use mcp_types::tools::{CallToolResult, ListToolsResult, Tool};
use mcp_types::{Message, RequestId};
use serde_json::json;
use serde_json::value::RawValue;

fn raw(s: &str) -> Box<RawValue> {
    RawValue::from_string(s.to_owned()).unwrap()
}

#[test]
fn notification_without_params() {
    let m =
        Message::from_slice(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#)
            .unwrap();
    let Message::Notification(n) = m else {
        panic!("not a notification")
    };
    assert!(n.params.is_none());
    let p: NotificationParams = n.params_as().unwrap();
    assert!(p.meta.is_empty());
    // A notification whose params have required members reports a typed error.
    let m = Message::from_slice(br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#).unwrap();
    let Message::Notification(n) = m else {
        panic!("not a notification")
    };
    assert!(n.params_as::<ProgressNotificationParams>().is_err());
}

#[test]
fn unknown_notification_method_is_kept() {
    let m = Message::from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/com.example/weird","params":{"x":[1,2]}}"#,
    )
    .unwrap();
    assert_eq!(m.method(), Some("notifications/com.example/weird"));
    let Message::Notification(n) = &m else {
        panic!("not a notification")
    };
    assert_eq!(n.params.as_ref().unwrap().get(), r#"{"x":[1,2]}"#);
    // And it is written back unchanged.
    assert_eq!(
        String::from_utf8(m.to_vec().unwrap()).unwrap(),
        r#"{"jsonrpc":"2.0","method":"notifications/com.example/weird","params":{"x":[1,2]}}"#
    );
    // An unknown embedded input request is kept too.
    let r: InputRequest =
        serde_json::from_value(json!({"method": "x/y", "params": {"a": 1}})).unwrap();
    assert_eq!(
        r,
        InputRequest::Unknown {
            method: "x/y".into(),
            params: Some(json!({"a": 1}))
        }
    );
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"method": "x/y", "params": {"a": 1}})
    );
}

#[test]
fn structured_content_without_content() {
    let r: CallToolResult =
        serde_json::from_value(json!({"structuredContent": {"t": 22.5}})).unwrap();
    assert!(r.content.is_empty());
    assert_eq!(r.structured_content, Some(json!({"t": 22.5})));
    // 2026-07-28: any JSON value.
    let r: CallToolResult = serde_json::from_value(
        json!({"resultType": "complete", "structuredContent": [1, "two", null]}),
    )
    .unwrap();
    assert_eq!(r.structured_content, Some(json!([1, "two", null])));
    assert!(!r.is_error());
}

#[test]
fn string_ids_and_tokens() {
    let m = Message::from_slice(br#"{"jsonrpc":"2.0","id":"abc-1","result":{}}"#).unwrap();
    let Message::Response(r) = m else {
        panic!("not a response")
    };
    assert_eq!(r.id, RequestId::String("abc-1".into()));
    let m = Message::from_slice(br#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#).unwrap();
    let Message::Request(r) = m else {
        panic!("not a request")
    };
    assert_eq!(r.id.as_number(), Some(7));
    let p: ProgressNotificationParams =
        serde_json::from_value(json!({"progressToken": "tok", "progress": 1})).unwrap();
    assert_eq!(p.progress_token, ProgressToken::String("tok".into()));
    let p: ProgressNotificationParams =
        serde_json::from_value(json!({"progressToken": 3, "progress": 1})).unwrap();
    assert_eq!(p.progress_token, ProgressToken::Number(3));
}

#[test]
fn missing_result_type_reads_as_complete() {
    let h = ResultHeader::from_json(r#"{"content":[]}"#).unwrap();
    assert_eq!(h.result_type, None);
    assert_eq!(h.result_type(), ResultType::Complete);
    let out = decode_result::<CallToolResult>(
        &raw(r#"{"content":[{"type":"text","text":"hi"}]}"#).into(),
    )
    .unwrap();
    let ResultOutcome::Complete(r) = out else {
        panic!("not complete: {out:?}")
    };
    assert_eq!(r.content[0].as_text(), Some("hi"));
    // An unknown resultType is kept as data, not an error.
    let out = decode_result::<CallToolResult>(&raw(r#"{"resultType":"streaming","x":1}"#).into())
        .unwrap();
    assert!(
        matches!(out, ResultOutcome::Unknown { result_type, .. } if result_type == "streaming")
    );
}

#[test]
fn unknown_extra_fields_are_tolerated() {
    let tools: ListToolsResult = serde_json::from_value(json!({
        "tools": [{"name": "t", "inputSchema": {"type": "object"}, "futureField": {"a": 1}}],
        "resultType": "complete", "ttlMs": 10, "cacheScope": "private", "somethingNew": true
    }))
    .unwrap();
    assert_eq!(tools.tools.len(), 1);
    let caps: ServerCapabilities = serde_json::from_value(json!({
        "tools": {"listChanged": true, "paginated": true}, "hologram": {}
    }))
    .unwrap();
    assert_eq!(caps.tools.unwrap().list_changed, Some(true));
    let m = Message::from_slice(br#"{"jsonrpc":"2.0","id":1,"result":{},"trace":"x"}"#).unwrap();
    assert!(matches!(m, Message::Response(_)));
}

#[test]
fn unknown_content_type_is_kept_as_data() {
    let r: CallToolResult = serde_json::from_value(json!({
        "content": [{"type": "text", "text": "a"}, {"type": "hologram", "frames": [1, 2]}]
    }))
    .unwrap();
    assert_eq!(r.content.len(), 2);
    match &r.content[1] {
        ContentBlock::Unknown(o) => assert_eq!(o["frames"], json!([1, 2])),
        other => panic!("{other:?}"),
    }
    assert_eq!(r.content[1].type_name(), "hologram");
    assert_eq!(
        serde_json::to_value(&r.content[1]).unwrap(),
        json!({"type": "hologram", "frames": [1, 2]})
    );
    // A known type with a malformed body is an error, not silently unknown.
    assert!(serde_json::from_value::<ContentBlock>(json!({"type": "image", "data": "x"})).is_err());
    assert!(serde_json::from_value::<ContentBlock>(json!({"text": "no type"})).is_err());
}

#[test]
fn unknown_enum_values_are_kept_as_data() {
    assert_eq!(
        serde_json::from_value::<LoggingLevel>(json!("trace")).unwrap(),
        LoggingLevel::Unknown("trace".into())
    );
    let s: TaskStatus = serde_json::from_value(json!("paused")).unwrap();
    assert!(!s.is_known() && !s.is_terminal());
    assert_eq!(serde_json::to_value(&s).unwrap(), json!("paused"));
    let f: PrimitiveSchemaDefinition = serde_json::from_value(json!({"type": "object"})).unwrap();
    assert!(matches!(f, PrimitiveSchemaDefinition::Unknown(_)));
}

#[test]
fn tool_schemas_are_kept_verbatim() {
    let text = r##"{"name":"q","inputSchema":{"type":"object","$defs":{"Z":{"type":"integer"}},"properties":{"z":{"$ref":"#/$defs/Z","x-mcp-header":"Zed"},"a":{"type":"string"}}},"outputSchema":true}"##;
    let t: Tool = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&t).unwrap(), text);
    assert_eq!(t.input_schema["properties"]["z"]["x-mcp-header"], "Zed");
}

#[test]
fn elicitation_modes_differ_by_revision() {
    let url = json!({"mode": "url", "message": "m", "url": "https://e.x", "elicitationId": "e1"});
    let modern: ElicitRequestParams = serde_json::from_value(url.clone()).unwrap();
    assert!(matches!(modern, ElicitRequestParams::Url(_)));
    let legacy: LegacyElicitRequestParams = serde_json::from_value(url).unwrap();
    assert!(matches!(legacy, ElicitRequestParams::Url(u) if u.elicitation_id == "e1"));
    // The 2025-11-25 shape requires the id.
    let no_id = json!({"mode": "url", "message": "m", "url": "https://e.x"});
    assert!(serde_json::from_value::<LegacyElicitRequestParams>(no_id).is_err());
    // No mode means form.
    let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
    assert!(matches!(
        serde_json::from_value::<ElicitRequestParams>(form).unwrap(),
        ElicitRequestParams::Form(_)
    ));
    let bad = json!({"mode": "telepathy", "message": "m"});
    assert!(serde_json::from_value::<ElicitRequestParams>(bad).is_err());
}

#[test]
fn input_responses_are_recognized_by_shape() {
    let r: InputResponses = serde_json::from_value(json!({
        "a": {"action": "accept", "content": {"n": 1.5}},
        "b": {"roots": []},
        "c": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"},
        "d": {"something": "else"}
    }))
    .unwrap();
    assert!(matches!(r["a"], InputResponse::Elicit(_)));
    assert!(matches!(r["b"], InputResponse::ListRoots(_)));
    assert!(matches!(r["c"], InputResponse::CreateMessage(_)));
    assert!(matches!(r["d"], InputResponse::Unknown(_)));
}

/// Truncated input of every example is an error, never a panic.
#[test]
fn truncated_input_never_panics() {
    for (_, _, value) in common::fixtures(&common::tests_dir().join("examples/2026-07-28")) {
        let text = value.to_string();
        for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)) {
            let part = &text[..cut];
            assert!(Message::from_slice(part.as_bytes()).is_err());
            assert!(serde_json::from_str::<CallToolResult>(part).is_err());
            assert!(serde_json::from_str::<InputResponses>(part).is_err());
        }
    }
}

/// A content block reads the same whether `type` comes first (the one-pass
/// path) or later (the buffered path), for every kind, unknown kinds and
/// malformed bodies included.
#[test]
fn content_blocks_read_the_same_whatever_the_member_order() {
    use mcp_types::content::ContentBlock;
    let bodies = [
        r#""type":"text","text":"hi","annotations":{"priority":0.5},"_meta":{"k":1}"#,
        r#""type":"image","data":"AA==","mimeType":"image/png""#,
        r#""type":"audio","data":"AA==","mimeType":"audio/wav""#,
        r#""type":"resource_link","uri":"file:///a","name":"a""#,
        r#""type":"resource","resource":{"uri":"file:///a","text":"x"}"#,
        r#""type":"tool_use","id":"t1","name":"calc","input":{"a":1}"#,
        r#""type":"tool_result","toolUseId":"t1","content":[{"type":"text","text":"2"}]"#,
        r#""type":"hologram","frames":3"#,
        r#""type":"te\u0078t","text":"escaped type""#,
        r#""type":"text""#,
        r#""type":7,"text":"x""#,
        r#""type":"image","data":5"#,
    ];
    for body in bodies {
        let (tag, rest) = body.split_once(',').unwrap_or((body, ""));
        let first = format!("{{{body}}}");
        let last = if rest.is_empty() {
            first.clone()
        } else {
            format!("{{{rest},{tag}}}")
        };
        let a = serde_json::from_str::<ContentBlock>(&first).map_err(|_| ());
        let b = serde_json::from_str::<ContentBlock>(&last).map_err(|_| ());
        assert_eq!(a, b, "{first} vs {last}");
    }
    let unknown: ContentBlock = serde_json::from_str(r#"{"type":"hologram","frames":3}"#).unwrap();
    let ContentBlock::Unknown(object) = unknown else {
        panic!("an unknown type is kept as data");
    };
    assert_eq!(
        serde_json::to_string(&object).unwrap(),
        r#"{"type":"hologram","frames":3}"#
    );
    assert!(serde_json::from_str::<ContentBlock>("{}").is_err());
    assert!(serde_json::from_str::<ContentBlock>("[1]").is_err());
}

/// A result's blocks read in order however many there are (the list grows
/// from one slot), and a `content` that is not a list fails as before.
#[test]
fn call_tool_result_blocks_read_in_order() {
    use mcp_types::tools::CallToolResult;
    for n in [0, 1, 2, 3, 5, 9] {
        let blocks: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"type":"text","text":"{i}"}}"#))
            .collect();
        let text = format!(r#"{{"content":[{}]}}"#, blocks.join(","));
        let r: CallToolResult = serde_json::from_str(&text).unwrap();
        let texts: Vec<_> = r.content.iter().filter_map(|b| b.as_text()).collect();
        let expected: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        assert_eq!(texts, expected, "{text}");
    }
    for bad in [
        r#"{"content":5}"#,
        r#"{"content":null}"#,
        r#"{"content":{}}"#,
    ] {
        let err = serde_json::from_str::<CallToolResult>(bad).unwrap_err();
        assert!(
            err.to_string().contains("expected a sequence"),
            "{bad}: {err}"
        );
    }
}

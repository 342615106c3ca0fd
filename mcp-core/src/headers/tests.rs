//! Unit tests of header value encoding and `x-mcp-header` bindings (the
//! integration tests see them through `Connection`'s routing data).

use serde_json::json;

use super::*;
use crate::test_fixtures::weather_tool;

#[test]
fn encoding_rules() {
    assert_eq!(encode_header_value("plain value"), "plain value");
    assert_eq!(encode_header_value(" lead"), "=?base64?IGxlYWQ=?=");
    assert_eq!(encode_header_value("a\r\nb"), "=?base64?YQ0KYg==?=");
    assert_eq!(
        encode_header_value("=?base64?abc?="),
        "=?base64?PT9iYXNlNjQ/YWJjPz0=?="
    );
    assert_eq!(
        encode_header_value("Hello, 世界"),
        "=?base64?SGVsbG8sIOS4lueVjA==?="
    );
}

#[test]
fn annotation_validation() {
    let ok = HeaderBindings::from_tool(&weather_tool()["inputSchema"]).unwrap();
    assert_eq!(ok.bindings().len(), 3);
    let args = json!({"region": "eu-west", "days": 3, "opts": {"metric": true}});
    let mut got = ok.derive(Some(&args));
    got.sort();
    assert_eq!(
        got,
        vec![
            ("Days".into(), "3".into()),
            ("Metric".into(), "true".into()),
            ("Region".into(), "eu-west".into())
        ]
    );
    assert!(
        ok.derive(Some(&json!({"region": null}))).is_empty(),
        "null and absent omit the header"
    );
    let bad = |schema| HeaderBindings::from_tool(&schema).unwrap_err();
    assert!(matches!(
        bad(json!({"properties": {"x": {"type": "number", "x-mcp-header": "X"}}})),
        HeaderAnnotationError::UnsupportedType(_)
    ));
    assert!(matches!(
        bad(json!({"properties": {"x": {"type": "string", "x-mcp-header": "A B"}}})),
        HeaderAnnotationError::InvalidName(_)
    ));
    assert!(matches!(
        bad(json!({"properties": {"x": {"type": "string", "x-mcp-header": ""}}})),
        HeaderAnnotationError::InvalidName(_)
    ));
    assert!(matches!(
        bad(
            json!({"properties": {"x": {"type": "string", "x-mcp-header": "A"}, "y": {"type": "string", "x-mcp-header": "a"}}})
        ),
        HeaderAnnotationError::Duplicate(_)
    ));
    assert!(matches!(
        bad(
            json!({"properties": {"x": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}})
        ),
        HeaderAnnotationError::Unreachable(_)
    ));
    assert!(matches!(
        bad(json!({"anyOf": [{"properties": {"x": {"type": "string", "x-mcp-header": "A"}}}]})),
        HeaderAnnotationError::Unreachable(_)
    ));
}

#[test]
fn a_recent_name_is_shared_and_the_names_kept_are_bounded() {
    let mut recent = RecentNames::default();
    let first = recent.value("get_weather");
    let again = recent.value("get_weather");
    assert_eq!(&*again, "get_weather");
    assert!(Arc::ptr_eq(&first, &again), "the same text, not a copy");
    // Encoded as before; a name that must be wrapped is not kept.
    assert_eq!(&*recent.value(" lead"), "=?base64?IGxlYWQ=?=");
    assert!(!Arc::ptr_eq(&recent.value(" lead"), &recent.value(" lead")));
    // A long name is encoded but not kept.
    let long = "x".repeat(RECENT_NAME_MAX + 1);
    assert!(!Arc::ptr_eq(&recent.value(&long), &recent.value(&long)));
    // Many names: at most RECENT_NAMES kept, the oldest replaced first.
    for i in 0..3 * RECENT_NAMES {
        let name = format!("tool{i}");
        assert_eq!(&*recent.value(&name), name);
    }
    assert_eq!(recent.names.len(), RECENT_NAMES);
    let newest = format!("tool{}", 3 * RECENT_NAMES - 1);
    assert!(Arc::ptr_eq(&recent.value(&newest), &recent.value(&newest)));
    assert!(!recent.names.iter().any(|n| &**n == "get_weather"));
}

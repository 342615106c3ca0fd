//! `ResourceContents` is decoded by hand instead of serde's untagged
//! derive (binary size). Each input here is decoded by
//! both, and both must accept the same inputs with the same result; the
//! untagged derive they replaced is kept below as the reference.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use mcp_types::resources::{BlobResourceContents, ResourceContents, TextResourceContents};
use serde::Deserialize;

/// The derive `ResourceContents` had.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OldContents {
    Text(TextResourceContents),
    Blob(BlobResourceContents),
}

impl From<OldContents> for ResourceContents {
    fn from(old: OldContents) -> Self {
        match old {
            OldContents::Text(t) => ResourceContents::Text(t),
            OldContents::Blob(b) => ResourceContents::Blob(b),
        }
    }
}

const CONTENTS: &[&str] = &[
    r#"{"uri":"a","text":"hi"}"#,
    r#"{"uri":"a","blob":"aGk="}"#,
    r#"{"text":"hi","uri":"a","mimeType":"text/plain","_meta":{"k":1}}"#,
    r#"{"uri":"a","mimeType":null,"blob":"aGk="}"#,
    r#"{"uri":"a","text":"hi","blob":"aGk="}"#,
    r#"{"uri":"a","blob":"aGk=","text":"hi"}"#,
    r#"{"uri":"a","text":7,"blob":"aGk="}"#,
    r#"{"uri":"a","text":null,"blob":"aGk="}"#,
    r#"{"uri":"a","text":{"x":[1]},"blob":"aGk="}"#,
    r#"{"uri":"a","text":"hi","blob":7}"#,
    r#"{"uri":"a","text":"x","text":"y"}"#,
    r#"{"uri":"a","text":"x","text":"y","blob":"b"}"#,
    r#"{"uri":"a","blob":"x","blob":"y"}"#,
    r#"{"uri":"a","blob":"x","blob":"y","text":"t"}"#,
    r#"{"uri":"a","uri":"b","text":"t"}"#,
    r#"{"uri":"a","mimeType":"x","mimeType":"y","text":"t"}"#,
    r#"{"uri":"a","_meta":{},"_meta":{},"text":"t"}"#,
    r#"{"uri":"a","mimeType":3,"text":"t"}"#,
    r#"{"uri":"a","_meta":3,"text":"t"}"#,
    r#"{"uri":"a","_meta":null,"text":"t"}"#,
    r#"{"uri":7,"text":"t"}"#,
    r#"{"text":"t"}"#,
    r#"{"uri":"a"}"#,
    r#"{"uri":"a","other":[1,{"b":2}],"text":"t"}"#,
    r#"{}"#,
    r#"["a",null,"t"]"#,
    r#"["a","m","t",{}]"#,
    r#"["a","m","t",{},5]"#,
    r#"["a"]"#,
    r#"[]"#,
    r#"null"#,
    r#""a""#,
    r#"3"#,
];

/// Decodes `input` both ways, from bytes and from a `Value`, and checks
/// that they agree; returns whether it was accepted.
fn agree<New, Old>(input: &str) -> bool
where
    New: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug + serde::Serialize,
    Old: for<'de> Deserialize<'de> + Into<New>,
{
    let new = serde_json::from_str::<New>(input).ok();
    let old = serde_json::from_str::<Old>(input).ok().map(Into::into);
    assert_eq!(new, old, "bytes: {input}");
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(input) {
        let new_v = serde_json::from_value::<New>(value.clone()).ok();
        let old_v = serde_json::from_value::<Old>(value).ok().map(Into::into);
        assert_eq!(new_v, old_v, "value: {input}");
    }
    new.is_some()
}

#[test]
fn resource_contents_accept_and_reject_what_the_untagged_derive_did() {
    let accepted = CONTENTS
        .iter()
        .filter(|i| agree::<ResourceContents, OldContents>(i))
        .count();
    // Both outcomes are exercised.
    assert!(accepted > 5 && accepted < CONTENTS.len() - 5, "{accepted}");
}

#[test]
fn text_wins_over_blob_and_a_bad_text_falls_back_to_blob() {
    let both: ResourceContents =
        serde_json::from_str(r#"{"uri":"a","blob":"b","text":"t"}"#).unwrap();
    assert!(matches!(both, ResourceContents::Text(t) if t.text == "t"));
    let bad_text: ResourceContents =
        serde_json::from_str(r#"{"uri":"a","text":1,"blob":"b"}"#).unwrap();
    assert!(matches!(bad_text, ResourceContents::Blob(b) if b.blob == "b"));
}

#[test]
fn serialization_is_unchanged() {
    // Serialize is still the untagged derive: the variant's fields, no tag.
    let text = ResourceContents::Text(TextResourceContents::new("a", "t").with_mime_type("m"));
    assert_eq!(
        serde_json::to_string(&text).unwrap(),
        r#"{"uri":"a","mimeType":"m","text":"t"}"#
    );
    let blob = ResourceContents::Blob(BlobResourceContents::new("a", "b"));
    assert_eq!(
        serde_json::to_string(&blob).unwrap(),
        r#"{"uri":"a","blob":"b"}"#
    );
}

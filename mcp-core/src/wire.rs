//! Private decoders for the few wire shapes the core reads.
//!
//! Each reads only the members the core dispatches on (a peek, not a full
//! decode): the head of any result, the routing key of a notification, the
//! outcome members of a task. Full shapes come from
//! `mcp-types`.

use std::borrow::Cow;

use mcp_types::RequestId;
use mcp_types::raw::{RawJson, head_members_of};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The members of any result the core dispatches on.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResultHead {
    #[serde(default)]
    pub(crate) result_type: Option<Tag>,
    #[serde(default)]
    pub(crate) next_cursor: Option<String>,
    #[serde(default)]
    pub(crate) ttl_ms: Option<i64>,
    #[serde(default)]
    pub(crate) cache_scope: Option<Tag>,
}

/// A head with no members: what a 2025-11-25 result that is not a page is
/// read with (a static, so nothing is made or dropped for it).
pub(crate) static EMPTY_HEAD: ResultHead = ResultHead {
    result_type: None,
    next_cursor: None,
    ttl_ms: None,
    cache_scope: None,
};

/// A string member with a few well-known values (`resultType`,
/// `cacheScope`), read without allocating when it is one of them: it is
/// read once per result.
pub(crate) struct Tag(Cow<'static, str>);

/// The values a [`Tag`] holds without allocating.
const KNOWN_TAGS: [&str; 5] = ["complete", "input_required", "task", "public", "private"];

impl Tag {
    /// The tag a JSON value spells when it is one of the known values,
    /// written plainly (no escape: the known values need none); `None`
    /// means "read it with serde".
    fn known(value: &[u8]) -> Option<Tag> {
        let text = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        KNOWN_TAGS
            .iter()
            .find(|k| k.as_bytes() == text)
            .map(|k| Tag(Cow::Borrowed(k)))
    }
}

impl std::ops::Deref for Tag {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Tag {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Tag;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Tag, E> {
                Ok(Tag(match KNOWN_TAGS.iter().find(|k| **k == v) {
                    Some(k) => Cow::Borrowed(k),
                    None => Cow::Owned(v.to_owned()),
                }))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// The `_meta` of a notification, for subscription routing.
#[derive(Deserialize)]
pub(crate) struct NotificationMetaHolder {
    #[serde(default, rename = "_meta")]
    pub(crate) meta: Option<NotificationMeta>,
}

/// Subscription routing key of a notification: the listen call's id in
/// `_meta`.
#[derive(Deserialize)]
pub(crate) struct NotificationMeta {
    #[serde(default, rename = "io.modelcontextprotocol/subscriptionId")]
    pub(crate) subscription_id: Option<RequestId>,
}

/// The outcome members of a 2026-07-28 `DetailedTask`.
#[derive(Deserialize)]
pub(crate) struct TaskOutcome {
    #[serde(default)]
    pub(crate) result: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) error: Option<mcp_types::jsonrpc::ErrorObject>,
    /// Read with `mcp_types::results::RawInputRequired::requests_from_raw`.
    #[serde(default, rename = "inputRequests")]
    pub(crate) input_requests: Option<Box<RawValue>>,
}

/// Whether raw params are a JSON object: the shape MCP gives every params
/// (JSON-RPC would also allow an array).
pub(crate) fn is_object(params: &RawValue) -> bool {
    params.get().trim_start().starts_with('{')
}

/// Parses a raw object into `T`, or `T::default()` for absent params.
pub(crate) fn parse<T: for<'de> Deserialize<'de>>(
    raw: Option<&RawValue>,
) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.map_or("{}", RawValue::get))
}

impl ResultHead {
    /// Reads the head of a result: the same as deserializing a
    /// [`ResultHead`] from it, but from its head members' texts, which the
    /// envelope's walk noted ([`RawJson::head_members`]) or a walk of the
    /// result's members finds now ([`head_members_of`]): the members it
    /// does not need (a tool's 1 MiB of content, say) are skipped, not
    /// parsed. Anything unexpected (not an object, an escaped or repeated
    /// key, a member of the wrong type) is handed to `serde_json`, so the
    /// outcome and errors are the same.
    pub(crate) fn of(raw: &RawJson) -> Result<ResultHead, serde_json::Error> {
        let text = raw.as_bytes();
        let members = raw.head_members().or_else(|| head_members_of(text));
        match members.and_then(from_members) {
            Some(head) => Ok(head),
            None => mcp_types::raw::parse(text),
        }
    }
}

/// The fast path of [`ResultHead::of`], from the head members' texts;
/// `None` sends the result to serde.
fn from_members(members: [Option<&[u8]>; 4]) -> Option<ResultHead> {
    let [result_type, next_cursor, ttl_ms, cache_scope] = members;
    Some(ResultHead {
        result_type: tag(result_type)?,
        next_cursor: member(next_cursor)?,
        ttl_ms: member(ttl_ms)?,
        cache_scope: tag(cache_scope)?,
    })
}

/// A tag member's value, when it has one (`null` is none); `None` when
/// it is not a tag. A known tag is told here; anything else by serde
/// (out of line).
#[inline]
fn tag(value: Option<&[u8]>) -> Option<Option<Tag>> {
    let Some(value) = value else {
        return Some(None);
    };
    match Tag::known(value) {
        Some(t) => Some(Some(t)),
        None => parsed(value),
    }
}

/// A member's value, when it has one, read by serde (out of line);
/// `None` when it is not a `T` (nor `null`).
#[inline]
fn member<T: serde::de::DeserializeOwned>(value: Option<&[u8]>) -> Option<Option<T>> {
    match value {
        Some(v) => parsed(v),
        None => Some(None),
    }
}

/// [`member`]'s read of a value that is there.
#[inline(never)]
fn parsed<T: serde::de::DeserializeOwned>(value: &[u8]) -> Option<Option<T>> {
    mcp_types::raw::parse(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &str) -> (Option<String>, Option<String>) {
        let fast = ResultHead::of(&RawJson::from_bytes(text.as_bytes().to_vec()))
            .map(|h| render(&h))
            .map_err(|e| e.to_string());
        let slow = serde_json::from_str::<ResultHead>(text)
            .map(|h| render(&h))
            .map_err(|e| e.to_string());
        assert_eq!(fast, slow, "the head read and serde disagree on {text}");
        // The same result in an envelope: read from the members its walk
        // noted, when it noted them, with the same outcome.
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{text}}}"#);
        if let Ok(mcp_types::Message::Response(r)) = mcp_types::Message::from_slice(line.as_bytes())
        {
            let of = ResultHead::of(&r.result)
                .map(|h| render(&h))
                .map_err(|e| e.to_string());
            assert_eq!(
                of, fast,
                "the noted head and the walked one disagree on {text}"
            );
        }
        let walked = head_members_of(text.as_bytes()).and_then(from_members);
        (fast.ok(), walked.map(|h| render(&h)))
    }

    fn render(h: &ResultHead) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            h.result_type.as_deref(),
            h.next_cursor,
            h.ttl_ms,
            h.cache_scope.as_deref()
        )
    }

    #[test]
    fn peek_reads_what_serde_reads() {
        let big = "x\\\"y".repeat(1000);
        let cases = [
            r#"{}"#.to_owned(),
            r#"{"resultType":"complete","content":[{"type":"text","text":"a}]\"b"}]}"#.into(),
            format!(r#"{{"content":[{{"text":"{big}"}}],"nextCursor":"c1","ttlMs":5}}"#),
            r#" { "cacheScope" : "public" , "isError" : false, "n": -1.5e3, "z": null } "#.into(),
            r#"{"resultType":"input_required","inputRequests":{"a":{"b":[1,{"c":"]"}]}}}"#.into(),
            r#"{"resultType":"something_new"}"#.into(),
            r#"{"resultType":"compl\u0065te","cacheScope":"private"}"#.into(),
            r#"{"resultType":null,"cacheScope":"public"}"#.into(),
        ];
        for c in &cases {
            let (serde, fast) = both(c);
            assert_eq!(fast, serde, "the fast path handles {c}");
        }
    }

    #[test]
    fn odd_input_gets_serde_outcome() {
        for c in [
            r#"{"resultType":"complete","resultType":"task"}"#,
            r#"{"result\u0054ype":"task"}"#,
            r#"{"ttlMs":"soon"}"#,
            r#"{"resultType":7}"#,
            r#"[1,2]"#,
            r#""text""#,
        ] {
            let (_, fast) = both(c);
            assert!(fast.is_none(), "{c} takes the serde path");
        }
    }
}

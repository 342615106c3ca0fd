//! Decoding of [`ResourceContents`] without serde's untagged buffering.
//!
//! The untagged derive buffered every object into serde's private
//! `Content` and instantiated both variants' decoders a second time for it.
//! This reads the object once and applies the same rule: text contents when
//! `text` is a string, else blob contents when `blob` is a string, the
//! shared members (`uri`, `mimeType`, `_meta`) decoded as either variant
//! decodes them.

use serde::de::value::SeqAccessDeserializer;
use serde::de::{Deserialize, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{BlobResourceContents, ResourceContents, TextResourceContents};
use crate::meta::Meta;

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentsVisitor)
    }
}

/// The members of a contents object this decoder tells apart.
enum Member {
    Uri,
    MimeType,
    Text,
    Blob,
    Meta,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor;
        impl Visitor<'_> for MemberVisitor {
            type Value = Member;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Member, E> {
                Ok(match v {
                    "uri" => Member::Uri,
                    "mimeType" => Member::MimeType,
                    "text" => Member::Text,
                    "blob" => Member::Blob,
                    "_meta" => Member::Meta,
                    _ => Member::Other,
                })
            }
        }
        deserializer.deserialize_identifier(MemberVisitor)
    }
}

/// `text` or `blob` as seen so far: a string once, or anything else (a
/// non-string or a repeated member, which fails that variant only).
enum Payload {
    Absent,
    Str(String),
    Invalid,
}

impl Payload {
    fn take(&mut self, value: Value) {
        *self = match (&*self, value) {
            (Payload::Absent, Value::String(s)) => Payload::Str(s),
            _ => Payload::Invalid,
        };
    }
}

/// Sets a shared member once; a repeated one fails both variants.
fn once<T, E: Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

struct ContentsVisitor;

impl<'de> Visitor<'de> for ContentsVisitor {
    type Value = ResourceContents;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("text or blob resource contents")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut uri, mut mime_type, mut meta) = (None, None, None);
        let (mut text, mut blob) = (Payload::Absent, Payload::Absent);
        while let Some(member) = map.next_key::<Member>()? {
            match member {
                Member::Uri => once(&mut uri, map.next_value::<String>()?, "uri")?,
                Member::MimeType => {
                    once(
                        &mut mime_type,
                        map.next_value::<Option<String>>()?,
                        "mimeType",
                    )?;
                }
                Member::Meta => once(&mut meta, map.next_value::<Meta>()?, "_meta")?,
                Member::Text => text.take(map.next_value()?),
                Member::Blob => blob.take(map.next_value()?),
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let uri = uri.ok_or_else(|| A::Error::missing_field("uri"))?;
        let mime_type = mime_type.flatten();
        let meta = meta.unwrap_or_default();
        match (text, blob) {
            (Payload::Str(text), _) => Ok(ResourceContents::Text(TextResourceContents {
                uri,
                mime_type,
                text,
                meta,
            })),
            (_, Payload::Str(blob)) => Ok(ResourceContents::Blob(BlobResourceContents {
                uri,
                mime_type,
                blob,
                meta,
            })),
            _ => Err(A::Error::custom(
                "resource contents need a string `text` or `blob`",
            )),
        }
    }

    /// serde's struct decoders also take an array of the members in order
    /// (`[uri, mimeType, text, _meta]`); both variants have the same
    /// shape there, so the text variant decides.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        TextResourceContents::deserialize(SeqAccessDeserializer::new(seq))
            .map(ResourceContents::Text)
    }
}

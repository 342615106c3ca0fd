//! Content blocks: text, image, audio, resource link, embedded resource,
//! tool use and tool result. A block of an unknown `type` is kept as data.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::common::{Annotations, JsonObject};
use crate::meta::Meta;
use crate::resources::{Resource, ResourceContents};

/// One content block, tagged by `type`.
///
/// A block whose `type` this crate does not know is kept verbatim in
/// [`ContentBlock::Unknown`] rather than failing the whole message; a block
/// of a known `type` with a malformed body is an error.
///
/// ```
/// use mcp_types::content::ContentBlock;
/// let block: ContentBlock = serde_json::from_str(r#"{"type":"hologram","frames":3}"#).unwrap();
/// assert!(matches!(block, ContentBlock::Unknown(_)));
/// assert!(serde_json::from_str::<ContentBlock>(r#"{"type":"text"}"#).is_err());
/// assert_eq!(ContentBlock::text("hi").as_text(), Some("hi"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum ContentBlock {
    /// `text`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `image`.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `audio`.
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `resource_link`: a pointer to a resource, not its contents.
    #[serde(rename = "resource_link")]
    ResourceLink(Resource),
    /// `resource`: an embedded resource with its contents.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
    /// `tool_use` (sampling only).
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// `tool_result` (sampling only).
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
    /// Any other block, kept as received (including its `type`).
    #[serde(untagged)]
    Unknown(JsonObject),
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BlockVisitor)
    }
}

/// Reads a block in one pass when `type` comes first (as every SDK writes
/// it): the body goes straight into its variant's struct. Otherwise the
/// object is buffered and read by its `type`.
struct BlockVisitor;

impl<'de> serde::de::Visitor<'de> for BlockVisitor {
    type Value = ContentBlock;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a content block object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<ContentBlock, A::Error> {
        read_block(map, |block| block)
    }
}

/// The body of [`BlockVisitor`], shared with the list reader's visitor
/// ([`blocks`]): the block is handed to `put` where it is made, so the
/// list reader pushes it without copying it through a return first (a
/// block is 336 bytes).
fn read_block<'de, A: serde::de::MapAccess<'de>, R>(
    mut map: A,
    put: impl FnOnce(ContentBlock) -> R,
) -> Result<R, A::Error> {
    use serde::de::Error;
    use serde::de::value::MapAccessDeserializer;
    let Some(first) = map.next_key::<Key>()? else {
        return Err(A::Error::custom("a content block needs a string `type`"));
    };
    let kind = match first {
        Key::Type => map
            .next_value::<Kind>()
            .map_err(|_| A::Error::custom("a content block needs a string `type`"))?,
        Key::Other(first) => {
            let mut object = JsonObject::new();
            object.insert(first, map.next_value()?);
            while let Some((k, v)) = map.next_entry::<String, Value>()? {
                object.insert(k, v);
            }
            return from_object(object).map(put).map_err(A::Error::custom);
        }
    };
    let rest = MapAccessDeserializer::new(map);
    Ok(match kind {
        Kind::Text => put(ContentBlock::Text(Deserialize::deserialize(rest)?)),
        Kind::Image => put(ContentBlock::Image(Deserialize::deserialize(rest)?)),
        Kind::Audio => put(ContentBlock::Audio(Deserialize::deserialize(rest)?)),
        Kind::ResourceLink => put(ContentBlock::ResourceLink(Deserialize::deserialize(rest)?)),
        Kind::Resource => put(ContentBlock::Resource(Deserialize::deserialize(rest)?)),
        Kind::ToolUse => put(ContentBlock::ToolUse(Deserialize::deserialize(rest)?)),
        Kind::ToolResult => put(ContentBlock::ToolResult(Deserialize::deserialize(rest)?)),
        Kind::Other(kind) => {
            let mut object = JsonObject::new();
            object.insert("type".to_owned(), Value::String(kind));
            object.extend(JsonObject::deserialize(rest)?);
            put(ContentBlock::Unknown(object))
        }
    })
}

/// A block's `type`: a known one is matched while the string is borrowed
/// from the input (no copy of it); another is kept for `Unknown`.
enum Kind {
    Text,
    Image,
    Audio,
    ResourceLink,
    Resource,
    ToolUse,
    ToolResult,
    Other(String),
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::read_str::read_str(deserializer, "a block type", |v| match v {
            "text" => Kind::Text,
            "image" => Kind::Image,
            "audio" => Kind::Audio,
            "resource_link" => Kind::ResourceLink,
            "resource" => Kind::Resource,
            "tool_use" => Kind::ToolUse,
            "tool_result" => Kind::ToolResult,
            other => Kind::Other(other.to_owned()),
        })
    }
}

/// Makes room for one more block in a list that grows from one slot and
/// then doubles (see [`blocks`]): every reader of a content list grows it
/// by this rule.
#[inline]
pub(crate) fn room_for_one(blocks: &mut Vec<ContentBlock>) {
    if blocks.capacity() == 0 {
        // The first slot allocated as it is, not through the growth path
        // (which asks whether there is an allocation to grow first).
        *blocks = Vec::with_capacity(1);
    } else if blocks.len() == blocks.capacity() {
        blocks.reserve_exact(blocks.len());
    }
}

/// Reads a list of blocks into a vector that grows from one slot, where
/// serde's starts at four: a block is a few hundred bytes and most lists
/// hold one, and four of them are too large for the allocator's fast path.
pub(crate) fn blocks<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ContentBlock>, D::Error> {
    struct BlocksVisitor;
    impl<'de> serde::de::Visitor<'de> for BlocksVisitor {
        type Value = Vec<ContentBlock>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Vec<ContentBlock>, A::Error> {
            let mut blocks = Vec::new();
            while seq.next_element_seed(Push(&mut blocks))?.is_some() {}
            Ok(blocks)
        }
    }
    /// Reads one block straight into the list: a block is large, and
    /// handing it back through the deserializer's calls would copy it at
    /// each return.
    struct Push<'a>(&'a mut Vec<ContentBlock>);
    impl<'de> serde::de::DeserializeSeed<'de> for Push<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_map(self)
        }
    }
    impl<'de> serde::de::Visitor<'de> for Push<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a content block object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            let blocks = self.0;
            room_for_one(blocks);
            read_block(map, |block| blocks.push(block))
        }
    }
    deserializer.deserialize_seq(BlocksVisitor)
}

/// The first key of a block: `type`, or another (kept for the slow path).
enum Key {
    Type,
    Other(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::read_str::read_str(deserializer, "a member name", |v| {
            if v == "type" {
                Key::Type
            } else {
                Key::Other(v.to_owned())
            }
        })
    }
}

/// The buffered path: a block whose `type` is not its first member.
///
/// A known block is written back to bytes with `type` first and read again
/// by [`BlockVisitor`]'s one-pass path, so the block types' `Deserialize`
/// code is instantiated for the byte deserializer alone and not a second
/// time for `Value` (this path is rare: every SDK writes `type` first).
fn from_object(mut object: JsonObject) -> Result<ContentBlock, serde_json::Error> {
    use serde::de::Error;
    let Some(Value::String(kind)) = object.get("type") else {
        return Err(serde_json::Error::custom(
            "a content block needs a string `type`",
        ));
    };
    let known = matches!(
        kind.as_str(),
        "text" | "image" | "audio" | "resource_link" | "resource" | "tool_use" | "tool_result"
    );
    if !known {
        return Ok(ContentBlock::Unknown(object));
    }
    let kind = object.remove("type");
    let mut bytes = br#"{"type":"#.to_vec();
    serde_json::to_writer(&mut bytes, &kind)?;
    for (k, v) in &object {
        bytes.push(b',');
        serde_json::to_writer(&mut bytes, k)?;
        bytes.push(b':');
        serde_json::to_writer(&mut bytes, v)?;
    }
    bytes.push(b'}');
    crate::raw::parse(&bytes)
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// A resource link.
    pub fn resource_link(resource: Resource) -> Self {
        ContentBlock::ResourceLink(resource)
    }

    /// An embedded resource.
    pub fn embedded(contents: ResourceContents) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(contents))
    }

    /// A tool-use block.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: JsonObject) -> Self {
        ContentBlock::ToolUse(ToolUseContent::new(id, name, input))
    }

    /// A tool-result block.
    pub fn tool_result(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        ContentBlock::ToolResult(ToolResultContent::new(tool_use_id, content))
    }

    /// The text, for a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The wire `type` of this block.
    pub fn type_name(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::Resource(_) => "resource",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Unknown(o) => o.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// Text content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl TextContent {
    /// Text content.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            annotations: None,
            meta: Meta::new(),
        }
    }

    /// Sets the annotations.
    #[must_use]
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// Image content (base64 data).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// Base64-encoded image data.
    pub data: String,
    /// The image MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl ImageContent {
    /// Image content.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: Meta::new(),
        }
    }

    /// Sets the annotations.
    #[must_use]
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// Audio content (base64 data).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// Base64-encoded audio data.
    pub data: String,
    /// The audio MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl AudioContent {
    /// Audio content.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: Meta::new(),
        }
    }
}

/// A resource embedded with its contents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl EmbeddedResource {
    /// An embedded resource.
    pub fn new(resource: ResourceContents) -> Self {
        EmbeddedResource {
            resource,
            annotations: None,
            meta: Meta::new(),
        }
    }
}

/// A model's request to use a tool (sampling).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUseContent {
    /// The id the matching `tool_result` refers to.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The tool arguments.
    pub input: JsonObject,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl ToolUseContent {
    /// A tool use.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: JsonObject) -> Self {
        ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            meta: Meta::new(),
        }
    }
}

/// The result of a tool use (sampling).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The `id` of the `tool_use` this answers.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result (2025-11-25: an object; 2026-07-28: any JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

impl ToolResultContent {
    /// A tool result.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        ToolResultContent {
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: None,
            meta: Meta::new(),
        }
    }

    /// Marks the result as an error.
    #[must_use]
    pub fn with_error(mut self, is_error: bool) -> Self {
        self.is_error = Some(is_error);
        self
    }
}

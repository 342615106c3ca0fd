//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`):
//! skill entries, `skills/list`, `skills/get` and `resources/directory/read`.
//!
//! A skill is a directory of resources whose root holds a `SKILL.md`. A
//! server that declares [`SKILLS_EXTENSION`] in its capabilities (in
//! `initialize` on 2025-11-25, in `server/discover` on 2026-07-28) answers
//! `skills/list` and `skills/get`; with `{"directoryRead": true}` it also
//! answers `resources/directory/read`. Files are read with plain
//! `resources/read`.
//!
//! An entry's `frontmatter` is kept verbatim (every member the author wrote,
//! as a JSON object); its `resources` list every file with a `sha256:`
//! digest and, optionally, a size. These types are data only: checking a
//! read against an entry is the job of `mcp-client`'s `skills` module.
//!
//! ```
//! use mcp_types::skills::{ListSkillsResult, SkillEntry};
//! let page: ListSkillsResult = serde_json::from_value(serde_json::json!({
//!     "skills": [{
//!         "uri": "skill://git-workflow/SKILL.md",
//!         "frontmatter": {"name": "git-workflow", "description": "Branching rules", "x": [1]},
//!         "resources": [{"uri": "skill://git-workflow/SKILL.md",
//!                        "digest": "sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
//!                        "size": 42}]
//!     }]
//! })).unwrap();
//! let entry: &SkillEntry = &page.skills[0];
//! assert_eq!(entry.name(), Some("git-workflow"));
//! assert_eq!(entry.frontmatter["x"], serde_json::json!([1]));
//! assert_eq!(entry.resources.as_ref().unwrap()[0].size, Some(42));
//! ```

use serde::{Deserialize, Deserializer, Serialize};

use crate::common::{Cursor, JsonObject};
use crate::macros::list_result;
use crate::meta::Meta;
use crate::resources::Resource;
use crate::results::{CacheScope, ResultType, complete};

/// The id of the skills extension, a key of `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The extension setting that commits a server to `resources/directory/read`.
pub const DIRECTORY_READ_SETTING: &str = "directoryRead";

/// The `mimeType` of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The file name of a skill's manifest.
pub const SKILL_MANIFEST: &str = "SKILL.md";

/// The prefix of every digest this extension defines.
pub const SHA256_PREFIX: &str = "sha256:";

/// One file of a skill: its URI, `sha256:` digest and (optional) size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` followed by 64 lowercase hex digits, as the server sent it.
    pub digest: String,
    /// The file's length in bytes, when the server gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl SkillResource {
    /// A file entry.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>) -> Self {
        SkillResource {
            uri: uri.into(),
            digest: digest.into(),
            size: None,
        }
    }

    /// Sets the size in bytes.
    #[must_use]
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }
}

/// A skill entry, as `skills/list` and `skills/get` return it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` YAML frontmatter rendered as JSON, verbatim.
    pub frontmatter: JsonObject,
    /// Every file of the skill with its digest. Absent for a dynamically
    /// generated skill (the wire marker `"dynamic"` reads as absent too):
    /// such a skill cannot be verified.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "listed_or_dynamic"
    )]
    pub resources: Option<Vec<SkillResource>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

/// `resources` is an array, or the marker `"dynamic"` meaning that no
/// digests are published.
fn listed_or_dynamic<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<SkillResource>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Listed(Vec<SkillResource>),
        Marker(String),
    }
    Ok(match Option::<Wire>::deserialize(d)? {
        Some(Wire::Listed(list)) => Some(list),
        Some(Wire::Marker(m)) if m == "dynamic" => None,
        Some(Wire::Marker(m)) => {
            return Err(serde::de::Error::custom(format!(
                "skill resources must be an array or \"dynamic\", not {m:?}"
            )));
        }
        None => None,
    })
}

impl SkillEntry {
    /// An entry for `uri` with this frontmatter and no `resources`.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject) -> Self {
        SkillEntry {
            uri: uri.into(),
            frontmatter,
            resources: None,
            meta: Meta::new(),
        }
    }

    /// Sets the files.
    #[must_use]
    pub fn with_resources(mut self, resources: Vec<SkillResource>) -> Self {
        self.resources = Some(resources);
        self
    }

    /// `frontmatter.name`, when it is a string (a label, not an identifier).
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name")?.as_str()
    }

    /// `frontmatter.description`, when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description")?.as_str()
    }

    /// The listed file with this URI, if any.
    pub fn resource(&self, uri: &str) -> Option<&SkillResource> {
        self.resources.as_deref()?.iter().find(|r| r.uri == uri)
    }
}

list_result! {
    /// Result of `skills/list`.
    pub struct ListSkillsResult {
        /// The entries on this page (an entry is never split across pages).
        pub skills: Vec<SkillEntry>,
    }
    /// A page of skills, `resultType: "complete"`.
    fn new;
}

/// Params of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

impl GetSkillRequestParams {
    /// Ask for the entry of `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        GetSkillRequestParams {
            meta: Meta::new(),
            uri: uri.into(),
        }
    }
}

/// Result of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// 2026-07-28: `resultType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The entry.
    pub skill: SkillEntry,
    /// 2026-07-28: cache lifetime in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026-07-28: cache scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl GetSkillResult {
    /// The entry, `resultType: "complete"`.
    pub fn new(skill: SkillEntry) -> Self {
        GetSkillResult {
            meta: Meta::new(),
            result_type: complete(),
            skill,
            ttl_ms: None,
            cache_scope: None,
        }
    }

    /// Sets the caching fields.
    #[must_use]
    pub fn with_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self.cache_scope = Some(scope);
        self
    }
}

/// Params of `resources/directory/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadDirectoryRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// The `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
}

impl ReadDirectoryRequestParams {
    /// The first page of `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadDirectoryRequestParams {
            meta: Meta::new(),
            uri: uri.into(),
            cursor: None,
        }
    }
}

list_result! {
    /// Result of `resources/directory/read`: the direct children.
    pub struct ReadDirectoryResult {
        /// Files and subdirectories (`mimeType: "inode/directory"`).
        pub resources: Vec<Resource>,
    }
    /// A page of children, `resultType: "complete"`.
    fn new;
}

/// Whether a resource is a directory (`mimeType: "inode/directory"`).
pub fn is_directory(resource: &Resource) -> bool {
    resource.mime_type.as_deref() == Some(DIRECTORY_MIME_TYPE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_marker_and_absence_both_read_as_unverifiable() {
        for resources in [serde_json::json!("dynamic"), serde_json::Value::Null] {
            let mut v =
                serde_json::json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}});
            if !resources.is_null() {
                v["resources"] = resources;
            }
            let e: SkillEntry = serde_json::from_value(v).unwrap();
            assert!(e.resources.is_none());
        }
    }

    #[test]
    fn a_resource_without_a_digest_is_rejected() {
        let v = serde_json::json!({"uri": "skill://a/SKILL.md", "frontmatter": {},
            "resources": [{"uri": "skill://a/SKILL.md"}]});
        assert!(serde_json::from_value::<SkillEntry>(v).is_err());
    }

    #[test]
    fn get_result_round_trips() {
        let r = GetSkillResult::new(SkillEntry::new("skill://a/SKILL.md", JsonObject::new()))
            .with_cache(1000, CacheScope::Public);
        let back: GetSkillResult =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}

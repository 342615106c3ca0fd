//! What loading hands out: [`LoadedSkill`] (a verified `SKILL.md` bound to
//! its connection and entry), [`SkillFile`] (a verified supporting file),
//! [`LoadOptions`] and [`SkillId`].

use std::sync::{Arc, Weak};

use mcp_types::common::JsonObject;
use mcp_types::skills::{SkillEntry, SkillResource};

use super::{SkillError, path, verify};
use crate::client::{Client, Inner};

/// The identity of a skill: the connection it came from and its `SKILL.md`
/// URI. Two servers may serve the same URI; those are different skills.
/// Equality compares both halves (the connection by identity, not by name).
#[derive(Clone)]
pub struct SkillId {
    connection: Weak<Inner>,
    uri: String,
}

impl SkillId {
    pub(crate) fn new(client: &Client, uri: &str) -> Self {
        SkillId {
            connection: Arc::downgrade(&client.inner),
            uri: uri.to_owned(),
        }
    }

    /// The `SKILL.md` URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Whether this skill came from `client`'s connection (or a clone of it).
    pub fn is_from(&self, client: &Client) -> bool {
        std::ptr::eq(self.connection.as_ptr(), Arc::as_ptr(&client.inner))
    }
}

impl PartialEq for SkillId {
    fn eq(&self, other: &Self) -> bool {
        self.connection.ptr_eq(&other.connection) && self.uri == other.uri
    }
}

impl Eq for SkillId {}

impl std::hash::Hash for SkillId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.connection.as_ptr().hash(state);
        self.uri.hash(state);
    }
}

impl std::fmt::Debug for SkillId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillId")
            .field("connection", &self.connection.as_ptr())
            .field("uri", &self.uri)
            .finish()
    }
}

/// How to load a skill. The default verifies everything and refuses an
/// entry without `resources`.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Load an entry without `resources` (a dynamically generated skill)
    /// even though nothing it serves can be verified.
    pub allow_unverified: bool,
}

impl LoadOptions {
    /// Verify everything (the default).
    pub fn new() -> Self {
        LoadOptions::default()
    }

    /// Accepts an entry without `resources`: its `SKILL.md` frontmatter is
    /// still compared with the entry, but no digest can be checked and
    /// supporting files are read unverified
    /// ([`LoadedSkill::is_verified`] is `false`).
    #[must_use]
    pub fn allow_unverified(mut self) -> Self {
        self.allow_unverified = true;
        self
    }
}

/// A loaded skill: its `SKILL.md` passed verification against the entry it
/// was loaded from (digest, size, frontmatter) and is bound to the
/// connection that served it. Supporting files are read through
/// [`Client::read_skill_file`], which only reads files the entry lists.
///
/// Frontmatter is data, not authority: `allowed-tools` and any other field
/// grant nothing by themselves.
#[derive(Clone, Debug)]
pub struct LoadedSkill {
    pub(crate) id: SkillId,
    pub(crate) entry: SkillEntry,
    pub(crate) root: String,
    pub(crate) text: String,
    pub(crate) body_start: usize,
    pub(crate) verified: bool,
}

impl LoadedSkill {
    /// The skill's identity (connection, uri).
    pub fn id(&self) -> &SkillId {
        &self.id
    }

    /// The `SKILL.md` URI.
    pub fn uri(&self) -> &str {
        &self.entry.uri
    }

    /// The entry the skill was loaded (and is verified) against.
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    /// The skill's root: the folder of its `SKILL.md`, no trailing slash.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The frontmatter (equal to the file's, which was compared with it).
    pub fn frontmatter(&self) -> &JsonObject {
        &self.entry.frontmatter
    }

    /// The whole `SKILL.md`, frontmatter included.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The `SKILL.md` body after the frontmatter.
    pub fn body(&self) -> &str {
        self.text.get(self.body_start..).unwrap_or_default()
    }

    /// Whether the entry carried digests (false only when loaded with
    /// [`LoadOptions::allow_unverified`]).
    pub fn is_verified(&self) -> bool {
        self.verified
    }

    /// The URI a relative reference of this skill resolves to (against its
    /// root; `..` may not leave it).
    ///
    /// # Errors
    /// [`SkillError::InvalidPath`].
    pub fn resolve(&self, relative: &str) -> Result<String, SkillError> {
        path::resolve_relative(&self.root, relative)
    }

    /// The URI a read of `relative` goes to and the listing it is verified
    /// against (`None` only for a skill loaded unverified).
    pub(crate) fn plan_read(
        &self,
        relative: &str,
    ) -> Result<(String, Option<&SkillResource>), SkillError> {
        let uri = self.resolve(relative)?;
        let listed = match &self.entry.resources {
            Some(_) => Some(
                self.entry
                    .resource(&uri)
                    .ok_or_else(|| SkillError::NotListed {
                        uri: uri.clone(),
                        skill: self.entry.uri.clone(),
                    })?,
            ),
            None => None,
        };
        if let Some(l) = listed {
            check_digest_format(l)?;
        }
        Ok((uri, listed))
    }
}

/// The listing `SKILL.md` is verified against: refused when the entry has
/// no `resources` (unless the caller opted in) or does not list its own
/// `SKILL.md`, or when the digest is malformed, all before anything is read.
pub(crate) fn manifest_listing(
    entry: &SkillEntry,
    options: LoadOptions,
) -> Result<Option<&SkillResource>, SkillError> {
    let listed = match &entry.resources {
        Some(_) => entry
            .resource(&entry.uri)
            .ok_or_else(|| SkillError::ManifestNotListed {
                uri: entry.uri.clone(),
            })?,
        None if options.allow_unverified => return Ok(None),
        None => {
            return Err(SkillError::Unverifiable {
                uri: entry.uri.clone(),
            });
        }
    };
    check_digest_format(listed)?;
    Ok(Some(listed))
}

fn check_digest_format(listed: &SkillResource) -> Result<(), SkillError> {
    if verify::well_formed(&listed.digest) {
        Ok(())
    } else {
        Err(SkillError::MalformedDigest {
            uri: listed.uri.clone(),
            digest: listed.digest.clone(),
        })
    }
}

/// A supporting file of a loaded skill, verified against the entry when the
/// skill is verified.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SkillFile {
    /// The file's URI.
    pub uri: String,
    /// The raw bytes (text as UTF-8, blobs decoded).
    pub bytes: Vec<u8>,
    /// The MIME type the server gave.
    pub mime_type: Option<String>,
    /// Whether the bytes were checked against a listed digest.
    pub verified: bool,
}

impl SkillFile {
    /// The content as text, when it is UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(resources: Option<serde_json::Value>) -> SkillEntry {
        let mut v = json!({"uri": "skill://pdf/SKILL.md", "frontmatter": {"name": "pdf"}});
        if let Some(r) = resources {
            v["resources"] = r;
        }
        serde_json::from_value(v).unwrap()
    }

    fn digest(s: &str) -> String {
        verify::sha256_digest(s.as_bytes())
    }

    fn loaded(entry: SkillEntry) -> LoadedSkill {
        LoadedSkill {
            id: SkillId {
                connection: Weak::new(),
                uri: entry.uri.clone(),
            },
            root: "skill://pdf".into(),
            text: String::new(),
            body_start: 0,
            verified: entry.resources.is_some(),
            entry,
        }
    }

    #[test]
    fn an_entry_without_resources_is_refused_unless_the_caller_opts_in() {
        let e = entry(None);
        let err = manifest_listing(&e, LoadOptions::new()).unwrap_err();
        assert!(matches!(&err, SkillError::Unverifiable { uri } if uri == "skill://pdf/SKILL.md"));
        assert!(err.is_verification_failure());
        assert!(
            manifest_listing(&e, LoadOptions::new().allow_unverified())
                .unwrap()
                .is_none()
        );
        // The "dynamic" marker is the same as absence.
        let e = entry(Some(json!("dynamic")));
        assert!(matches!(
            manifest_listing(&e, LoadOptions::new()),
            Err(SkillError::Unverifiable { .. })
        ));
    }

    #[test]
    fn the_manifest_must_be_listed_with_a_well_formed_digest() {
        let other = json!([{"uri": "skill://pdf/a.md", "digest": digest("a")}]);
        let err = manifest_listing(&entry(Some(other)), LoadOptions::new()).unwrap_err();
        assert!(
            matches!(err, SkillError::ManifestNotListed { .. }),
            "{err:?}"
        );
        let bad = json!([{"uri": "skill://pdf/SKILL.md", "digest": "sha256:ABC"}]);
        let err = manifest_listing(&entry(Some(bad)), LoadOptions::new()).unwrap_err();
        assert!(matches!(err, SkillError::MalformedDigest { .. }), "{err:?}");
        let good = json!([{"uri": "skill://pdf/SKILL.md", "digest": digest("x"), "size": 1}]);
        let e = entry(Some(good));
        assert_eq!(
            manifest_listing(&e, LoadOptions::new())
                .unwrap()
                .unwrap()
                .size,
            Some(1)
        );
    }

    #[test]
    fn only_listed_files_inside_the_root_are_read() {
        let skill = loaded(entry(Some(json!([
            {"uri": "skill://pdf/SKILL.md", "digest": digest("m")},
            {"uri": "skill://pdf/references/FORMS.md", "digest": digest("f"), "size": 1}
        ]))));
        let (uri, listed) = skill.plan_read("references/FORMS.md").unwrap();
        assert_eq!(uri, "skill://pdf/references/FORMS.md");
        assert_eq!(listed.unwrap().size, Some(1));
        let (uri, _) = skill
            .plan_read("./references/../references/FORMS.md")
            .unwrap();
        assert_eq!(uri, "skill://pdf/references/FORMS.md");
        let err = skill.plan_read("references/OTHER.md").unwrap_err();
        assert!(
            matches!(&err, SkillError::NotListed { uri, skill } if uri == "skill://pdf/references/OTHER.md" && skill == "skill://pdf/SKILL.md")
        );
        assert!(err.is_verification_failure());
        assert!(matches!(
            skill.plan_read("../x/SKILL.md"),
            Err(SkillError::InvalidPath { .. })
        ));
        assert!(matches!(
            skill.plan_read("/etc/passwd"),
            Err(SkillError::InvalidPath { .. })
        ));
        // Unverified (opted in): reads stay inside the root but are unchecked.
        let skill = loaded(entry(None));
        let (uri, listed) = skill.plan_read("anything.md").unwrap();
        assert_eq!((uri.as_str(), listed), ("skill://pdf/anything.md", None));
    }
}

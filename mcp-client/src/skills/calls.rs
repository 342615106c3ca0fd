//! The `Client` methods of the skills extension: listing and getting
//! entries (no file is read), directory reads, loading a skill and reading
//! its supporting files (both verified), and refreshing an entry.

use base64::Engine;
use mcp_core::UsageError;
use mcp_types::methods::ext_skills;
use mcp_types::methods::facts::{DIRECTORY_READ_CAPABILITY, SKILLS_CAPABILITY};
use mcp_types::resources::{ReadResourceResult, Resource, ResourceContents};
use mcp_types::skills::{
    DIRECTORY_READ_SETTING, ListSkillsResult, ReadDirectoryResult, SKILLS_EXTENSION, SkillEntry,
};
use serde_json::{Value, json};

use super::frontmatter;
use super::loaded::{LoadOptions, LoadedSkill, SkillFile, SkillId, manifest_listing};
use super::{SkillError, path, verify};
use crate::client::Client;
use crate::error::Error;
use crate::options::CallOptions;

impl Client {
    /// Refuses a skills method the server did not declare: a usage error,
    /// nothing sent (whatever `strict_capabilities` says).
    fn require_skills(&self, method: &str, directory: bool) -> Result<(), Error> {
        let setting = self
            .server_capabilities()
            .and_then(|c| c.extensions)
            .and_then(|mut e| e.remove(SKILLS_EXTENSION));
        let declared = match (&setting, directory) {
            (Some(Value::Object(s)), true) => s.get(DIRECTORY_READ_SETTING) == Some(&json!(true)),
            (Some(v), false) => !matches!(v, Value::Null | Value::Bool(false)),
            _ => false,
        };
        if declared {
            return Ok(());
        }
        let capability = if directory {
            DIRECTORY_READ_CAPABILITY
        } else {
            SKILLS_CAPABILITY
        };
        Err(Error::from(UsageError::CapabilityNotAdvertised {
            method: method.to_owned(),
            capability,
        }))
    }

    /// One page of `skills/list`. Reads no skill file.
    ///
    /// # Errors
    /// A usage error (nothing sent) when the server did not declare the
    /// skills extension; otherwise see [`Error`].
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult, Error> {
        self.require_skills("skills/list", false)?;
        let params = cursor.map(|c| json!({ "cursor": c }));
        self.request_json::<ext_skills::ListSkills>(params, CallOptions::new())
            .await
    }

    /// Every skill entry across all pages (page cap and repeated-cursor
    /// guard from the builder's settings). Reads no skill file. Entries
    /// with the same `name` are all kept: names are labels.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// for entry in client.list_all_skills().await? {
    ///     println!("{}: {}", entry.uri, entry.description().unwrap_or_default());
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::list_skills`].
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>, Error> {
        self.require_skills("skills/list", false)?;
        self.list_all_with::<ext_skills::ListSkills, _>(None).await
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`,
    /// listed or not (2026-07-28 results may come from the cache). Reads
    /// no skill file.
    ///
    /// # Errors
    /// [`SkillError::Request`] (a usage error when the extension is not
    /// declared; `-32602` from the server for an unknown skill);
    /// [`SkillError::WrongEntry`] when the server answers for another URI.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, SkillError> {
        self.skills_get(uri, CallOptions::new()).await
    }

    /// A fresh entry for a skill, bypassing any cached result: the way to
    /// recover after a verification failure. Load the skill again from the
    /// returned entry.
    ///
    /// # Errors
    /// As [`Client::get_skill`].
    pub async fn refresh_skill(&self, uri: &str) -> Result<SkillEntry, SkillError> {
        self.skills_get(uri, CallOptions::new().without_cache())
            .await
    }

    async fn skills_get(&self, uri: &str, opts: CallOptions) -> Result<SkillEntry, SkillError> {
        self.require_skills("skills/get", false)?;
        let params = json!({ "uri": uri });
        let result = self
            .request_json::<ext_skills::GetSkill>(Some(params), opts)
            .await?;
        if result.skill.uri != uri {
            return Err(SkillError::WrongEntry {
                requested: uri.to_owned(),
                returned: result.skill.uri,
            });
        }
        Ok(result.skill)
    }

    /// One page of `resources/directory/read`: the direct children of a
    /// directory resource (subdirectories have `mimeType: "inode/directory"`).
    ///
    /// # Errors
    /// A usage error (nothing sent) unless the server declared the skills
    /// extension with `directoryRead: true`; otherwise see [`Error`].
    pub async fn read_directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
    ) -> Result<ReadDirectoryResult, Error> {
        self.require_skills("resources/directory/read", true)?;
        let mut params = json!({ "uri": uri });
        if let Some(c) = cursor {
            params["cursor"] = json!(c);
        }
        self.request_json::<ext_skills::ReadDirectory>(Some(params), CallOptions::new())
            .await
    }

    /// Every child of a directory resource, across all pages.
    ///
    /// # Errors
    /// As [`Client::read_directory`].
    pub async fn read_all_directory(&self, uri: &str) -> Result<Vec<Resource>, Error> {
        self.require_skills("resources/directory/read", true)?;
        let params = Some(json!({ "uri": uri }));
        self.list_all_with::<ext_skills::ReadDirectory, _>(params)
            .await
    }

    /// Loads a skill from its entry: reads `SKILL.md` (the only read),
    /// verifies its size and SHA-256 digest against the entry, parses its
    /// YAML frontmatter and compares it field by field with the entry's.
    /// An entry without `resources` is refused ([`SkillError::Unverifiable`]);
    /// see [`Client::load_skill_with`] to opt in.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::skills::SkillError> {
    /// let entry = client.get_skill("skill://pdf-processing/SKILL.md").await?;
    /// let skill = match client.load_skill(&entry).await {
    ///     Ok(skill) => skill,
    ///     Err(e) if e.is_verification_failure() => {
    ///         let fresh = client.refresh_skill(&entry.uri).await?;
    ///         client.load_skill(&fresh).await?
    ///     }
    ///     Err(e) => return Err(e),
    /// };
    /// let forms = client.read_skill_file(&skill, "references/FORMS.md").await?;
    /// # let _ = forms; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A verification failure (nothing of the content is returned), an
    /// unusable `resources/read` answer, or the request's error.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, SkillError> {
        self.load_skill_with(entry, LoadOptions::new()).await
    }

    /// [`Client::load_skill`] with options.
    ///
    /// # Errors
    /// As [`Client::load_skill`].
    pub async fn load_skill_with(
        &self,
        entry: &SkillEntry,
        options: LoadOptions,
    ) -> Result<LoadedSkill, SkillError> {
        let root = path::skill_root(&entry.uri)?.to_owned();
        let listed = manifest_listing(entry, options)?;
        let (bytes, _) = self.read_bytes(&entry.uri).await?;
        if let Some(l) = listed {
            verify::verify(l, &bytes)?;
        }
        let content_error = |reason: String| SkillError::Content {
            uri: entry.uri.clone(),
            reason,
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| content_error("SKILL.md is not UTF-8 text".into()))?;
        let frontmatter_error = |reason: String| SkillError::Frontmatter {
            uri: entry.uri.clone(),
            reason,
        };
        let split = frontmatter::split(&text).map_err(frontmatter_error)?;
        let parsed = frontmatter::parse(split.yaml).map_err(frontmatter_error)?;
        frontmatter::compare(&entry.uri, &parsed, &entry.frontmatter)?;
        let body_start = split.body_start;
        Ok(LoadedSkill {
            id: SkillId::new(self, &entry.uri),
            entry: entry.clone(),
            root,
            text,
            body_start,
            verified: listed.is_some(),
        })
    }

    /// Reads a supporting file of a loaded skill by its path relative to
    /// the skill root. Only files listed in the entry the skill was loaded
    /// from are read, and each read is verified (size, digest) before any
    /// byte is returned.
    ///
    /// # Errors
    /// [`SkillError::InvalidPath`] (absolute, a URI, or `..` out of the
    /// root), [`SkillError::NotListed`], [`SkillError::OtherConnection`]
    /// (nothing sent for any of these), a verification failure, or the
    /// request's error.
    pub async fn read_skill_file(
        &self,
        skill: &LoadedSkill,
        relative: &str,
    ) -> Result<SkillFile, SkillError> {
        if !skill.id.is_from(self) {
            return Err(SkillError::OtherConnection {
                uri: skill.uri().to_owned(),
            });
        }
        let (uri, listed) = skill.plan_read(relative)?;
        let (bytes, mime_type) = self.read_bytes(&uri).await?;
        if let Some(l) = listed {
            verify::verify(l, &bytes)?;
        }
        Ok(SkillFile {
            uri,
            bytes,
            mime_type,
            verified: listed.is_some(),
        })
    }

    /// The raw bytes of the one content `resources/read` returns for `uri`.
    async fn read_bytes(&self, uri: &str) -> Result<(Vec<u8>, Option<String>), SkillError> {
        let result: ReadResourceResult = self
            .request_as(
                "resources/read",
                Some(json!({ "uri": uri })),
                CallOptions::new(),
            )
            .await?;
        let fail = |reason: &str| SkillError::Content {
            uri: uri.to_owned(),
            reason: reason.to_owned(),
        };
        let mut matching = result.contents.into_iter().filter(|c| c.uri() == uri);
        let content = matching
            .next()
            .ok_or_else(|| fail("no contents for this URI"))?;
        if matching.next().is_some() {
            return Err(fail("more than one content for this URI"));
        }
        match content {
            ResourceContents::Text(t) => Ok((t.text.into_bytes(), t.mime_type)),
            ResourceContents::Blob(b) => base64::engine::general_purpose::STANDARD
                .decode(b.blob.as_bytes())
                .map(|bytes| (bytes, b.mime_type))
                .map_err(|_| fail("the blob is not valid base64")),
            _ => Err(fail("contents of an unknown kind")),
        }
    }
}

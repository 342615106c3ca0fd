//! [`SkillError`]: why a skill could not be fetched, loaded or read.

use crate::error::Error;

/// Why a skill operation failed. The verification variants name the file
/// and the digest, size or frontmatter field that did not match; when one
/// of them is returned none of the content was handed out. The way to
/// recover from a stale entry is [`Client::refresh_skill`](crate::Client::refresh_skill).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The request failed (including a usage error such as the extension
    /// not being declared: then nothing was sent).
    #[error(transparent)]
    Request(#[from] Error),
    /// The entry has no `resources`, so nothing it serves can be verified;
    /// loading it needs [`LoadOptions::allow_unverified`](super::LoadOptions::allow_unverified).
    #[error("skill {uri} lists no resources with digests, so it cannot be verified")]
    Unverifiable {
        /// The `SKILL.md` URI.
        uri: String,
    },
    /// The entry's `resources` do not list its own `SKILL.md`.
    #[error("skill {uri} does not list its own SKILL.md in its resources")]
    ManifestNotListed {
        /// The `SKILL.md` URI.
        uri: String,
    },
    /// A listed digest is not `sha256:` followed by 64 lowercase hex digits.
    #[error("the digest of {uri} is not sha256:<64 lowercase hex>: {digest:?}")]
    MalformedDigest {
        /// The file.
        uri: String,
        /// The digest as listed.
        digest: String,
    },
    /// The bytes read do not hash to the listed digest.
    #[error(
        "digest mismatch for {uri}: the entry lists {expected}, the content hashes to {actual}"
    )]
    DigestMismatch {
        /// The file.
        uri: String,
        /// The listed digest.
        expected: String,
        /// The digest of what was read.
        actual: String,
    },
    /// The bytes read are not as many as the entry's `size`.
    #[error("size mismatch for {uri}: the entry lists {expected} bytes, {actual} were read")]
    SizeMismatch {
        /// The file.
        uri: String,
        /// The listed size.
        expected: u64,
        /// The length of what was read.
        actual: u64,
    },
    /// A frontmatter field of `SKILL.md` differs from the entry's.
    #[error("frontmatter field {field:?} of {uri} differs from the entry ({detail})")]
    FrontmatterMismatch {
        /// The `SKILL.md` URI.
        uri: String,
        /// The field.
        field: String,
        /// What differs (which side lacks it, or that the values differ).
        detail: &'static str,
    },
    /// `SKILL.md` has no well-formed YAML frontmatter.
    #[error("SKILL.md {uri} has no usable frontmatter: {reason}")]
    Frontmatter {
        /// The `SKILL.md` URI.
        uri: String,
        /// What is wrong (missing delimiter, too large, YAML error, ...).
        reason: String,
    },
    /// A relative path is empty, absolute, or leaves the skill root.
    #[error("path {path:?} cannot be read from skill {root}: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// The skill root.
        root: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// A file inside the skill that its entry does not list (a verification
    /// failure: the listing is complete by definition).
    #[error("{uri} is not listed in the resources of skill {skill}")]
    NotListed {
        /// The file.
        uri: String,
        /// The `SKILL.md` URI of the skill.
        skill: String,
    },
    /// The URI is not `<scheme>://<skill-path>/SKILL.md`.
    #[error("{uri} is not the URI of a SKILL.md")]
    NotASkillUri {
        /// The URI.
        uri: String,
    },
    /// `resources/read` did not return usable content for the file.
    #[error("resources/read of {uri} returned no usable content: {reason}")]
    Content {
        /// The file.
        uri: String,
        /// What was wrong.
        reason: String,
    },
    /// `skills/get` answered with the entry of another URI.
    #[error("skills/get for {requested} answered with the entry of {returned}")]
    WrongEntry {
        /// The URI asked for.
        requested: String,
        /// The URI of the entry returned.
        returned: String,
    },
    /// A loaded skill was used with a client of another connection: skill
    /// identity is (connection, uri).
    #[error("skill {uri} was loaded from another connection")]
    OtherConnection {
        /// The `SKILL.md` URI.
        uri: String,
    },
}

impl SkillError {
    /// Whether this is a verification failure (digest, size, frontmatter,
    /// an unlisted file, an unverifiable entry): the content was not used,
    /// and [`Client::refresh_skill`](crate::Client::refresh_skill) fetches
    /// a fresh entry.
    pub fn is_verification_failure(&self) -> bool {
        matches!(
            self,
            SkillError::Unverifiable { .. }
                | SkillError::ManifestNotListed { .. }
                | SkillError::MalformedDigest { .. }
                | SkillError::DigestMismatch { .. }
                | SkillError::SizeMismatch { .. }
                | SkillError::FrontmatterMismatch { .. }
                | SkillError::NotListed { .. }
        )
    }
}

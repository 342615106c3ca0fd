//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`) for a
//! host: list and get skill entries, load a skill with verification, read
//! its supporting files by relative path. With the `skills` feature (off
//! by default: ring for SHA-256, base64, serde-saphyr for the frontmatter).
//!
//! The MUSTs of the extension are the default path:
//!
//! * `skills/list`, `skills/get` and `resources/directory/read` are sent
//!   only to a server that declared the extension (and `directoryRead:
//!   true` for the last); otherwise they are a usage error and nothing is
//!   sent.
//! * Listing and getting entries read no file. `SKILL.md` is read by
//!   [`Client::load_skill`](crate::Client::load_skill), a supporting file
//!   by [`Client::read_skill_file`](crate::Client::read_skill_file), never
//!   ahead of need.
//! * Every read is verified against the entry: byte length against `size`,
//!   SHA-256 of the raw bytes against `digest`; `SKILL.md`'s YAML
//!   frontmatter is compared field by field with the entry's `frontmatter`.
//!   A mismatch is a [`SkillError`] naming the file and the digest, size or
//!   field, and none of the content is returned.
//!   [`Client::refresh_skill`](crate::Client::refresh_skill) fetches a
//!   fresh entry (bypassing the cache).
//! * An entry without `resources` cannot be verified: loading it fails with
//!   [`SkillError::Unverifiable`] unless the caller opts in with
//!   [`LoadOptions::allow_unverified`].
//! * A loaded skill reads only the files its entry lists, by paths relative
//!   to its root (the folder of its `SKILL.md`); absolute paths and `..`
//!   escapes are refused.
//! * Identity is (connection, uri) ([`SkillId`]): a loaded skill reads
//!   only through the client of the connection it was loaded from.
//! * A host that persists approvals binds them to [`content_binding`], the
//!   fingerprint of the entry's whole `{uri, digest}` set: any change to the
//!   set changes it (and so revokes the approval).
//!
//! A skill is data, not authority: `allowed-tools` and every other
//! frontmatter field grant nothing; a nested `SKILL.md` read as a
//! supporting file is plain bytes. `skill://` URIs are only ever sent to
//! the server that listed them, never resolved by DNS or network.
//!
//! ```no_run
//! # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::skills::SkillError> {
//! let entries = client.list_all_skills().await?;
//! let Some(entry) = entries.iter().find(|e| e.name() == Some("pdf-processing")) else {
//!     return Ok(());
//! };
//! let skill = client.load_skill(entry).await?;
//! println!("{}", skill.body());
//! let forms = client.read_skill_file(&skill, "references/FORMS.md").await?;
//! println!("{}", forms.text().unwrap_or_default());
//! # Ok(()) }
//! ```

mod calls;
mod error;
mod frontmatter;
mod loaded;
mod path;
mod verify;

pub use error::SkillError;
pub use frontmatter::MAX_FRONTMATTER_BYTES;
pub use loaded::{LoadOptions, LoadedSkill, SkillFile, SkillId};
pub use path::{resolve_relative, skill_root};
pub use verify::{content_binding, sha256_digest, verify};

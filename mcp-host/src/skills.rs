//! Skills through the host: loading a catalogue skill and reading its
//! supporting files, always from the skill's origin.
//!
//! A [`HostSkill`] remembers the label of the server it was loaded from,
//! and the SDK's [`LoadedSkill`] is bound to that server's connection. A
//! file read goes to that label only, and the client refuses a skill loaded
//! through another connection, so a skill from server A can never make the
//! host read from server B (not even after A is removed and B serves the
//! same URI). After A reconnects, load the skill again.

use mcp_client::mcp_types::skills::SkillEntry;
use mcp_client::skills::{LoadOptions, LoadedSkill, SkillFile};

use crate::error::HostError;
use crate::host::Host;

/// A skill loaded through the host: its origin label and the verified
/// skill. The origin cannot be changed after loading.
#[derive(Clone, Debug)]
pub struct HostSkill {
    name: String,
    origin: String,
    skill: LoadedSkill,
}

impl HostSkill {
    /// The qualified name it was loaded under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The label of the server it came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The verified skill (`SKILL.md` text, body, frontmatter, entry).
    pub fn skill(&self) -> &LoadedSkill {
        &self.skill
    }
}

impl Host {
    /// Loads the catalogue skill with this qualified name from its origin:
    /// reads and verifies its `SKILL.md` (digest, size, frontmatter), the
    /// only file read. An entry without `resources` is refused; see
    /// [`Host::load_skill_with`].
    ///
    /// ```no_run
    /// # async fn run(host: mcp_host::Host) -> Result<(), mcp_host::HostError> {
    /// let skill = host.load_skill("docs__pdf-processing").await?;
    /// println!("{}", skill.skill().body());
    /// let forms = host.read_skill_file(&skill, "references/FORMS.md").await?;
    /// println!("{}", forms.text().unwrap_or_default());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`HostError::UnknownSkill`], [`HostError::Skill`] (a verification
    /// failure names the file and what did not match; nothing is returned),
    /// and as [`Host::call_tool`].
    pub async fn load_skill(&self, name: &str) -> Result<HostSkill, HostError> {
        self.load_skill_with(name, LoadOptions::new()).await
    }

    /// [`Host::load_skill`] with options (for example
    /// [`LoadOptions::allow_unverified`]).
    ///
    /// # Errors
    /// As [`Host::load_skill`].
    pub async fn load_skill_with(
        &self,
        name: &str,
        options: LoadOptions,
    ) -> Result<HostSkill, HostError> {
        let (origin, entry) = self.skill_entry(name)?;
        let skill = self
            .routed(&origin, |c| async move {
                c.load_skill_with(&entry, options).await
            })
            .await?;
        Ok(HostSkill {
            name: name.to_owned(),
            origin,
            skill,
        })
    }

    /// Reads a supporting file of `skill` by its path relative to the skill
    /// root, from the skill's origin only; the file must be listed in the
    /// entry and its bytes are verified before they are returned.
    ///
    /// # Errors
    /// [`HostError::UnknownServer`] or [`HostError::NotReady`] when the
    /// origin is gone (no other server is asked), [`HostError::Skill`] for
    /// a path the entry does not list, a verification failure, or a skill
    /// loaded through an earlier connection of its origin; and as
    /// [`Host::call_tool`].
    pub async fn read_skill_file(
        &self,
        skill: &HostSkill,
        relative: &str,
    ) -> Result<SkillFile, HostError> {
        let loaded = &skill.skill;
        self.routed(&skill.origin, |c| async move {
            c.read_skill_file(loaded, relative).await
        })
        .await
    }

    /// The origin and entry of the catalogue skill `name`.
    fn skill_entry(&self, name: &str) -> Result<(String, SkillEntry), HostError> {
        let catalogue = self.catalogue();
        let s = catalogue
            .skill(name)
            .ok_or_else(|| HostError::UnknownSkill(name.into()))?;
        Ok((s.origin.clone(), s.item.clone()))
    }
}

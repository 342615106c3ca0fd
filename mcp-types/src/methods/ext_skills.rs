//! Methods of the skills extension (`io.modelcontextprotocol/skills`,
//! SEP-2640), the same in both revisions. Skill files are read with the
//! revision's own `resources/read`.

use crate::common::PaginatedRequestParams;
use crate::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadDirectoryRequestParams,
    ReadDirectoryResult,
};

request!(
    /// `skills/list`: one page of skill entries.
    ListSkills = SKILLS_LIST, PaginatedRequestParams => ListSkillsResult
);
request!(
    /// `skills/get`: the entry of one skill by the URI of its `SKILL.md`.
    GetSkill = SKILLS_GET, GetSkillRequestParams => GetSkillResult
);
request!(
    /// `resources/directory/read`: the direct children of a directory
    /// resource (only when the server declared `directoryRead: true`).
    ReadDirectory = DIRECTORY_READ, ReadDirectoryRequestParams => ReadDirectoryResult
);

/// Requests a client sends under this extension.
pub const CLIENT_REQUESTS: &[&str] = &["skills/list", "skills/get", "resources/directory/read"];

//! Skill roots and relative paths: a skill's root is the folder of its
//! `SKILL.md`; relative references resolve against it, never above it.

use mcp_types::skills::SKILL_MANIFEST;

use super::SkillError;

/// The root of the skill whose `SKILL.md` is at `uri`: the URI without
/// `/SKILL.md` (no trailing slash). The URI needs a scheme and at least
/// one `<skill-path>` segment.
///
/// ```
/// use mcp_client::skills::skill_root;
/// assert_eq!(skill_root("skill://acme/billing/refunds/SKILL.md").unwrap(), "skill://acme/billing/refunds");
/// assert!(skill_root("skill://SKILL.md").is_err());
/// assert!(skill_root("skill://a/README.md").is_err());
/// ```
///
/// # Errors
/// [`SkillError::NotASkillUri`].
pub fn skill_root(uri: &str) -> Result<&str, SkillError> {
    let not = || SkillError::NotASkillUri {
        uri: uri.to_owned(),
    };
    let (scheme, rest) = uri.split_once("://").ok_or_else(not)?;
    let root = uri
        .strip_suffix(SKILL_MANIFEST)
        .and_then(|r| r.strip_suffix('/'))
        .ok_or_else(not)?;
    // `skill://SKILL.md` leaves a root shorter than `skill://`.
    let path = root.get(scheme.len() + 3..).unwrap_or_default();
    let clean = !scheme.is_empty()
        && !path.is_empty()
        && !rest.contains(['?', '#'])
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    if clean { Ok(root) } else { Err(not()) }
}

/// Resolves `relative` (`references/FORMS.md`, `./a/../b.md`) against a
/// skill root, refusing absolute paths, URIs, queries, fragments and any
/// `..` that would leave the root.
///
/// ```
/// use mcp_client::skills::resolve_relative;
/// let root = "skill://pdf-processing";
/// assert_eq!(resolve_relative(root, "references/FORMS.md").unwrap(),
///            "skill://pdf-processing/references/FORMS.md");
/// assert_eq!(resolve_relative(root, "./a/../b.md").unwrap(), "skill://pdf-processing/b.md");
/// assert!(resolve_relative(root, "../other/SKILL.md").is_err());
/// ```
///
/// # Errors
/// [`SkillError::InvalidPath`] naming why.
pub fn resolve_relative(root: &str, relative: &str) -> Result<String, SkillError> {
    let refuse = |reason: &'static str| SkillError::InvalidPath {
        path: relative.to_owned(),
        root: root.to_owned(),
        reason,
    };
    if relative.is_empty() {
        return Err(refuse("the path is empty"));
    }
    if relative.starts_with('/') || relative.starts_with('\\') {
        return Err(refuse("absolute paths are not relative to the skill root"));
    }
    if relative.contains("://") || relative.contains(':') {
        return Err(refuse("a URI or drive path is not a relative path"));
    }
    if relative.contains(['?', '#', '\\', '\0']) {
        return Err(refuse(
            "queries, fragments, backslashes and NUL are not allowed",
        ));
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in relative.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(refuse("`..` leaves the skill root"));
                }
            }
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        return Err(refuse("the path names the skill root itself"));
    }
    Ok(format!("{root}/{}", segments.join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_drop_the_manifest_and_keep_nested_prefixes() {
        assert_eq!(skill_root("skill://a/SKILL.md").unwrap(), "skill://a");
        assert_eq!(
            skill_root("github://o/r/skills/x/SKILL.md").unwrap(),
            "github://o/r/skills/x"
        );
        for bad in [
            "skill://SKILL.md",
            "skill:///SKILL.md",
            "skill://a/skill.md",
            "skill:///SKILL.md",
            "skill://a//SKILL.md",
            "skill://a/../SKILL.md",
            "no-scheme/SKILL.md",
            "skill://a/SKILL.md?x",
        ] {
            assert!(skill_root(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn relative_paths_stay_inside_the_root() {
        let root = "skill://acme/billing/refunds";
        assert_eq!(
            resolve_relative(root, "examples/email.md").unwrap(),
            "skill://acme/billing/refunds/examples/email.md"
        );
        assert_eq!(
            resolve_relative(root, "a//b/./c.md").unwrap(),
            "skill://acme/billing/refunds/a/b/c.md"
        );
        for (bad, why) in [
            ("../x.md", "leaves"),
            ("a/../../x.md", "leaves"),
            ("/etc/passwd", "absolute"),
            ("skill://other/SKILL.md", "a URI"),
            ("c:/x", "drive path"),
            ("a?b", "queries"),
            ("a\\..\\b", "backslashes"),
            ("", "empty"),
            ("a/..", "root itself"),
        ] {
            let err = resolve_relative(root, bad).unwrap_err();
            assert!(
                matches!(&err, SkillError::InvalidPath { .. }) && err.to_string().contains(why),
                "{bad}: {err}"
            );
        }
    }
}

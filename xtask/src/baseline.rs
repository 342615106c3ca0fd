//! `conformance/expected-failures.yaml`: the scenarios known to fail, read
//! with a small hand-written parser for a documented subset of YAML.
//!
//! The subset is one flat mapping, one entry per line:
//!
//! ```yaml
//! # comments and blank lines are ignored
//! 2025-11-25/initialize: client facade not written yet
//! 2026-07-28/auth/metadata-default: "OAuth issue #8"
//! ```
//!
//! Each key is `<revision>/<scenario>` (the scenario may itself contain `/`),
//! starts at column 0 and uses only `A-Z a-z 0-9 . _ - /`; the value after
//! `": "` is the reason, required, optionally in double quotes (which it needs
//! when it contains `#` or starts with a quote). No nesting, lists, anchors,
//! multi-line values or trailing comments. Anything else is an error, as is a
//! duplicate key, so a typo cannot silently empty the baseline.

use std::collections::BTreeMap;

/// One run of one scenario at one revision.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    /// The spec revision the scenario ran at, e.g. `2025-11-25`.
    pub(crate) revision: String,
    /// The suite's scenario name, e.g. `auth/metadata-default`.
    pub(crate) scenario: String,
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.revision, self.scenario)
    }
}

/// The parsed baseline: expected failure -> reason.
pub(crate) type Baseline = BTreeMap<Key, String>;

/// Parses the baseline text; `origin` names the file in errors.
pub(crate) fn parse(text: &str, origin: &str) -> Result<Baseline, String> {
    let mut out = Baseline::new();
    for (index, line) in text.lines().enumerate() {
        let at = || format!("{origin}:{}", index + 1);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            return Err(format!("{}: entries start at column 0", at()));
        }
        let (key, value) = line
            .split_once(": ")
            .ok_or_else(|| format!("{}: expected `<revision>/<scenario>: <reason>`", at()))?;
        let key = parse_key(key).map_err(|e| format!("{}: {e}", at()))?;
        let reason = parse_reason(value).map_err(|e| format!("{}: {e}", at()))?;
        if out.contains_key(&key) {
            return Err(format!("{}: duplicate entry {key}", at()));
        }
        out.insert(key, reason);
    }
    Ok(out)
}

fn parse_key(key: &str) -> Result<Key, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/');
    if key.is_empty() || !key.chars().all(allowed) {
        return Err(format!("invalid key {key:?}"));
    }
    match key.split_once('/') {
        Some((revision, scenario)) if !revision.is_empty() && !scenario.is_empty() => Ok(Key {
            revision: revision.to_owned(),
            scenario: scenario.to_owned(),
        }),
        _ => Err(format!("key {key:?} is not `<revision>/<scenario>`")),
    }
}

fn parse_reason(value: &str) -> Result<String, String> {
    let value = value.trim();
    let reason = if let Some(rest) = value.strip_prefix('"') {
        let inner = rest
            .strip_suffix('"')
            .ok_or("unterminated double-quoted reason")?;
        if inner.contains('"') || inner.contains('\\') {
            return Err("quoted reasons may not contain `\"` or `\\`".into());
        }
        inner
    } else {
        if value.contains(" #") || value.starts_with(['\'', '#', '[', '{', '&', '*', '!', '|', '>'])
        {
            return Err(format!("reason {value:?} needs double quotes"));
        }
        value
    };
    if reason.trim().is_empty() {
        return Err("every entry needs a reason".into());
    }
    Ok(reason.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(revision: &str, scenario: &str) -> Key {
        Key {
            revision: revision.into(),
            scenario: scenario.into(),
        }
    }

    #[test]
    fn parses_entries_comments_and_quotes() {
        let text = "# header\n\n2025-11-25/initialize: not written yet\n\
                    2026-07-28/auth/metadata-default: \"OAuth issue #8\"\n";
        let parsed = parse(text, "f").expect("valid");
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[&key("2025-11-25", "initialize")], "not written yet");
        assert_eq!(
            parsed[&key("2026-07-28", "auth/metadata-default")],
            "OAuth issue #8"
        );
    }

    #[test]
    fn rejects_what_is_outside_the_subset() {
        for bad in [
            "  2025-11-25/initialize: indented",
            "2025-11-25/initialize:",
            "2025-11-25/initialize: ",
            "initialize: no revision",
            "2025-11-25/: no scenario",
            "2025-11-25/init ialize: space in key",
            "2025-11-25/initialize: trailing # comment",
            "2025-11-25/initialize: \"unterminated",
            "- 2025-11-25/initialize: a list",
            "client:",
        ] {
            assert!(parse(bad, "f").is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn rejects_duplicates_with_the_line_number() {
        let err = parse("2025-11-25/a: x\n2025-11-25/a: y\n", "f").expect_err("duplicate");
        assert!(err.starts_with("f:2:"), "{err}");
    }
}

//! The suite's own list of client scenarios, read from what
//! `conformance list --client` prints, and the runs it implies.
//!
//! The suite prints one scenario per line, each with the revisions it applies
//! to or the `extension` tag:
//!
//! ```text
//! Client scenarios (test against a client):
//!   - initialize [2025-06-18,2025-11-25]
//!   - auth/2025-03-26-oauth-endpoint-fallback [2025-03-26]
//!   - auth/dpop [extension]
//! ```
//!
//! A scenario runs once at every revision it names. Extensions name none: the
//! suite leaves them off every revision's timeline, so they run at each of
//! [`EXTENSION_REVISIONS`] with `--force` (the suite then speaks that
//! revision's wire). Anything else in the brackets, a line without them, a
//! repeated scenario or an empty listing is an error: a format change in the
//! suite must not silently shrink the runs.

use std::collections::BTreeSet;

/// The revisions every extension scenario runs at, oldest first.
pub(crate) const EXTENSION_REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The tag the suite prints instead of revisions for an extension scenario.
const EXTENSION_TAG: &str = "extension";

/// One scenario as the suite lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The scenario name, e.g. `auth/metadata-default`.
    pub(crate) scenario: String,
    /// The revisions it runs at (for an extension, [`EXTENSION_REVISIONS`]).
    pub(crate) revisions: Vec<String>,
    /// Whether the suite tags it `[extension]` (it then runs with `--force`).
    pub(crate) extension: bool,
}

/// One planned run: a scenario at one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// The spec revision, e.g. `2025-06-18`.
    pub(crate) revision: String,
    /// The scenario name.
    pub(crate) scenario: String,
    /// Whether the suite needs `--force` to run it at that revision.
    pub(crate) force: bool,
}

/// Parses the output of `conformance list --client`.
pub(crate) fn parse(text: &str) -> Result<Vec<Listed>, String> {
    let mut out: Vec<Listed> = Vec::new();
    let mut seen = BTreeSet::new();
    for (index, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("- ") else {
            continue;
        };
        let at = || format!("`conformance list --client` line {}", index + 1);
        let (scenario, tag) = rest
            .trim_end()
            .split_once(" [")
            .and_then(|(name, tail)| Some((name.trim(), tail.strip_suffix(']')?)))
            .ok_or_else(|| format!("{}: expected `- <scenario> [<revisions>]`: {rest:?}", at()))?;
        if scenario.is_empty() || scenario.contains(char::is_whitespace) {
            return Err(format!("{}: bad scenario name {scenario:?}", at()));
        }
        let extension = tag == EXTENSION_TAG;
        let revisions: Vec<String> = if extension {
            EXTENSION_REVISIONS
                .iter()
                .map(|r| (*r).to_owned())
                .collect()
        } else {
            tag.split(',').map(|r| r.trim().to_owned()).collect()
        };
        if let Some(bad) = revisions.iter().find(|r| !is_revision(r)) {
            return Err(format!(
                "{}: {scenario} names {bad:?}, not a revision (YYYY-MM-DD) or `{EXTENSION_TAG}`",
                at()
            ));
        }
        if !seen.insert(scenario.to_owned()) {
            return Err(format!("{}: {scenario} is listed twice", at()));
        }
        out.push(Listed {
            scenario: scenario.to_owned(),
            revisions,
            extension,
        });
    }
    if out.is_empty() {
        return Err("`conformance list --client` lists no client scenario".into());
    }
    Ok(out)
}

/// Every run the listing implies, grouped by revision (oldest first) and in
/// the suite's order within a revision.
pub(crate) fn runs(listed: &[Listed]) -> Vec<Run> {
    let revisions: BTreeSet<&str> = listed
        .iter()
        .flat_map(|l| l.revisions.iter().map(String::as_str))
        .collect();
    let mut out = Vec::new();
    for revision in revisions {
        for l in listed {
            if l.revisions.iter().any(|r| r == revision) {
                out.push(Run {
                    revision: revision.to_owned(),
                    scenario: l.scenario.clone(),
                    force: l.extension,
                });
            }
        }
    }
    out
}

/// `YYYY-MM-DD`, digits only (the form of every MCP revision).
pub(crate) fn is_revision(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Client scenarios (test against a client):\n  \
        - initialize [2025-06-18,2025-11-25]\n  \
        - tools_call [2025-06-18,2025-11-25,2026-07-28]\n  \
        - auth/2025-03-26-oauth-endpoint-fallback [2025-03-26]\n  \
        - auth/dpop [extension]\n  \
        - request-metadata [2026-07-28]\n";

    #[test]
    fn parses_revisions_and_extensions() {
        let listed = parse(SAMPLE).expect("valid");
        assert_eq!(listed.len(), 5);
        assert_eq!(listed[0].scenario, "initialize");
        assert_eq!(listed[0].revisions, ["2025-06-18", "2025-11-25"]);
        assert!(!listed[0].extension);
        assert_eq!(listed[3].scenario, "auth/dpop");
        assert_eq!(listed[3].revisions, EXTENSION_REVISIONS);
        assert!(listed[3].extension);
    }

    #[test]
    fn every_named_revision_is_a_run_and_only_extensions_are_forced() {
        let runs = runs(&parse(SAMPLE).expect("valid"));
        let shown: Vec<String> = runs
            .iter()
            .map(|r| {
                format!(
                    "{}/{}{}",
                    r.revision,
                    r.scenario,
                    if r.force { "!" } else { "" }
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "2025-03-26/auth/2025-03-26-oauth-endpoint-fallback",
                "2025-06-18/initialize",
                "2025-06-18/tools_call",
                "2025-11-25/initialize",
                "2025-11-25/tools_call",
                "2025-11-25/auth/dpop!",
                "2026-07-28/tools_call",
                "2026-07-28/auth/dpop!",
                "2026-07-28/request-metadata",
            ]
        );
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for bad in [
            "",
            "Client scenarios:\n",
            "  - initialize\n",
            "  - initialize []\n",
            "  - initialize [2025-06-18,]\n",
            "  - initialize [draft]\n",
            "  - initialize [2025-6-18]\n",
            "  - initialize [2025-06-18\n",
            "  - [2025-06-18]\n",
            "  - a b [2025-06-18]\n",
            "  - initialize [2025-06-18]\n  - initialize [2025-11-25]\n",
        ] {
            assert!(parse(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn revisions_are_dates() {
        assert!(is_revision("2025-03-26"));
        for bad in [
            "2025-03-2",
            "2025/03/26",
            "20250326xx",
            "2025-03-26 ",
            "abcd-ef-gh",
        ] {
            assert!(!is_revision(bad), "{bad}");
        }
    }
}

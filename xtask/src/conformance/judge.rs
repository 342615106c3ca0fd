//! The verdict on one run, from the suite's exit status, its console output
//! and the checks it wrote to `checks.json`.
//!
//! A run **passes** when the suite exits 0 and its checks hold at least one
//! `SUCCESS` and no `FAILURE` or `WARNING`. The "at least one success" rule
//! matters: `initialize` and `http-standard-headers` report a clean zero out
//! of zero when the client sends nothing at all. `SKIPPED` checks (the client
//! never exercised what they grade) do not fail a run, since some scenarios
//! skip a check by design at one revision, but every verdict names them, so a
//! skip the client could have avoided is visible.

use std::path::{Path, PathBuf};

/// What one scenario run came to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The run passed; the names of its `SKIPPED` checks, if any.
    Passed {
        /// The checks the suite skipped.
        skipped: Vec<String>,
    },
    /// The run failed, for the reason given.
    Failed(String),
    /// The suite says the scenario does not apply at this revision.
    Skipped,
}

/// The verdict (see the module docs for the rule).
pub(crate) fn judge(suite_ok: bool, log_text: &str, checks: &[serde_json::Value]) -> Outcome {
    let with_status = |s: &str| -> Vec<String> {
        checks
            .iter()
            .filter(|c| c["status"] == s)
            .map(|c| c["id"].as_str().unwrap_or("?").to_owned())
            .collect()
    };
    let (ok, failed, warned) = (
        with_status("SUCCESS"),
        with_status("FAILURE"),
        with_status("WARNING"),
    );
    let mut why = Vec::new();
    if !failed.is_empty() {
        why.push(format!("failed checks: {}", abbreviate(&failed)));
    }
    if !warned.is_empty() {
        why.push(format!("warnings: {}", abbreviate(&warned)));
    }
    if !suite_ok {
        let client_line = log_text
            .lines()
            .find(|l| l.contains("Client exited with code") || l.contains("Client timed out"));
        if let Some(line) = client_line {
            why.push(line.trim().to_lowercase());
        }
    }
    if ok.is_empty() && why.is_empty() {
        why.push("no check succeeded (the client did nothing gradeable)".into());
    }
    if !suite_ok && why.is_empty() {
        why.push("the suite exited with a failure".into());
    }
    if why.is_empty() {
        Outcome::Passed {
            skipped: skipped_checks(checks),
        }
    } else {
        Outcome::Failed(why.join("; "))
    }
}

/// The `SKIPPED` checks, by name: several checks of one scenario may share
/// an id (`http-standard-headers` grades every method under one), so the
/// name, which tells them apart, is shown when present.
pub(crate) fn skipped_checks(checks: &[serde_json::Value]) -> Vec<String> {
    checks
        .iter()
        .filter(|c| c["status"] == "SKIPPED")
        .map(|c| {
            c["name"]
                .as_str()
                .or_else(|| c["id"].as_str())
                .unwrap_or("?")
                .to_owned()
        })
        .collect()
}

/// `a, b, c (+N more)`.
pub(crate) fn abbreviate(ids: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = ids
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" (+{} more)", ids.len() - SHOWN));
    }
    text
}

/// The first file called `name` under `dir`, depth first.
pub(crate) fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks(statuses: &[&str]) -> Vec<serde_json::Value> {
        statuses
            .iter()
            .enumerate()
            .map(|(i, s)| serde_json::json!({"id": format!("c{i}"), "status": s}))
            .collect()
    }

    #[test]
    fn judge_needs_a_success_and_no_failure_or_warning() {
        let pass = |o: Outcome| matches!(o, Outcome::Passed { .. });
        assert!(pass(judge(true, "", &checks(&["SUCCESS", "INFO"]))));
        // A client that did nothing: the suite says 0/0 passed, we do not.
        assert!(!pass(judge(true, "", &checks(&[]))));
        assert!(!pass(judge(true, "", &checks(&["SKIPPED", "INFO"]))));
        assert!(!pass(judge(true, "", &checks(&["SUCCESS", "WARNING"]))));
        assert!(!pass(judge(false, "", &checks(&["SUCCESS", "FAILURE"]))));
        // The suite failed the run for a reason outside the checks.
        let Outcome::Failed(why) =
            judge(false, "Client exited with code 3\n", &checks(&["SUCCESS"]))
        else {
            panic!("a failed suite run passed");
        };
        assert_eq!(why, "client exited with code 3");
        assert!(!pass(judge(false, "", &checks(&["SUCCESS"]))));
    }

    #[test]
    fn a_passing_run_names_its_skipped_checks() {
        let mut all = checks(&["SUCCESS", "SKIPPED", "SKIPPED"]);
        all[2]["name"] = "ClientMcpNameHeader_prompts_get".into();
        assert_eq!(
            judge(true, "", &all),
            Outcome::Passed {
                skipped: vec!["c1".into(), "ClientMcpNameHeader_prompts_get".into()]
            }
        );
        assert_eq!(
            judge(true, "", &checks(&["SUCCESS"])),
            Outcome::Passed { skipped: vec![] }
        );
    }

    #[test]
    fn abbreviate_caps_the_list() {
        let ids: Vec<String> = (1..=5).map(|i| format!("c{i}")).collect();
        assert_eq!(abbreviate(&ids[..2]), "c1, c2");
        assert_eq!(abbreviate(&ids), "c1, c2, c3 (+2 more)");
    }
}

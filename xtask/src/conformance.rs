//! `cargo xtask conformance [--revision R] [--scenario S] [--timeout-ms N]`:
//! the official MCP conformance suite against our client binary.
//!
//! For each revision in [`REVISIONS`], the scenarios the suite itself lists
//! for it (`list --client --spec-version R`, which leaves out extensions),
//! plus the `auth/*` extension scenarios (run with `--force`), each run once
//! at that revision's wire version:
//!
//! ```text
//! node <suite> client --command <target>/debug/conformance --scenario S \
//!     --spec-version R --timeout N -o <target>/conformance-results/R/S
//! ```
//!
//! The suite starts a test server, runs our binary with the server URL as the
//! last argument and `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`
//! (and, for some scenarios, `MCP_CONFORMANCE_CONTEXT`) set, then grades the
//! traffic. A run **passes** when the suite exits 0, its `checks.json` holds at
//! least one `SUCCESS` and no `FAILURE` or `WARNING`. The "at least one success"
//! rule matters: `initialize` and `http-standard-headers` report a clean zero
//! out of zero when the client sends nothing at all.
//!
//! The outcome is compared with `conformance/expected-failures.yaml` (see
//! [`crate::baseline`]): a failure that is not listed is a regression, a listed
//! entry that passes (or names a scenario the suite no longer has) is stale;
//! either makes the command fail.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::baseline::{self, Key};
use crate::install::{self, Peers};
use crate::util;

/// The spec revisions we claim, oldest first.
pub(crate) const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The baseline file, relative to the workspace root.
const BASELINE: &str = "conformance/expected-failures.yaml";

/// Command-line options.
#[derive(Debug)]
struct Options {
    revision: Option<String>,
    scenario: Option<String>,
    timeout_ms: u64,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        revision: None,
        scenario: None,
        timeout_ms: 30_000,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--revision" => {
                let r = value()?;
                if !REVISIONS.contains(&r.as_str()) {
                    return Err(format!("unknown revision {r:?}; known: {REVISIONS:?}"));
                }
                options.revision = Some(r);
            }
            "--scenario" => options.scenario = Some(value()?),
            "--timeout-ms" => {
                let v = value()?;
                options.timeout_ms = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--timeout-ms {v:?} is not a positive integer"))?;
            }
            other => return Err(format!("unknown conformance option {other:?}")),
        }
    }
    Ok(options)
}

/// What one scenario run came to.
#[derive(Debug)]
enum Outcome {
    Passed,
    Failed(String),
    /// The suite says the scenario does not apply at this revision.
    Skipped,
}

/// Runs the suite (see the module docs).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = parse_options(args)?;
    let started = Instant::now();
    let peers = install::ensure()?;
    peers.print_versions()?;
    let baseline_path = util::root().join(BASELINE);
    let text = std::fs::read_to_string(&baseline_path)
        .map_err(|e| format!("cannot read {}: {e}", baseline_path.display()))?;
    let expected = baseline::parse(&text, BASELINE)?;
    let client = build_client()?;
    let results_root = client
        .parent()
        .and_then(Path::parent)
        .map(|target| target.join("conformance-results"))
        .ok_or("cannot place the results folder")?;

    let mut planned = Vec::new();
    for revision in REVISIONS {
        if options.revision.as_deref().is_some_and(|r| r != revision) {
            continue;
        }
        let mut scenarios = list_scenarios(&peers, revision)?;
        scenarios.extend(list_auth_extensions(&peers)?);
        for scenario in scenarios {
            if options.scenario.as_deref().is_none_or(|s| s == scenario) {
                planned.push(Key {
                    revision: revision.to_owned(),
                    scenario,
                });
            }
        }
    }
    if planned.is_empty() {
        return Err("no scenario matches the filters".into());
    }
    println!("==> conformance: {} scenario runs", planned.len());

    let mut passed = 0usize;
    let mut expected_failures = 0usize;
    let mut problems = Vec::new();
    let mut ran = BTreeSet::new();
    for key in &planned {
        let out_dir = results_root
            .join(&key.revision)
            .join(key.scenario.replace('/', "__"));
        let t0 = Instant::now();
        let outcome = run_one(&peers, &client, key, options.timeout_ms, &out_dir)?;
        let secs = t0.elapsed().as_secs_f64();
        let reason = expected.get(key);
        let verdict = match (&outcome, reason) {
            (Outcome::Passed, None) => {
                passed += 1;
                "pass".to_owned()
            }
            (Outcome::Passed, Some(_)) => {
                problems.push(format!("stale baseline entry {key}: it passes now"));
                "pass (STALE baseline entry: remove it)".to_owned()
            }
            (Outcome::Failed(why), Some(reason)) => {
                expected_failures += 1;
                format!("fail (expected: {reason}) [{why}]")
            }
            (Outcome::Failed(why), None) => {
                problems.push(format!("regression {key}: {why}"));
                format!("FAIL (REGRESSION) [{why}]")
            }
            (Outcome::Skipped, _) => {
                problems.push(format!("{key}: the suite skipped it as not applicable"));
                "SKIPPED by the suite".to_owned()
            }
        };
        ran.insert(key.clone());
        println!("{:<52} {verdict} ({secs:.1}s)", key.to_string());
    }

    for key in expected.keys() {
        let in_filter = options
            .revision
            .as_deref()
            .is_none_or(|r| r == key.revision)
            && options
                .scenario
                .as_deref()
                .is_none_or(|s| s == key.scenario);
        if in_filter && !ran.contains(key) {
            problems.push(format!(
                "stale baseline entry {key}: the suite has no such scenario at that revision"
            ));
        }
    }

    println!(
        "conformance summary: {} runs, {passed} passed, {expected_failures} failed as \
         expected, {} problem(s), {:.0}s; results in {}",
        planned.len(),
        problems.len(),
        started.elapsed().as_secs_f64(),
        results_root.display()
    );
    if problems.is_empty() {
        Ok(())
    } else {
        for p in &problems {
            eprintln!("conformance: {p}");
        }
        Err(format!(
            "{} conformance problem(s) against {BASELINE}",
            problems.len()
        ))
    }
}

/// Builds the `conformance` binary and returns its path.
fn build_client() -> Result<PathBuf, String> {
    println!("==> build: cargo build -p conformance");
    let out = install::capture(util::cargo().args([
        "build",
        "--quiet",
        "-p",
        "conformance",
        "--bin",
        "conformance",
        "--message-format=json-render-diagnostics",
    ]))?;
    let path = out
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| {
            msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "conformance"
        })
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .ok_or("cargo built no `conformance` executable")?;
    // The suite splits its --command on spaces and runs it through a shell.
    let text = path.to_str().ok_or("the binary path is not UTF-8")?;
    if !text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
    {
        return Err(format!(
            "the suite cannot run a binary at {text:?}: use a target folder whose path \
             has only letters, digits and `/._-`"
        ));
    }
    Ok(path)
}

/// The client scenarios the suite lists for `revision` (no extensions).
fn list_scenarios(peers: &Peers, revision: &str) -> Result<Vec<String>, String> {
    let out = install::capture(
        Command::new(&peers.node)
            .arg(&peers.conformance)
            .args(["list", "--client", "--spec-version", revision])
            .env("PATH", peers.path_env()?),
    )?;
    let names: Vec<String> = out
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return Err(format!("the suite lists no client scenario for {revision}"));
    }
    Ok(names)
}

/// The suite's `auth/*` extension scenarios (OAuth client credentials,
/// enterprise-managed authorization, DPoP, workload identity federation).
/// `list` tags them `[extension]` and leaves them out of every revision, so
/// they run at each revision with `--force` (the suite then speaks that
/// revision's wire).
fn list_auth_extensions(peers: &Peers) -> Result<Vec<String>, String> {
    let out = install::capture(
        Command::new(&peers.node)
            .arg(&peers.conformance)
            .args(["list", "--client"])
            .env("PATH", peers.path_env()?),
    )?;
    Ok(out
        .lines()
        .filter(|line| line.contains("[extension]"))
        .filter_map(|line| line.trim_start().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|name| name.starts_with("auth/"))
        .map(str::to_owned)
        .collect())
}

/// Runs one scenario and judges it from the exit code and `checks.json`.
fn run_one(
    peers: &Peers,
    client: &Path,
    key: &Key,
    timeout_ms: u64,
    out_dir: &Path,
) -> Result<Outcome, String> {
    if out_dir.exists() {
        std::fs::remove_dir_all(out_dir)
            .map_err(|e| format!("cannot clear {}: {e}", out_dir.display()))?;
    }
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let log_path = out_dir.join("suite.log");
    let log = File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let log2 = log
        .try_clone()
        .map_err(|e| format!("{}: {e}", log_path.display()))?;
    let mut child = Command::new(&peers.node)
        .arg(&peers.conformance)
        .arg("client")
        .arg("--command")
        .arg(client)
        .args(["--scenario", &key.scenario, "--spec-version", &key.revision])
        // Every planned run applies at its revision (the suite listed it, or
        // it is an extension we chose to run there), so `--force` only lifts
        // the suite's "not on the spec timeline" skip for the extensions.
        .arg("--force")
        .args(["--timeout", &timeout_ms.to_string(), "-o"])
        .arg(out_dir)
        .current_dir(out_dir)
        .env("PATH", peers.path_env()?)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| format!("cannot start the suite: {e}"))?;
    // The suite enforces --timeout on our client; this bounds the suite itself.
    let deadline = Instant::now() + Duration::from_millis(timeout_ms) + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Outcome::Failed(format!(
                "the suite itself hung; see {}",
                log_path.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
    if log_text.contains("SKIPPED: scenario") {
        return Ok(Outcome::Skipped);
    }
    let Some(checks_file) = find_file(out_dir, "checks.json") else {
        return Ok(Outcome::Failed(format!(
            "the suite wrote no checks.json ({status}); see {}",
            log_path.display()
        )));
    };
    let checks: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&checks_file)
            .map_err(|e| format!("{}: {e}", checks_file.display()))?,
    )
    .map_err(|e| format!("{}: {e}", checks_file.display()))?;
    let Some(checks) = checks.as_array() else {
        return Ok(Outcome::Failed(format!(
            "{} is not a JSON array",
            checks_file.display()
        )));
    };
    Ok(judge(status.success(), &log_text, checks))
}

/// The verdict on one run: the suite's exit status, its console output and
/// the checks it wrote (see the module docs for the rule).
fn judge(suite_ok: bool, log_text: &str, checks: &[serde_json::Value]) -> Outcome {
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
        Outcome::Passed
    } else {
        Outcome::Failed(why.join("; "))
    }
}

/// `a, b, c (+N more)`.
fn abbreviate(ids: &[String]) -> String {
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
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
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

    #[test]
    fn options_parse_and_reject_unknown_revisions() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let o = parse_options(&args(&[
            "--revision",
            "2026-07-28",
            "--scenario",
            "tools_call",
        ]))
        .expect("valid");
        assert_eq!(o.revision.as_deref(), Some("2026-07-28"));
        assert_eq!(o.scenario.as_deref(), Some("tools_call"));
        assert_eq!(o.timeout_ms, 30_000);
        assert!(parse_options(&args(&["--revision", "2024-11-05"])).is_err());
        assert!(parse_options(&args(&["--scenario"])).is_err());
        assert!(parse_options(&args(&["--timeout-ms", "0"])).is_err());
        assert!(parse_options(&args(&["--bogus"])).is_err());
    }

    fn checks(statuses: &[&str]) -> Vec<serde_json::Value> {
        statuses
            .iter()
            .enumerate()
            .map(|(i, s)| serde_json::json!({"id": format!("c{i}"), "status": s}))
            .collect()
    }

    #[test]
    fn judge_needs_a_success_and_no_failure_or_warning() {
        let pass = |o: Outcome| matches!(o, Outcome::Passed);
        assert!(pass(judge(
            true,
            "",
            &checks(&["SUCCESS", "INFO", "SKIPPED"])
        )));
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
    fn abbreviate_caps_the_list() {
        let ids: Vec<String> = (1..=5).map(|i| format!("c{i}")).collect();
        assert_eq!(abbreviate(&ids[..2]), "c1, c2");
        assert_eq!(abbreviate(&ids), "c1, c2, c3 (+2 more)");
    }
}

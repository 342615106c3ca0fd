//! `cargo xtask conformance [--revision R] [--scenario S] [--timeout-ms N]`:
//! the official MCP conformance suite against our client binary.
//!
//! The runs are the suite's own: `conformance list --client` names every
//! client scenario with the revisions it applies to (see [`listing`]), and
//! each scenario runs once at each of them, extensions at both 2025-11-25 and
//! 2026-07-28 (with `--force`, as the suite leaves them off every timeline):
//!
//! ```text
//! node <suite> client --command <target>/debug/conformance --scenario S \
//!     --spec-version R [--force] --timeout N -o <target>/conformance-results/R/S
//! ```
//!
//! The suite starts a test server, runs our binary with the server URL as the
//! last argument and `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`
//! (and, for some scenarios, `MCP_CONFORMANCE_CONTEXT`) set, then grades the
//! traffic. A scenario the binary does not implement exits non-zero and fails
//! its run like any other failure. [`judge`](mod@judge) decides each run from the exit
//! code and `checks.json`, and names the checks the suite `SKIPPED`.
//!
//! The outcome is compared with `conformance/expected-failures.yaml` (see
//! [`crate::baseline`]): a failure that is not listed is a regression, a listed
//! entry that passes (or names a run the suite no longer has) is stale;
//! either makes the command fail.

mod judge;
mod listing;

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::baseline::{self, Key};
use crate::install::{self, Peers};
use crate::util;
use judge::{Outcome, abbreviate, find_file, judge};
use listing::Run;

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
                if !listing::is_revision(&r) {
                    return Err(format!("--revision {r:?} is not a revision (YYYY-MM-DD)"));
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

impl Options {
    /// Whether the filters select `revision`/`scenario`.
    fn selects(&self, revision: &str, scenario: &str) -> bool {
        self.revision.as_deref().is_none_or(|r| r == revision)
            && self.scenario.as_deref().is_none_or(|s| s == scenario)
    }
}

/// Running totals for the summary.
#[derive(Debug, Default)]
struct Tally {
    passed: usize,
    expected_failures: usize,
    with_skipped_checks: usize,
    problems: Vec<String>,
}

impl Tally {
    /// Records one run's outcome against its baseline entry and returns the
    /// verdict to print.
    fn record(&mut self, key: &Key, outcome: Outcome, reason: Option<&String>) -> String {
        match (outcome, reason) {
            (Outcome::Passed { skipped }, None) => {
                self.passed += 1;
                if skipped.is_empty() {
                    "pass".to_owned()
                } else {
                    self.with_skipped_checks += 1;
                    format!(
                        "pass ({} check(s) SKIPPED: {})",
                        skipped.len(),
                        abbreviate(&skipped)
                    )
                }
            }
            (Outcome::Passed { .. }, Some(_)) => {
                self.problems
                    .push(format!("stale baseline entry {key}: it passes now"));
                "pass (STALE baseline entry: remove it)".to_owned()
            }
            (Outcome::Failed(why), Some(reason)) => {
                self.expected_failures += 1;
                format!("fail (expected: {reason}) [{why}]")
            }
            (Outcome::Failed(why), None) => {
                self.problems.push(format!("regression {key}: {why}"));
                format!("FAIL (REGRESSION) [{why}]")
            }
            (Outcome::Skipped, _) => {
                self.problems
                    .push(format!("{key}: the suite skipped it as not applicable"));
                "SKIPPED by the suite".to_owned()
            }
        }
    }
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

    let all_runs = listing::runs(&listing::parse(&list_client_scenarios(&peers)?)?);
    let planned: Vec<Run> = all_runs
        .iter()
        .filter(|r| options.selects(&r.revision, &r.scenario))
        .cloned()
        .collect();
    if planned.is_empty() {
        return Err("no scenario matches the filters".into());
    }
    println!(
        "==> conformance: {} scenario runs ({} listed by the suite)",
        planned.len(),
        all_runs.len()
    );

    let mut tally = Tally::default();
    for run in &planned {
        let key = Key {
            revision: run.revision.clone(),
            scenario: run.scenario.clone(),
        };
        let out_dir = results_root
            .join(&key.revision)
            .join(key.scenario.replace('/', "__"));
        let t0 = Instant::now();
        let outcome = run_one(&peers, &client, run, options.timeout_ms, &out_dir)?;
        let secs = t0.elapsed().as_secs_f64();
        let verdict = tally.record(&key, outcome, expected.get(&key));
        println!("{:<52} {verdict} ({secs:.1}s)", key.to_string());
    }

    let listed: BTreeSet<Key> = all_runs
        .iter()
        .map(|r| Key {
            revision: r.revision.clone(),
            scenario: r.scenario.clone(),
        })
        .collect();
    for key in expected.keys() {
        if options.selects(&key.revision, &key.scenario) && !listed.contains(key) {
            tally.problems.push(format!(
                "stale baseline entry {key}: the suite has no such scenario at that revision"
            ));
        }
    }

    println!(
        "conformance summary: {} runs, {} passed ({} with SKIPPED checks), {} failed as \
         expected, {} problem(s), {:.0}s; results in {}",
        planned.len(),
        tally.passed,
        tally.with_skipped_checks,
        tally.expected_failures,
        tally.problems.len(),
        started.elapsed().as_secs_f64(),
        results_root.display()
    );
    if tally.problems.is_empty() {
        Ok(())
    } else {
        for p in &tally.problems {
            eprintln!("conformance: {p}");
        }
        Err(format!(
            "{} conformance problem(s) against {BASELINE}",
            tally.problems.len()
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

/// What `conformance list --client` prints: every client scenario and the
/// revisions it applies to (parsed by [`listing::parse`]).
fn list_client_scenarios(peers: &Peers) -> Result<String, String> {
    install::capture(
        Command::new(&peers.node)
            .arg(&peers.conformance)
            .args(["list", "--client"])
            .env("PATH", peers.path_env()?),
    )
}

/// Runs one scenario and judges it from the exit code and `checks.json`.
fn run_one(
    peers: &Peers,
    client: &Path,
    run: &Run,
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
    let mut command = Command::new(&peers.node);
    command
        .arg(&peers.conformance)
        .arg("client")
        .arg("--command")
        .arg(client)
        .args(["--scenario", &run.scenario, "--spec-version", &run.revision]);
    if run.force {
        // Extensions are on no revision's timeline: `--force` lifts the
        // suite's "not applicable" skip. A listed run gets no such help, so
        // the suite skipping it is reported as a problem.
        command.arg("--force");
    }
    let mut child = command
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::args;

    #[test]
    fn options_parse_and_reject_what_is_not_a_revision() {
        let o = parse_options(&args(&[
            "--revision",
            "2025-03-26",
            "--scenario",
            "tools_call",
        ]))
        .expect("valid");
        assert_eq!(o.revision.as_deref(), Some("2025-03-26"));
        assert_eq!(o.scenario.as_deref(), Some("tools_call"));
        assert_eq!(o.timeout_ms, 30_000);
        assert!(o.selects("2025-03-26", "tools_call"));
        assert!(!o.selects("2025-06-18", "tools_call"));
        assert!(!o.selects("2025-03-26", "initialize"));
        assert!(parse_options(&args(&["--revision", "draft"])).is_err());
        assert!(parse_options(&args(&["--scenario"])).is_err());
        assert!(parse_options(&args(&["--timeout-ms", "0"])).is_err());
        assert!(parse_options(&args(&["--bogus"])).is_err());
    }

    fn key(scenario: &str) -> Key {
        Key {
            revision: "2025-11-25".into(),
            scenario: scenario.into(),
        }
    }

    #[test]
    fn the_tally_holds_the_baseline_semantics() {
        let mut t = Tally::default();
        let reason = "skills extension not implemented".to_owned();
        let pass = || Outcome::Passed { skipped: vec![] };
        assert_eq!(t.record(&key("a"), pass(), None), "pass");
        let v = t.record(
            &key("b"),
            Outcome::Passed {
                skipped: vec!["x".into()],
            },
            None,
        );
        assert_eq!(v, "pass (1 check(s) SKIPPED: x)");
        assert!(t.record(&key("c"), pass(), Some(&reason)).contains("STALE"));
        let v = t.record(&key("d"), Outcome::Failed("why".into()), Some(&reason));
        assert!(v.starts_with("fail (expected"), "{v}");
        let v = t.record(&key("e"), Outcome::Failed("why".into()), None);
        assert!(v.contains("REGRESSION"), "{v}");
        t.record(&key("f"), Outcome::Skipped, None);
        assert_eq!(
            (t.passed, t.with_skipped_checks, t.expected_failures),
            (2, 1, 1)
        );
        assert_eq!(t.problems.len(), 3, "{:?}", t.problems);
    }
}

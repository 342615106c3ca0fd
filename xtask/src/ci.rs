//! `cargo xtask ci`: every check CI runs, in order, failing fast: format,
//! clippy, `mcp-client`'s feature sets, tests, `mcp-client`'s
//! `opentelemetry` feature (clippy and its tests), doc tests, rustdoc, tidy, the
//! doc-path check, every `mcp-client` example against the demo server, the
//! size of the stdio-only hello world (`size --check`), then the official conformance
//! suite against its expected-failures baseline, and the interop tests
//! against real servers (server-everything, the Python SDK).
//!
//! Every build it starts is without incremental compilation
//! (`CARGO_INCREMENTAL=0`): each crate is built once, and the incremental
//! caches would double the disk the run takes.
//!
//! The tests run with insta in check mode (`INSTA_UPDATE=no`, `CI=true`): a
//! snapshot that no longer matches fails its test and nothing is written.
//! Insta lists every snapshot file an assertion used in
//! `INSTA_SNAPSHOT_REFERENCES_FILE`; a `.snap` file in the tree that is not
//! listed (its test was renamed or removed) fails the step, as
//! `cargo insta test --check --unreferenced=reject` would, without
//! installing `cargo-insta`. `cargo xtask ci --snapshots [-p CRATE]...` runs
//! only that step (for the named crates; their snapshot files only).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::{tidy, util};

/// Runs the checks.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("--snapshots") {
        return tests_and_snapshots(&args[1..]);
    }
    if let Some(a) = args.first() {
        return Err(format!("unknown ci option {a:?}"));
    }
    util::without_incremental();
    crate::install::ensure_tmux()?;
    util::run("fmt", util::cargo().args(["fmt", "--all", "--check"]))?;
    util::run(
        "clippy",
        util::cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    println!("==> features");
    crate::features::run(&[])?;
    tests_and_snapshots(&[])?;
    opentelemetry_feature()?;
    util::run(
        "doctest",
        util::cargo().args(["test", "--workspace", "--doc"]),
    )?;
    util::run(
        "doc",
        util::cargo()
            .args(["doc", "--workspace", "--no-deps"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    println!("==> tidy");
    tidy::run()?;
    crate::doccheck::run()?;
    crate::examples::run(&[])?;
    println!("==> size");
    crate::size::run(&["--check".to_owned()])?;
    println!("==> conformance");
    crate::conformance::run(&[])?;
    println!("==> interop");
    crate::interop::run(&[])?;
    println!("xtask ci: all checks passed");
    Ok(())
}

/// `mcp-client`'s optional `opentelemetry` feature, which the workspace
/// runs above leave off: clippy on the code it adds, and the trace context
/// tests (an in-memory exporter; `required-features` skips them elsewhere).
fn opentelemetry_feature() -> Result<(), String> {
    let feature = ["-p", "mcp-client", "--features", "opentelemetry"];
    let targets = ["--lib", "--test", "trace_context"];
    util::run(
        "clippy (opentelemetry)",
        util::cargo()
            .arg("clippy")
            .args(feature)
            .args(targets)
            .args(["--", "-D", "warnings"]),
    )?;
    util::run(
        "test (opentelemetry)",
        util::cargo()
            .arg("test")
            .args(feature)
            .args(["--test", "trace_context"]),
    )
}

/// Runs `cargo test --all-targets` (over the workspace, or the crates named
/// by `-p CRATE` in `args`) with insta in check mode, then fails on any
/// snapshot file of those crates that no test referenced.
fn tests_and_snapshots(args: &[String]) -> Result<(), String> {
    let crates = crate_filter(args)?;
    let root = util::root();
    let scratch = root.join("target");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let references = scratch.join("insta-references.txt");
    if let Err(e) = std::fs::remove_file(&references)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(format!("cannot reset {}: {e}", references.display()));
    }
    let mut cmd = util::cargo();
    cmd.args(["test", "--all-targets"])
        .env("INSTA_UPDATE", "no")
        .env("CI", "true")
        .env_remove("INSTA_FORCE_PASS")
        .env("INSTA_SNAPSHOT_REFERENCES_FILE", &references);
    if crates.is_empty() {
        cmd.arg("--workspace");
    }
    for c in &crates {
        cmd.args(["-p", c]);
    }
    util::run("test", &mut cmd)?;
    let referenced = read_references(&references)?;
    let dirs: Vec<PathBuf> = if crates.is_empty() {
        vec![root.clone()]
    } else {
        crates.iter().map(|c| root.join(c)).collect()
    };
    let mut unreferenced = Vec::new();
    for dir in dirs {
        for snap in snapshot_files(&dir)? {
            let canonical = snap.canonicalize().unwrap_or_else(|_| snap.clone());
            if !referenced.contains(&canonical) {
                unreferenced.push(
                    snap.strip_prefix(&root)
                        .unwrap_or(&snap)
                        .display()
                        .to_string(),
                );
            }
        }
    }
    if unreferenced.is_empty() {
        println!("==> snapshots: every snapshot file is referenced by a test");
        Ok(())
    } else {
        Err(format!(
            "snapshot files no test references (delete them, or restore their test):\n  {}",
            unreferenced.join("\n  ")
        ))
    }
}

/// The crate names of `-p CRATE` pairs; anything else is an error.
fn crate_filter(args: &[String]) -> Result<Vec<String>, String> {
    let mut crates = Vec::new();
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match (a.as_str(), rest.next()) {
            ("-p", Some(c)) => crates.push(c.clone()),
            _ => return Err(format!("ci --snapshots takes only -p CRATE, not {a:?}")),
        }
    }
    Ok(crates)
}

/// The snapshot paths insta wrote, canonical. A run with no snapshot
/// assertion at all writes no file: nothing is referenced.
fn read_references(path: &Path) -> Result<BTreeSet<PathBuf>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    Ok(text
        .lines()
        .map(PathBuf::from)
        .map(|p| p.canonicalize().unwrap_or(p))
        .collect())
}

/// Every `*.snap` file under `dir`, skipping `target`, hidden folders and
/// `node_modules`.
fn snapshot_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot list {}: {e}", d.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir {
                if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                    stack.push(path);
                }
            } else if name.ends_with(".snap") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

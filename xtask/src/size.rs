//! `cargo xtask size`: what a stdio-only hello world costs a user of
//! `mcp-client`, with its default features and with only `stdio`: unique
//! crates in the normal dependency tree, a fresh debug build's time and the
//! stripped release binary's size, next to rmcp 3.11's figures for the same
//! program (issue 15). The program is `xtask/size/hello-stdio`, its own
//! workspace, using `mcp-client` by path and the workspace's `Cargo.lock`.
//!
//! Options: `--tree-only` counts crates without building. `--check` (a step
//! of `cargo xtask ci`) measures the stdio-only build alone, crates and
//! stripped release binary, and fails when either is over rmcp's (the
//! binary was 3.73 MB when the check was added; reading every wire type
//! with one deserializer brought it under rmcp's 3.6 MB). Every run prints
//! the margin. Its
//! release build goes to a target folder kept in the cache
//! (`~/.cache/mcp-client-rs/size-check`, never inside the repository), so a
//! later check rebuilds only what changed. The full measurement builds in
//! throwaway folders under the same cache and removes them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::{install, util};

/// rmcp 3.11 (client + child process), measured for issue 15: unique crates,
/// fresh debug build, stripped release binary in bytes.
const RMCP: (usize, Duration, u64) = (77, Duration::from_secs(71), 3_600_000);

/// One build configuration of the hello world.
struct Variant {
    label: &'static str,
    flags: &'static [&'static str],
}

const DEFAULTS: Variant = Variant {
    label: "default features",
    flags: &[],
};

/// The target of issue 15: `default-features = false, features = ["stdio"]`
/// (hello-stdio always enables `stdio`).
const STDIO_ONLY: Variant = Variant {
    label: "stdio only",
    flags: &["--no-default-features"],
};

/// What was measured for one variant.
struct Figures {
    crates: usize,
    debug_build: Option<Duration>,
    release_bytes: Option<u64>,
}

/// Measures and prints the table, or runs the check.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (mut tree_only, mut check) = (false, false);
    for a in args {
        match a.as_str() {
            "--tree-only" => tree_only = true,
            "--check" => check = true,
            other => return Err(format!("unknown size option {other:?}")),
        }
    }
    let hello = hello_dir()?;
    if check {
        return run_check(&hello, tree_only);
    }
    let mut rows = Vec::new();
    for v in [&DEFAULTS, &STDIO_ONLY] {
        let crates = count_crates(&hello, v.flags)?;
        let (debug_build, release_bytes) = if tree_only {
            (None, None)
        } else {
            let target = install::cache_dir()
                .join("size")
                .join(v.label.replace(' ', "-"));
            let (t, b) = fresh_builds(&hello, v, &target)?;
            (Some(t), Some(b))
        };
        println!(
            "size: {}: {crates} crates, debug build {}, release binary {}",
            v.label,
            debug_build.map_or("not built".into(), duration),
            release_bytes.map_or("not built".into(), megabytes)
        );
        rows.push(Figures {
            crates,
            debug_build,
            release_bytes,
        });
    }
    print_table(&rows);
    Ok(())
}

/// The hello world's folder, with the workspace's `Cargo.lock` copied in
/// (the workspace's resolution, so the figures match what CI builds).
pub(crate) fn hello_dir() -> Result<PathBuf, String> {
    let hello = util::root().join("xtask/size/hello-stdio");
    std::fs::copy(util::root().join("Cargo.lock"), hello.join("Cargo.lock"))
        .map_err(|e| format!("copying Cargo.lock into {}: {e}", hello.display()))?;
    Ok(hello)
}

/// `--check`: the stdio-only build holds rmcp's crate count and binary size.
fn run_check(hello: &Path, tree_only: bool) -> Result<(), String> {
    let started = Instant::now();
    let crates = count_crates(hello, STDIO_ONLY.flags)?;
    let bytes = match tree_only {
        true => None,
        false => {
            let target = install::cache_dir().join("size-check");
            Some(release_build(hello, &STDIO_ONLY, &target)?)
        }
    };
    let gap = bytes.map_or("not built".into(), |b| match b.checked_sub(RMCP.2) {
        Some(over) => format!("{over} bytes over rmcp's {}", megabytes(RMCP.2)),
        None => format!("{} bytes under rmcp's {}", RMCP.2 - b, megabytes(RMCP.2)),
    });
    println!(
        "size check: stdio only: {crates} crates (at most {}, rmcp's), release binary {} \
         ({gap}), measured in {}",
        RMCP.0,
        bytes.map_or("not built".into(), |b| format!("{b} bytes")),
        duration(started.elapsed())
    );
    if crates > RMCP.0 || bytes.is_some_and(|b| b > RMCP.2) {
        return Err(format!(
            "the stdio-only hello world (mcp-client with default features off and `stdio`) \
             grew: {crates} crates (at most {}), {} (at most {} bytes); `cargo tree -e normal -p \
             mcp-client --no-default-features --features stdio` shows what it pulls in",
            RMCP.0,
            bytes.map_or("size not measured".into(), |b| format!("{b} bytes")),
            RMCP.2
        ));
    }
    Ok(())
}

/// Unique `name version` pairs in the normal dependency tree, the hello
/// world itself left out.
fn count_crates(hello: &Path, flags: &[&str]) -> Result<usize, String> {
    let out = util::cargo()
        .current_dir(hello)
        .args(["tree", "-e", "normal", "--prefix", "none"])
        .args(flags)
        .output()
        .map_err(|e| format!("cargo tree: cannot start: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let unique: BTreeSet<String> = text
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .filter(|k| !k.starts_with("hello-stdio "))
        .collect();
    Ok(unique.len())
}

/// `cargo build` of the hello world in `target`, with `profile` flags.
fn hello_build(hello: &Path, v: &Variant, target: &Path, profile: &[&str]) -> Command {
    let mut cmd = util::cargo();
    cmd.current_dir(hello)
        .env("CARGO_TARGET_DIR", target)
        .args(["build", "--quiet"])
        .args(profile)
        .args(v.flags);
    cmd
}

/// A release build in `target`; returns the stripped binary's size.
fn release_build(hello: &Path, v: &Variant, target: &Path) -> Result<u64, String> {
    util::run(
        &format!("release build, {}", v.label),
        &mut hello_build(hello, v, target, &["--release"]),
    )?;
    let binary: PathBuf = target
        .join("release")
        .join(format!("hello-stdio{}", std::env::consts::EXE_SUFFIX));
    Ok(std::fs::metadata(&binary)
        .map_err(|e| format!("{}: {e}", binary.display()))?
        .len())
}

/// A fresh debug build (timed) and a release build (its binary's size), in
/// `target`, emptied first and removed after.
fn fresh_builds(hello: &Path, v: &Variant, target: &Path) -> Result<(Duration, u64), String> {
    if target.exists() {
        std::fs::remove_dir_all(target).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    let started = Instant::now();
    util::run(
        &format!("debug build, {}", v.label),
        &mut hello_build(hello, v, target, &[]),
    )?;
    let debug = started.elapsed();
    let bytes = release_build(hello, v, target)?;
    // Gigabytes of a throwaway build: not kept.
    std::fs::remove_dir_all(target).map_err(|e| format!("{}: {e}", target.display()))?;
    Ok((debug, bytes))
}

fn megabytes(bytes: u64) -> String {
    // Display only: a binary's size is far below f64's exact range.
    #[allow(clippy::cast_precision_loss, reason = "display of a file size")]
    let mb = bytes as f64 / 1e6;
    format!("{mb:.1} MB")
}

fn duration(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}m{:02}s", s / 60, s % 60)
}

fn print_table(rows: &[Figures]) {
    let cell = |v: Option<String>| v.unwrap_or_else(|| "not built".into());
    println!("\nstdio hello world (connect, list, call), release binaries stripped:\n");
    println!(
        "| | mcp-client, {} | mcp-client, {} | rmcp 3.11 (client + child process) |",
        DEFAULTS.label, STDIO_ONLY.label
    );
    println!("| --- | --- | --- | --- |");
    println!(
        "| crates in the normal dependency tree (unique) | {} | {} | {} |",
        rows[0].crates, rows[1].crates, RMCP.0
    );
    println!(
        "| fresh debug build | {} | {} | {} |",
        cell(rows[0].debug_build.map(duration)),
        cell(rows[1].debug_build.map(duration)),
        duration(RMCP.1)
    );
    println!(
        "| release binary (stripped) | {} | {} | {} |",
        cell(rows[0].release_bytes.map(megabytes)),
        cell(rows[1].release_bytes.map(megabytes)),
        megabytes(RMCP.2)
    );
    println!("\nBuild times depend on the machine and its load; rmcp's were measured elsewhere.");
}

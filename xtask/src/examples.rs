//! `cargo xtask examples`: builds the demo server and every example of
//! `mcp-client`, then runs each against it. An example exits non-zero when
//! something it expects does not happen, so a green run proves the jobs the
//! examples show still work. Each run is bounded by a deadline.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::util;

/// How long one example may run before it counts as hung.
const DEADLINE: Duration = Duration::from_secs(120);

/// Builds and runs every example.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("unknown examples option {a:?}"));
    }
    let names = example_names(&util::root().join("mcp-client/examples"))?;
    util::run(
        "build demo-server and examples",
        util::cargo().args([
            "build",
            "-p",
            "demo-server",
            "-p",
            "mcp-client",
            "--examples",
            // Examples of features outside the defaults (`required-features`).
            "--features",
            "mcp-client/skills",
        ]),
    )?;
    let bin = target_dir().join("debug");
    let server = bin.join(format!("demo-server{}", std::env::consts::EXE_SUFFIX));
    let mut failed = Vec::new();
    for name in &names {
        let exe = bin
            .join("examples")
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        println!("==> example {name}");
        let started = Instant::now();
        let mut cmd = Command::new(&exe);
        cmd.env("MCP_DEMO_SERVER", &server);
        match run_bounded(cmd) {
            Ok(()) => println!("    ok ({} ms)", started.elapsed().as_millis()),
            Err(e) => {
                println!("    FAILED: {e}");
                failed.push(format!("{name}: {e}"));
            }
        }
    }
    if failed.is_empty() {
        println!("xtask examples: {} examples passed", names.len());
        Ok(())
    } else {
        Err(format!("examples failed:\n  {}", failed.join("\n  ")))
    }
}

/// The examples: every `*.rs` file directly in `dir` (a folder such as
/// `support/` is a shared module, not an example).
fn example_names(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().is_some_and(|x| x == "rs")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            names.push(stem.to_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// The cargo target folder (`CARGO_TARGET_DIR` or `<root>/target`).
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| util::root().join("target"), PathBuf::from)
}

/// Runs `cmd` to completion; kills it after [`DEADLINE`].
fn run_bounded(mut cmd: Command) -> Result<(), String> {
    let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let outcome = match rx.recv_timeout(DEADLINE) {
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => Err(format!("exited with {status}")),
        Ok(Err(e)) => Err(format!("cannot wait: {e}")),
        Err(_) => {
            // The waiter owns the child; end it by its pid.
            let _ = Command::new("kill").arg(pid.to_string()).status();
            Err(format!("no exit within {} s: killed", DEADLINE.as_secs()))
        }
    };
    let _ = waiter.join();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One example per common job (issue 15's list, plus the era-neutral
    /// typed calls): each must exist, so `cargo xtask examples` runs it.
    const JOBS: [&str; 11] = [
        "stdio",
        "http_token",
        "oauth",
        "handlers",
        "progress_cancel",
        "typed_results",
        "errors",
        "custom_transport",
        "raw_core",
        "tasks",
        "either_era",
    ];

    #[test]
    fn every_job_has_an_example_that_runs() {
        let names = example_names(&util::root().join("mcp-client/examples")).unwrap();
        for job in JOBS {
            assert!(
                names.iter().any(|n| n == job),
                "no example {job:?} in {names:?}"
            );
        }
        assert!(
            !names.iter().any(|n| n == "support"),
            "support/ is a module"
        );
    }
}

//! `cargo xtask ci`: every check CI runs, in order, failing fast: format,
//! clippy, tests, doc tests, rustdoc, tidy, the doc-path check, every
//! `mcp-client` example against the demo server, then the official conformance
//! suite against its expected-failures baseline, and the interop tests
//! against real servers (server-everything, the Python SDK).

use crate::{tidy, util};

/// Runs the checks.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("unknown ci option {a:?}"));
    }
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
    util::run(
        "test",
        util::cargo().args(["test", "--workspace", "--all-targets"]),
    )?;
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
    println!("==> conformance");
    crate::conformance::run(&[])?;
    println!("==> interop");
    crate::interop::run(&[])?;
    println!("xtask ci: all checks passed");
    Ok(())
}

//! Small helpers to run commands and find the workspace root.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`without_incremental`]: the cargo commands spawned from then on
/// build without incremental compilation.
static NOT_INCREMENTAL: AtomicBool = AtomicBool::new(false);

/// Every cargo command spawned after this call builds with
/// `CARGO_INCREMENTAL=0`. `cargo xtask ci` builds each crate once, so the
/// incremental caches (about as large as the build itself, some 4.6 GB for
/// the workspace's tests) would only take disk space on the machine it runs
/// on.
pub(crate) fn without_incremental() {
    NOT_INCREMENTAL.store(true, Ordering::Relaxed);
}

/// The workspace root (the parent of this crate's folder).
pub(crate) fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// The cargo binary that invoked us.
pub(crate) fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    if NOT_INCREMENTAL.load(Ordering::Relaxed) {
        cmd.env("CARGO_INCREMENTAL", "0");
    }
    cmd
}

/// Runs a command, echoing it, and fails if it fails.
pub(crate) fn run(step: &str, cmd: &mut Command) -> Result<(), String> {
    println!("==> {step}: {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("{step}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{step} failed ({status})"))
    }
}

/// The count a flag `--name[=N]` asks for: `None` when the command line
/// has no such flag, `default` when it is given bare, N (more than 0) when
/// it is given one; anything else (`--name=0`, `--name=x`, `--nameN`) is
/// an error that names it.
pub(crate) fn count_flag(
    args: &[String],
    name: &str,
    default: usize,
) -> Result<Option<usize>, String> {
    let Some((flag, rest)) = args.iter().find_map(|a| Some((a, a.strip_prefix(name)?))) else {
        return Ok(None);
    };
    if rest.is_empty() {
        return Ok(Some(default));
    }
    rest.strip_prefix('=')
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .map(Some)
        .ok_or_else(|| format!("`{flag}`: expected `{name}` or `{name}=N`, N > 0"))
}

/// A command line's arguments, for the tests of the commands that read
/// them.
#[cfg(test)]
pub(crate) fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| (*s).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_flag_reads_its_own_name_only() {
        let line = args(&["--table", "--rounds=33", "--functions"]);
        assert_eq!(count_flag(&line, "--rounds", 11), Ok(Some(33)));
        assert_eq!(count_flag(&line, "--functions", 20), Ok(Some(20)));
        assert_eq!(count_flag(&line, "--lto", 1), Ok(None));
        let e = count_flag(&args(&["--rounds=-1"]), "--rounds", 11).unwrap_err();
        assert!(e.contains("--rounds=-1") && e.contains("N > 0"), "{e}");
    }
}

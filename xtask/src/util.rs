//! Small helpers to run commands and find the workspace root.

use std::path::PathBuf;
use std::process::Command;

/// The workspace root (the parent of this crate's folder).
pub(crate) fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// The cargo binary that invoked us.
pub(crate) fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
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

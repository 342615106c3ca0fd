//! What the job examples share: finding the demo server binary, starting it
//! on HTTP, and failing loudly when an expectation does not hold.
//!
//! The examples talk to the workspace's demo server as a separate process,
//! exactly as your program would talk to any MCP server. Get the binary with
//!
//! ```text
//! cargo build -p demo-server
//! ```
//!
//! It lands next to the example binaries' folder (`target/debug/demo-server`),
//! where [`demo_server`] looks first; set `MCP_DEMO_SERVER` to use another
//! path. `cargo xtask examples` builds it and runs every example.

#![allow(dead_code, reason = "each example uses part of this module")]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// An example's error: anything that went wrong, as text or a source error.
pub(crate) type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The demo server binary: `$MCP_DEMO_SERVER`, else `target/<profile>/demo-server`.
pub(crate) fn demo_server() -> Result<PathBuf, Failure> {
    if let Some(path) = std::env::var_os("MCP_DEMO_SERVER") {
        return Ok(PathBuf::from(path));
    }
    // This example runs as target/<profile>/examples/<name>.
    let exe = std::env::current_exe()?;
    let profile_dir = exe
        .parent()
        .and_then(|examples| examples.parent())
        .ok_or("cannot locate the target folder from the example's path")?;
    let path = profile_dir.join(format!("demo-server{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "no demo server at {}: run `cargo build -p demo-server` first, \
             or set MCP_DEMO_SERVER",
            path.display()
        )
        .into())
    }
}

/// A demo server serving Streamable HTTP on an ephemeral loopback port;
/// killed when dropped.
pub(crate) struct HttpDemo {
    child: Child,
    /// The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`.
    pub(crate) url: String,
}

impl HttpDemo {
    /// Starts `demo-server --http 127.0.0.1:0` and reads the URL it prints.
    pub(crate) fn start() -> Result<Self, Failure> {
        Self::start_with(&[])
    }

    /// As [`HttpDemo::start`], with more arguments (`--oauth`, `--era legacy`).
    pub(crate) fn start_with(extra: &[&str]) -> Result<Self, Failure> {
        let mut child = Command::new(demo_server()?)
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("demo server has no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let url = line
            .trim()
            .strip_prefix("listening ")
            .ok_or_else(|| format!("unexpected first line from the demo server: {line:?}"))?
            .to_owned();
        Ok(Self { child, url })
    }
}

impl Drop for HttpDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Fails the example (non-zero exit) with `what` unless `ok`.
pub(crate) fn expect(ok: bool, what: &str) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(format!("expectation failed: {what}").into())
    }
}

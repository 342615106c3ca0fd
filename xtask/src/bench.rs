//! `cargo xtask bench [--quick]`: the client benchmark.
//!
//! Runs `mcp-client/benches/calls.rs` in release mode: sequential and
//! 32-way concurrent `tools/call` over stdio and HTTP against the demo
//! server, and 1 MiB results, printing calls/s, p50 and p99 latency and
//! client CPU per call next to a hand-written floor client; then 10,000
//! calls in flight on one connection, the memory of an idle connection and
//! the peak RSS. `--quick` runs fewer calls.

use crate::util;

/// Runs the benchmark, passing `args` through (`--quick`).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut cmd = util::cargo();
    cmd.args(["bench", "-p", "mcp-client", "--bench", "calls", "--"]);
    cmd.args(args);
    util::run("bench", &mut cmd)
}

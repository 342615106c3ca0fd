//! `cargo xtask bench [--quick]`: the client benchmark.
//!
//! Runs `mcp-client/benches/calls.rs` in release mode: sequential and
//! 32-way concurrent `tools/call` over stdio and HTTP against the demo
//! server (a separate process), and 1 MiB results, printing calls/s, p50
//! and p99 latency, client CPU per call and RSS growth next to hand-written
//! floor clients (stdio: lines and `serde_json`; HTTP: a bare hyper POST
//! client), each figure the median of several paired runs; then 10,000
//! calls in flight on one connection and the memory of an idle stdio and
//! HTTP connection, measured over 100 clients in a fresh process.
//! `--quick` runs fewer calls; `--only TEXT` and `--no-floor` narrow a run
//! for profiling. Then the host benchmark (`bench_host.rs`; `--host` runs
//! only that) and the CLI benchmark, `mcp` next to the Inspector's `mcpdo`
//! (`bench_cli.rs`; `--cli` runs only that).

use crate::util;

/// Runs the benchmark, passing `args` through (`--quick`, `--only TEXT`,
/// `--no-floor`).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--host") {
        return crate::bench_host::run(args);
    }
    if args.iter().any(|a| a == "--cli") {
        return crate::bench_cli::run(args);
    }
    let mut cmd = util::cargo();
    cmd.args(["bench", "-p", "mcp-client", "--bench", "calls", "--"]);
    cmd.args(args);
    util::run("bench", &mut cmd)?;
    // A narrowed client run (`--only`) is for profiling the client alone.
    if args.iter().any(|a| a == "--only") {
        return Ok(());
    }
    crate::bench_host::run(args)?;
    crate::bench_cli::run(args)
}

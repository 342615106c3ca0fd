//! The host part of `cargo xtask bench`: builds the demo server in release
//! mode, then runs `mcp-host/benches/host.rs` against it (100 stdio servers
//! from one config: time to all ready, memory per server, routed vs direct
//! `tools/call`).

use crate::util;

/// Runs the host benchmark; `--quick` makes fewer calls.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let server = crate::bench_table::build_demo_server("bench host: build the demo server")?;
    let mut cmd = util::cargo();
    cmd.args([
        "bench", "-p", "mcp-host", "--bench", "host", "--", "--server",
    ]);
    cmd.arg(server);
    if args.iter().any(|a| a == "--quick") {
        cmd.arg("--quick");
    }
    util::run("bench host", &mut cmd)
}

//! `cargo xtask bench [--quick] [--table | --no-table | --icount | --host | --cli]`: the
//! client benchmarks.
//!
//! 1. The side-by-side table (`bench_table.rs`): client CPU per
//!    `tools/call` of the strict floor, rmcp and this SDK (both tokio
//!    runtimes), both revisions, in one run against one server (rmcp-based,
//!    `bench/rmcp-server`, as issue 18 has it; `--demo-server`: the
//!    workspace's demo server), with each figure's ratio to the floor and
//!    its target, and how many times cheaper than rmcp this SDK is (issue
//!    18 asks 2x), the client and the server pinned to one CPU as issue 18
//!    measures (`--split`: the server on another CPU), every client built
//!    with the default release profile (`--lto`: each with fat LTO and one
//!    codegen unit; `--hot-first`: two more columns, the SDK's client linked
//!    with a call's functions together and with only its own of them
//!    together, `bench_layout.rs`; `--parts`: one more, this SDK's per-call
//!    parts without its engine, `bench/clients/src/bin/parts.rs`;
//!    `--cold-tlb`: the one-call-at-a-time rows with the client's TLB
//!    emptied between its turns, as on a CPU without PCID, `bench_cold.rs`;
//!    `--rounds=N`: N rounds instead of 11, for a steadier median on a
//!    drifting machine).
//!    `--table` runs only this.
//! 2. `mcp-client/benches/calls.rs` in release mode: sequential and 32-way
//!    concurrent `tools/call` over stdio and HTTP and 1 MiB results, with
//!    calls/s, p50 and p99 latency, client CPU per call and RSS growth next
//!    to its own async floor (lines and `serde_json` over stdio, a bare
//!    hyper POST client over HTTP); then 10,000 calls in flight on one
//!    connection and the memory of an idle connection. `--only TEXT` and
//!    `--no-floor` narrow it for profiling (and skip the rest).
//! 3. The host benchmark (`bench_host.rs`); `--host` runs only that.
//! 4. The CLI benchmark: `mcp` next to the Inspector's `mcpdo`, start-up
//!    to a tool list and a call on a held connection (`bench_cli.rs`;
//!    `--cli` runs only that).
//!
//! `--quick` runs fewer calls everywhere; `--no-table` skips part 1;
//! `--icount` runs only the instruction count of the table's clients
//! (`bench_icount.rs`), with their atomic writes and the code a call
//! executes in pages and lines (`bench_profile.rs`), which a loaded
//! machine does not disturb; against the demo server, or with
//! `--rmcp-server` the table's (`--parts` adds the SDK's parts there too);
//! `--functions[=N]` adds, for each scenario, the N functions this SDK's
//! call runs on the most lines of and the N making the most of its atomic
//! writes; `--data` the data pages and lines a call
//! touches, one call at a time, under valgrind's lackey (`bench_data.rs`).

use crate::util;

/// Runs the benchmark, passing `args` through (`--quick`, `--only TEXT`,
/// `--no-floor`).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--host") {
        return crate::bench_host::run(args);
    }
    if has("--cli") {
        return crate::bench_cli::run(args);
    }
    if has("--icount") {
        return crate::bench_icount::run(args);
    }
    let narrowed = has("--only");
    if !has("--no-table") && !narrowed {
        crate::bench_table::run(args)?;
    }
    if has("--table") {
        return Ok(());
    }
    let mut cmd = util::cargo();
    cmd.args(["bench", "-p", "mcp-client", "--bench", "calls", "--"]);
    cmd.args(args.iter().filter(|a| {
        !matches!(
            a.as_str(),
            "--no-table"
                | "--split"
                | "--demo-server"
                | "--rmcp-server"
                | "--lto"
                | "--hot-first"
                | "--parts"
                | "--cold-tlb"
        ) && !a.starts_with("--rounds")
    }));
    util::run("bench", &mut cmd)?;
    // A narrowed client run (`--only`) is for profiling the client alone.
    if narrowed {
        return Ok(());
    }
    crate::bench_host::run(args)?;
    crate::bench_cli::run(args)
}

//! `cargo xtask`: the project's automation, in Rust, with no heavy dependencies.
//!
//! * `cargo xtask ci`: everything CI checks (format, lints, tests, docs, tidy,
//!   and the external suites as they land).
//! * `cargo xtask tidy`: the repository's own rules (see [`tidy`]).
//! * `cargo xtask install`: Node 22, the conformance suite and the interop
//!   peers, pinned, into a cache outside the repository (see [`install`]).
//! * `cargo xtask conformance`: the official client conformance suite against
//!   the `conformance` binary, judged against a baseline (see [`conformance`]).
//! * `cargo xtask interop`: the interop tests against real servers (see [`interop`]).
//! * `cargo xtask examples`: every `mcp-client` example against the demo server
//!   (see [`examples`]).
//! * `cargo xtask size`: what a stdio-only hello world costs (see [`size`]).
//! * `cargo xtask features`: `mcp-client`'s feature sets build warning-free
//!   (see [`features`]).
//! * `cargo xtask doccheck`: `mcp-client`'s doc code uses only paths a user
//!   crate can reach (see [`doccheck`]).

mod baseline;
mod bench;
mod bench_atomics;
mod bench_cli;
mod bench_cold;
mod bench_data;
mod bench_host;
mod bench_icount;
mod bench_layout;
mod bench_profile;
mod bench_report;
mod bench_table;
mod ci;
mod conformance;
mod doc_external;
mod doccheck;
mod examples;
mod features;
mod install;
mod interop;
mod size;
mod tidy;
mod util;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci::run(&args[1..]),
        Some("tidy") => tidy::run(),
        Some("bench") => bench::run(&args[1..]),
        Some("install") => install::run(&args[1..]),
        Some("conformance") => conformance::run(&args[1..]),
        Some("interop") => interop::run(&args[1..]),
        Some("examples") => examples::run(&args[1..]),
        Some("doccheck") => doccheck::run(),
        Some("size") => size::run(&args[1..]),
        Some("features") => features::run(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print_help();
            Ok(())
        }
        Some(other) => Err(format!("unknown command {other:?}; try `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_help() {
    println!("cargo xtask <command>\n");
    for line in [
        "ci           format check, clippy, tests, docs, tidy (what CI runs)",
        "tidy         repository rules: module docs, file sizes, sans-I/O dependencies",
        "install      Node 22, the conformance suite, server-everything and the Python SDK,",
        "             pinned, into $XDG_CACHE_HOME/mcp-client-rs (skips what is there)",
        "conformance  [--revision R] [--scenario S] [--timeout-ms N]: the official client suite",
        "             at every revision it lists, judged by conformance/expected-failures.yaml",
        "interop      install, smoke-check the peer servers, run the interop tests (conformance crate)",
        "doccheck     mcp-client doc examples: no internal crate paths; compiled as a user crate",
        "examples     build and run every mcp-client example against the demo server",
        "size         [--tree-only] [--check]: stdio hello world crates, build time, binary size",
        "features     mcp-client with no features, each alone, and all: clippy -D warnings",
        "bench        [--quick]: client CPU per tools/call of the strict floor, rmcp and this",
        "             SDK side by side against an rmcp-based server (`--demo-server`: the",
        "             demo server), client and server on one CPU (`--split`: the server",
        "             on another; `--lto`: clients built with fat LTO; `--hot-first`: the",
        "             SDK also linked with a call's functions together, and with only",
        "             its own of them together; `--parts`: the SDK's per-call parts",
        "             without its engine (one call at a time); `--cold-tlb`: the",
        "             one-call-at-a-time rows with the client's TLB emptied between its",
        "             turns, as on a CPU without PCID; `--table` runs",
        "             only that; `--icount` instead counts",
        "             instructions per call under callgrind, `--data` adds the data a",
        "             call touches under lackey); then throughput, latency",
        "             and CPU vs. an async floor; then mcp-host: 100 stdio servers, time to",
        "             ready, memory, routing overhead (`--host` runs only the host part);",
        "             then the mcp CLI next to the Inspector's mcpdo: start-up to a tool",
        "             list, a call on a held connection (`--cli` runs only the CLI part)",
    ] {
        println!("{line}");
    }
}

//! The strict floor of `cargo xtask bench`: the cheapest client this wire
//! allows, to measure the SDK against.
//!
//! - stdio ([`stdio`]): one thread, blocking pipes, requests pre-built as
//!   byte templates with only the id changing, replies parsed in place into
//!   a small borrowed struct, writes flushed only when no reply is left to
//!   read;
//! - HTTP ([`http`]): a current-thread tokio runtime and one keep-alive
//!   HTTP/1.1 connection per caller, the same templates behind a fixed
//!   header block, the response head parsed with `httparse`.
//!
//! `--runtime tokio` runs the stdio floor's loop on tokio instead
//! ([`stdio_tokio`]): a reference for the runtime's own cost, not the
//! floor.
//!
//! At 2025-11-25 it does the `initialize` handshake first (and keeps the
//! HTTP session id); at 2026-07-28 every request carries the `_meta` the
//! revision requires and nothing precedes it. The command line and output
//! are `bench/common/measure.rs`'s.

#[path = "../../../../common/measure.rs"]
mod measure;

#[path = "../../../../common/counting_alloc.rs"]
mod counting_alloc;

#[path = "../../../../common/spawn.rs"]
mod spawn;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

mod http;
mod lines;
mod reply;
mod start;
mod stdio;
mod stdio_tokio;
mod window;

/// The 2025-11-25 `initialize` request (id 1).
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}"#;

/// The `notifications/initialized` notification.
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn main() {
    let args = measure::Args::parse();
    if args.via == "http" {
        http::run(&args);
    } else if args.runtime == "tokio" {
        stdio_tokio::run(&args);
    } else {
        stdio::run(&args);
    }
}

//! How both stdio floors (`stdio.rs`, blocking; `stdio_tokio.rs`, on
//! tokio, which takes the same pipes over) start, once the server runs
//! (`bench/common/spawn.rs`): the two halves of the 2025-11-25 handshake
//! around the wait for its reply.

use crate::measure::{Args, fail};

/// Queues the `initialize` request at 2025-11-25; `false` at 2026-07-28,
/// where nothing precedes the calls.
pub fn queue_initialize(args: &Args, out: &mut Vec<u8>) -> bool {
    if args.era == "modern" {
        return false;
    }
    out.extend_from_slice(crate::INITIALIZE.as_bytes());
    out.push(b'\n');
    true
}

/// Checks the `initialize` reply and queues `notifications/initialized`.
pub fn initialized(reply: &[u8], out: &mut Vec<u8>) {
    if !reply.windows(8).any(|w| w == b"\"result\"") {
        fail("initialize failed");
    }
    out.extend_from_slice(crate::INITIALIZED.as_bytes());
    out.push(b'\n');
}

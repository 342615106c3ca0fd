//! How both stdio floors (`stdio.rs`, blocking; `stdio_tokio.rs`, on
//! tokio) start: the server's command, its stdout pipe grown, and the two
//! halves of the 2025-11-25 handshake around the wait for its reply.

use std::process::{Command, Stdio};

use crate::measure::{Args, fail};

/// The server's command line with piped stdin and stdout, its stderr
/// discarded.
pub fn server_command(args: &Args) -> Command {
    let mut command = Command::new(&args.server[0]);
    command
        .args(&args.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// Grows the server's stdout pipe to 1 MiB. The SDK grows it once a reply
/// outgrows it; the floor starts with it grown, so a large reply crosses
/// in one piece here too.
pub fn grow_pipe(stdout: &impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(stdout, 1024 * 1024);
}

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

//! How both stdio floors (`stdio.rs`, blocking; `stdio_tokio.rs`, on
//! tokio, which takes the same pipes over) start: the server with its
//! stdout pipe grown, and the two halves of the 2025-11-25 handshake
//! around the wait for its reply.

use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::measure::{Args, fail};

/// Starts the server from its command line with piped stdin and stdout
/// (its stderr discarded), its stdout pipe grown to 1 MiB: the SDK grows
/// it once a reply outgrows it; the floor starts with it grown, so a large
/// reply crosses in one piece here too.
pub fn spawn(args: &Args) -> (Child, ChildStdin, ChildStdout) {
    let mut child = Command::new(&args.server[0])
        .args(&args.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("spawn the server: {e}")));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        fail("no pipes")
    };
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(&stdout, 1024 * 1024);
    (child, stdin, stdout)
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

//! How the stdio bench clients that take the server's pipes themselves
//! (the floors, the SDK's parts) start it.

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

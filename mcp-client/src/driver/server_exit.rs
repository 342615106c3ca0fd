//! How a stdio server's exit reaches the failed calls' errors.
//!
//! When the server process ends (it crashed, was killed, or exited on its
//! own), the receiver reports it once the exit status and the last stderr
//! lines are known. The driver records that report (exit status or signal,
//! stderr tail, messages received) in the state every handle shares, and
//! attaches it to every error the end of the transport causes: the calls
//! that were pending and the calls made afterwards. Their `Display` then
//! names the exit first, for example `the server process exited (signal: 9
//! (SIGKILL)) before the response arrived; stderr: ...`.

#[cfg(feature = "stdio")]
use mcp_transport_stdio::ProcessExited;

use super::Driver;
use crate::error::Error;
#[cfg(feature = "stdio")]
use crate::transport::Link;

impl Driver {
    /// Whether the link is a child process's stdio.
    #[cfg(feature = "stdio")]
    pub(super) fn has_server_process(&self) -> bool {
        matches!(
            &self.link,
            Some(Link::Stream {
                process: Some(_),
                ..
            })
        )
    }

    /// No child processes without the `stdio` feature.
    #[cfg(not(feature = "stdio"))]
    pub(super) fn has_server_process(&self) -> bool {
        false
    }

    /// No child processes without the `stdio` feature: no exit to note.
    #[cfg(not(feature = "stdio"))]
    pub(super) fn note_server_exit(&self) {}

    /// Records how the stdio server ended, when it did: called when the
    /// transport ends, before the core fails the pending calls.
    #[cfg(feature = "stdio")]
    pub(super) fn note_server_exit(&self) {
        let Some(Link::Stream {
            receiver,
            process: Some(process),
            ..
        }) = &self.link
        else {
            return;
        };
        if !process.has_exited() {
            return;
        }
        let exit = ProcessExited::new(
            process.exit_status(),
            process.stderr_tail(),
            receiver.messages_received(),
        );
        tracing::debug!(%exit, "the server process ended");
        self.shared.set_exit(exit);
    }

    /// `e` with the server's exit attached, when the server has exited.
    pub(super) fn with_server_exit(&self, e: Error) -> Error {
        match self.shared.exit() {
            Some(exit) => e.with_exit(exit),
            None => e,
        }
    }
}

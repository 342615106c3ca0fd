//! How a stdio server's exit reaches the caller: the failed calls' errors
//! and [`Client::server_exit`].
//!
//! When the server process ends (it crashed, was killed, or exited on its
//! own), the receiver reports it once the exit status and the last stderr
//! lines are known. The driver records that report (exit status or signal,
//! stderr tail, messages received) in the state every handle shares, and
//! attaches it to every error the end of the transport causes: the calls
//! that were pending and the calls made afterwards. Their `Display` then
//! names the exit first, for example `the server process exited (signal: 9
//! (SIGKILL)) before the response arrived; stderr: ...`.

use std::sync::PoisonError;

use mcp_transport_stdio::ProcessExited;

use crate::client::{Client, Shared};
use crate::driver::Driver;
use crate::error::Error;
use crate::transport::Link;

impl Driver {
    /// Records how the stdio server ended, when it did: called when the
    /// transport ends, before the core fails the pending calls.
    pub(crate) fn note_server_exit(&self) {
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
    pub(crate) fn with_server_exit(&self, e: Error) -> Error {
        match self.shared.exit() {
            Some(exit) => e.with_exit(exit),
            None => e,
        }
    }
}

impl Shared {
    pub(crate) fn set_exit(&self, exit: ProcessExited) {
        *self.exit.lock().unwrap_or_else(PoisonError::into_inner) = Some(exit);
    }

    pub(crate) fn exit(&self) -> Option<ProcessExited> {
        self.exit
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Client {
    /// How the stdio server process ended, once it has: its exit status
    /// (or the signal that killed it), the last lines it wrote to stderr,
    /// and how many messages it sent. `None` while it runs, for other
    /// transports, and when the client itself stopped the server
    /// ([`Client::close`]).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) {
    /// if let Err(e) = client.list_all_tools().await {
    ///     if let Some(exit) = client.server_exit() {
    ///         eprintln!("the server died: {:?}; stderr: {:?}", exit.status, exit.stderr_tail);
    ///     } else {
    ///         eprintln!("{e}");
    ///     }
    /// }
    /// # }
    /// ```
    pub fn server_exit(&self) -> Option<ProcessExited> {
        self.inner.shared.exit()
    }
}

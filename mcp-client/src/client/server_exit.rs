//! [`Client::server_exit`]: how a stdio server's process ended, once it
//! has. The driver records it in the state every handle shares and attaches
//! it to the errors the end of the transport causes.

use std::sync::PoisonError;

use mcp_transport_stdio::ProcessExited;

use crate::client::{Client, Shared};

impl Shared {
    #[cfg(feature = "stdio")]
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

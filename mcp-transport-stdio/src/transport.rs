//! [`StdioTransport`]: a server child process with framed stdin and stdout.

use crate::command::ServerCommand;
use crate::error::{RecvError, SendError, SpawnError};
use crate::framed::{Inbound, Receiver, Sender};
use crate::process::{self, ServerProcess};
use crate::shutdown::ExitInfo;

/// A connection to a server running as a child process.
///
/// Send with [`send`](Self::send) (or cloned [`Sender`]s from
/// [`sender`](Self::sender)), receive with [`recv`](Self::recv), stop with
/// [`shutdown`](Self::shutdown). [`into_parts`](Self::into_parts) splits it
/// for a reader task and writer tasks.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_transport_stdio::{Inbound, ServerCommand, StdioTransport};
/// let mut transport = StdioTransport::spawn(ServerCommand::new("my-mcp-server"))?;
/// transport
///     .send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
///     .await?;
/// while let Some(item) = transport.recv().await {
///     match item? {
///         Inbound::Message(message) => { /* hand it to the core */ break; }
///         other => eprintln!("{other:?}"),
///     }
/// }
/// let exit = transport.shutdown().await;
/// println!("{:?} after {:?}", exit.outcome, exit.elapsed);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct StdioTransport {
    sender: Sender,
    receiver: Receiver,
    process: ServerProcess,
}

impl StdioTransport {
    /// Starts the server. Must be called within a Tokio runtime with I/O
    /// and time enabled.
    ///
    /// # Errors
    /// [`SpawnError`] when the program is not found or cannot be started.
    pub fn spawn(command: ServerCommand) -> Result<Self, SpawnError> {
        let spawned = process::spawn(&command)?;
        Ok(StdioTransport {
            sender: spawned.sender,
            receiver: spawned.receiver,
            process: spawned.process,
        })
    }

    /// Writes one message (serialized JSON without a trailing newline) and
    /// a `\n` to the server's stdin.
    ///
    /// # Errors
    /// See [`Sender::send`]; a server that exited gives
    /// [`SendError::PeerClosed`], never a crash.
    pub async fn send(&self, message: &[u8]) -> Result<(), SendError> {
        self.sender.send(message).await
    }

    /// A sender sharing this transport's serialized writer.
    pub fn sender(&self) -> Sender {
        self.sender.clone()
    }

    /// The next item from the server's stdout; see [`Receiver::recv`].
    /// The connection ends with [`RecvError::ProcessExited`] (exit status
    /// and stderr tail) or [`RecvError::StdoutClosed`], then `None`.
    pub async fn recv(&mut self) -> Option<Result<Inbound, RecvError>> {
        self.receiver.recv().await
    }

    /// The server process.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }

    /// Splits into the writing half, the reading half and the process.
    /// Dropping the [`ServerProcess`] shuts the server down.
    pub fn into_parts(self) -> (Sender, Receiver, ServerProcess) {
        (self.sender, self.receiver, self.process)
    }

    /// Stops the server in stages and reaps it; see
    /// [`ServerProcess::shutdown`].
    pub async fn shutdown(self) -> ExitInfo {
        let StdioTransport {
            sender,
            receiver,
            process,
        } = self;
        drop(sender);
        drop(receiver);
        process.shutdown().await
    }
}

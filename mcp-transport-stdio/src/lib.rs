//! Child-process (stdio) transport for Model Context Protocol clients.
//!
//! The transport is mechanics only: it moves newline-delimited JSON-RPC
//! frames and owns the server's process tree; every protocol decision is
//! the caller's.
//!
//! * [`StdioTransport::spawn`] starts a [`ServerCommand`] (program, args,
//!   environment policy, working directory, `PATH` lookup) in its own
//!   process group on Unix, with stderr captured into a bounded ring of its
//!   last lines, forwarded to a callback and to `tracing`.
//! * [`Sender::send`] writes one serialized message plus `\n` through a
//!   serialized writer; a dead peer is an error value
//!   ([`SendError::PeerClosed`]), never a crash. An event loop that owns
//!   the connection takes the writer whole ([`Sender::exclusive`]): its
//!   [`LineWriter`] queues lines into one buffer and is polled in place,
//!   with no future or allocation per message.
//! * [`Receiver::recv`] yields [`Inbound`] items: messages, skipped
//!   non-JSON lines (banners, logs) and discarded oversized lines
//!   ([`LineTooLong`]), all of which leave the session open. A child that
//!   exits ends the stream with [`RecvError::ProcessExited`], carrying the
//!   exit status or signal, the stderr tail (its Display shows the last
//!   [`STDERR_EXCERPT_LINES`] lines) and whether any message came before.
//!   When the server exits on its own (a crash, `kill -9`), the processes
//!   it left in its group are stopped at once (SIGTERM, then SIGKILL), not
//!   only at shutdown.
//! * [`ServerProcess::shutdown`] closes stdin, waits, sends SIGTERM to the
//!   group, waits, sends SIGKILL, and always reaps, within
//!   [`ShutdownTimeouts::total`]. Dropping the transport does the same in
//!   the background.
//! * [`framed`] gives the same framing over any `AsyncRead` +
//!   `AsyncWrite` pair (a server's own stdio, custom pipes),
//!   [`framed_stream`] over one socket-like stream; [`memory_pair`] links
//!   two endpoints in memory for tests.
//! * [`line_splitter`] is the pure, bounded line splitter underneath.
//!
//! Feature `process` (default): child processes ([`StdioTransport`],
//! [`ServerCommand`], [`ServerProcess`]), with tokio's `process` feature
//! and, on Unix, rustix. Without it the crate is the framing alone.

#[cfg(feature = "process")]
mod command;
mod envelope;
mod error;
mod framed;
pub mod line_splitter;
#[cfg(feature = "process")]
mod pipe_size;
#[cfg(feature = "process")]
mod process;
#[cfg(feature = "process")]
mod redact;
#[cfg(feature = "process")]
mod shutdown;
#[cfg(feature = "process")]
mod stderr;
#[cfg(feature = "process")]
mod transport;
mod writer;

#[cfg(feature = "process")]
pub use command::{EnvInherit, ServerCommand, ShutdownTimeouts, StderrMode};
pub use envelope::BrokenEnvelope;
pub use error::{
    LineTooLong, ProcessExited, RecvError, STDERR_EXCERPT_LINES, SendError, SpawnError,
};
pub use framed::{
    DEFAULT_MAX_LINE_LENGTH, Inbound, Receiver, SkipReason, SkippedLine, framed, framed_stream,
    memory_pair,
};
#[cfg(feature = "process")]
pub use process::ServerProcess;
#[cfg(feature = "process")]
pub use shutdown::{ExitInfo, ShutdownOutcome};
#[cfg(feature = "process")]
pub use stderr::MAX_STDERR_LINE;
#[cfg(feature = "process")]
pub use transport::StdioTransport;
pub use writer::{LineWriter, Sender};

//! Error types, grouped by who is at fault.
//!
//! * [`SpawnError`]: the server could not be started (the command or the
//!   environment is wrong).
//! * [`SendError`]: a message could not be written (the caller handed a
//!   malformed frame, the transport was closed, or the peer stopped reading).
//! * [`RecvError`]: the connection ended (the server exited or closed its
//!   stdout, or reading failed). Always the last item a receiver yields.
//! * [`LineTooLong`]: the server wrote a line over the limit; it was
//!   dropped and the session goes on.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::process::ExitStatus;

/// The server process could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// The program has no path separator and is on no directory of `PATH`.
    #[error("program {program:?} not found on PATH")]
    NotFound {
        /// The program as given.
        program: OsString,
    },
    /// The operating system refused to start the program.
    #[error("cannot start {program:?}: {source}")]
    Io {
        /// The program as given.
        program: OsString,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// `spawn` was called outside a Tokio runtime.
    #[error("spawning a server needs a Tokio runtime with I/O enabled")]
    NoRuntime,
}

/// A message could not be written.
///
/// After [`SendError::PeerClosed`] or [`SendError::Io`] the writer is
/// broken for good: every later send fails the same way.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// The caller's frame contains a `\n`; a frame is one line.
    #[error("a message must not contain a newline")]
    EmbeddedNewline,
    /// The caller's frame is empty.
    #[error("a message must not be empty")]
    Empty,
    /// The transport was closed (shut down) locally.
    #[error("the transport is closed")]
    Closed,
    /// The peer stopped reading: a broken pipe or reset connection. For a
    /// child process this usually means it exited; the receiver reports
    /// how.
    #[error("the peer closed its input: {0}")]
    PeerClosed(#[source] io::Error),
    /// Any other write error.
    #[error("write failed: {0}")]
    Io(#[source] io::Error),
}

impl SendError {
    pub(crate) fn from_io(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::NotConnected
            | io::ErrorKind::WriteZero => SendError::PeerClosed(e),
            _ => SendError::Io(e),
        }
    }

    /// The same error again, for the sends after the writer broke.
    pub(crate) fn replay(&self) -> Self {
        match self {
            SendError::EmbeddedNewline => SendError::EmbeddedNewline,
            SendError::Empty => SendError::Empty,
            SendError::Closed => SendError::Closed,
            SendError::PeerClosed(e) => {
                SendError::PeerClosed(io::Error::new(e.kind(), e.to_string()))
            }
            SendError::Io(e) => SendError::Io(io::Error::new(e.kind(), e.to_string())),
        }
    }
}

/// The server wrote a line longer than the configured maximum.
///
/// The line was discarded up to its newline; the lines after it are read
/// normally. When the line was a response whose `id` shows in its first or
/// last bytes, `id` names the request it answered (which will get no other
/// answer): `the server's response to request 7 is 20971552 bytes, over
/// the line limit of 16777216 bytes; it was discarded`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} {len} bytes, over the line limit of {limit} bytes; it was discarded",
    match .id { Some(id) => format!("the server's response to request {id} is"), None => "the server wrote a line of".to_owned() }
)]
#[non_exhaustive]
pub struct LineTooLong {
    /// Length of the discarded line in bytes.
    pub len: u64,
    /// The configured maximum.
    pub limit: usize,
    /// The request the discarded line answered, when it was a response
    /// and its id could be read from the kept ends of the line.
    pub id: Option<mcp_types::RequestId>,
}

/// The server process exited; the connection is over.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProcessExited {
    /// The exit status, or `None` if the process could not be waited for.
    pub status: Option<ExitStatus>,
    /// The last lines the server wrote to stderr (empty unless stderr is
    /// captured).
    pub stderr_tail: Vec<String>,
    /// How many valid messages the server sent before exiting.
    pub messages_received: u64,
}

impl ProcessExited {
    /// A report of an exit: for transports and clients that learn of it
    /// from a [`ServerProcess`](crate::ServerProcess) (its
    /// [`exit_status`](crate::ServerProcess::exit_status) and
    /// [`stderr_tail`](crate::ServerProcess::stderr_tail)).
    pub fn new(
        status: Option<ExitStatus>,
        stderr_tail: Vec<String>,
        messages_received: u64,
    ) -> Self {
        ProcessExited {
            status,
            stderr_tail,
            messages_received,
        }
    }

    /// True when the server exited before sending a single message: it
    /// died during startup or before answering the handshake.
    pub fn before_first_message(&self) -> bool {
        self.messages_received == 0
    }

    /// The exit code, when the process exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// The last few non-blank stderr lines (at most
    /// [`STDERR_EXCERPT_LINES`], each shortened to 200 characters), oldest
    /// first, joined with ` | `; `None` when the server wrote none. This is
    /// what error messages show after `stderr:`.
    ///
    /// ```
    /// # use mcp_transport_stdio::RecvError;
    /// # fn show(e: &RecvError) {
    /// if let RecvError::ProcessExited(exit) = e {
    ///     eprintln!("{:?}: {}", exit.status, exit.stderr_excerpt().unwrap_or_default());
    /// }
    /// # }
    /// ```
    pub fn stderr_excerpt(&self) -> Option<String> {
        stderr_excerpt(&self.stderr_tail)
    }
}

/// How many of the last stderr lines an error message shows: enough for a
/// panic message and the frames or context lines after it.
pub const STDERR_EXCERPT_LINES: usize = 5;

impl fmt::Display for ProcessExited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the server process exited")?;
        match self.status {
            Some(s) => write!(f, " ({s})")?,
            None => f.write_str(" (status unknown)")?,
        }
        if self.before_first_message() {
            f.write_str(" before sending any message")?;
        }
        write_excerpt(f, &self.stderr_tail)
    }
}

impl std::error::Error for ProcessExited {}

/// Why a receiver stopped. It is the last item a receiver yields; the next
/// call returns `None`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecvError {
    /// The server process exited.
    #[error(transparent)]
    ProcessExited(ProcessExited),
    /// The server closed its stdout but did not exit within a short wait.
    /// Shutting the transport down ends the process.
    #[error("the server closed its stdout but is still running{}", Excerpt(.stderr_tail))]
    StdoutClosed {
        /// The last lines the server wrote to stderr.
        stderr_tail: Vec<String>,
        /// How many valid messages the server sent.
        messages_received: u64,
    },
    /// Reading failed.
    #[error("reading from the server failed: {0}")]
    Io(#[source] io::Error),
}

impl RecvError {
    /// The last lines the server wrote to stderr, when known.
    pub fn stderr_tail(&self) -> &[String] {
        match self {
            RecvError::ProcessExited(e) => &e.stderr_tail,
            RecvError::StdoutClosed { stderr_tail, .. } => stderr_tail,
            RecvError::Io(_) => &[],
        }
    }
}

struct Excerpt<'a>(&'a [String]);

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_excerpt(f, self.0)
    }
}

/// Appends `; stderr: ` and the stderr excerpt, if any, to an error message.
fn write_excerpt(f: &mut fmt::Formatter<'_>, tail: &[String]) -> fmt::Result {
    match stderr_excerpt(tail) {
        Some(text) => write!(f, "; stderr: {text}"),
        None => Ok(()),
    }
}

/// The last [`STDERR_EXCERPT_LINES`] non-blank lines, shortened, joined.
fn stderr_excerpt(tail: &[String]) -> Option<String> {
    const MAX_CHARS: usize = 200;
    let mut lines: Vec<&str> = tail
        .iter()
        .rev()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .take(STDERR_EXCERPT_LINES)
        .collect();
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    let mut out = String::new();
    for (i, line) in lines.into_iter().enumerate() {
        if i > 0 {
            out.push_str(" | ");
        }
        match line.char_indices().nth(MAX_CHARS) {
            Some((cut, _)) => {
                out.push_str(&line[..cut]);
                out.push('…');
            }
            None => out.push_str(line),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_exited_message_names_status_and_the_last_stderr_lines() {
        let e = ProcessExited {
            status: None,
            stderr_tail: vec!["starting".into(), "fatal: no config".into(), " ".into()],
            messages_received: 0,
        };
        assert_eq!(
            e.to_string(),
            "the server process exited (status unknown) before sending any message; stderr: starting | fatal: no config"
        );
        let long: Vec<String> = (0..9).map(|i| format!("line {i}")).collect();
        let e = ProcessExited {
            status: None,
            stderr_tail: long,
            messages_received: 1,
        };
        assert_eq!(
            e.stderr_excerpt().as_deref(),
            Some("line 4 | line 5 | line 6 | line 7 | line 8")
        );
        let e = RecvError::StdoutClosed {
            stderr_tail: vec!["é".repeat(300)],
            messages_received: 2,
        };
        let text = e.to_string();
        assert!(text.ends_with('…'), "{text}");
        assert_eq!(text.chars().filter(|c| *c == 'é').count(), 200);
    }

    #[test]
    fn broken_pipe_is_peer_closed() {
        let e = SendError::from_io(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(e, SendError::PeerClosed(_)));
        assert!(matches!(e.replay(), SendError::PeerClosed(_)));
        let e = SendError::from_io(io::Error::other("x"));
        assert!(matches!(e.replay(), SendError::Io(_)));
    }
}

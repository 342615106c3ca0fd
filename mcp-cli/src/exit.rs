//! Exit codes and the CLI's one error type.
//!
//! The codes are stable and documented in `mcp --help`:
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | the tool ran and reported an error (`isError: true`) |
//! | 2 | usage: bad arguments, or tool arguments the tool's schema refuses (nothing was sent) |
//! | 3 | protocol: the server answered with a JSON-RPC error or broke the protocol |
//! | 4 | transport: the server could not be started or reached, or the connection was lost |
//! | 5 | timeout: the server did not answer in time |
//! | 130 | interrupted: Ctrl-C cancelled the call in flight |

use std::fmt;

/// The exit codes of `mcp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Success.
    Ok = 0,
    /// The tool reported an error.
    ToolError = 1,
    /// Bad usage; nothing was sent.
    Usage = 2,
    /// A JSON-RPC error or a protocol violation.
    Protocol = 3,
    /// Starting, reaching or keeping the connection failed.
    Transport = 4,
    /// No answer in time.
    Timeout = 5,
    /// Ctrl-C.
    Interrupted = 130,
}

/// A failure of one `mcp` run: a message for stderr and an exit code.
#[derive(Debug)]
pub(crate) struct CliError {
    /// What went wrong, for people.
    pub(crate) message: String,
    /// How the process exits.
    pub(crate) exit: Exit,
}

impl CliError {
    /// A usage error (exit 2).
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            exit: Exit::Usage,
        }
    }

    /// A transport error (exit 4).
    pub(crate) fn transport(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            exit: Exit::Transport,
        }
    }

    /// A protocol error (exit 3).
    pub(crate) fn protocol(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            exit: Exit::Protocol,
        }
    }

    /// An interruption (exit 130).
    pub(crate) fn interrupted() -> Self {
        CliError {
            message: "interrupted: the call in flight was cancelled".into(),
            exit: Exit::Interrupted,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<mcp_client::Error> for CliError {
    fn from(e: mcp_client::Error) -> Self {
        let exit = classify(&e);
        let message = match e.remote_error() {
            Some(obj) => match &obj.data {
                Some(data) => format!("server error {}: {} ({data})", obj.code.0, obj.message),
                None => format!("server error {}: {}", obj.code.0, obj.message),
            },
            None => e.to_string(),
        };
        CliError { message, exit }
    }
}

/// Maps an SDK error to its exit code.
pub(crate) fn classify(e: &mcp_client::Error) -> Exit {
    if e.is_timeout() {
        Exit::Timeout
    } else if e.is_cancelled() {
        Exit::Interrupted
    } else if e.is_usage() || e.is_capability_not_offered() || e.is_retired_method() {
        Exit::Usage
    } else if e.is_tool_error() {
        Exit::ToolError
    } else if e.remote_error().is_some() || e.is_protocol_violation() {
        Exit::Protocol
    } else if e.is_transport() || e.is_closed() {
        Exit::Transport
    } else {
        match e.kind() {
            mcp_client::ErrorKind::Spawn(_)
            | mcp_client::ErrorKind::Http(_)
            | mcp_client::ErrorKind::Transport(_) => Exit::Transport,
            // No common version: the server answered, in a way we cannot speak.
            mcp_client::ErrorKind::Connect { error, .. } => match error {
                mcp_core::ConnectError::NoMutualVersion { .. }
                | mcp_core::ConnectError::LegacyServer
                | mcp_core::ConnectError::UnsupportedVersion(_) => Exit::Protocol,
                _ => Exit::Transport,
            },
            _ => Exit::Protocol,
        }
    }
}

//! How an [`Error`] reads: `Debug` as its kind, `Display` with the real
//! cause first when the kind only summarises it (an HTTP failure behind a
//! closed stream, the stdio server's exit), and its `source` chain.

use std::fmt;

use mcp_core::{ConnectError, RequestError};

use super::{Error, ErrorKind};

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.kind, f)
    }
}

impl Error {
    /// What the error says after its cause when the kind only summarises
    /// an attached HTTP failure (the core saw a closed stream): `None` when
    /// the kind's own message names the cause.
    fn summary_after_cause(&self) -> Option<&'static str> {
        match &*self.kind {
            ErrorKind::Request(RequestError::TransportClosed) => {
                Some("the request got no response")
            }
            ErrorKind::Request(RequestError::Unauthorized(_)) => Some("authorization required"),
            ErrorKind::Connect {
                error:
                    ConnectError::Request(
                        RequestError::TransportClosed
                        | RequestError::Closed
                        | RequestError::Unauthorized(_),
                    ),
                ..
            }
            | ErrorKind::Transport(_) => Some("connecting failed"),
            ErrorKind::Closed => Some("the client is closed"),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    /// The kind's message, with the real cause first when the kind only
    /// summarises it:
    /// * an HTTP failure behind a closed stream: `connection refused:
    ///   nothing listens at http://127.0.0.1:9 (connecting failed)`;
    /// * the stdio server's exit: `the server process exited (exit status:
    ///   3) before the response arrived; stderr: panic: ... | ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(exit) = &self.exit else {
            return match (&self.cause, self.summary_after_cause()) {
                (Some(cause), Some(summary)) => write!(f, "{cause} ({summary})"),
                _ => fmt::Display::fmt(&self.kind, f),
            };
        };
        f.write_str("the server process exited")?;
        match exit.status {
            Some(status) => write!(f, " ({status})")?,
            None => f.write_str(" (status unknown)")?,
        }
        if matches!(self.request(), Some(RequestError::TransportClosed)) {
            f.write_str(" before the response arrived")?;
        } else {
            write!(f, ": {}", self.kind)?;
        }
        match exit.stderr_excerpt() {
            Some(stderr) => write!(f, "; stderr: {stderr}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Error {
    /// The attached HTTP transport error (so its own chain, down to an
    /// authorization provider's error, can be walked) or stdio server exit
    /// when there is one, else the source of [`ErrorKind`].
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match (&self.cause, &self.exit) {
            (Some(cause), _) => Some(&**cause),
            (None, Some(exit)) => Some(&**exit),
            (None, None) => self.kind.source(),
        }
    }
}

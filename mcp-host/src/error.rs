//! [`HostError`]: why a host operation failed, always naming the server.

use crate::events::ServerState;

/// The error of every fallible [`Host`](crate::Host) method.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// No tool in the catalogue has this qualified name (it may be
    /// filtered out, or its server not ready).
    #[error("no tool `{0}` in the catalogue")]
    UnknownTool(String),
    /// No prompt in the catalogue has this qualified name.
    #[error("no prompt `{0}` in the catalogue")]
    UnknownPrompt(String),
    /// No server has this label.
    #[error("no server labelled `{0}`")]
    UnknownServer(String),
    /// A server with this label exists already.
    #[error("a server labelled `{0}` exists already")]
    DuplicateLabel(String),
    /// The server is not connected.
    #[error("server `{server}` is not ready ({state:?})")]
    NotReady {
        /// The server label.
        server: String,
        /// Its state.
        state: ServerState,
    },
    /// The connection to the server ended while the call was in flight.
    /// The call was not replayed; the server is being reconnected.
    #[error("server `{server}` went away during the call: {cause}")]
    ServerDied {
        /// The server label.
        server: String,
        /// What ended it (the client's error, the stdio server's exit and
        /// stderr tail).
        cause: String,
    },
    /// The server answered with an error, or the call failed otherwise.
    #[error("server `{server}`: {source}")]
    Call {
        /// The server label.
        server: String,
        /// The client's error.
        #[source]
        source: mcp_client::Error,
    },
    /// No skill in the catalogue has this qualified name.
    #[error("no skill `{0}` in the catalogue")]
    UnknownSkill(String),
    /// A skill could not be loaded or one of its files read: a
    /// verification failure (no content was handed out), a path the
    /// skill's entry does not list, or the server's error.
    #[error("server `{server}`: {source}")]
    Skill {
        /// The server label (the skill's origin).
        server: String,
        /// The SDK's error, naming the file and what did not match.
        #[source]
        source: mcp_client::skills::SkillError,
    },
    /// The server's config entry cannot be turned into a connection (an
    /// invalid header, an OAuth setup error).
    #[error("server `{server}`: {reason}")]
    Setup {
        /// The server label.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// The host is closed.
    #[error("the host is closed")]
    Closed,
}

impl HostError {
    /// The label of the server involved, when there is one.
    pub fn server(&self) -> Option<&str> {
        match self {
            HostError::NotReady { server, .. }
            | HostError::ServerDied { server, .. }
            | HostError::Call { server, .. }
            | HostError::Skill { server, .. }
            | HostError::Setup { server, .. } => Some(server),
            HostError::UnknownServer(s) | HostError::DuplicateLabel(s) => Some(s),
            _ => None,
        }
    }
}

//! Server states and the one stream of host events.

use std::time::Duration;

use mcp_client::mcp_types::logging::LoggingMessageNotificationParams;
use serde_json::value::RawValue;

/// Where a server is in its life. Every change is a
/// [`HostEvent::State`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// `"disabled": true` in the config: never started.
    Disabled,
    /// Connecting for the first time (or after a restart asked for).
    Starting,
    /// Connected; its listings are in the catalogue.
    Ready,
    /// Lost or never reached; the next attempt starts after `delay`.
    Reconnecting {
        /// Attempts made so far in this run of failures (1 for the first
        /// retry).
        attempt: u32,
        /// The backoff delay before this attempt.
        delay: Duration,
        /// Why the previous connection ended or failed.
        cause: String,
    },
    /// Given up: a permanent failure (the command does not exist), or the
    /// reconnect policy's attempts are spent. [`Host::restart`] tries again.
    ///
    /// [`Host::restart`]: crate::Host::restart
    Failed {
        /// Why.
        cause: String,
    },
    /// Removed from the host, or the host is closed.
    Stopped,
}

impl ServerState {
    /// Whether the server is connected.
    pub fn is_ready(&self) -> bool {
        matches!(self, ServerState::Ready)
    }

    /// Whether the server is still on its way to its first outcome.
    pub fn is_starting(&self) -> bool {
        matches!(self, ServerState::Starting)
    }
}

/// A kind of listing in the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `skills/list` (listed again on `resources/list_changed`).
    Skills,
}

impl ListKind {
    /// All kinds.
    pub const ALL: [ListKind; 4] = [
        ListKind::Tools,
        ListKind::Prompts,
        ListKind::Resources,
        ListKind::Skills,
    ];

    /// The listings a `list_changed` of `self` refreshes: skills are
    /// resources, so a resources change lists skills again too.
    pub(crate) fn refreshes(self) -> &'static [ListKind] {
        match self {
            ListKind::Tools => &[ListKind::Tools],
            ListKind::Prompts => &[ListKind::Prompts],
            ListKind::Resources | ListKind::Skills => &[ListKind::Resources, ListKind::Skills],
        }
    }

    /// From the word of a `notifications/<what>/list_changed`.
    pub(crate) fn from_word(what: &str) -> Option<Self> {
        match what {
            "tools" => Some(ListKind::Tools),
            "prompts" => Some(ListKind::Prompts),
            "resources" => Some(ListKind::Resources),
            _ => None,
        }
    }
}

/// One event of the host, always naming the server (its label) it is about.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum HostEvent {
    /// A server's state changed.
    State {
        /// The server label.
        server: String,
        /// Its new state.
        state: ServerState,
    },
    /// The catalogue changed because this server's listing did (after a
    /// `list_changed`, a connect or reconnect, or the server's removal).
    CatalogueChanged {
        /// The server label.
        server: String,
        /// Which listing.
        kind: ListKind,
    },
    /// A subscribed resource changed.
    ResourceUpdated {
        /// The server label.
        server: String,
        /// The resource.
        uri: String,
    },
    /// A log message from the server.
    Log {
        /// The server label.
        server: String,
        /// The message.
        params: LoggingMessageNotificationParams,
    },
    /// Any other notification, raw.
    Notification {
        /// The server label.
        server: String,
        /// Its method.
        method: String,
        /// Its params.
        params: Option<Box<RawValue>>,
    },
}

impl HostEvent {
    /// The label of the server the event is about.
    pub fn server(&self) -> &str {
        match self {
            HostEvent::State { server, .. }
            | HostEvent::CatalogueChanged { server, .. }
            | HostEvent::ResourceUpdated { server, .. }
            | HostEvent::Log { server, .. }
            | HostEvent::Notification { server, .. } => server,
        }
    }
}

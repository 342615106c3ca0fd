//! What a 2025-11-25 session holds on the server, put back when the
//! session is replaced: a server that ends a session forgets its resource
//! subscriptions and its log level, so the new session gets them again.
//!
//! # For the driver
//!
//! Nothing to wire: the core remembers each `resources/subscribe` and
//! `resources/unsubscribe` (by `uri`) and `logging/setLevel` (its
//! `level`) that succeeded, and when a recovered session becomes ready
//! ([`Event::Connected`] after [`Event::SessionExpired`]) it sends
//! `logging/setLevel`, then one `resources/subscribe` per URI, before the
//! calls that waited for the session. Their answers raise no event; a
//! failure raises [`Event::SessionRestoreFailed`] (log it). Drop any
//! restore logic of your own.

use std::collections::BTreeSet;
use std::time::Instant;

use mcp_types::Era;
use serde_json::{Map, Value};

use super::{Call, CallKind, Connection};
use crate::config::RequestOptions;
use crate::error::{RequestError, UsageError};
use crate::event::Event;

/// Why restoring one piece of session state failed
/// ([`Event::SessionRestoreFailed`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RestoreFailure {
    /// The request could not be sent (e.g. the new session does not
    /// advertise the capability).
    #[error(transparent)]
    Refused(UsageError),
    /// The server failed it.
    #[error(transparent)]
    Failed(RequestError),
}

/// The session state to restore.
#[derive(Debug, Default)]
pub(super) struct SessionState {
    subscriptions: BTreeSet<String>,
    log_level: Option<Value>,
}

impl Connection {
    /// A call of the user's succeeded: remember what it set on the session.
    #[inline]
    pub(super) fn remember_session_state(&mut self, call: &Call) {
        // A tool call by name (`Params::Tool`) sets no session state.
        if self.era != Some(Era::Legacy)
            || !matches!(call.kind, CallKind::User)
            || matches!(call.params, crate::params::Params::Tool(_))
        {
            return;
        }
        self.remember_state_of(call);
    }

    /// [`Connection::remember_session_state`] of a 2025-11-25 call with a
    /// params map (out of line: the method is compared with the three that
    /// set session state).
    #[inline(never)]
    fn remember_state_of(&mut self, call: &Call) {
        // The method first: its params are looked up only for the three
        // methods that set session state.
        let state = &mut self.session_state;
        match &*call.method {
            "resources/subscribe" => {
                if let Some(uri) = call.params.get_str("uri") {
                    state.subscriptions.insert(uri.to_owned());
                }
            }
            "resources/unsubscribe" => {
                if let Some(uri) = call.params.get_str("uri") {
                    state.subscriptions.remove(uri);
                }
            }
            "logging/setLevel" => {
                if let Some(level) = call.params.get("level") {
                    state.log_level = Some(level.clone());
                }
            }
            _ => {}
        }
    }

    /// A recovered session is ready: send it the old session's state.
    pub(super) fn restore_session(&mut self, now: Instant) {
        let level = self
            .session_state
            .log_level
            .clone()
            .map(|level| ("logging/setLevel", "level", level));
        let uris: Vec<_> = self
            .session_state
            .subscriptions
            .iter()
            .map(|uri| ("resources/subscribe", "uri", Value::String(uri.clone())))
            .collect();
        for (method, name, value) in level.into_iter().chain(uris) {
            let mut params = Map::new();
            params.insert(name.to_owned(), value);
            let opts = RequestOptions::default();
            if let Err(e) = self.start_call(now, method, params.into(), opts, CallKind::Restore) {
                self.events.push_back(Event::SessionRestoreFailed {
                    method: method.to_owned().into(),
                    error: RestoreFailure::Refused(e),
                });
            }
        }
    }
}

//! Legacy (2025-11-25) session state: the `Mcp-Session-Id` and the protocol
//! version that GET, DELETE and resumption requests carry.
//!
//! The id is adopted from the first successful response to a request that
//! carried none (the `initialize` response), sent on every later legacy
//! request, forgotten when a request that carried it gets `404` (the server
//! ended the session) and on [`crate::HttpTransport::clear_session`].
//! Modern-era requests neither send nor adopt an id.
//!
//! A session that expired stays *lost* until a new one is adopted: a later
//! legacy request that is not `initialize` fails with
//! [`crate::HttpError::SessionLost`] without being sent, rather than
//! going out without an id (which a server would read as a request from no
//! session at all). This closes the race between an expiry seen on one
//! exchange (the GET stream, say) and requests already on their way.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use http::HeaderValue;
use mcp_types::ProtocolVersion;

/// A session id issued by the server. It is a credential of sorts: `Debug`
/// does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionId(HeaderValue);

impl SessionId {
    /// The id as sent on the wire (visible ASCII).
    pub fn as_str(&self) -> &str {
        // Only visible-ASCII values are ever adopted.
        self.0.to_str().unwrap_or_default()
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionId(<redacted>)")
    }
}

#[derive(Default)]
struct State {
    id: Option<HeaderValue>,
    version: Option<ProtocolVersion>,
    /// The last session expired and no new one has been adopted yet.
    lost: bool,
}

impl State {
    /// Remembers `version` (copied only when it changed).
    fn note_version(&mut self, version: &ProtocolVersion) {
        if self.version.as_ref() != Some(version) {
            self.version = Some(version.clone());
        }
    }
}

/// The session of one transport.
#[derive(Default)]
pub(crate) struct Session {
    state: Mutex<State>,
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The id to send, if a session is open.
    pub(crate) fn id(&self) -> Option<HeaderValue> {
        self.lock().id.clone()
    }

    /// The public view of the id.
    pub(crate) fn public_id(&self) -> Option<SessionId> {
        self.id().map(SessionId)
    }

    /// Adopts `received` when no session is open and the request carried no
    /// id. Returns whether it was adopted.
    pub(crate) fn adopt(&self, sent: Option<&HeaderValue>, received: &HeaderValue) -> bool {
        let mut state = self.lock();
        if sent.is_none() && state.id.is_none() {
            // A copy: the received value is a view of the connection's
            // read buffer, which a session id kept for the session's life
            // must not hold.
            let mut value =
                HeaderValue::from_bytes(received.as_bytes()).unwrap_or_else(|_| received.clone());
            value.set_sensitive(true);
            state.id = Some(value);
            state.lost = false;
            true
        } else {
            false
        }
    }

    /// Forgets the id if it is still `sent` (a newer session is kept).
    pub(crate) fn expire(&self, sent: &HeaderValue) {
        let mut state = self.lock();
        if state.id.as_ref() == Some(sent) {
            state.id = None;
            state.lost = true;
        }
    }

    /// Forgets the id, whatever it is, and any expiry; returns the old id.
    pub(crate) fn clear(&self) -> Option<HeaderValue> {
        let mut state = self.lock();
        state.lost = false;
        state.id.take()
    }

    /// For a legacy POST, in one look: remembers the version it carries,
    /// and returns the id to send and whether the last session expired
    /// with none replacing it yet.
    pub(crate) fn for_post(
        &self,
        version: Option<&ProtocolVersion>,
    ) -> (Option<HeaderValue>, bool) {
        let mut state = self.lock();
        if let Some(version) = version {
            state.note_version(version);
        }
        (state.id.clone(), state.lost)
    }

    /// Remembers the version a legacy request carried.
    pub(crate) fn note_version(&self, version: &ProtocolVersion) {
        self.lock().note_version(version);
    }

    /// The version for requests that have no routing (GET, DELETE).
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        self.lock().version.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adopt_expire_and_keep_newer() {
        let s = Session::default();
        let a = HeaderValue::from_static("a");
        let b = HeaderValue::from_static("b");
        assert!(s.adopt(None, &a));
        assert!(!s.adopt(None, &b), "an open session is kept");
        assert!(!s.adopt(Some(&a), &b));
        s.expire(&b);
        assert_eq!(s.id(), Some(a.clone()));
        s.expire(&a);
        assert_eq!(s.id(), None);
        assert!(s.adopt(None, &b));
        assert_eq!(
            s.public_id().map(|i| i.as_str().to_owned()),
            Some("b".into())
        );
        assert_eq!(
            format!("{:?}", s.public_id()),
            "Some(SessionId(<redacted>))"
        );
    }
}

//! Requests the server sent (2025-11-25) that still await the client's
//! answer.
//!
//! Server-issued ids are remembered for the session while their request is
//! being served, so a second request reusing a live id cannot replace the
//! first one's state: it is refused with a JSON-RPC error and the live one
//! keeps going. The set is capped, so a server cannot grow it without bound.

use std::collections::HashSet;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{ErrorCode, RequestId};

/// The most server requests served at once per session.
pub(crate) const MAX_LIVE_SERVER_REQUESTS: usize = 256;

/// Why a server request was not admitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A request with this id is still being served.
    Duplicate,
    /// Too many requests are being served.
    Full,
}

impl Refusal {
    /// The JSON-RPC error answering the refused request.
    pub(crate) fn into_error(self, id: &RequestId) -> ErrorObject {
        match self {
            Refusal::Duplicate => ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                format!("request id {id} is already in use by a request being served"),
            ),
            Refusal::Full => ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "too many server requests in flight (at most {MAX_LIVE_SERVER_REQUESTS}); retry later"
                ),
            ),
        }
    }
}

/// The ids of the server requests being served, capped.
#[derive(Debug)]
pub(crate) struct LiveServerRequests {
    live: HashSet<RequestId>,
    cap: usize,
}

impl Default for LiveServerRequests {
    fn default() -> Self {
        LiveServerRequests::with_cap(MAX_LIVE_SERVER_REQUESTS)
    }
}

impl LiveServerRequests {
    /// An empty set admitting at most `cap` requests at once.
    pub(crate) fn with_cap(cap: usize) -> Self {
        LiveServerRequests {
            live: HashSet::new(),
            cap,
        }
    }

    /// Starts tracking `id`, unless it is live already or the set is full.
    pub(crate) fn admit(&mut self, id: &RequestId) -> Result<(), Refusal> {
        if self.live.contains(id) {
            return Err(Refusal::Duplicate);
        }
        if self.live.len() >= self.cap {
            return Err(Refusal::Full);
        }
        self.live.insert(id.clone());
        Ok(())
    }

    /// Stops tracking `id`; `false` when it was not live.
    pub(crate) fn remove(&mut self, id: &RequestId) -> bool {
        self.live.remove(id)
    }

    /// Forgets every id (the session ended).
    pub(crate) fn clear(&mut self) {
        self.live.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_id_is_refused_and_stays_live() {
        let mut set = LiveServerRequests::default();
        let id = RequestId::Number(7);
        assert_eq!(set.admit(&id), Ok(()));
        assert_eq!(set.admit(&id), Err(Refusal::Duplicate));
        assert!(set.remove(&id));
        assert!(!set.remove(&id));
        assert_eq!(set.admit(&id), Ok(()));
    }

    #[test]
    fn the_set_is_capped() {
        let mut set = LiveServerRequests::with_cap(2);
        assert_eq!(set.admit(&RequestId::Number(1)), Ok(()));
        assert_eq!(set.admit(&RequestId::String("a".into())), Ok(()));
        assert_eq!(set.admit(&RequestId::Number(3)), Err(Refusal::Full));
        set.clear();
        assert_eq!(set.admit(&RequestId::Number(3)), Ok(()));
        let e = Refusal::Full.into_error(&RequestId::Number(3));
        assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
    }
}

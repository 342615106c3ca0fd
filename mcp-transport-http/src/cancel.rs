//! Cancellation of requests in flight, without an allocation per request.
//!
//! The transport keeps one [`Registry`]: a table of the request ids in
//! flight (each entry counts its [`Cancel`] handles and holds a
//! `cancelled` flag) and one `watch` signal for the whole transport. A
//! handle waits on that signal; [`Registry::cancel`] sets the request's
//! flag and bumps the signal, so every waiting handle looks at its own
//! entry (cancellations are rare; a request's exchange costs a table
//! insert and remove, no allocation of its own). Closing the transport
//! sets the signal's `closed` flag, which ends every handle's wait.
//!
//! An id registered again (while its earlier registration still has
//! handles) replaces it: [`Registry::cancel`] reaches the newest, and each
//! entry's generation keeps the earlier handles from touching it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_types::RequestId;
use tokio::sync::watch;

use crate::error::HttpError;

/// One registered request: its handles and whether it was cancelled.
struct Entry {
    generation: u64,
    handles: usize,
    cancelled: bool,
}

#[derive(Default)]
struct Table {
    /// Keyed by the client's own request ids (never chosen by the server),
    /// so foldhash, not SipHash: a request's exchange looks its entry up
    /// several times (register, each handle's clone and drop, the first
    /// look of its wait).
    entries: HashMap<RequestId, Entry, foldhash::fast::RandomState>,
    next_generation: u64,
}

/// What the transport's signal carries.
#[derive(Clone, Copy, Default)]
struct Signal {
    /// Bumped on every cancellation.
    cancellations: u64,
    /// The transport is closed.
    closed: bool,
}

/// The requests in flight of one transport, and its closing signal.
pub(crate) struct Registry {
    table: Mutex<Table>,
    signal: watch::Sender<Signal>,
}

impl Registry {
    /// An empty registry of an open transport.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Registry {
            table: Mutex::new(Table::default()),
            signal: watch::Sender::new(Signal::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handle for one request (registered under its id when it has one).
    pub(crate) fn register(self: &Arc<Self>, id: Option<&RequestId>) -> Cancel {
        let key = id.map(|id| {
            let mut table = self.lock();
            let generation = table.next_generation;
            table.next_generation += 1;
            let entry = Entry {
                generation,
                handles: 1,
                cancelled: false,
            };
            table.entries.insert(id.clone(), entry);
            (id.clone(), generation)
        });
        Cancel {
            registry: self.clone(),
            key,
            signal: self.signal.subscribe(),
        }
    }

    /// Cancels the request with this id; whether one was registered.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let found = match self.lock().entries.get_mut(id) {
            Some(entry) => {
                entry.cancelled = true;
                true
            }
            None => false,
        };
        // Outside the table's lock: waiting handles take it to look.
        if found {
            self.signal.send_modify(|s| s.cancellations += 1);
        }
        found
    }

    /// Closes the transport: every handle's wait ends with
    /// [`HttpError::Closed`], now and later.
    pub(crate) fn close(&self) {
        self.signal.send_modify(|s| s.closed = true);
    }

    fn is_cancelled(&self, (id, generation): &(RequestId, u64)) -> bool {
        self.lock()
            .entries
            .get(id)
            .is_some_and(|e| e.generation == *generation && e.cancelled)
    }

    /// Adds (`+1`) or removes (`-1`) a handle of a registration; the
    /// entry goes with its last handle (unless a newer one replaced it).
    fn count(&self, (id, generation): &(RequestId, u64), add: bool) {
        let mut table = self.lock();
        let Some(entry) = table.entries.get_mut(id) else {
            return;
        };
        if entry.generation != *generation {
            return;
        }
        if add {
            entry.handles += 1;
        } else {
            entry.handles -= 1;
            if entry.handles == 0 {
                table.entries.remove(id);
            }
        }
    }
}

/// A cancellation handle: the request's own signal and the transport's
/// closing signal. Clones share one registration, removed with the last.
pub(crate) struct Cancel {
    registry: Arc<Registry>,
    key: Option<(RequestId, u64)>,
    signal: watch::Receiver<Signal>,
}

impl Clone for Cancel {
    fn clone(&self) -> Self {
        if let Some(key) = &self.key {
            self.registry.count(key, true);
        }
        Cancel {
            registry: self.registry.clone(),
            key: self.key.clone(),
            signal: self.signal.clone(),
        }
    }
}

impl Drop for Cancel {
    fn drop(&mut self) {
        if let Some(key) = &self.key {
            self.registry.count(key, false);
        }
    }
}

impl Cancel {
    /// Whether the transport is closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.signal.borrow().closed
    }

    /// The id of the request, if it has one.
    pub(crate) fn request_id(&self) -> Option<&RequestId> {
        self.key.as_ref().map(|(id, _)| id)
    }

    /// Resolves when the request is cancelled or the transport closed.
    pub(crate) async fn cancelled(&mut self) -> HttpError {
        let Cancel {
            registry,
            key,
            signal,
        } = self;
        let mut outcome = HttpError::Closed;
        let _ = signal
            .wait_for(|s| {
                if s.closed {
                    return true;
                }
                let cancelled = key.as_ref().is_some_and(|k| registry.is_cancelled(k));
                if cancelled {
                    outcome = HttpError::Cancelled;
                }
                cancelled
            })
            .await;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn poll_once(cancel: &mut Cancel) -> Poll<HttpError> {
        let mut waiting = pin!(cancel.cancelled());
        waiting
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn cancel_reaches_every_handle_of_the_newest_registration() {
        let registry = Registry::new();
        let id = RequestId::Number(7);
        let mut old = registry.register(Some(&id));
        let mut new = registry.register(Some(&id));
        let mut copy = new.clone();
        let mut other = registry.register(Some(&RequestId::Number(8)));
        assert!(poll_once(&mut new).is_pending());
        assert!(registry.cancel(&id));
        assert!(matches!(
            poll_once(&mut new),
            Poll::Ready(HttpError::Cancelled)
        ));
        assert!(matches!(
            poll_once(&mut copy),
            Poll::Ready(HttpError::Cancelled)
        ));
        assert!(poll_once(&mut old).is_pending(), "replaced: not reached");
        assert!(poll_once(&mut other).is_pending());
        drop(old);
        assert!(
            registry.cancel(&id),
            "the older handle left the newer entry"
        );
        drop((new, copy));
        assert!(!registry.cancel(&id), "gone with its last handle");
        registry.close();
        assert!(other.is_closed());
        assert!(matches!(
            poll_once(&mut other),
            Poll::Ready(HttpError::Closed)
        ));
        let mut late = registry.register(None);
        assert!(matches!(
            poll_once(&mut late),
            Poll::Ready(HttpError::Closed)
        ));
    }
}

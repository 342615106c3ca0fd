//! Cancellation of requests in flight, without an allocation per request.
//!
//! The transport keeps one [`Registry`]: a table of the requests in
//! flight (each entry holds its id, counts its [`Cancel`] handles and
//! holds a `cancelled` flag), a slot per handle for the waker of its wait,
//! and the transport's `closed` flag. A handle knows its entry's place in
//! the table, so its wait looks at it without hashing and leaves its waker
//! in its slot, under the table's lock; [`Registry::cancel`] finds the
//! request's entry by a scan (cancellations are rare), sets its flag and
//! wakes every waiting handle, so each looks at its own entry again. A
//! request's exchange costs a slot taken and given back, no allocation of
//! its own, no hashing and no wait list of its own. Closing the transport
//! sets the `closed` flag, which ends every handle's wait.
//!
//! An id registered again (while its earlier registration still has
//! handles) has an entry of each: [`Registry::cancel`] reaches the newest
//! one still registered, and each entry's generation keeps a handle from
//! touching an entry that took its place after its own was gone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use mcp_types::RequestId;

use crate::error::HttpError;

/// One registered request: its id, its handles and whether it was
/// cancelled.
struct Entry {
    id: RequestId,
    generation: u64,
    handles: usize,
    cancelled: bool,
}

/// Places in a table that stay an owner's while it lives (a handle keeps
/// its place, so it finds its item without a search); the places given
/// back are reused first.
struct Places<T> {
    items: Vec<Option<T>>,
    free: Vec<usize>,
}

impl<T> Default for Places<T> {
    fn default() -> Self {
        Places {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Places<T> {
    /// A place for `item`.
    fn take(&mut self, item: Option<T>) -> usize {
        match self.free.pop() {
            Some(place) => {
                self.items[place] = item;
                place
            }
            None => {
                self.items.push(item);
                self.items.len() - 1
            }
        }
    }

    /// Gives `place` back, emptied.
    fn give_back(&mut self, place: usize) {
        self.items[place] = None;
        self.free.push(place);
    }
}

#[derive(Default)]
struct Table {
    /// The registered requests, at the places their handles know (a
    /// request's exchange looks at its entry several times: each look of
    /// its wait, its handles' drops).
    entries: Places<Entry>,
    next_generation: u64,
    /// One place per live handle: the waker of its wait, if it waits.
    wakers: Places<Waker>,
}

impl Table {
    /// The wakers of every waiting handle, taken out (each waits again,
    /// and leaves its waker again, when it looks and is not done).
    fn take_wakers(&mut self) -> Vec<Waker> {
        self.wakers
            .items
            .iter_mut()
            .filter_map(Option::take)
            .collect()
    }
}

/// The requests in flight of one transport, and its closing flag.
pub(crate) struct Registry {
    table: Mutex<Table>,
    /// Set (under the table's lock) when the transport closes; read
    /// without it by [`Cancel::is_closed`].
    closed: AtomicBool,
}

impl Registry {
    /// An empty registry of an open transport.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Registry {
            table: Mutex::new(Table::default()),
            closed: AtomicBool::new(false),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handle for one request (registered under its id when it has one).
    pub(crate) fn register(self: &Arc<Self>, id: Option<&RequestId>) -> Cancel {
        let mut table = self.lock();
        let registration = id.map(|id| {
            let generation = table.next_generation;
            table.next_generation += 1;
            let entry = Entry {
                id: id.clone(),
                generation,
                handles: 1,
                cancelled: false,
            };
            (table.entries.take(Some(entry)), generation)
        });
        let slot = table.wakers.take(None);
        drop(table);
        Cancel {
            registry: self.clone(),
            registration,
            slot,
        }
    }

    /// Cancels the request with this id (its newest registration, when
    /// the id was registered again); whether one was registered.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let mut table = self.lock();
        let newest = table
            .entries
            .items
            .iter_mut()
            .flatten()
            .filter(|e| e.id == *id)
            .max_by_key(|e| e.generation);
        let Some(entry) = newest else {
            return false;
        };
        entry.cancelled = true;
        let wakers = table.take_wakers();
        drop(table);
        // Outside the table's lock: a woken handle takes it to look.
        wakers.into_iter().for_each(Waker::wake);
        true
    }

    /// Whether the transport is closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Closes the transport: every handle's wait ends with
    /// [`HttpError::Closed`], now and later.
    pub(crate) fn close(&self) {
        let mut table = self.lock();
        self.closed.store(true, Ordering::SeqCst);
        let wakers = table.take_wakers();
        drop(table);
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Adds (`+1`) or removes (`-1`) a handle of the registration at
    /// `place`; the entry goes with its last handle.
    fn count(table: &mut Table, (place, generation): (usize, u64), add: bool) {
        let Some(Some(entry)) = table.entries.items.get_mut(place) else {
            return;
        };
        if entry.generation != generation {
            return;
        }
        if add {
            entry.handles += 1;
        } else {
            entry.handles -= 1;
            if entry.handles == 0 {
                table.entries.give_back(place);
            }
        }
    }
}

/// A cancellation handle: the request's own signal and the transport's
/// closing signal. Clones share one registration, removed with the last.
pub(crate) struct Cancel {
    registry: Arc<Registry>,
    /// The request's registration: its entry's place in the table and
    /// its generation (the place is reused after the entry is gone). The
    /// handle is in every POST's future, kept small: the id is the
    /// entry's.
    registration: Option<(usize, u64)>,
    /// This handle's waker slot in the table.
    slot: usize,
}

impl Clone for Cancel {
    fn clone(&self) -> Self {
        let mut table = self.registry.lock();
        if let Some(registration) = self.registration {
            Registry::count(&mut table, registration, true);
        }
        let slot = table.wakers.take(None);
        drop(table);
        Cancel {
            registry: self.registry.clone(),
            registration: self.registration,
            slot,
        }
    }
}

impl Drop for Cancel {
    fn drop(&mut self) {
        let mut table = self.registry.lock();
        if let Some(registration) = self.registration {
            Registry::count(&mut table, registration, false);
        }
        table.wakers.give_back(self.slot);
    }
}

impl Cancel {
    /// Whether the transport is closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.registry.is_closed()
    }

    /// The id of the request, if it has one.
    pub(crate) fn request_id(&self) -> Option<RequestId> {
        let (place, _) = self.registration?;
        let table = self.registry.lock();
        Some(table.entries.items.get(place)?.as_ref()?.id.clone())
    }

    /// Resolves when the request is cancelled or the transport closed.
    pub(crate) async fn cancelled(&mut self) -> HttpError {
        std::future::poll_fn(|cx| self.poll_cancelled(cx)).await
    }

    /// One look: the end of the wait, or `cx`'s waker left in this
    /// handle's slot (in the same hold of the lock as the look, so a
    /// cancellation or the close after it wakes it).
    fn poll_cancelled(&mut self, cx: &mut Context<'_>) -> Poll<HttpError> {
        let mut table = self.registry.lock();
        if self.registry.closed.load(Ordering::SeqCst) {
            return Poll::Ready(HttpError::Closed);
        }
        let cancelled = self.registration.is_some_and(|(place, generation)| {
            matches!(
                table.entries.items.get(place),
                Some(Some(e)) if e.generation == generation && e.cancelled
            )
        });
        if cancelled {
            return Poll::Ready(HttpError::Cancelled);
        }
        match &mut table.wakers.items[self.slot] {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            waiting => *waiting = Some(cx.waker().clone()),
        }
        Poll::Pending
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
        // The newest still registered is the one a cancellation reaches.
        let mut first = registry.register(Some(&id));
        let second = registry.register(Some(&id));
        drop(second);
        assert!(registry.cancel(&id));
        assert!(matches!(
            poll_once(&mut first),
            Poll::Ready(HttpError::Cancelled)
        ));
        // The cancelled entry's place goes to the next registration, which
        // starts uncancelled.
        drop(first);
        let mut third = registry.register(Some(&RequestId::Number(9)));
        assert!(
            poll_once(&mut third).is_pending(),
            "a reused place starts afresh"
        );
        drop(third);
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

    /// Counts its wake-ups.
    struct Count(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll_with(cancel: &mut Cancel, count: &Arc<Count>) -> Poll<HttpError> {
        let waker = Waker::from(count.clone());
        let mut waiting = pin!(cancel.cancelled());
        waiting.as_mut().poll(&mut Context::from_waker(&waker))
    }

    #[test]
    fn a_waiting_handle_is_woken_by_a_cancellation_and_by_the_close() {
        let registry = Registry::new();
        let id = RequestId::Number(1);
        let mut first = registry.register(Some(&id));
        let mut other = registry.register(None);
        let (a, b) = (
            Arc::new(Count(Default::default())),
            Arc::new(Count(Default::default())),
        );
        assert!(poll_with(&mut first, &a).is_pending());
        assert!(poll_with(&mut other, &b).is_pending());
        assert!(registry.cancel(&id));
        assert_eq!(a.0.load(Ordering::SeqCst), 1, "the cancelled one woke");
        assert!(matches!(
            poll_with(&mut first, &a),
            Poll::Ready(HttpError::Cancelled)
        ));
        assert!(poll_with(&mut other, &b).is_pending(), "woken, not ended");
        let woken = b.0.load(Ordering::SeqCst);
        registry.close();
        assert_eq!(b.0.load(Ordering::SeqCst), woken + 1, "the close woke it");
        assert!(matches!(
            poll_with(&mut other, &b),
            Poll::Ready(HttpError::Closed)
        ));
        drop((first, other));
        let table = registry.lock();
        assert!(table.entries.items.iter().all(Option::is_none));
        assert_eq!(table.entries.free.len(), table.entries.items.len());
        assert_eq!(
            table.wakers.free.len(),
            table.wakers.items.len(),
            "every slot free"
        );
    }
}

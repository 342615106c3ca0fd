//! Whom the wakes of a POST's future go to: the driver, or the caller that
//! reads it itself while it awaits its call (`future_set/owned.rs`). (A
//! byte stream's input needs no such record: leased, it is polled with its
//! lessee's own waker, `sources/lease.rs`.)
//!
//! An owner is a waker and a generation, behind a lock; each new owner
//! has a new generation, so that a stale hold (of an earlier owner, or one
//! the driver took back) ends nothing. Which waker a wake reaches is
//! decided under the lock, which settles a wake's race with the owner's
//! end: a wake that finds no owner there goes to the driver, and the end,
//! whoever brings it, looks at the source's own wake marks after it (each
//! user of this says what it then wakes). The owner's waker is woken
//! outside the lock: a waker may poll its task at once, which looks at the
//! ownership again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::Waker;

/// The owner of one source, if it has one.
#[derive(Default)]
pub(super) struct Ownership {
    /// A hint, for the wakes that find no owner (most): the lock decides.
    owned: AtomicBool,
    owner: Mutex<Owner>,
}

/// Who owns the source, behind [`Ownership`]'s lock.
#[derive(Default)]
struct Owner {
    /// Counts the owners.
    generation: u64,
    /// The owner's waker; `None` while the source is the driver's.
    waker: Option<Waker>,
}

impl Ownership {
    fn owner(&self) -> MutexGuard<'_, Owner> {
        self.owner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `waker` the owner (ending any other); its generation.
    pub(super) fn take(&self, waker: &Waker) -> u64 {
        let mut o = self.owner();
        o.generation += 1;
        o.waker = Some(waker.clone());
        self.owned.store(true, Ordering::Release);
        o.generation
    }

    /// Whether the owner of `generation` still owns the source; if so,
    /// `waker` is the one its wakes wake from now on (its future may have
    /// moved to another task).
    pub(super) fn holds(&self, generation: u64, waker: &Waker) -> bool {
        let mut guard = self.owner();
        let o = &mut *guard;
        match &mut o.waker {
            Some(w) if o.generation == generation => {
                w.clone_from(waker);
                true
            }
            _ => false,
        }
    }

    /// The owner's generation, if the source has one.
    pub(super) fn current(&self) -> Option<u64> {
        if !self.owned.load(Ordering::Acquire) {
            return None;
        }
        let o = self.owner();
        o.waker.as_ref().map(|_| o.generation)
    }

    /// Wakes the owner for a wake of the source; `false` when it has none
    /// (the driver is then the one to wake).
    pub(super) fn wake_owner(&self) -> bool {
        if !self.owned.load(Ordering::Acquire) {
            return false;
        }
        let waker = self.owner().waker.clone();
        match waker {
            Some(w) => {
                w.wake();
                true
            }
            None => false,
        }
    }

    /// Ends the ownership (only `generation`'s, when given): the source's
    /// wakes go to the driver again. `true` when it ended one.
    pub(super) fn end(&self, generation: Option<u64>) -> bool {
        if !self.owned.load(Ordering::Acquire) {
            return false;
        }
        let mut o = self.owner();
        if o.waker.is_none() || generation.is_some_and(|g| g != o.generation) {
            return false;
        }
        self.owned.store(false, Ordering::Release);
        let waker = o.waker.take();
        drop(o);
        drop(waker);
        true
    }
}

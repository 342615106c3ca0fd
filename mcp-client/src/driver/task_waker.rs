//! The driver task's waker as its sources' wakers see it: registered when
//! it changes, not on every turn, and not taken by a wake.
//!
//! `AtomicWaker` gives its waker up to the first wake, so the driver had
//! to register again on every poll of every wait (two atomic
//! read-modify-writes each, four to six times a sequential call over
//! HTTP) and each wake cost two more. A connection's driver is one task
//! whose waker does not change: here the first waker is kept for good (a
//! wake reads it, with no read-modify-write of its own), and the driver
//! compares the waker it is polled with to the one it registered last
//! (no atomic operation) before registering anything. A waker that does
//! change (a driver moved to another task) is kept behind a lock, and
//! every wake then takes the lock.
//!
//! The waker is kept as long as the `TaskWaker` is: a source that outlives
//! the driver (the command queue, while a handle holds it; a connection
//! that keeps the waker of the last exchange it served) keeps the finished
//! task's allocation, though not its future, dropped when it finished.
//! The `AtomicWaker`s of the futures and the sources kept it so too; the
//! command queue used to drop its waker with its receiver.
//!
//! A wake may find the task polling already, or wake it for a source it
//! then finds not ready: both are spurious wake-ups, which the driver
//! allows. What it must not do is miss one, so each source notes its wake
//! (a bit, a queue's mark) with an atomic read-modify-write before it
//! wakes the task, and the driver registers before it reads the notes.
//! After a new registration ([`TaskWaker::register`] says so) the driver
//! reads them with a read-modify-write too (or under the lock a source
//! notes them under): the two read-modify-writes of one note are ordered,
//! so either the driver sees the note or the source's wake sees the
//! registration. A registration that is not new was ordered so when it
//! was.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::task::Waker;

/// The task's waker, shared with the sources' wakers.
#[derive(Default)]
pub(super) struct TaskWaker {
    /// The first waker registered.
    first: OnceLock<Waker>,
    /// Whether a later registration replaced `first` (then `later` holds
    /// the task's waker).
    moved: AtomicBool,
    later: Mutex<Option<Waker>>,
}

impl TaskWaker {
    /// Makes `waker` the one woken; `held` is the registrant's note of the
    /// one it registered last, kept beside it (the same waker again
    /// registers nothing). `true` when `waker` was registered now (it is
    /// not the one registered last).
    #[inline]
    pub(super) fn register(&self, held: &mut Option<Waker>, waker: &Waker) -> bool {
        // Inlined: a driver's turn asks this several times, and the answer
        // is nearly always this one comparison.
        if held.as_ref().is_some_and(|h| h.will_wake(waker)) {
            return false;
        }
        self.register_new(held, waker)
    }

    /// [`TaskWaker::register`] of a waker other than the one held.
    #[cold]
    #[inline(never)]
    fn register_new(&self, held: &mut Option<Waker>, waker: &Waker) -> bool {
        *held = Some(waker.clone());
        if self.first.get().is_none() && self.first.set(waker.clone()).is_ok() {
            return true;
        }
        *self.later.lock().unwrap_or_else(PoisonError::into_inner) = Some(waker.clone());
        self.moved.store(true, Ordering::SeqCst);
        true
    }

    /// Wakes the task registered last (nothing before any registration).
    pub(super) fn wake(&self) {
        if self.moved.load(Ordering::SeqCst) {
            let later = self.later.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(waker) = later.as_ref() {
                waker.wake_by_ref();
            }
        } else if let Some(waker) = self.first.get() {
            waker.wake_by_ref();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::counting_waker::{counting_waker, wakes};

    #[test]
    fn wakes_reach_the_waker_registered_last_and_are_not_used_up() {
        let task = TaskWaker::default();
        task.wake();
        let mut held = None;
        let (first, first_waker) = counting_waker();
        task.register(&mut held, &first_waker);
        task.wake();
        task.wake();
        assert_eq!(wakes(&first), 2, "a wake does not take the waker");
        task.register(&mut held, &first_waker);
        task.wake();
        assert_eq!(wakes(&first), 3);
        let (second, second_waker) = counting_waker();
        task.register(&mut held, &second_waker);
        task.wake();
        assert_eq!((wakes(&first), wakes(&second)), (3, 1));
        // Back to the first one: registered again, not skipped.
        task.register(&mut held, &first_waker);
        task.wake();
        assert_eq!((wakes(&first), wakes(&second)), (4, 1));
    }

    #[test]
    fn the_same_waker_is_registered_once() {
        let task = TaskWaker::default();
        let (_, waker) = counting_waker();
        let mut held = None;
        assert!(task.register(&mut held, &waker));
        assert!(!task.register(&mut held, &waker.clone()));
        assert!(!task.moved.load(Ordering::SeqCst));
        assert!(task.later.lock().unwrap().is_none());
    }
}

//! Wakers for tests: one that counts its wakes (the driver's queues and
//! exchanges are tested by who they wake, and how often), and one that
//! unparks the polling thread, with a wait for it that fails on a lost
//! wake-up instead of hanging (wakes from other threads).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Wake, Waker};
use std::time::{Duration, Instant};

/// The count behind a [`counting_waker`].
pub(super) struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A waker that counts its wakes, and the count.
pub(super) fn counting_waker() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (Arc::clone(&count), Waker::from(count))
}

/// How many times the waker of `count` was woken.
pub(super) fn wakes(count: &Count) -> usize {
    count.0.load(Ordering::SeqCst)
}

/// Unparks the thread that made it.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// A waker that unparks the current thread (see [`park_until_woken`]).
pub(super) fn unpark_waker() -> Waker {
    Waker::from(Arc::new(Unpark(std::thread::current())))
}

/// How long [`park_until_woken`] waits before it calls a wake-up lost.
const LOST_AFTER: Duration = Duration::from_secs(5);

/// Parks until an [`unpark_waker`] wakes this thread (at once when one
/// did since the last park); panics, naming `progress`, when none comes
/// within five seconds: a wake-up was lost.
pub(super) fn park_until_woken(progress: impl std::fmt::Display) {
    let parked = Instant::now();
    std::thread::park_timeout(LOST_AFTER);
    assert!(
        parked.elapsed() < LOST_AFTER,
        "a wake-up was lost ({progress})"
    );
}

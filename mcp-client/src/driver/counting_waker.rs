//! A waker for tests that counts its wakes (the driver's queues and
//! exchanges are tested by who they wake, and how often).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Wake, Waker};

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

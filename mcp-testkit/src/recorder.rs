//! [`Recorder`]: what a handler saw, in order, with a wait for a condition
//! on it that wakes on each push (no sleep-and-poll loop).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

/// Items pushed by callbacks (notification handlers, status callbacks),
/// and a wait until they satisfy a condition.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use mcp_testkit::Recorder;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let seen = Arc::new(Recorder::new());
/// let sink = seen.clone();
/// tokio::spawn(async move { sink.push("done") });
/// let items = seen.until(Duration::from_secs(5), |s| s.contains(&"done")).await;
/// assert_eq!(items, ["done"]);
/// # }
/// ```
#[derive(Debug)]
pub struct Recorder<T> {
    items: Mutex<Vec<T>>,
    pushed: watch::Sender<u64>,
}

impl<T> Default for Recorder<T> {
    fn default() -> Self {
        Recorder {
            items: Mutex::new(Vec::new()),
            pushed: watch::Sender::new(0),
        }
    }
}

impl<T: Clone + std::fmt::Debug> Recorder<T> {
    /// An empty recorder.
    pub fn new() -> Recorder<T> {
        Recorder::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<T>> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records one item and wakes the waiters.
    pub fn push(&self, item: T) {
        self.lock().push(item);
        self.pushed.send_modify(|n| *n += 1);
    }

    /// Everything recorded so far.
    pub fn items(&self) -> Vec<T> {
        self.lock().clone()
    }

    /// How many items were recorded.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Nothing recorded.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Forgets what was recorded.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Waits until `holds` is true of the items, checked now and after each
    /// push; returns them. `Err` with the items when `within` (on tokio's
    /// clock) passes first.
    pub async fn wait_for(
        &self,
        within: Duration,
        mut holds: impl FnMut(&[T]) -> bool,
    ) -> Result<Vec<T>, Vec<T>> {
        let mut pushed = self.pushed.subscribe();
        let wait = async {
            loop {
                pushed.borrow_and_update();
                if holds(&self.lock()) {
                    return;
                }
                // The sender lives in `self`: never closed while we wait.
                let _ = pushed.changed().await;
            }
        };
        match tokio::time::timeout(within, wait).await {
            Ok(()) => Ok(self.items()),
            Err(_) => Err(self.items()),
        }
    }

    /// [`Recorder::wait_for`], failing the test (naming the items seen)
    /// when `within` passes first.
    pub async fn until(&self, within: Duration, holds: impl FnMut(&[T]) -> bool) -> Vec<T> {
        match self.wait_for(within, holds).await {
            Ok(items) => items,
            Err(items) => panic!("not within {within:?}; recorded: {items:?}"),
        }
    }
}

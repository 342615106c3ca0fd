//! Throughput options: the bounded, coalescing queue between the driver
//! and the notification handlers.
//!
//! The driver never runs a
//! [`NotificationHandler`](crate::NotificationHandler) itself: it puts
//! each notification in a bounded queue that one worker thread drains, so a
//! slow handler never delays a response or a server request. Methods
//! chosen with [`ClientBuilder::debounce_notifications`] coalesce: while a
//! notification waits in the queue (or inside its debounce window), a
//! newer one with the same key replaces it (latest wins). The keys, and
//! which methods coalesce, are the core's decision
//! ([`mcp_core::coalesce`]): the `logger` of a log message, the `uri` of a
//! resource update, the `taskId` of a task status, the call of a progress
//! update, the method alone for anything else.
//!
//! When the queue is full, the oldest coalescable notification (progress,
//! log, list changes, resource and task updates, and every debounced
//! method) is dropped to make room, else the oldest of all; drops are
//! counted ([`Client::dropped_notifications`]) and reported with
//! `tracing` (`warn` at the 1st, 2nd, 4th, 8th ... drop).
//!
//! A call's own progress callback
//! ([`CallOptions::on_progress`](crate::CallOptions::on_progress)) runs on
//! the driver, before the call's result is returned, unless
//! `notifications/progress` is debounced: then it goes through the queue
//! too (and may run after the result arrived).
//!
//! ```
//! use std::time::Duration;
//! use mcp_client::Client;
//! let builder = Client::builder()
//!     .notification_queue(256)
//!     .debounce_notifications(
//!         ["notifications/progress", "notifications/message"],
//!         Duration::from_millis(100),
//!     );
//! # let _ = builder;
//! ```

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_types::RequestId;
use serde_json::value::RawValue;

use crate::client::builder::ClientBuilder;
use crate::client::{Client, Shared};
use crate::driver::Driver;
use crate::driver::notify_queue::{Admission, Entry, Item, PROGRESS, Queue, start};
use crate::options::{Progress, ProgressCallback};

/// The default bound of the notification queue.
pub const DEFAULT_NOTIFICATION_QUEUE: usize = 1024;

/// The builder's throughput settings.
#[derive(Clone, Debug)]
pub(crate) struct ThroughputConfig {
    capacity: usize,
    debounced: HashSet<String>,
    window: Duration,
}

impl Default for ThroughputConfig {
    fn default() -> Self {
        ThroughputConfig {
            capacity: DEFAULT_NOTIFICATION_QUEUE,
            debounced: HashSet::new(),
            window: Duration::ZERO,
        }
    }
}

/// Counters readable from every handle.
#[derive(Debug, Default)]
pub(crate) struct NotifyStats {
    dropped: AtomicU64,
    coalesced: AtomicU64,
}

impl ClientBuilder {
    /// Bounds the queue of notifications waiting for the
    /// [`NotificationHandler`](crate::NotificationHandler) (at least 1;
    /// [`DEFAULT_NOTIFICATION_QUEUE`] by default). When it is full the oldest coalescable notification is
    /// dropped (see the [module docs](crate::throughput)); responses and
    /// server requests never wait for it.
    ///
    /// ```
    /// let builder = mcp_client::Client::builder().notification_queue(64);
    /// # let _ = builder;
    /// ```
    pub fn notification_queue(mut self, capacity: usize) -> Self {
        self.throughput.capacity = capacity.max(1);
        self
    }

    /// Coalesces floods of these notification methods (for example
    /// `notifications/progress`, `notifications/message`): a notification
    /// waits up to `window` (zero: only while the handler is busy) and a
    /// newer one with the same key replaces it, so the handler sees the
    /// latest per key. Calling it again adds methods and sets the window.
    ///
    /// ```
    /// use std::time::Duration;
    /// let builder = mcp_client::Client::builder()
    ///     .debounce_notifications(["notifications/progress"], Duration::from_millis(50));
    /// # let _ = builder;
    /// ```
    pub fn debounce_notifications<I, S>(mut self, methods: I, window: Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.throughput
            .debounced
            .extend(methods.into_iter().map(Into::into));
        self.throughput.window = window;
        self
    }
}

impl Client {
    /// How many notifications were dropped because the handler queue was
    /// full (see [`ClientBuilder::notification_queue`]).
    ///
    /// ```no_run
    /// # fn run(client: mcp_client::Client) {
    /// if client.dropped_notifications() > 0 {
    ///     eprintln!("the notification handler cannot keep up");
    /// }
    /// # }
    /// ```
    pub fn dropped_notifications(&self) -> u64 {
        self.inner
            .shared
            .notify_stats
            .dropped
            .load(Ordering::Relaxed)
    }

    /// How many notifications were replaced by a newer one with the same
    /// key (see [`ClientBuilder::debounce_notifications`]).
    ///
    /// ```no_run
    /// # fn run(client: mcp_client::Client) {
    /// println!("{} progress/log updates merged", client.coalesced_notifications());
    /// # }
    /// ```
    pub fn coalesced_notifications(&self) -> u64 {
        self.inner
            .shared
            .notify_stats
            .coalesced
            .load(Ordering::Relaxed)
    }
}

/// The driver's end of the queue; the worker starts with the first push.
#[derive(Default)]
pub(crate) struct Notifier {
    config: ThroughputConfig,
    queue: Option<Arc<Queue>>,
}

impl Drop for Notifier {
    fn drop(&mut self) {
        if let Some(q) = &self.queue {
            q.lock().closed = true;
            q.ready.notify_all();
        }
    }
}

/// The coalescing key of a notification: its method and the core's key
/// within it.
fn key_of(method: &str, params: Option<&RawValue>) -> (String, String) {
    (method.to_owned(), mcp_core::coalesce::key(method, params))
}

impl Notifier {
    pub(crate) fn new(config: ThroughputConfig) -> Self {
        Notifier {
            config,
            queue: None,
        }
    }

    fn debounces(&self, method: &str) -> bool {
        self.config.debounced.contains(method)
    }

    fn push(&mut self, shared: &Arc<Shared>, key: (String, String), item: Item) {
        let now = Instant::now();
        let debounced = self.debounces(&key.0);
        let coalescable = debounced || mcp_core::coalesce::is_coalescable(&key.0);
        let queue = self.queue.get_or_insert_with(|| start(shared.clone()));
        let window = self.config.window;
        let entry = Entry {
            key: debounced.then_some(key),
            coalescable,
            due: (debounced && !window.is_zero()).then(|| now + window),
            item,
        };
        let admitted = queue.lock().admit(entry, self.config.capacity);
        let stats = &shared.notify_stats;
        match admitted {
            Admission::Merged => {
                stats.coalesced.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Admission::Queued {
                dropped: Some(method),
            } => {
                let n = stats.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                if n.is_power_of_two() {
                    tracing::warn!(
                        method,
                        dropped = n,
                        "notification queue full: dropped the oldest notification"
                    );
                } else {
                    tracing::debug!(method, dropped = n, "notification dropped");
                }
            }
            Admission::Queued { dropped: None } => {}
        }
        queue.ready.notify_one();
    }
}

impl Driver {
    /// Queues a notification for the handler (nothing when none is set).
    pub(crate) fn deliver_notification(&mut self, method: &str, params: Option<Box<RawValue>>) {
        if self.shared.handlers().notifications.is_none() {
            return;
        }
        // Only a debounced method needs its params' key.
        let key = match self.notifier.debounces(method) {
            true => key_of(method, params.as_deref()),
            false => (method.to_owned(), String::new()),
        };
        let item = Item::Notification {
            method: method.to_owned(),
            params,
        };
        self.notifier.push(&self.shared, key, item);
    }

    /// Hands a call's progress to its callback (on the driver, unless
    /// progress is debounced) or to the handler's `on_progress` (queued).
    pub(crate) fn deliver_progress(
        &mut self,
        call: RequestId,
        progress: Progress,
        callback: Option<ProgressCallback>,
    ) {
        match callback {
            Some(cb) if !self.notifier.debounces(PROGRESS) => cb(progress),
            None if self.shared.handlers().notifications.is_none() => {}
            callback => {
                let key = (PROGRESS.to_owned(), call.to_string());
                let item = Item::Progress {
                    call,
                    progress,
                    callback,
                };
                self.notifier.push(&self.shared, key, item);
            }
        }
    }
}

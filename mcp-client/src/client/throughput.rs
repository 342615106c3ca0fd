//! Throughput options: the bounded queue between the driver and the
//! notification handlers, and debouncing of notification floods.
//!
//! The driver never runs a
//! [`NotificationHandler`](crate::NotificationHandler) itself: it puts
//! each notification in a bounded queue that one worker thread drains, so a
//! slow handler never delays a response or a server request.
//!
//! Methods chosen with [`ClientBuilder::debounce_notifications`] are
//! debounced by the core ([`mcp_core::Debounce`]) on the driver's clock:
//! the first notification of a key waits for the window and a newer one
//! with the same key replaces it meanwhile (latest wins), so the handler
//! sees the latest per key. The key is the `logger` of a log message, the
//! `uri` of a resource update, the `taskId` of a task status, the call of
//! a progress update, the method alone for anything else. A call's held
//! progress is delivered before its result; merges are counted
//! ([`Client::coalesced_notifications`]).
//!
//! When the queue is full, the oldest supersedable notification (progress,
//! log, list changes, resource and task updates, and every debounced
//! method) is dropped to make room, else the oldest of all; drops are
//! counted ([`Client::dropped_notifications`]) and reported with
//! `tracing` (`warn` at the 1st, 2nd, 4th, 8th ... drop).
//!
//! A call's own progress callback
//! ([`CallOptions::on_progress`](crate::CallOptions::on_progress)) runs on
//! the driver, before the call's result is returned (debounced or not).
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

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::client::Client;
use crate::client::builder::ClientBuilder;

/// The default bound of the notification queue.
pub const DEFAULT_NOTIFICATION_QUEUE: usize = 1024;

/// The builder's throughput settings.
#[derive(Clone, Debug)]
pub(crate) struct ThroughputConfig {
    pub(crate) capacity: usize,
    /// Handed to the core (`Config::debounce`).
    pub(crate) debounce: mcp_core::Debounce,
}

impl Default for ThroughputConfig {
    fn default() -> Self {
        ThroughputConfig {
            capacity: DEFAULT_NOTIFICATION_QUEUE,
            debounce: mcp_core::Debounce::default(),
        }
    }
}

/// Counters readable from every handle.
#[derive(Debug, Default)]
pub(crate) struct NotifyStats {
    pub(crate) dropped: AtomicU64,
    pub(crate) coalesced: AtomicU64,
}

impl ClientBuilder {
    /// Bounds the queue of notifications waiting for the
    /// [`NotificationHandler`](crate::NotificationHandler) (at least 1;
    /// [`DEFAULT_NOTIFICATION_QUEUE`] by default). When it is full the
    /// oldest supersedable notification is dropped (see the [module docs](crate::throughput)); responses and
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
    /// waits `window` and a newer one with the same key replaces it
    /// meanwhile, so the handler sees the latest per key (zero: only the
    /// ones that arrive in the same burst merge). Calling it again adds
    /// methods and sets the window.
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
        let debounce = &mut self.throughput.debounce;
        debounce.methods.extend(methods.into_iter().map(Into::into));
        debounce.window = window;
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
    /// key while debounced (see [`ClientBuilder::debounce_notifications`];
    /// the core's count, `mcp_core::Connection::coalesced_notifications`).
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

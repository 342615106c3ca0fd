//! The driver's end of the notification queue (see
//! [`throughput`](crate::throughput) for the policy): which notifications
//! and progress updates are queued for the handler, under which coalescing
//! key, and what a full queue drops.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use mcp_types::RequestId;
use serde_json::value::RawValue;

use super::Driver;
use super::notify_queue::{Admission, Entry, Item, PROGRESS, Queue, start};
use crate::client::Shared;
use crate::client::throughput::ThroughputConfig;
use crate::options::{Progress, ProgressCallback};

/// The driver's end of the queue; the worker starts with the first push.
#[derive(Default)]
pub(super) struct Notifier {
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
    pub(super) fn new(config: ThroughputConfig) -> Self {
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
    pub(super) fn deliver_notification(&mut self, method: &str, params: Option<Box<RawValue>>) {
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
    pub(super) fn deliver_progress(
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

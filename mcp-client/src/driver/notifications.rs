//! The driver's end of the notification queue (see
//! [`throughput`](crate::throughput) for the policy): the core's
//! notification and progress events, already debounced by the core, are
//! queued for the handler; a call's own progress callback runs here, on
//! the driver. What a full queue drops first is the core's call
//! (`Connection::is_supersedable`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_types::RequestId;
use mcp_types::incoming::{NotificationKind, ServerNotification};

use super::Driver;
use super::notify_queue::{Entry, Item, Queue, start};
use crate::client::Shared;
use crate::options::{Progress, ProgressCallback};

/// The driver's end of the queue; the worker starts with the first push.
#[derive(Default)]
pub(super) struct Notifier {
    capacity: usize,
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

impl Notifier {
    pub(super) fn new(capacity: usize) -> Self {
        Notifier {
            capacity,
            queue: None,
        }
    }

    fn push(&mut self, shared: &Arc<Shared>, entry: Entry) {
        let queue = self.queue.get_or_insert_with(|| start(shared.clone()));
        let dropped = queue.lock().admit(entry, self.capacity);
        if let Some(method) = dropped {
            let n = shared.notify_stats.dropped.fetch_add(1, Ordering::Relaxed) + 1;
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
        queue.ready.notify_one();
    }
}

impl Driver {
    /// Queues a notification for the handler (nothing when none is set).
    pub(super) fn deliver_notification(&mut self, n: ServerNotification) {
        if self.shared.handlers().notifications.is_none() {
            return;
        }
        let supersedable = self.conn.is_supersedable(n.method());
        let item = Item::Notification(n);
        self.notifier
            .push(&self.shared, Entry { supersedable, item });
    }

    /// Hands a call's progress to its callback (here, on the driver) or
    /// to the handler's `on_progress` (queued).
    #[inline(never)]
    pub(super) fn deliver_progress(
        &mut self,
        call: RequestId,
        progress: Progress,
        callback: Option<ProgressCallback>,
    ) {
        match callback {
            Some(cb) => cb(progress),
            None if self.shared.handlers().notifications.is_none() => {}
            None => {
                let supersedable = self
                    .conn
                    .is_supersedable(NotificationKind::Progress.method());
                let item = Item::Progress { call, progress };
                self.notifier
                    .push(&self.shared, Entry { supersedable, item });
            }
        }
    }
}

//! The queue between the driver and the notification handlers: bounded,
//! drained by one blocking worker thread (see
//! [`throughput`](crate::throughput) for the policy and the options). It
//! decides nothing about the protocol: what merges, on which key and when
//! is the core's (`mcp_core::Debounce`); the queue only keeps order and,
//! when full, drops the oldest entry the core called supersedable.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use mcp_types::RequestId;
use serde_json::value::RawValue;

use crate::client::Shared;
use crate::handlers::NotificationHandler;
use crate::options::Progress;

/// The progress notification's method.
pub(super) const PROGRESS: &str = "notifications/progress";

/// What the worker hands to the handlers.
pub(super) enum Item {
    Notification {
        method: String,
        params: Option<Box<RawValue>>,
    },
    Progress {
        call: RequestId,
        progress: Progress,
    },
}

impl Item {
    fn method(&self) -> &str {
        match self {
            Item::Notification { method, .. } => method,
            Item::Progress { .. } => PROGRESS,
        }
    }
}

pub(super) struct Entry {
    /// Dropped first when the queue is full (the core's
    /// `Connection::is_supersedable`).
    pub(super) supersedable: bool,
    pub(super) item: Item,
}

#[derive(Default)]
pub(super) struct State {
    entries: VecDeque<Entry>,
    pub(super) closed: bool,
}

#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<State>,
    pub(super) ready: Condvar,
}

impl Queue {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Queues `entry`, after dropping the oldest supersedable entry (else
    /// the oldest) when `capacity` is reached; returns the dropped entry's
    /// method.
    pub(super) fn admit(&mut self, entry: Entry, capacity: usize) -> Option<String> {
        let mut dropped = None;
        if self.entries.len() >= capacity {
            let victim = self.entries.iter().position(|e| e.supersedable);
            dropped = (self.entries.remove(victim.unwrap_or(0)))
                .map(|gone| gone.item.method().to_owned());
        }
        self.entries.push_back(entry);
        dropped
    }
}

/// Starts the worker: a blocking thread that calls the handlers.
pub(super) fn start(shared: Arc<Shared>) -> Arc<Queue> {
    let queue = Arc::new(Queue::default());
    let q = queue.clone();
    // A blocking thread: a handler that blocks cannot stall the runtime's
    // workers (and with them the driver). It exits when the driver drops
    // its end, after delivering what is left.
    drop(tokio::task::spawn_blocking(move || {
        while let Some(item) = next(&q) {
            let delivered = catch_unwind(AssertUnwindSafe(|| deliver(&shared, item)));
            if delivered.is_err() {
                tracing::warn!("a notification handler panicked");
            }
        }
    }));
    queue
}

/// The next item to deliver (waiting for one); `None` once closed and empty.
fn next(q: &Queue) -> Option<Item> {
    let mut st = q.lock();
    loop {
        if let Some(e) = st.entries.pop_front() {
            return Some(e.item);
        }
        if st.closed {
            return None;
        }
        st = q.ready.wait(st).unwrap_or_else(PoisonError::into_inner);
    }
}

fn deliver(shared: &Shared, item: Item) {
    match item {
        Item::Progress { call, progress } => {
            if let Some(h) = shared.handlers().notifications {
                h.on_progress(&call, progress);
            }
        }
        Item::Notification { method, params } => {
            if let Some(h) = shared.handlers().notifications {
                dispatch(&*h, &method, params.as_deref());
            }
        }
    }
}

/// Calls the handler method for `method`, then `on_notification`.
fn dispatch(h: &dyn NotificationHandler, method: &str, raw: Option<&RawValue>) {
    let text = raw.map_or("{}", RawValue::get);
    match method {
        "notifications/message" => {
            if let Ok(p) = serde_json::from_slice(text.as_bytes()) {
                h.on_log(p);
            }
        }
        "notifications/resources/updated" => {
            #[derive(serde::Deserialize)]
            struct Updated {
                uri: String,
            }
            if let Ok(u) = serde_json::from_slice::<Updated>(text.as_bytes()) {
                h.on_resource_updated(&u.uri);
            }
        }
        _ => {
            if let Some(list) = mcp_core::ListChanged::from_method(method) {
                h.on_list_changed(list.as_str());
            }
        }
    }
    h.on_notification(method, raw);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method: &str, supersedable: bool) -> Entry {
        Entry {
            supersedable,
            item: Item::Notification {
                method: method.to_owned(),
                params: None,
            },
        }
    }

    fn methods(st: &State) -> Vec<&str> {
        st.entries.iter().map(|e| e.item.method()).collect()
    }

    #[test]
    fn a_full_queue_drops_the_oldest_supersedable_then_the_oldest() {
        let mut st = State::default();
        assert_eq!(st.admit(entry("custom/a", false), 3), None);
        assert_eq!(st.admit(entry("log/1", true), 3), None);
        assert_eq!(st.admit(entry("custom/b", false), 3), None);
        let r = st.admit(entry("custom/c", false), 3);
        assert_eq!(r.as_deref(), Some("log/1"));
        assert_eq!(methods(&st), ["custom/a", "custom/b", "custom/c"]);
        let r = st.admit(entry("custom/d", false), 3);
        assert_eq!(r.as_deref(), Some("custom/a"));
        assert_eq!(methods(&st), ["custom/b", "custom/c", "custom/d"]);
    }

    #[test]
    fn closing_delivers_what_is_left_then_ends() {
        let q = Queue::default();
        {
            let mut st = q.lock();
            st.admit(entry("first", true), 8);
            st.admit(entry("second", false), 8);
            st.closed = true;
        }
        for want in ["first", "second"] {
            match next(&q) {
                Some(Item::Notification { method, .. }) => assert_eq!(method, want),
                _ => panic!("{want} in order"),
            }
        }
        assert!(next(&q).is_none());
    }
}

//! The queue between the driver and the notification handlers: bounded,
//! coalescing by key, drained by one blocking worker thread (see
//! [`throughput`](crate::throughput) for the policy and the options).

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use mcp_types::RequestId;
use serde_json::value::RawValue;

use crate::client::Shared;
use crate::handlers::NotificationHandler;
use crate::options::{Progress, ProgressCallback};

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
        callback: Option<ProgressCallback>,
    },
}

pub(super) struct Entry {
    /// Set for debounced methods: a newer entry with this key merges.
    pub(super) key: Option<(String, String)>,
    /// Dropped first when the queue is full.
    pub(super) coalescable: bool,
    /// Not delivered before this instant (a debounce window).
    pub(super) due: Option<Instant>,
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

/// What [`State::admit`] did with a notification.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Admission {
    /// It replaced a queued one with the same key.
    Merged,
    /// It was queued, after dropping the notification of this method when
    /// the queue was full.
    Queued { dropped: Option<String> },
}

impl State {
    /// Queues `entry`: merged into a queued entry with its key (latest
    /// wins), or appended after dropping the oldest coalescable entry (else
    /// the oldest) when `capacity` is reached.
    pub(super) fn admit(&mut self, entry: Entry, capacity: usize) -> Admission {
        if let Some(key) = &entry.key
            && let Some(e) = self
                .entries
                .iter_mut()
                .find(|e| e.key.as_ref() == Some(key))
        {
            e.item = entry.item;
            return Admission::Merged;
        }
        let mut dropped = None;
        if self.entries.len() >= capacity {
            let victim = self.entries.iter().position(|e| e.coalescable).unwrap_or(0);
            dropped = self.entries.remove(victim).map(|gone| match gone.item {
                Item::Notification { method, .. } => method,
                Item::Progress { .. } => PROGRESS.to_owned(),
            });
        }
        self.entries.push_back(entry);
        Admission::Queued { dropped }
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
        let now = Instant::now();
        let closed = st.closed;
        if let Some(i) = st
            .entries
            .iter()
            .position(|e| closed || e.due.is_none_or(|d| d <= now))
        {
            return st.entries.remove(i).map(|e| e.item);
        }
        if closed {
            return None;
        }
        let wake = st.entries.iter().filter_map(|e| e.due).min();
        st = match wake {
            Some(at) => {
                let wait = at.saturating_duration_since(now);
                q.ready
                    .wait_timeout(st, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => q.ready.wait(st).unwrap_or_else(PoisonError::into_inner),
        };
    }
}

fn deliver(shared: &Shared, item: Item) {
    match item {
        Item::Progress {
            callback: Some(cb),
            progress,
            ..
        } => cb(progress),
        Item::Progress { call, progress, .. } => {
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
            if let Ok(p) = serde_json::from_str(text) {
                h.on_log(p);
            }
        }
        "notifications/resources/updated" => {
            #[derive(serde::Deserialize)]
            struct Updated {
                uri: String,
            }
            if let Ok(u) = serde_json::from_str::<Updated>(text) {
                h.on_resource_updated(&u.uri);
            }
        }
        _ => {
            if let Some(list) = mcp_core::list_changed::ListChanged::from_method(method) {
                h.on_list_changed(list.as_str());
            }
        }
    }
    h.on_notification(method, raw);
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap_or_else(|_| RawValue::NULL.to_owned())
    }

    fn entry(method: &str, key: Option<&str>, coalescable: bool, due: Option<Instant>) -> Entry {
        Entry {
            key: key.map(|k| (method.to_owned(), k.to_owned())),
            coalescable,
            due,
            item: Item::Notification {
                method: method.to_owned(),
                params: Some(raw(&format!("{{\"n\":{:?}}}", key.unwrap_or("")))),
            },
        }
    }

    fn methods(st: &State) -> Vec<String> {
        st.entries
            .iter()
            .map(|e| match &e.item {
                Item::Notification { method, .. } => method.clone(),
                Item::Progress { .. } => PROGRESS.to_owned(),
            })
            .collect()
    }

    #[test]
    fn a_full_queue_drops_the_oldest_coalescable_then_the_oldest() {
        let mut st = State::default();
        let q = Admission::Queued { dropped: None };
        assert_eq!(st.admit(entry("custom/a", None, false, None), 3), q);
        assert_eq!(st.admit(entry("log/1", None, true, None), 3), q);
        assert_eq!(st.admit(entry("custom/b", None, false, None), 3), q);
        let r = st.admit(entry("custom/c", None, false, None), 3);
        assert_eq!(
            r,
            Admission::Queued {
                dropped: Some("log/1".into())
            }
        );
        assert_eq!(methods(&st), ["custom/a", "custom/b", "custom/c"]);
        let r = st.admit(entry("custom/d", None, false, None), 3);
        assert_eq!(
            r,
            Admission::Queued {
                dropped: Some("custom/a".into())
            }
        );
        assert_eq!(methods(&st), ["custom/b", "custom/c", "custom/d"]);
    }

    #[test]
    fn a_keyed_entry_merges_in_place_latest_wins() {
        let mut st = State::default();
        st.admit(entry("p", Some("call-1"), true, None), 8);
        st.admit(entry("other", None, false, None), 8);
        let mut newer = entry("p", Some("call-1"), true, None);
        newer.item = Item::Notification {
            method: "p".into(),
            params: Some(raw(r#"{"n":"latest"}"#)),
        };
        assert_eq!(st.admit(newer, 8), Admission::Merged);
        assert_eq!(
            st.admit(entry("p", Some("call-2"), true, None), 8),
            Admission::Queued { dropped: None }
        );
        assert_eq!(methods(&st), ["p", "other", "p"]);
        match &st.entries[0].item {
            Item::Notification { params, .. } => {
                assert_eq!(
                    params.as_deref().map(RawValue::get),
                    Some(r#"{"n":"latest"}"#)
                );
            }
            Item::Progress { .. } => panic!("a notification"),
        }
    }

    #[test]
    fn entries_in_their_window_wait_but_do_not_block_others() {
        let q = Queue::default();
        let later = Instant::now() + Duration::from_secs(3600);
        {
            let mut st = q.lock();
            st.admit(entry("held", Some("k"), true, Some(later)), 8);
            st.admit(entry("ready", None, false, None), 8);
        }
        match next(&q) {
            Some(Item::Notification { method, .. }) => assert_eq!(method, "ready"),
            _ => panic!("the ready entry first"),
        }
        // Closing delivers what is left at once, then ends.
        q.lock().closed = true;
        match next(&q) {
            Some(Item::Notification { method, .. }) => assert_eq!(method, "held"),
            _ => panic!("the held entry on close"),
        }
        assert!(next(&q).is_none());
    }
}

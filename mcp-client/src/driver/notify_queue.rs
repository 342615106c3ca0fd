//! The queue between the driver and the notification handlers: bounded,
//! drained by one blocking worker thread (see
//! [`throughput`](crate::throughput) for the policy and the options). It
//! decides nothing about the protocol: what merges, on which key and when
//! is the core's (`mcp_core::Debounce`); the queue only keeps order and,
//! when full, drops the oldest entry the core called supersedable.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use mcp_core::ListChanged;
use mcp_types::RequestId;
use mcp_types::incoming::ServerNotification;
use mcp_types::jsonrpc::Notification;

use crate::client::Shared;
use crate::handlers::NotificationHandler;
use crate::options::Progress;

/// The progress notification's method.
pub(super) const PROGRESS: &str = "notifications/progress";

/// What the worker hands to the handlers.
pub(super) enum Item {
    /// A notification as received, and its typed view (`None` when a
    /// known method's params have the wrong shape; boxed, as some views
    /// are large).
    Notification {
        raw: Notification,
        view: Option<Box<ServerNotification>>,
    },
    Progress {
        call: RequestId,
        progress: Progress,
    },
}

impl Item {
    fn method(&self) -> &str {
        match self {
            Item::Notification { raw, .. } => &raw.method,
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
        Item::Notification { raw, view } => {
            if let Some(h) = shared.handlers().notifications {
                dispatch(&*h, &raw, view);
            }
        }
    }
}

/// Calls the handler method for the notification's typed view, then
/// `on_notification` with the raw notification.
fn dispatch(
    h: &dyn NotificationHandler,
    raw: &Notification,
    view: Option<Box<ServerNotification>>,
) {
    use ServerNotification as S;
    match view.map(|v| *v) {
        Some(S::LoggingMessage(p)) => h.on_log(p),
        Some(S::ResourceUpdated(p)) => h.on_resource_updated(&p.uri),
        Some(S::ToolListChanged(_)) => h.on_list_changed(ListChanged::Tools.as_str()),
        Some(S::PromptListChanged(_)) => h.on_list_changed(ListChanged::Prompts.as_str()),
        Some(S::ResourceListChanged(_)) => h.on_list_changed(ListChanged::Resources.as_str()),
        _ => {}
    }
    h.on_notification(&raw.method, raw.params.as_deref());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method: &str, supersedable: bool) -> Entry {
        Entry {
            supersedable,
            item: Item::Notification {
                raw: Notification {
                    method: method.to_owned(),
                    params: None,
                },
                view: None,
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
                Some(Item::Notification { raw, .. }) => assert_eq!(raw.method, want),
                _ => panic!("{want} in order"),
            }
        }
        assert!(next(&q).is_none());
    }

    /// Records which handler methods ran, in order.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl NotificationHandler for Recorder {
        fn on_log(&self, params: mcp_types::logging::LoggingMessageNotificationParams) {
            self.push(format!("log {}", params.data));
        }
        fn on_resource_updated(&self, uri: &str) {
            self.push(format!("updated {uri}"));
        }
        fn on_list_changed(&self, what: &str) {
            self.push(format!("changed {what}"));
        }
        fn on_notification(&self, method: &str, params: Option<&serde_json::value::RawValue>) {
            self.push(format!("raw {method} {}", params.map_or("-", |p| p.get())));
        }
    }

    impl Recorder {
        fn push(&self, s: String) {
            self.0.lock().unwrap().push(s);
        }
    }

    fn received(text: &str) -> (Notification, Option<Box<ServerNotification>>) {
        let Ok(mcp_types::Message::Notification(n)) =
            mcp_types::Message::from_slice(text.as_bytes())
        else {
            panic!("not a notification: {text}")
        };
        let view = ServerNotification::decode(&n).ok().map(Box::new);
        (n, view)
    }

    #[test]
    fn dispatch_follows_the_typed_view_then_hands_over_the_raw_params() {
        let h = Recorder::default();
        for text in [
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#,
            // Wrong shape for a known method: only the raw form is delivered.
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":7}}"#,
            r#"{"jsonrpc":"2.0","method":"custom/x","params":{"a":1}}"#,
        ] {
            let (raw, view) = received(text);
            dispatch(&h, &raw, view);
        }
        let seen = h.0.into_inner().unwrap();
        assert_eq!(
            seen,
            [
                r#"log "hi""#,
                r#"raw notifications/message {"level":"info","data":"hi"}"#,
                "updated file:///a",
                r#"raw notifications/resources/updated {"uri":"file:///a"}"#,
                "changed prompts",
                "raw notifications/prompts/list_changed -",
                r#"raw notifications/message {"level":7}"#,
                r#"raw custom/x {"a":1}"#,
            ]
        );
    }
}

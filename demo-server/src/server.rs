//! Server-wide state shared by every connection and session.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::DemoOptions;
use crate::catalog::Catalog;
use crate::legacy::Session;
use crate::oauth::AuthServer;
use crate::support::Signer;
use crate::tasks::TaskStore;

/// A change that listeners (legacy sessions, modern listen streams) may relay.
#[derive(Clone, Debug)]
pub(crate) enum Event {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated(String),
    TaskChanged(String),
}

/// The shared state behind a [`crate::DemoServer`].
pub(crate) struct Server {
    pub(crate) opts: DemoOptions,
    pub(crate) catalog: Catalog,
    pub(crate) events: broadcast::Sender<Event>,
    pub(crate) tasks: TaskStore,
    pub(crate) signer: Signer,
    pub(crate) shutdown: CancellationToken,
    items: Mutex<BTreeMap<u64, String>>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    ids: std::hash::RandomState,
    counter: AtomicU64,
    pub(crate) in_flight: AtomicUsize,
    notifications: Mutex<HashMap<String, u64>>,
    tagged: Mutex<HashMap<String, u64>>,
    answered: Mutex<HashMap<String, u64>>,
    pub(crate) cancelled: AtomicU64,
    /// Bumped after every change of a counter above (in flight,
    /// cancelled, notifications, tags, answered requests), so that a test
    /// awaits a change instead of polling ([`crate::DemoServer::wait_until`]).
    pub(crate) changed: watch::Sender<u64>,
    /// The authorization server of the OAuth mode.
    pub(crate) oauth: Option<AuthServer>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

/// Locks a mutex, recovering from poisoning (no invariant spans a panic here).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    pub(crate) fn new(opts: DemoOptions) -> Server {
        let (events, _) = broadcast::channel(1024);
        let oauth = opts.oauth.clone().map(AuthServer::new);
        Server {
            opts,
            catalog: Catalog::new(),
            tasks: TaskStore::new(events.clone()),
            events,
            signer: Signer::new(),
            shutdown: CancellationToken::new(),
            items: Mutex::new(BTreeMap::new()),
            sessions: Mutex::new(HashMap::new()),
            ids: std::hash::RandomState::new(),
            counter: AtomicU64::new(1),
            in_flight: AtomicUsize::new(0),
            notifications: Mutex::new(HashMap::new()),
            tagged: Mutex::new(HashMap::new()),
            answered: Mutex::new(HashMap::new()),
            cancelled: AtomicU64::new(0),
            changed: watch::Sender::new(0),
            oauth,
        }
    }

    /// The `serverInfo` / `Implementation` object.
    pub(crate) fn info(&self) -> Value {
        json!({
            "name": "demo-server",
            "title": "MCP demo server",
            "version": env!("CARGO_PKG_VERSION")
        })
    }

    /// Instructions sent at `initialize` and `server/discover`.
    pub(crate) fn instructions(&self) -> &'static str {
        "A demonstration server: try the echo, add and slow_count tools, \
         the demo://item/{id} resources and the greeting prompt."
    }

    /// A fresh unguessable-enough identifier (hex).
    pub(crate) fn fresh_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut h = self.ids.build_hasher();
        h.write_u64(n);
        h.write_u64(crate::support::now_millis());
        let mut h2 = self.ids.build_hasher();
        h2.write_u64(h.finish());
        format!("{:016x}{:016x}", h.finish(), h2.finish())
    }

    /// Wakes every [`crate::DemoServer::wait_until`]: a counter changed.
    pub(crate) fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Counts a notification received from a client (bounded: unknown
    /// methods beyond 256 distinct names are not counted).
    pub(crate) fn count_notification(&self, method: &str) {
        self.count_in(&self.notifications, method);
    }

    /// Counts a request answered (bounded like notifications).
    pub(crate) fn count_answered(&self, method: &str) {
        self.count_in(&self.answered, method);
    }

    /// Counts an HTTP POST that carried the `X-Demo-Tag` header (bounded:
    /// values over 64 bytes and more than 256 distinct values are ignored).
    pub(crate) fn count_tag(&self, tag: &str) {
        if tag.len() <= 64 {
            self.count_in(&self.tagged, tag);
        }
    }

    /// Adds one to `key` in `counts` (at most 256 distinct keys), then
    /// wakes the waiters.
    fn count_in(&self, counts: &Mutex<HashMap<String, u64>>, key: &str) {
        {
            let mut counts = lock(counts);
            if let Some(n) = counts.get_mut(key) {
                *n += 1;
            } else if counts.len() < 256 {
                counts.insert(key.to_owned(), 1);
            }
        }
        self.bump();
    }

    /// How many HTTP POSTs carried `X-Demo-Tag: tag`.
    pub(crate) fn tagged_posts(&self, tag: &str) -> u64 {
        lock(&self.tagged).get(tag).copied().unwrap_or(0)
    }

    /// How many notifications named `method` clients sent.
    pub(crate) fn notifications_received(&self, method: &str) -> u64 {
        lock(&self.notifications).get(method).copied().unwrap_or(0)
    }

    /// How many requests named `method` were answered.
    pub(crate) fn requests_answered(&self, method: &str) -> u64 {
        lock(&self.answered).get(method).copied().unwrap_or(0)
    }

    /// Publishes an event to every listener (none listening is fine).
    pub(crate) fn publish(&self, event: Event) {
        let _ = self.events.send(event);
    }

    /// The current value of item `id`.
    pub(crate) fn item(&self, id: u64) -> String {
        lock(&self.items)
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("initial value of item {id}"))
    }

    /// Sets item `id` and announces the update.
    pub(crate) fn set_item(&self, id: u64, value: String) {
        lock(&self.items).insert(id, value);
        self.publish(Event::ResourceUpdated(format!("demo://item/{id}")));
    }

    /// Registers a legacy HTTP session.
    pub(crate) fn add_session(&self, session: Arc<Session>) {
        lock(&self.sessions).insert(session.id.clone(), session);
    }

    /// A legacy HTTP session by id.
    pub(crate) fn session(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.sessions).get(id).cloned()
    }

    /// Closes every legacy HTTP session; returns how many there were.
    pub(crate) fn close_sessions(&self) -> usize {
        let sessions: Vec<_> = lock(&self.sessions).drain().collect();
        let n = sessions.len();
        for (id, s) in sessions {
            s.close();
            self.tasks.cancel_owned(&id);
        }
        n
    }

    /// Removes a legacy HTTP session, closing it.
    pub(crate) fn remove_session(&self, id: &str) -> bool {
        let removed = lock(&self.sessions).remove(id);
        match removed {
            Some(s) => {
                s.close();
                self.tasks.cancel_owned(id);
                true
            }
            None => false,
        }
    }
}

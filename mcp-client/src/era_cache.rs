//! [`EraCache`]: the era outcome per server, shared by clients and
//! exportable (M-25).
//!
//! Detecting the era costs a probe (and, against a legacy stdio server, a
//! probe timeout). The outcome is cached per server: the stdio command line
//! or the HTTP endpoint. A cache shared by several builders lets later
//! connections to the same server start with the known version; it can be
//! exported to disk and restored in the next run.
//!
//! ```
//! use mcp_client::EraCache;
//! use mcp_types::ProtocolVersion;
//! let cache = EraCache::new();
//! cache.insert("http://127.0.0.1:8080/mcp", ProtocolVersion::V2026_07_28);
//! let saved: Vec<(String, String)> = cache.export();
//! let restored = EraCache::new();
//! restored.restore(saved);
//! assert_eq!(restored.get("http://127.0.0.1:8080/mcp"), Some(ProtocolVersion::V2026_07_28));
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_types::ProtocolVersion;

/// The most servers one cache remembers.
pub const MAX_ERA_CACHE_ENTRIES: usize = 1024;

/// Era outcomes per server key. Cheap to clone; clones share the entries.
#[derive(Clone, Debug, Default)]
pub struct EraCache {
    entries: Arc<Mutex<HashMap<String, ProtocolVersion>>>,
}

impl EraCache {
    /// An empty cache.
    pub fn new() -> Self {
        EraCache::default()
    }

    /// The cached version for a server key.
    pub fn get(&self, key: &str) -> Option<ProtocolVersion> {
        self.lock().get(key).cloned()
    }

    /// Records the version negotiated with a server. Once
    /// [`MAX_ERA_CACHE_ENTRIES`] servers are known, new servers are not
    /// recorded (known ones are updated).
    pub fn insert(&self, key: impl Into<String>, version: ProtocolVersion) {
        let key = key.into();
        let mut map = self.lock();
        if map.len() < MAX_ERA_CACHE_ENTRIES || map.contains_key(&key) {
            map.insert(key, version);
        }
    }

    /// Forgets a server (for example after it was upgraded).
    pub fn remove(&self, key: &str) {
        self.lock().remove(key);
    }

    /// Number of servers known.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no server is known.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Every entry as `(server key, protocol version)` strings, sorted by key.
    pub fn export(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().to_owned()))
            .collect();
        out.sort();
        out
    }

    /// Adds exported entries; versions this client does not know are skipped.
    pub fn restore(&self, entries: impl IntoIterator<Item = (String, String)>) {
        for (key, version) in entries {
            let version = ProtocolVersion::parse(&version);
            if version.is_known() {
                self.insert(key, version);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ProtocolVersion>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

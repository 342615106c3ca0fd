//! [`EraCache`]: the era outcome per server, shared by clients and
//! exportable, so a later run starts with the version it already knows.
//!
//! Detecting the era costs a probe (and, against a legacy stdio server, a
//! probe timeout). The outcome is cached per server: the stdio command line
//! or the HTTP endpoint. A cache shared by several builders lets later
//! connections to the same server start with the known version; it can be
//! exported to disk and restored in the next run.
//!
//! ```
//! use mcp_client::EraCache;
//! use mcp_client::mcp_types::ProtocolVersion;
//! let cache = EraCache::new();
//! cache.insert("http://127.0.0.1:8080/mcp", ProtocolVersion::V2026_07_28);
//! let saved: Vec<(String, String)> = cache.export();
//! let restored = EraCache::new();
//! restored.restore(saved);
//! assert_eq!(restored.get("http://127.0.0.1:8080/mcp"), Some(ProtocolVersion::V2026_07_28));
//! ```
//!
//! Keys hold no secret, since [`EraCache::export`] writes them to disk: a
//! stdio key is built from the command's `Debug` form, which hides
//! environment values and credential arguments; an HTTP endpoint's query
//! values (often an API key) are stored as a stable hash of each value
//! (64-bit FNV-1a, the same in every run and build), so endpoints that
//! differ only there still get entries of their own.
//!
//! ```
//! use mcp_client::EraCache;
//! use mcp_client::mcp_types::ProtocolVersion;
//! let cache = EraCache::new();
//! cache.insert("https://mcp.example.com/?api_key=s3cret", ProtocolVersion::V2025_11_25);
//! assert_eq!(cache.get("https://mcp.example.com/?api_key=s3cret"), Some(ProtocolVersion::V2025_11_25));
//! assert!(!cache.export()[0].0.contains("s3cret"));
//! ```

use std::borrow::Cow;
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
        self.lock().get(&*stored_key(key)).cloned()
    }

    /// Records the version negotiated with a server. Once
    /// [`MAX_ERA_CACHE_ENTRIES`] servers are known, new servers are not
    /// recorded (known ones are updated).
    pub fn insert(&self, key: impl Into<String>, version: ProtocolVersion) {
        let key = key.into();
        let key = match stored_key(&key) {
            Cow::Borrowed(_) => key,
            Cow::Owned(hashed) => hashed,
        };
        let mut map = self.lock();
        if map.len() < MAX_ERA_CACHE_ENTRIES || map.contains_key(&key) {
            map.insert(key, version);
        }
    }

    /// Forgets a server (for example after it was upgraded).
    pub fn remove(&self, key: &str) {
        self.lock().remove(&*stored_key(key));
    }

    /// Number of servers known.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no server is known.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Every entry as `(server key, protocol version)` strings, sorted by
    /// key. HTTP query values appear hashed (`?api_key=fnv1a-1b2c...`).
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

/// The key as stored: an `http(s)://` key with every query value replaced
/// by `fnv1a-` and the 16 hex digits of its FNV-1a hash; any other key as
/// it is.
/// A stored key maps to itself, so exported entries restore unchanged.
fn stored_key(key: &str) -> Cow<'_, str> {
    if !(key.starts_with("http://") || key.starts_with("https://")) {
        return Cow::Borrowed(key);
    }
    mcp_types::redact::map_query_values(key, |value| {
        (!is_hashed(value)).then(|| format!("fnv1a-{:016x}", fnv1a(value.as_bytes())))
    })
}

/// True for a value [`stored_key`] already hashed.
fn is_hashed(value: &str) -> bool {
    value
        .strip_prefix("fnv1a-")
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// 64-bit FNV-1a: small, stable across runs, platforms and releases.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_query_values_are_stored_hashed_and_stably() {
        let key = "https://gw.example.com/mcp?server=github&token=s3cret";
        let stored = stored_key(key);
        assert!(
            !stored.contains("s3cret") && !stored.contains("github"),
            "{stored}"
        );
        // The same in every run: FNV-1a of "s3cret" is fixed.
        assert!(
            stored.ends_with(&format!("token=fnv1a-{:016x}", fnv1a(b"s3cret"))),
            "{stored}"
        );
        assert_eq!(stored_key(&stored), stored, "a stored key maps to itself");
        assert_ne!(
            stored,
            stored_key("https://gw.example.com/mcp?server=slack&token=s3cret")
        );
        assert_eq!(
            stored_key("http://127.0.0.1:1/mcp"),
            "http://127.0.0.1:1/mcp"
        );
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);

        let cache = EraCache::new();
        cache.insert(key, ProtocolVersion::V2025_11_25);
        let exported = cache.export();
        assert!(!exported[0].0.contains("s3cret"));
        let restored = EraCache::new();
        restored.restore(exported);
        assert_eq!(restored.get(key), Some(ProtocolVersion::V2025_11_25));
    }
}

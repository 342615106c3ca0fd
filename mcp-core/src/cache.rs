//! The result cache of the 2026-07-28 revision.
//!
//! Results of `server/discover`, `tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`, `resources/read` and the
//! skills extension's `skills/list`, `skills/get` and
//! `resources/directory/read` with a positive `ttlMs` are kept until `received + ttlMs` by the injected clock.
//! Keys are the method plus the params that shape the result (`_meta`
//! excluded). `private` entries are partitioned by a principal key the
//! facade supplies (one per authorization context); `public` ones are
//! shared. List-changed and resource-updated notifications invalidate the
//! matching entries; a size cap evicts the entries that expire first.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mcp_types::incoming::ServerNotification;
use mcp_types::raw::RawJson;
use serde_json::Value;

use crate::params::Params;

/// The default maximum number of cached results.
pub(crate) const DEFAULT_MAX_ENTRIES: usize = 256;

/// Who may reuse a cached result (`mcp-types`' one declaration): only an
/// explicit `public` is shared across authorization contexts.
pub(crate) use mcp_types::results::CacheScope;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    method: String,
    params: String,
    /// `None` for public entries, the principal for private ones.
    principal: Option<String>,
}

#[derive(Debug)]
struct Entry {
    result: RawJson,
    expires: Instant,
    uri: Option<String>,
}

/// The cache.
#[derive(Debug)]
pub(crate) struct Cache {
    entries: HashMap<Key, Entry>,
    max_entries: usize,
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new(DEFAULT_MAX_ENTRIES)
    }
}

/// The part of the params that shapes a result: everything but `_meta`
/// (and the multi round-trip members), serialized canonically with keys
/// sorted at every level, whatever order the map keeps.
pub(crate) fn params_key(params: &Params) -> String {
    let mut out = String::new();
    let Ok(members) = params.to_map() else {
        // Arguments too deep to read back: their text, as written.
        if let Params::Tool(call) = params {
            out.push_str(&Value::from(call.name()).to_string());
            out.push_str(call.arguments());
        }
        return out;
    };
    let shaping = members
        .iter()
        .map(|(k, v)| (k.as_str(), v))
        .filter(|(k, _)| !matches!(*k, "_meta" | "inputResponses" | "requestState"));
    canonical_object(shaping, &mut out);
    out
}

fn canonical_object<'a>(entries: impl Iterator<Item = (&'a str, &'a Value)>, out: &mut String) {
    let mut sorted: Vec<(&str, &Value)> = entries.collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (k, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(k.to_owned()).to_string());
        out.push(':');
        canonical(v, out);
    }
    out.push('}');
}

fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => canonical_object(m.iter().map(|(k, v)| (k.as_str(), v)), out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

impl Cache {
    /// A cache holding at most `max_entries` results.
    pub(crate) fn new(max_entries: usize) -> Self {
        Cache {
            entries: HashMap::new(),
            max_entries,
        }
    }

    /// Number of entries (fresh or not yet purged).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache is empty.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A fresh result for this request, if any: the principal's private
    /// entry first, then a public one.
    pub(crate) fn lookup(
        &self,
        now: Instant,
        method: &str,
        params: &Params,
        principal: &str,
    ) -> Option<&RawJson> {
        let pk = params_key(params);
        [Some(principal.to_owned()), None]
            .into_iter()
            .find_map(|p| {
                let key = Key {
                    method: method.to_owned(),
                    params: pk.clone(),
                    principal: p,
                };
                self.entries.get(&key).filter(|e| now < e.expires)
            })
            .map(|e| &e.result)
    }

    /// Stores a result with its `ttlMs` and scope; a zero, negative or
    /// absent TTL stores nothing.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn insert(
        &mut self,
        now: Instant,
        method: &str,
        params: &Params,
        principal: &str,
        ttl_ms: Option<i64>,
        scope: CacheScope,
        result: RawJson,
    ) {
        let Some(ttl) = ttl_ms.filter(|t| *t > 0) else {
            return;
        };
        if self.max_entries == 0 {
            return;
        }
        self.purge(now);
        let key = Key {
            method: method.to_owned(),
            params: params_key(params),
            principal: (!scope.is_public()).then(|| principal.to_owned()),
        };
        if !self.entries.contains_key(&key)
            && self.entries.len() >= self.max_entries
            && let Some(victim) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.expires)
                .map(|(k, _)| k.clone())
        {
            self.entries.remove(&victim);
        }
        let expires = now
            .checked_add(Duration::from_millis(ttl.unsigned_abs()))
            .unwrap_or(now);
        let uri = params.get_str("uri").map(str::to_owned);
        self.entries.insert(
            key,
            Entry {
                result,
                expires,
                uri,
            },
        );
    }

    /// Drops expired entries.
    pub(crate) fn purge(&mut self, now: Instant) {
        self.entries.retain(|_, e| now < e.expires);
    }

    /// The earliest expiry among the entries.
    pub(crate) fn next_expiry(&self) -> Option<Instant> {
        self.entries.values().map(|e| e.expires).min()
    }

    /// Drops every entry of these methods.
    pub(crate) fn invalidate_methods(&mut self, methods: &[&str]) {
        self.entries
            .retain(|k, _| !methods.contains(&k.method.as_str()));
    }

    /// Applies a notification: each drops the cached methods its row of
    /// the method table names (`invalidates`): list-changed notifications
    /// their lists, `notifications/resources/updated` only the reads (and
    /// `skills/get` entries) of its `uri`.
    pub(crate) fn on_notification(&mut self, n: &ServerNotification) {
        let stale = n.kind().map_or(&[][..], |k| k.facts().invalidates);
        if stale.is_empty() {
            return;
        }
        match n {
            ServerNotification::ResourceUpdated(u) => {
                let Some(uri) = &u.uri else {
                    return;
                };
                self.entries.retain(|k, e| {
                    !(stale.contains(&k.method.as_str()) && e.uri.as_deref() == Some(uri))
                });
            }
            _ => self.invalidate_methods(stale),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use serde_json::value::RawValue;

    use super::*;
    use crate::test_clock::origin;

    #[test]
    fn size_cap_and_key_canonicalization() {
        let now = origin();
        let mut c = Cache::new(2);
        let raw = || serde_json::value::to_raw_value(&json!({})).unwrap().into();
        let p = |u: &str| Params::from(json!({"uri": u}).as_object().unwrap().clone());
        c.insert(
            now,
            "resources/read",
            &p("a"),
            "",
            Some(1000),
            CacheScope::Public,
            raw(),
        );
        c.insert(
            now,
            "resources/read",
            &p("b"),
            "",
            Some(5000),
            CacheScope::Public,
            raw(),
        );
        c.insert(
            now,
            "resources/read",
            &p("c"),
            "",
            Some(9000),
            CacheScope::Public,
            raw(),
        );
        assert_eq!(c.len(), 2);
        assert!(
            c.lookup(now, "resources/read", &p("a"), "").is_none(),
            "earliest expiry evicted"
        );
        assert!(c.lookup(now, "resources/read", &p("c"), "").is_some());
        assert!(
            c.lookup(now, "resources/templates/list", &p("c"), "")
                .is_none(),
            "other method"
        );
        let a = json!({"b": 1, "a": {"y": 2, "x": 1}, "_meta": {"k": 1}});
        let b = json!({"a": {"x": 1, "y": 2}, "b": 1});
        assert_eq!(
            params_key(&a.as_object().unwrap().clone().into()),
            params_key(&b.as_object().unwrap().clone().into())
        );
        c.insert(
            now,
            "tools/list",
            &Params::default(),
            "",
            Some(-5),
            CacheScope::Public,
            raw(),
        );
        assert!(
            c.lookup(now, "tools/list", &Params::default(), "")
                .is_none(),
            "negative ttl is 0"
        );
    }

    #[test]
    fn resource_notifications_invalidate_cached_skill_results() {
        let now = origin();
        let mut c = Cache::new(16);
        let raw = || serde_json::value::to_raw_value(&json!({})).unwrap().into();
        let uri = |u: &str| Params::from(json!({ "uri": u }).as_object().unwrap().clone());
        let none = Params::default();
        for (method, params) in [
            ("skills/list", none.clone()),
            ("skills/get", uri("skill://a/SKILL.md")),
            ("skills/get", uri("skill://b/SKILL.md")),
            ("resources/directory/read", uri("skill://a")),
        ] {
            c.insert(
                now,
                method,
                &params,
                "",
                Some(60_000),
                CacheScope::Public,
                raw(),
            );
        }
        let note = |method: &str, params: Option<Box<RawValue>>| {
            ServerNotification::classify(mcp_types::jsonrpc::Notification {
                method: method.into(),
                params,
            })
        };
        let updated =
            serde_json::value::to_raw_value(&json!({"uri": "skill://a/SKILL.md"})).unwrap();
        c.on_notification(&note("notifications/resources/updated", Some(updated)));
        assert!(
            c.lookup(now, "skills/get", &uri("skill://a/SKILL.md"), "")
                .is_none()
        );
        assert!(
            c.lookup(now, "skills/get", &uri("skill://b/SKILL.md"), "")
                .is_some()
        );
        assert!(c.lookup(now, "skills/list", &none, "").is_some());
        c.on_notification(&note("notifications/resources/list_changed", None));
        assert!(c.is_empty(), "every skills result is dropped");
    }
}

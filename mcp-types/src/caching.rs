//! Caching hints of 2026-07-28 results (`ttlMs`, `cacheScope`), behind one
//! trait for the core's cache.
//!
//! Cacheable results: `server/discover`, `tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list` and `resources/read`
//! (`pages/server/utilities/caching.mdx`), and the skills extension's
//! `skills/list`, `skills/get` and `resources/directory/read`. A result without hints (every
//! 2025-11-25 result) is not cached.

use crate::lifecycle::DiscoverResult;
use crate::prompts::ListPromptsResult;
use crate::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use crate::results::CacheScope;
use crate::skills::{GetSkillResult, ListSkillsResult, ReadDirectoryResult};
use crate::tools::ListToolsResult;

/// A result that may carry caching hints.
///
/// ```
/// use mcp_types::caching::Cacheable;
/// use mcp_types::results::CacheScope;
/// use mcp_types::tools::ListToolsResult;
/// let r: ListToolsResult =
///     serde_json::from_str(r#"{"tools":[],"ttlMs":5000,"cacheScope":"private"}"#).unwrap();
/// assert_eq!(r.cache_hints(), Some((5000, CacheScope::Private)));
/// ```
pub trait Cacheable {
    /// `ttlMs`.
    fn ttl_ms(&self) -> Option<u64>;
    /// `cacheScope`.
    fn cache_scope(&self) -> Option<&CacheScope>;
    /// Both hints, when both are present and the scope is known.
    fn cache_hints(&self) -> Option<(u64, CacheScope)> {
        let scope = self.cache_scope().filter(|s| s.is_known())?;
        Some((self.ttl_ms()?, scope.clone()))
    }
}

macro_rules! cacheable {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl Cacheable for $ty {
                fn ttl_ms(&self) -> Option<u64> {
                    self.ttl_ms
                }
                fn cache_scope(&self) -> Option<&CacheScope> {
                    self.cache_scope.as_ref()
                }
            }
        )+
    };
}

cacheable!(
    DiscoverResult,
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ListSkillsResult,
    GetSkillResult,
    ReadDirectoryResult,
);

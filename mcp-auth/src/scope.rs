//! Scope selection (both revisions' "Scope Selection Strategy") and step-up
//! authorization on `403 insufficient_scope` with a bound on attempts.

use std::collections::HashMap;

/// `offline_access`, added when the authorization server advertises it so a refresh
/// token may be issued.
pub const OFFLINE_ACCESS: &str = "offline_access";

/// The most scopes a [`ScopeSet`] keeps. Scope lists come from servers; a longer
/// list is truncated so that set operations stay cheap.
pub const MAX_SCOPES: usize = 512;

/// An ordered set of scope tokens (first occurrence wins the position), at most
/// [`MAX_SCOPES`] of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScopeSet(Vec<String>);

impl ScopeSet {
    /// An empty set.
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// Parses a space-separated `scope` value.
    pub fn parse(s: &str) -> Self {
        let mut out = Self::new();
        for t in s.split_ascii_whitespace() {
            out.insert(t);
        }
        out
    }

    /// A set from individual scopes.
    pub fn from_list<S: AsRef<str>>(list: &[S]) -> Self {
        let mut out = Self::new();
        for s in list {
            out.insert(s.as_ref());
        }
        out
    }

    /// Adds a scope unless present (tokens containing whitespace are split). Scopes
    /// beyond [`MAX_SCOPES`] are dropped.
    pub fn insert(&mut self, scope: &str) {
        for t in scope.split_ascii_whitespace() {
            if self.0.len() >= MAX_SCOPES {
                return;
            }
            if !self.0.iter().any(|s| s == t) {
                self.0.push(t.to_owned());
            }
        }
    }

    /// The union, keeping this set's order first.
    #[must_use]
    pub fn union(&self, other: &ScopeSet) -> ScopeSet {
        let mut out = self.clone();
        for s in &other.0 {
            out.insert(s);
        }
        out
    }

    /// Whether every scope of `other` is in this set.
    pub fn contains_all(&self, other: &ScopeSet) -> bool {
        other.0.iter().all(|s| self.contains(s))
    }

    /// Whether `scope` is in the set.
    pub fn contains(&self, scope: &str) -> bool {
        self.0.iter().any(|s| s == scope)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The scopes in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// The wire form: space-separated, or `None` when empty (omit the parameter).
    pub fn to_param(&self) -> Option<String> {
        (!self.is_empty()).then(|| self.0.join(" "))
    }
}

/// The initial scope: the challenge's `scope` if present, else every scope in the
/// protected resource metadata's `scopes_supported`, else none (omit `scope`).
pub fn select_initial_scope(
    challenge_scope: Option<&str>,
    prm_scopes_supported: Option<&[String]>,
) -> ScopeSet {
    match challenge_scope.map(ScopeSet::parse) {
        Some(s) if !s.is_empty() => s,
        _ => prm_scopes_supported
            .map(ScopeSet::from_list)
            .unwrap_or_default(),
    }
}

/// Adds `offline_access` when the authorization server lists it in
/// `scopes_supported` and a scope is being requested at all (an omitted scope means
/// the server's default set, which a lone `offline_access` would narrow).
pub fn with_offline_access(
    mut scope: ScopeSet,
    as_scopes_supported: Option<&[String]>,
) -> ScopeSet {
    let advertised = as_scopes_supported.is_some_and(|s| s.iter().any(|x| x == OFFLINE_ACCESS));
    if advertised && !scope.is_empty() {
        scope.insert(OFFLINE_ACCESS);
    }
    scope
}

/// Step-up refused: the retry budget for this operation is spent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("step-up authorization for `{operation}` gave up after {attempts} attempts")]
pub struct StepUpExhausted {
    /// The operation key the attempts were counted under.
    pub operation: String,
    /// How many step-ups were tried.
    pub attempts: u32,
}

/// Tracks requested scopes and step-up attempts per operation (resource and method).
#[derive(Clone, Debug)]
pub struct StepUpTracker {
    max_attempts: u32,
    requested: ScopeSet,
    attempts: HashMap<String, u32>,
}

impl StepUpTracker {
    /// A tracker allowing `max_attempts` step-ups per operation.
    pub fn new(max_attempts: u32) -> Self {
        Self {
            max_attempts,
            requested: ScopeSet::new(),
            attempts: HashMap::new(),
        }
    }

    /// The scopes requested so far.
    pub fn requested(&self) -> &ScopeSet {
        &self.requested
    }

    /// Records the scope of a (re-)authorization that was started.
    pub fn record_requested(&mut self, scope: &ScopeSet) {
        self.requested = self.requested.union(scope);
    }

    /// On `403 insufficient_scope` for `operation`: the scope set to re-authorize
    /// with, the union of what was requested before and the challenge's scopes
    /// (2026-07-28 "Step-Up Authorization Flow"; safe against 2025-11-25 servers).
    /// Fails when the budget for the operation is spent.
    pub fn step_up(
        &mut self,
        operation: &str,
        challenge_scope: Option<&str>,
    ) -> Result<ScopeSet, StepUpExhausted> {
        let count = self.attempts.entry(operation.to_owned()).or_insert(0);
        if *count >= self.max_attempts {
            return Err(StepUpExhausted {
                operation: operation.to_owned(),
                attempts: *count,
            });
        }
        *count += 1;
        let challenged = challenge_scope.map(ScopeSet::parse).unwrap_or_default();
        Ok(self.requested.union(&challenged))
    }

    /// Clears the counter of an operation that succeeded.
    pub fn succeeded(&mut self, operation: &str) {
        self.attempts.remove(operation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| (*x).to_owned()).collect()
    }

    #[test]
    fn initial_scope_priority() {
        let prm = v(&["a", "b"]);
        assert_eq!(
            select_initial_scope(Some("x y"), Some(&prm)).to_param(),
            Some("x y".into())
        );
        assert_eq!(
            select_initial_scope(None, Some(&prm)).to_param(),
            Some("a b".into())
        );
        assert_eq!(
            select_initial_scope(Some("  "), Some(&prm)).to_param(),
            Some("a b".into())
        );
        assert_eq!(select_initial_scope(None, None).to_param(), None);
    }

    #[test]
    fn offline_access_only_when_advertised() {
        let s = ScopeSet::parse("read");
        assert_eq!(
            with_offline_access(s.clone(), Some(&v(&["read", OFFLINE_ACCESS]))).to_param(),
            Some("read offline_access".into())
        );
        assert_eq!(
            with_offline_access(s, Some(&v(&["read"]))).to_param(),
            Some("read".into())
        );
        assert!(with_offline_access(ScopeSet::new(), Some(&v(&[OFFLINE_ACCESS]))).is_empty());
    }

    #[test]
    fn step_up_unions_and_is_bounded() {
        let mut t = StepUpTracker::new(2);
        t.record_requested(&ScopeSet::parse("files:read"));
        let s = t.step_up("tools/call", Some("files:write")).unwrap();
        assert_eq!(s.to_param(), Some("files:read files:write".into()));
        t.record_requested(&s);
        let s2 = t.step_up("tools/call", Some("admin files:read")).unwrap();
        assert_eq!(s2.to_param(), Some("files:read files:write admin".into()));
        assert_eq!(
            t.step_up("tools/call", Some("more")),
            Err(StepUpExhausted {
                operation: "tools/call".into(),
                attempts: 2
            })
        );
        // Another operation has its own budget; success resets.
        assert!(t.step_up("resources/read", None).is_ok());
        t.succeeded("tools/call");
        assert!(t.step_up("tools/call", None).is_ok());
    }

    #[test]
    fn huge_server_lists_are_bounded() {
        let many: Vec<String> = (0..100_000).map(|i| format!("s{i}")).collect();
        let set = ScopeSet::from_list(&many);
        assert_eq!(set.iter().count(), MAX_SCOPES);
        let joined = many.join(" ");
        assert_eq!(ScopeSet::parse(&joined).iter().count(), MAX_SCOPES);
    }

    #[test]
    fn set_semantics() {
        let a = ScopeSet::parse("a b a");
        assert_eq!(a.iter().count(), 2);
        assert!(a.union(&ScopeSet::parse("c")).contains_all(&a));
    }
}

//! Which tools of a server the catalogue keeps: allow and deny lists of
//! names and globs, and the read-only mode (`readOnlyHint`).

use mcp_client::mcp_types::tools::Tool;

pub use crate::config::ToolRules;

/// Whether `name` matches `pattern`: `*` matches any run of characters
/// (also none), `?` exactly one; everything else matches itself.
///
/// ```
/// use mcp_host::filter::glob_match;
/// assert!(glob_match("get_*", "get_issue"));
/// assert!(glob_match("*delete*", "repo_delete_branch"));
/// assert!(glob_match("v?", "v2"));
/// assert!(!glob_match("get_*", "set_issue"));
/// ```
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matcher with one backtrack point: linear in practice, no
    // recursion on hostile patterns.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

impl ToolRules {
    /// Whether the catalogue keeps `tool`.
    ///
    /// ```
    /// use mcp_host::config::ToolRules;
    /// let rules = ToolRules { allow: vec!["get_*".into()], deny: vec!["get_secret".into()], read_only: false };
    /// let tool = |name: &str| serde_json::from_value(serde_json::json!({
    ///     "name": name, "inputSchema": {"type": "object"}
    /// })).unwrap();
    /// assert!(rules.keeps(&tool("get_issue")));
    /// assert!(!rules.keeps(&tool("get_secret")));
    /// assert!(!rules.keeps(&tool("delete_repo")));
    /// ```
    pub fn keeps(&self, tool: &Tool) -> bool {
        let name = tool.name.as_str();
        let allowed = self.allow.is_empty() || self.allow.iter().any(|p| glob_match(p, name));
        let denied = self.deny.iter().any(|p| glob_match(p, name));
        let read_only = tool
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false);
        allowed && !denied && (read_only || !self.read_only)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
        assert!(glob_match("**x", "yyx"));
        assert!(!glob_match("?", ""));
        assert!(glob_match("é*", "été"));
    }

    #[test]
    fn read_only_needs_the_hint() {
        let rules = ToolRules {
            read_only: true,
            ..ToolRules::default()
        };
        let tool = |hint: Option<bool>| -> Tool {
            let mut v = serde_json::json!({"name": "t", "inputSchema": {"type": "object"}});
            if let Some(h) = hint {
                v["annotations"] = serde_json::json!({ "readOnlyHint": h });
            }
            serde_json::from_value(v).unwrap()
        };
        assert!(rules.keeps(&tool(Some(true))));
        assert!(!rules.keeps(&tool(Some(false))));
        assert!(!rules.keeps(&tool(None)));
        assert!(ToolRules::default().keeps(&tool(None)));
    }
}

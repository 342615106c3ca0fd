//! The three list-change notifications
//! (`notifications/{tools,prompts,resources}/list_changed`), named once:
//! the core drops cached listings on them, and a driver routes them to
//! its handlers (and forgets what it learned from the old list, such as
//! tools' output schemas) from [`ListChanged::from_method`].

/// Which server list changed.
///
/// ```
/// use mcp_core::ListChanged;
/// let l = ListChanged::from_method("notifications/tools/list_changed");
/// assert_eq!(l, Some(ListChanged::Tools));
/// assert_eq!(l.map(ListChanged::as_str), Some("tools"));
/// assert_eq!(ListChanged::from_method("notifications/message"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListChanged {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
    /// `notifications/resources/list_changed`.
    Resources,
}

impl ListChanged {
    /// The list a notification method announces a change of, if it is one
    /// of the three.
    pub fn from_method(method: &str) -> Option<ListChanged> {
        match method {
            "notifications/tools/list_changed" => Some(ListChanged::Tools),
            "notifications/prompts/list_changed" => Some(ListChanged::Prompts),
            "notifications/resources/list_changed" => Some(ListChanged::Resources),
            _ => None,
        }
    }

    /// The list's name: `tools`, `prompts` or `resources`.
    pub fn as_str(self) -> &'static str {
        match self {
            ListChanged::Tools => "tools",
            ListChanged::Prompts => "prompts",
            ListChanged::Resources => "resources",
        }
    }

    /// The notification method.
    pub fn method(self) -> &'static str {
        match self {
            ListChanged::Tools => "notifications/tools/list_changed",
            ListChanged::Prompts => "notifications/prompts/list_changed",
            ListChanged::Resources => "notifications/resources/list_changed",
        }
    }

    /// The cached requests a change of this list makes stale. Skills are
    /// resources: a changed resource set may change the skill entries and
    /// directory listings too.
    pub fn stale_methods(self) -> &'static [&'static str] {
        match self {
            ListChanged::Tools => &["tools/list"],
            ListChanged::Prompts => &["prompts/list"],
            ListChanged::Resources => &[
                "resources/list",
                "resources/templates/list",
                "skills/list",
                "skills/get",
                "resources/directory/read",
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_round_trip() {
        for l in [
            ListChanged::Tools,
            ListChanged::Prompts,
            ListChanged::Resources,
        ] {
            assert_eq!(ListChanged::from_method(l.method()), Some(l));
            assert!(l.method().contains(l.as_str()));
        }
    }
}

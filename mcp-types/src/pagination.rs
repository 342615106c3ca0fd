//! Paginated list results, behind one trait so that generic code (the
//! core's pager) can walk any list method.
//!
//! The request side is [`PaginatedRequestParams`](crate::common::PaginatedRequestParams).

use crate::prompts::{ListPromptsResult, Prompt};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, Resource, ResourceTemplate,
};
use crate::tasks::legacy::{ListTasksResult, Task};
use crate::tools::{ListToolsResult, Tool};

/// A page of a list result.
///
/// ```
/// use mcp_types::pagination::Paginated;
/// use mcp_types::tools::ListToolsResult;
/// let page: ListToolsResult = serde_json::from_str(r#"{"tools":[],"nextCursor":"2"}"#).unwrap();
/// assert_eq!(page.next_cursor(), Some("2"));
/// assert!(page.into_items().is_empty());
/// ```
pub trait Paginated {
    /// The listed item.
    type Item;
    /// The cursor of the next page; `None` on the last page.
    fn next_cursor(&self) -> Option<&str>;
    /// The items of this page.
    fn items(&self) -> &[Self::Item];
    /// Takes the items of this page.
    fn into_items(self) -> Vec<Self::Item>;
}

macro_rules! paginated {
    ($($ty:ty => $item:ty, $field:ident;)+) => {
        $(
            impl Paginated for $ty {
                type Item = $item;
                fn next_cursor(&self) -> Option<&str> {
                    self.next_cursor.as_deref()
                }
                fn items(&self) -> &[$item] {
                    &self.$field
                }
                fn into_items(self) -> Vec<$item> {
                    self.$field
                }
            }
        )+
    };
}

paginated! {
    ListToolsResult => Tool, tools;
    ListPromptsResult => Prompt, prompts;
    ListResourcesResult => Resource, resources;
    ListResourceTemplatesResult => ResourceTemplate, resource_templates;
    ListTasksResult => Task, tasks;
}

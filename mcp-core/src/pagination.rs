//! Pagination: follow `nextCursor` until it is absent.
//!
//! Cursors are opaque: the machine never looks inside one, and an
//! empty string is a cursor like any other, not the end of the list. A page
//! cap (default [`DEFAULT_MAX_PAGES`]) and a repeated-cursor guard end a
//! runaway listing with a typed [`PaginationError`]
//! (`Connection::list_all` applies it).

use std::collections::HashSet;

/// The default maximum number of pages one listing may fetch.
pub const DEFAULT_MAX_PAGES: u32 = 100;

/// What to do after a page arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PageStep {
    /// Fetch the next page with this cursor.
    Fetch(String),
    /// The listing is complete.
    Done,
}

/// Why a listing stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PaginationError {
    /// The listing needed more pages than the cap allows.
    #[error("the listing exceeded {max} pages")]
    PageCap {
        /// The cap.
        max: u32,
    },
    /// The server handed out a cursor it had handed out before (a loop).
    #[error("the server repeated cursor {cursor:?}")]
    RepeatedCursor {
        /// The repeated cursor.
        cursor: String,
    },
}

/// The pagination machine of one listing.
#[derive(Clone, Debug)]
pub(crate) struct Paginator {
    max_pages: u32,
    pages: u32,
    seen: HashSet<String>,
}

impl Paginator {
    /// A fresh listing with a page cap (at least 1).
    pub(crate) fn new(max_pages: u32) -> Self {
        Paginator {
            max_pages: max_pages.max(1),
            pages: 0,
            seen: HashSet::new(),
        }
    }

    /// Pages received so far.
    pub(crate) fn pages(&self) -> u32 {
        self.pages
    }

    /// Records one page whose `nextCursor` was `next` and says what to do.
    ///
    /// # Errors
    /// [`PaginationError::RepeatedCursor`] when `next` was seen before in
    /// this listing; [`PaginationError::PageCap`] when another page would
    /// exceed the cap.
    pub(crate) fn on_page(&mut self, next: Option<&str>) -> Result<PageStep, PaginationError> {
        self.pages = self.pages.saturating_add(1);
        let Some(cursor) = next else {
            return Ok(PageStep::Done);
        };
        if !self.seen.insert(cursor.to_owned()) {
            return Err(PaginationError::RepeatedCursor {
                cursor: cursor.to_owned(),
            });
        }
        if self.pages >= self.max_pages {
            return Err(PaginationError::PageCap {
                max: self.max_pages,
            });
        }
        Ok(PageStep::Fetch(cursor.to_owned()))
    }
}

/// The array member holding the items of a paginated method's result.
pub(crate) fn items_key(method: &str) -> Option<&'static str> {
    mcp_types::methods::facts::page_field(method)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn an_empty_cursor_is_a_cursor_and_none_ends() {
        let mut p = Paginator::new(100);
        assert_eq!(p.on_page(Some("")).unwrap(), PageStep::Fetch(String::new()));
        assert_eq!(p.on_page(None).unwrap(), PageStep::Done);
        assert_eq!(p.pages(), 2);
    }

    proptest! {
        /// Any sequence of cursors ends in Done, RepeatedCursor or PageCap within the cap.
        #[test]
        fn paginator_always_terminates(cursors in proptest::collection::vec(proptest::option::of("[a-c]{0,2}"), 1..300), cap in 1u32..50) {
            let mut p = Paginator::new(cap);
            let mut seen = std::collections::HashSet::new();
            let mut outcome = None;
            for c in &cursors {
                match p.on_page(c.as_deref()) {
                    Ok(PageStep::Fetch(next)) => {
                        prop_assert_eq!(Some(next.as_str()), c.as_deref());
                        prop_assert!(seen.insert(next));
                        prop_assert!(p.pages() < cap);
                    }
                    other => { outcome = Some(other); break; }
                }
            }
            prop_assert!(p.pages() <= cap);
            match outcome {
                Some(Ok(PageStep::Done)) => prop_assert!(cursors[(p.pages() - 1) as usize].is_none()),
                Some(Err(PaginationError::RepeatedCursor { cursor })) => prop_assert!(seen.contains(&cursor)),
                Some(Err(PaginationError::PageCap { max })) => prop_assert_eq!(max, cap),
                Some(Ok(PageStep::Fetch(_))) => prop_assert!(false),
                None => prop_assert!(cursors.len() < cap as usize),
            }
        }
    }
}

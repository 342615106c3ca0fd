//! The `_meta` texts this thread has lately kept: a server puts the same
//! `_meta` on result after result (at 2026-07-28 every result carries the
//! server's `io.modelcontextprotocol/serverInfo`), and a text seen before
//! is neither checked nor copied again.
//!
//! A text is kept here only once it is known to decode into a map (the
//! check [`Meta::received`](super::Meta) or the envelope's
//! [`plain_end`](super::plain_end) makes), and as valid UTF-8, so a later
//! text with the same bytes is known to decode too: it is shared (a
//! reference count) instead of checked and copied. The answer is the same
//! as the check's, by construction; only the work is saved.
//!
//! Bounded: at most [`ENTRIES`] texts of at most [`LONGEST`] bytes per
//! thread, the oldest replaced first. Texts from several servers served on
//! one thread (a host) take one entry each.

use std::cell::RefCell;
use std::sync::Arc;

/// How many texts a thread keeps.
const ENTRIES: usize = 4;

/// The longest text kept (a `serverInfo` is about a hundred bytes).
const LONGEST: usize = 1024;

/// The texts kept, and the entry the next new text replaces.
struct Known {
    texts: [Option<Arc<str>>; ENTRIES],
    next: usize,
}

thread_local! {
    static KNOWN: RefCell<Known> = const {
        RefCell::new(Known {
            texts: [const { None }; ENTRIES],
            next: 0,
        })
    };
}

/// Runs `f` on this thread's texts; `None` when they are gone (the thread
/// is ending) or in use.
fn with<R>(f: impl FnOnce(&mut Known) -> Option<R>) -> Option<R> {
    KNOWN
        .try_with(|k| k.try_borrow_mut().ok().and_then(|mut k| f(&mut k)))
        .ok()
        .flatten()
}

/// The length of the kept text that `rest` starts with: a whole JSON
/// object, so the value at the start of `rest` is that text.
pub(super) fn prefix_len(rest: &[u8]) -> Option<usize> {
    with(|k| {
        k.texts
            .iter()
            .flatten()
            .find(|t| rest.starts_with(t.as_bytes()))
            .map(|t| t.len())
    })
}

/// The kept text equal to `text`, shared.
pub(super) fn shared(text: &[u8]) -> Option<Arc<str>> {
    with(|k| {
        k.texts
            .iter()
            .flatten()
            .find(|t| t.as_bytes() == text)
            .cloned()
    })
}

/// `text` (known to decode into a map, and not kept: see [`shared`]) as
/// a shared text, kept when it is short enough.
pub(super) fn keep(text: &str) -> Arc<str> {
    let new: Arc<str> = Arc::from(text);
    if text.len() <= LONGEST {
        with(|k| {
            let slot = k.next;
            k.texts[slot] = Some(Arc::clone(&new));
            k.next = (slot + 1) % ENTRIES;
            Some(())
        });
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the readers do: the kept text, else the text kept now.
    fn share(text: &str) -> Arc<str> {
        shared(text.as_bytes()).unwrap_or_else(|| keep(text))
    }

    #[test]
    fn a_kept_text_is_shared_and_found_as_a_prefix() {
        let text = r#"{"io.modelcontextprotocol/serverInfo":{"name":"k1"}}"#;
        let first = share(text);
        let again = share(text);
        assert!(Arc::ptr_eq(&first, &again), "the second is the kept one");
        assert!(Arc::ptr_eq(&shared(text.as_bytes()).unwrap(), &first));
        let line = format!("{text}}}}}\n");
        assert_eq!(prefix_len(line.as_bytes()), Some(text.len()));
        assert_eq!(prefix_len(&text.as_bytes()[..text.len() - 1]), None);
        assert!(shared(br#"{"io.modelcontextprotocol/serverInfo":{"name":"k2"}}"#).is_none());
    }

    #[test]
    fn the_oldest_text_is_replaced_and_long_ones_are_not_kept() {
        let texts: Vec<String> = (0..=ENTRIES).map(|i| format!(r#"{{"n":{i}}}"#)).collect();
        for t in &texts {
            share(t);
        }
        assert!(shared(texts[0].as_bytes()).is_none(), "replaced");
        assert!(texts[1..].iter().all(|t| shared(t.as_bytes()).is_some()));
        let long = format!(r#"{{"k":"{}"}}"#, "x".repeat(LONGEST));
        let a = share(&long);
        assert!(!Arc::ptr_eq(&a, &share(&long)), "too long to keep");
        assert!(texts[1..].iter().all(|t| shared(t.as_bytes()).is_some()));
    }
}

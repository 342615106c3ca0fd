//! Correlation: one table of in-flight requests, keyed by id.
//!
//! The client issues integer ids from a counter, so ids are unique among
//! in-flight requests and never reused within a connection.
//! A response whose id is a string spelling an in-flight integer id is
//! accepted (gateways do this). Ids that finished recently are remembered in
//! a bounded ring so that a late reply after a cancel or a timeout is
//! absorbed and a second reply to an answered request is reported. The ring
//! is searched only for a reply that matches nothing in flight (rare: a
//! late, duplicate or unknown id), so remembering costs no hashing.

use std::collections::{HashMap, VecDeque};

use mcp_types::RequestId;

use crate::IdTable;

/// A table keyed by ids this client assigns itself (call keys, wire ids,
/// timers): hashed with foldhash instead of SipHash, which costs several
/// times more per lookup and buys nothing here, since the server chooses
/// none of the keys. Tables keyed by server-chosen values keep `RandomState`.
pub(crate) type IdMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// How many finished ids are remembered.
const FINISHED_MEMORY: usize = 4096;

/// How a remembered request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    Answered,
    Abandoned,
}

/// The result of matching a response id against the table.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup<T> {
    /// The in-flight entry, now removed from the table.
    Found(i64, T),
    /// The request was cancelled or timed out: absorb the reply silently.
    Late,
    /// The request was already answered: a protocol violation.
    Duplicate,
    /// No such request: a protocol violation.
    Unknown,
}

/// The in-flight table, generic over what the client keeps per request.
#[derive(Debug)]
pub(crate) struct Correlation<T> {
    next_id: i64,
    in_flight: IdTable<T>,
    /// The most recently finished ids, oldest first.
    finished: VecDeque<(i64, Ended)>,
}

impl<T> Default for Correlation<T> {
    fn default() -> Self {
        Correlation {
            next_id: 1,
            in_flight: IdTable::default(),
            finished: VecDeque::new(),
        }
    }
}

impl<T> Correlation<T> {
    /// Allocates a fresh id and records its entry.
    pub(crate) fn insert(&mut self, entry: T) -> i64 {
        let id = self.reserve();
        self.in_flight.insert(id, entry);
        id
    }

    /// Allocates a fresh id without recording anything (yet).
    pub(crate) fn reserve(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        id
    }

    /// Records an entry under an id from [`Correlation::reserve`].
    #[inline]
    pub(crate) fn insert_reserved(&mut self, id: i64, entry: T) {
        self.in_flight.insert(id, entry);
    }

    /// Remembers `id`, from [`Correlation::reserve`] and never recorded, as
    /// answered: what [`Correlation::take`] remembers of an entry it finds
    /// (the core's quick path, `connection/quick.rs`).
    pub(crate) fn note_answered(&mut self, id: i64) {
        self.remember(id, Ended::Answered);
    }

    /// Number of in-flight requests.
    pub(crate) fn len(&self) -> usize {
        self.in_flight.len()
    }

    /// Whether nothing is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.in_flight.is_empty()
    }

    /// The entry of an in-flight id.
    pub(crate) fn get(&self, id: i64) -> Option<&T> {
        self.in_flight.get(id)
    }

    /// Resolves a wire id (integer, or string spelling an integer) to an
    /// in-flight id without removing it.
    pub(crate) fn resolve(&self, id: &RequestId) -> Option<i64> {
        id.as_number().filter(|n| self.in_flight.contains_key(*n))
    }

    /// Matches a response id and removes the entry (its late or duplicate
    /// cases out of line).
    #[inline]
    pub(crate) fn take(&mut self, id: &RequestId) -> Lookup<T> {
        let Some(n) = id.as_number() else {
            return Lookup::Unknown;
        };
        if let Some(entry) = self.in_flight.remove(n) {
            self.remember(n, Ended::Answered);
            return Lookup::Found(n, entry);
        }
        self.ended(n)
    }

    /// How an id no longer in flight ended, if it is remembered.
    #[inline(never)]
    fn ended(&self, n: i64) -> Lookup<T> {
        // Newest first: a late reply is most likely a recent one.
        let ended = self.finished.iter().rev().find(|(id, _)| *id == n);
        match ended.map(|(_, how)| how) {
            Some(Ended::Abandoned) => Lookup::Late,
            Some(Ended::Answered) => Lookup::Duplicate,
            None => Lookup::Unknown,
        }
    }

    /// Removes an entry the client gave up on (cancel, timeout, retry);
    /// its late reply will be absorbed.
    pub(crate) fn abandon(&mut self, id: i64) -> Option<T> {
        let entry = self.in_flight.remove(id)?;
        self.remember(id, Ended::Abandoned);
        Some(entry)
    }

    /// Removes every entry (connection closed), remembering them as abandoned.
    pub(crate) fn drain(&mut self) -> Vec<(i64, T)> {
        let all = self.in_flight.drain();
        for (id, _) in &all {
            self.remember(*id, Ended::Abandoned);
        }
        all
    }

    fn remember(&mut self, id: i64, how: Ended) {
        if self.finished.len() >= FINISHED_MEMORY {
            self.finished.pop_front();
        }
        self.finished.push_back((id, how));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_late_duplicate_unknown() {
        let mut t = Correlation::default();
        let a = t.insert("a");
        let b = t.insert("b");
        assert_ne!(a, b);
        assert_eq!(
            t.take(&RequestId::String(a.to_string())),
            Lookup::Found(a, "a")
        );
        assert_eq!(t.take(&RequestId::Number(a)), Lookup::Duplicate);
        assert_eq!(t.abandon(b), Some("b"));
        assert_eq!(t.take(&RequestId::Number(b)), Lookup::Late);
        assert_eq!(t.take(&RequestId::Number(77)), Lookup::Unknown);
        assert_eq!(t.take(&RequestId::String("07".into())), Lookup::Unknown);
        assert!(t.is_empty());
    }

    #[test]
    fn memory_is_bounded() {
        let mut t = Correlation::default();
        for _ in 0..(FINISHED_MEMORY + 10) {
            let id = t.insert(());
            t.abandon(id);
        }
        assert_eq!(t.finished.len(), FINISHED_MEMORY);
        assert_eq!(t.take(&RequestId::Number(1)), Lookup::Unknown);
    }
}

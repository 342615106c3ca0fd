//! Deadlines in order, with lazy deletion: the queue under both the timer
//! table ([`TimerTable`](super::TimerTable), keyed by [`Timer`](super::Timer))
//! and the calls' request deadlines (`connection/deadlines.rs`, keyed by
//! call).
//!
//! Deadlines are mostly armed in order (`now` plus one delay): an entry
//! later than every entry of `lane` is appended to it (a sorted deque,
//! O(1)); any other goes to the binary heap. The earliest entry is the
//! earlier of the two fronts, compared as `(deadline, key)`, so equal
//! deadlines come out in key order whichever queue holds them.
//!
//! The owner keeps the truth (which entries are live): cancelling or
//! re-arming only changes it, and a queued entry that no longer matches it
//! is stale, dropped when it reaches a front or in a rebuild once stale
//! entries outnumber live ones ([`Ordered::settle`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

/// Stale entries tolerated beyond the live ones before a rebuild: never
/// more than `2 * live + 32` entries are queued.
pub(crate) const STALE_SLACK: usize = 32;

/// The queue (see the module docs).
#[derive(Debug)]
pub(crate) struct Ordered<K> {
    /// In-order entries, strictly increasing by `(deadline, key)`.
    lane: VecDeque<(Instant, K)>,
    /// Out-of-order entries, earliest on top.
    heap: BinaryHeap<Reverse<(Instant, K)>>,
}

impl<K: Ord> Default for Ordered<K> {
    fn default() -> Self {
        Ordered {
            lane: VecDeque::new(),
            heap: BinaryHeap::new(),
        }
    }
}

impl<K: Ord> Ordered<K> {
    /// Queues an entry.
    #[inline]
    pub(crate) fn push(&mut self, at: Instant, key: K) {
        if self
            .lane
            .back()
            .is_none_or(|(last, k)| (*last, k) < (at, &key))
        {
            self.lane.push_back((at, key));
        } else {
            self.heap.push(Reverse((at, key)));
        }
    }

    /// The earliest entry, and whether it is the lane's.
    #[inline]
    fn front_of(&self) -> Option<(Instant, &K, bool)> {
        let lane = self.lane.front().map(|(at, k)| (*at, k, true));
        let heap = self.heap.peek().map(|Reverse((at, k))| (*at, k, false));
        match (lane, heap) {
            (Some(l), Some(h)) => Some(if (l.0, l.1) < (h.0, h.1) { l } else { h }),
            (l, h) => l.or(h),
        }
    }

    /// The earliest entry's instant (the keys of entries at the same
    /// instant are not compared).
    #[inline]
    pub(crate) fn front_at(&self) -> Option<Instant> {
        let lane = self.lane.front().map(|(at, _)| *at);
        let heap = self.heap.peek().map(|Reverse((at, _))| *at);
        match (lane, heap) {
            (Some(l), Some(h)) => Some(l.min(h)),
            (l, h) => l.or(h),
        }
    }

    /// The earliest entry.
    pub(crate) fn front(&self) -> Option<(Instant, &K)> {
        self.front_of().map(|(at, k, _)| (at, k))
    }

    /// Removes the earliest entry.
    pub(crate) fn pop_front(&mut self) -> Option<(Instant, K)> {
        match self.front_of()? {
            (_, _, true) => self.lane.pop_front(),
            (_, _, false) => self.heap.pop().map(|Reverse(e)| e),
        }
    }

    /// Drops the entry `(at, key)` if it is at a front (usually the one
    /// that goes: requests end in the order they started), without a
    /// search; elsewhere it stays, stale.
    #[inline]
    pub(crate) fn remove_at_front(&mut self, at: Instant, key: &K) {
        let is = |a: &Instant, k: &K| *a == at && k == key;
        if self.lane.front().is_some_and(|(a, k)| is(a, k)) {
            self.lane.pop_front();
        } else if self.heap.peek().is_some_and(|Reverse((a, k))| is(a, k)) {
            self.heap.pop();
        }
    }

    /// Entries queued, live and stale.
    pub(crate) fn len(&self) -> usize {
        self.lane.len() + self.heap.len()
    }

    /// Restores the invariants after a change: no stale entry at either
    /// front (`is_live` says which entries are), and stale entries bounded
    /// by the `live` ones, rebuilding from `all_live` past the bound (a
    /// rebuild is linear, and follows at least as many changes as there
    /// are live entries).
    #[inline]
    pub(crate) fn settle<I: IntoIterator<Item = (Instant, K)>>(
        &mut self,
        live: usize,
        is_live: impl Fn(Instant, &K) -> bool,
        all_live: impl FnOnce() -> I,
    ) {
        if self.len() > 2 * live + STALE_SLACK {
            self.rebuild(all_live());
        } else {
            self.drop_stale_fronts(is_live);
        }
    }

    /// Replaces every entry with `live` ones (out of line: a rebuild
    /// follows many changes).
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, live: impl IntoIterator<Item = (Instant, K)>) {
        self.lane.clear();
        self.heap = live.into_iter().map(Reverse).collect();
    }

    /// Drops stale entries from both fronts.
    #[inline]
    pub(crate) fn drop_stale_fronts(&mut self, is_live: impl Fn(Instant, &K) -> bool) {
        while let Some((at, k)) = self.lane.front() {
            if is_live(*at, k) {
                break;
            }
            self.lane.pop_front();
        }
        while let Some(Reverse((at, k))) = self.heap.peek() {
            if is_live(*at, k) {
                break;
            }
            self.heap.pop();
        }
    }
}

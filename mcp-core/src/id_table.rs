//! [`IdTable`]: a table keyed by the ids a [`Connection`](crate::Connection)
//! issues, found by position instead of by hash.
//!
//! A connection numbers its calls and wire requests from one counter, so
//! the ids in flight at any moment are a short run of recent numbers: the
//! table keeps them in a window of slots indexed by `id - base`, and a
//! lookup is a subtraction and a bounds check where a hash table hashes,
//! probes and compares. Every call is inserted, looked up several times and
//! removed in three such tables (the core's calls and wire requests, the
//! driver's pending calls), so this is paid on every call.
//!
//! The window's front advances as its oldest entries leave. An entry that
//! stays while many newer ones come and go (a subscription, a task watched
//! for hours) would hold the window open: once the window spans more than
//! four slots per entry in it (and at least 64), or `WINDOW` slots, its
//! oldest entries move to a hash table beside it, where they are still
//! found, so the window stays in proportion to the entries however long
//! one lives. Keys that arrive out of order (lower than the window's
//! front) go there too: any `i64` is a valid key, only the cost differs.

use std::fmt;

use crate::correlation::IdMap;

/// The most slots the window holds before its oldest entries move out.
const WINDOW: usize = 1024;

/// The most slots the window may span with `live` entries in it: past
/// that, its oldest entries move out.
#[inline]
fn span_limit(live: usize) -> usize {
    // `live` counts entries in memory: far from overflowing.
    (live * 4 + 64).min(WINDOW)
}

/// A map from `i64` ids to `V`, cheapest when the ids are issued in
/// increasing order and most leave soon after they came, as a connection's
/// request ids do.
///
/// ```
/// use mcp_core::IdTable;
/// let mut calls = IdTable::new();
/// calls.insert(1, "initialize");
/// calls.insert(2, "tools/list");
/// assert_eq!(calls.get(2), Some(&"tools/list"));
/// assert_eq!(calls.remove(1), Some("initialize"));
/// assert_eq!(calls.len(), 1);
/// assert_eq!(calls.keys().collect::<Vec<_>>(), [2]);
/// ```
pub struct IdTable<V> {
    /// The key of `slots[0]` (keys wrap around as `i64` arithmetic does).
    base: i64,
    /// The window: slot `i` holds the entry of key `base + i`, if any. Its
    /// front slot is never empty.
    slots: Ring<V>,
    /// How many slots hold an entry.
    live: usize,
    /// Entries outside the window: moved out of it, or keyed below it.
    spilled: IdMap<i64, V>,
    /// No key in `spilled` is above this (`i64::MIN` when it is empty): a
    /// key above it is not there, and is looked for in the window only.
    spilled_max: i64,
}

impl<V> Default for IdTable<V> {
    fn default() -> Self {
        IdTable {
            base: 0,
            slots: Ring::default(),
            live: 0,
            spilled: IdMap::default(),
            spilled_max: i64::MIN,
        }
    }
}

impl<V> IdTable<V> {
    /// An empty table.
    pub fn new() -> Self {
        IdTable::default()
    }

    /// How many entries the table holds.
    pub fn len(&self) -> usize {
        self.live + self.spilled.len()
    }

    /// Whether the table holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The distance of `key` past the window's front (wrapping: a key below
    /// the front is a distance of 2^63 or more).
    #[inline]
    fn offset(&self, key: i64) -> u64 {
        key.wrapping_sub(self.base) as u64
    }

    /// The slot of `key`, when the window spans it.
    #[inline]
    fn slot(&self, key: i64) -> Option<usize> {
        let offset = self.offset(key);
        (offset < self.slots.len() as u64).then_some(offset as usize)
    }

    /// The entry of `key`.
    #[inline]
    pub fn get(&self, key: i64) -> Option<&V> {
        if let Some(i) = self.slot(key)
            && let Some(v) = self.slots.at(i)
        {
            return Some(v);
        }
        if self.spilled.is_empty() {
            return None;
        }
        self.spilled_get(key)
    }

    /// [`IdTable::get`] beside the window (cold: out of line, so that the
    /// window's look stays a few instructions in the many places it is
    /// inlined).
    #[cold]
    #[inline(never)]
    fn spilled_get(&self, key: i64) -> Option<&V> {
        self.spilled.get(&key)
    }

    /// The entry of `key`, to change.
    #[inline]
    pub fn get_mut(&mut self, key: i64) -> Option<&mut V> {
        if let Some(i) = self.slot(key)
            && self.slots.at(i).is_some()
        {
            return self.slots.at_mut(i).as_mut();
        }
        if self.spilled.is_empty() {
            return None;
        }
        self.spilled_get_mut(key)
    }

    /// [`IdTable::get_mut`] beside the window (cold, as `spilled_get`).
    #[cold]
    #[inline(never)]
    fn spilled_get_mut(&mut self, key: i64) -> Option<&mut V> {
        self.spilled.get_mut(&key)
    }

    /// Whether `key` has an entry.
    #[inline]
    pub fn contains_key(&self, key: i64) -> bool {
        self.get(key).is_some()
    }

    /// Records `value` under `key`; returns the entry it replaced.
    #[inline(always)]
    pub fn insert(&mut self, key: i64, value: V) -> Option<V> {
        // The common cases first: the next key after the window's last,
        // with room for it, or any key into an empty window (each call of
        // a client that makes one at a time): the window starts there.
        let len = self.slots.len();
        let next = match len {
            0 => true,
            _ => self.offset(key) == len as u64 && len < span_limit(self.live),
        };
        if next && key > self.spilled_max {
            if len == 0 {
                self.base = key;
            }
            self.slots.push_back(Some(value));
            self.live += 1;
            return None;
        }
        self.insert_elsewhere(key, value)
    }

    /// [`IdTable::insert`] of a key that is not the window's next (kept out
    /// of line: the common insert stays a few instructions).
    #[inline(never)]
    fn insert_elsewhere(&mut self, key: i64, value: V) -> Option<V> {
        if !self.spilled.is_empty()
            && let Some(old) = self.spilled.get_mut(&key)
        {
            return Some(std::mem::replace(old, value));
        }
        if let Some(i) = self.slot(key) {
            let old = self.slots.at_mut(i).replace(value);
            if old.is_none() {
                self.live += 1;
            }
            return old;
        }
        if self.slots.is_empty() {
            self.base = key;
        }
        let mut offset = self.offset(key);
        if offset > i64::MAX as u64 {
            // Below the window's front: out of order, kept beside it.
            return self.spill(key, value);
        }
        while offset >= span_limit(self.live) as u64 && !self.slots.is_empty() {
            self.spill_front();
            offset = self.offset(key);
        }
        if self.slots.is_empty() {
            self.base = key;
            offset = 0;
        }
        // `offset` is now within the limit and at least the window's
        // length.
        for _ in self.slots.len()..offset as usize {
            self.slots.push_back(None);
        }
        self.slots.push_back(Some(value));
        self.live += 1;
        None
    }

    /// Moves the window's front entry out of it (into `spilled`) and
    /// advances the front past any empty slots.
    fn spill_front(&mut self) {
        if let Some(v) = self.slots.pop_front() {
            self.live -= 1;
            self.spill(self.base, v);
        }
        self.base = self.base.wrapping_add(1);
        self.trim_front();
    }

    /// Keeps an entry beside the window.
    fn spill(&mut self, key: i64, value: V) -> Option<V> {
        self.spilled_max = self.spilled_max.max(key);
        self.spilled.insert(key, value)
    }

    /// Advances the front past empty slots (an empty window has none).
    #[inline]
    fn trim_front(&mut self) {
        while self.slots.front_is_vacant() {
            self.slots.skip_front();
            self.base = self.base.wrapping_add(1);
        }
    }

    /// Removes and returns the entry of `key`.
    #[inline]
    pub fn remove(&mut self, key: i64) -> Option<V> {
        if let Some(i) = self.slot(key)
            && let Some(v) = self.slots.at_mut(i).take()
        {
            self.live -= 1;
            if i == 0 {
                self.trim_front();
            }
            return Some(v);
        }
        if self.spilled.is_empty() {
            return None;
        }
        self.spilled_remove(key)
    }

    /// [`IdTable::remove`] beside the window (cold, as `spilled_get`).
    #[cold]
    #[inline(never)]
    fn spilled_remove(&mut self, key: i64) -> Option<V> {
        let v = self.spilled.remove(&key);
        if self.spilled.is_empty() {
            self.spilled_max = i64::MIN;
        }
        v
    }

    /// Every entry with its key: the window's in key order, then the
    /// others in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &V)> {
        let base = self.base;
        self.slots
            .iter()
            .enumerate()
            .filter_map(move |(i, v)| Some((base.wrapping_add(i as i64), v.as_ref()?)))
            .chain(self.spilled.iter().map(|(k, v)| (*k, v)))
    }

    /// Every entry with its key, to change (in [`IdTable::iter`]'s order).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (i64, &mut V)> {
        let base = self.base;
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(move |(i, v)| Some((base.wrapping_add(i as i64), v.as_mut()?)))
            .chain(self.spilled.iter_mut().map(|(k, v)| (*k, v)))
    }

    /// Every key (in [`IdTable::iter`]'s order).
    pub fn keys(&self) -> impl Iterator<Item = i64> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Every entry (in [`IdTable::iter`]'s order).
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    /// Every entry, to change (in [`IdTable::iter`]'s order).
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.iter_mut().map(|(_, v)| v)
    }

    /// Removes and returns every entry (in [`IdTable::iter`]'s order).
    pub fn drain(&mut self) -> Vec<(i64, V)> {
        let base = self.base;
        let mut all: Vec<(i64, V)> = std::mem::take(&mut self.slots)
            .into_entries()
            .enumerate()
            .filter_map(|(i, v)| Some((base.wrapping_add(i as i64), v?)))
            .collect();
        all.extend(self.spilled.drain());
        self.spilled_max = i64::MIN;
        self.live = 0;
        all
    }
}

/// The window's slots: a ring buffer whose capacity is a power of two, so a
/// slot is found with a mask, and a vacant slot leaves the front without
/// being moved out (the standard `VecDeque` moves each popped element).
struct Ring<V> {
    /// Every slot of the capacity, vacant or not.
    buf: Vec<Option<V>>,
    /// Where slot 0 is in `buf`.
    head: usize,
    /// How many slots are in use from `head` on.
    len: usize,
}

impl<V> Default for Ring<V> {
    fn default() -> Self {
        Ring {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }
}

impl<V> Ring<V> {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `buf`'s index of slot `i` (`buf` is not empty: `i < len`).
    #[inline]
    fn index(&self, i: usize) -> usize {
        (self.head + i) & (self.buf.len() - 1)
    }

    /// Slot `i`, which must be below `len`.
    #[inline]
    fn at(&self, i: usize) -> &Option<V> {
        &self.buf[self.index(i)]
    }

    /// Slot `i`, which must be below `len`, to change.
    #[inline]
    fn at_mut(&mut self, i: usize) -> &mut Option<V> {
        let at = self.index(i);
        &mut self.buf[at]
    }

    /// Adds a slot at the back.
    #[inline(always)]
    fn push_back(&mut self, slot: Option<V>) {
        if self.len == self.buf.len() {
            self.grow();
        }
        *self.at_mut(self.len) = slot;
        self.len += 1;
    }

    /// Doubles the capacity (at least 8), the slots in order from index 0.
    #[cold]
    fn grow(&mut self) {
        let capacity = (self.buf.len() * 2).max(8);
        let mut buf: Vec<Option<V>> = Vec::with_capacity(capacity);
        for i in 0..self.len {
            buf.push(self.at_mut(i).take());
        }
        buf.resize_with(capacity, || None);
        self.buf = buf;
        self.head = 0;
    }

    /// Whether slot 0 exists and is vacant.
    #[inline]
    fn front_is_vacant(&self) -> bool {
        self.len > 0 && self.at(0).is_none()
    }

    /// Drops slot 0 (vacant: nothing is moved).
    #[inline]
    fn skip_front(&mut self) {
        debug_assert!(self.front_is_vacant());
        self.head = self.index(1);
        self.len -= 1;
    }

    /// Removes slot 0, returning what it held.
    fn pop_front(&mut self) -> Option<V> {
        if self.len == 0 {
            return None;
        }
        let v = self.at_mut(0).take();
        self.head = self.index(1);
        self.len -= 1;
        v
    }

    fn iter(&self) -> impl Iterator<Item = &Option<V>> {
        (0..self.len).map(|i| self.at(i))
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Option<V>> {
        let (head, len) = (self.head, self.len);
        // `head` is below the capacity (or 0 with none).
        let (back, front) = self.buf.split_at_mut(head);
        // From `head` to the end of `buf`, then around from its start.
        front.iter_mut().chain(back.iter_mut()).take(len)
    }

    /// Every slot, in order, the ring left empty.
    fn into_entries(mut self) -> impl Iterator<Item = Option<V>> {
        let len = std::mem::take(&mut self.len);
        let head = std::mem::take(&mut self.head);
        let mut buf = std::mem::take(&mut self.buf);
        buf.rotate_left(head);
        buf.truncate(len);
        buf.into_iter()
    }
}

/// The entries, as a map.
impl<V: fmt::Debug> fmt::Debug for IdTable<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    fn sorted<V: Clone>(t: &IdTable<V>) -> Vec<(i64, V)> {
        let mut all: Vec<_> = t.iter().map(|(k, v)| (k, v.clone())).collect();
        all.sort_by_key(|(k, _)| *k);
        all
    }

    #[test]
    fn ids_in_order_come_and_go_through_the_window() {
        let mut t = IdTable::new();
        for id in 1..=40 {
            assert_eq!(t.insert(id, id * 10), None);
        }
        for id in 1..=39 {
            assert_eq!(t.remove(id), Some(id * 10));
        }
        assert_eq!((t.len(), t.slots.len(), t.base), (1, 1, 40));
        assert!(t.spilled.is_empty());
        assert_eq!(t.remove(40), Some(400));
        assert!(t.is_empty() && t.slots.is_empty());
        // A fresh run starts the window at its first key.
        t.insert(1_000, 1);
        assert_eq!((t.base, t.get(1_000)), (1_000, Some(&1)));
    }

    #[test]
    fn an_entry_that_stays_does_not_hold_the_window_open() {
        let mut t = IdTable::new();
        t.insert(1, "subscription");
        for id in 2..10_000 {
            t.insert(id, "call");
            assert_eq!(t.remove(id), Some("call"));
            assert!(t.slots.len() <= span_limit(t.live));
        }
        // It moved beside the window, and is still found there.
        assert_eq!(t.spilled.len(), 1);
        assert_eq!(t.get(1), Some(&"subscription"));
        assert_eq!(t.remove(1), Some("subscription"));
        assert!(t.is_empty());
    }

    #[test]
    fn gaps_keys_below_the_front_and_far_keys_are_kept() {
        let mut t = IdTable::new();
        t.insert(10, 'a');
        t.insert(13, 'b'); // a gap: 11 and 12 went elsewhere
        t.insert(5, 'c'); // below the front
        t.insert(10 + 5 * WINDOW as i64, 'd'); // far ahead
        t.insert(i64::MAX, 'e');
        t.insert(i64::MIN, 'f');
        assert_eq!(t.len(), 6);
        for (k, v) in [
            (10, 'a'),
            (13, 'b'),
            (5, 'c'),
            (i64::MAX, 'e'),
            (i64::MIN, 'f'),
        ] {
            assert_eq!(t.get(k), Some(&v), "key {k}");
        }
        assert_eq!(t.get(11), None);
        assert_eq!(t.insert(5, 'C'), Some('c'));
        assert_eq!(t.insert(13, 'B'), Some('b'));
        let mut drained = t.drain();
        drained.sort();
        assert_eq!(drained.len(), 6);
        assert!(t.is_empty() && t.iter().next().is_none());
    }

    #[test]
    fn a_key_kept_beside_the_window_is_not_doubled_when_the_window_reaches_it() {
        let mut t = IdTable::new();
        t.insert(100, 1);
        t.insert(50, 2); // beside the window
        t.remove(100); // the window empties
        t.insert(40, 3); // a new window from 40 spans 50
        assert_eq!(t.insert(50, 4), Some(2));
        assert_eq!(t.len(), 2);
        assert_eq!(t.remove(50), Some(4));
        assert_eq!(t.get(50), None);
    }

    #[test]
    fn iteration_is_in_key_order_within_the_window() {
        let mut t = IdTable::new();
        for id in [3, 4, 7, 9] {
            t.insert(id, ());
        }
        t.remove(7);
        assert_eq!(t.keys().collect::<Vec<_>>(), [3, 4, 9]);
        for v in t.values_mut() {
            *v = ();
        }
        assert_eq!(t.values().count(), 3);
        assert_eq!(format!("{t:?}"), "{3: (), 4: (), 9: ()}");
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(i64),
        Remove(i64),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Mostly keys near one another (as a connection's are), sometimes
        // anywhere.
        let key = prop_oneof![
            8 => 0i64..3_000,
            1 => any::<i64>(),
        ];
        prop_oneof![key.clone().prop_map(Op::Insert), key.prop_map(Op::Remove),]
    }

    proptest! {
        /// As a connection uses it: ids issued in order, each removed
        /// some time later (`removals[i]` picks which live one), some
        /// ids skipped (used elsewhere); the table answers as a `BTreeMap`
        /// does and its window stays in proportion to its entries.
        #[test]
        fn issued_in_order_it_is_a_map(
            steps in proptest::collection::vec((0usize..4, any::<prop::sample::Index>(), 0i64..3), 0..3000),
        ) {
            let mut t = IdTable::new();
            let mut model = BTreeMap::new();
            let mut next = 1i64;
            for (removals, pick, skip) in steps {
                next += skip;
                prop_assert_eq!(t.insert(next, next), model.insert(next, next));
                prop_assert!(t.slots.len() <= span_limit(t.live.saturating_sub(1)) + 1);
                next += 1;
                for _ in 0..removals.min(model.len()) {
                    let keys: Vec<i64> = model.keys().copied().collect();
                    let key = keys[pick.index(keys.len())];
                    prop_assert_eq!(t.remove(key), model.remove(&key));
                }
                prop_assert_eq!(t.len(), model.len());
                for (k, v) in &model {
                    prop_assert_eq!(t.get(*k), Some(v));
                }
            }
        }

        /// The table answers as a `BTreeMap` does, whatever the keys.
        #[test]
        fn it_is_a_map(ops in proptest::collection::vec(op(), 0..400)) {
            let mut t = IdTable::new();
            let mut model = BTreeMap::new();
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(k) => prop_assert_eq!(t.insert(k, n), model.insert(k, n)),
                    Op::Remove(k) => prop_assert_eq!(t.remove(k), model.remove(&k)),
                }
                prop_assert_eq!(t.len(), model.len());
                prop_assert!(t.slots.len() <= WINDOW);
                prop_assert!(t.spilled.keys().all(|k| *k <= t.spilled_max));
                prop_assert!(!t.slots.front_is_vacant());
            }
            for (k, v) in &model {
                prop_assert_eq!(t.get(*k), Some(v));
            }
            let want: Vec<_> = model.into_iter().collect();
            prop_assert_eq!(sorted(&t), want.clone());
            let mut changed: Vec<_> = t.iter_mut().map(|(k, v)| (k, *v)).collect();
            changed.sort();
            prop_assert_eq!(&changed, &want);
            let mut drained = t.drain();
            drained.sort();
            prop_assert_eq!(drained, want);
            prop_assert!(t.is_empty() && t.iter().next().is_none());
        }
    }
}

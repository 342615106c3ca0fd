//! The driver's futures in flight (HTTP exchanges, handlers' replies):
//! `FuturesUnordered`'s job, polled only when woken, without its
//! allocation and its two dozen atomic operations per future.
//!
//! A future goes into a slot; slots are kept and reused, and each keeps
//! the waker its futures are polled with (made once per slot). A wake of
//! one of the first 64 slots sets the slot's bit in one shared word (one
//! atomic read-modify-write) and, when the bit was clear, wakes the
//! driver; the driver takes every bit in one more. A wake of a later slot
//! (a set with more than 64 futures at once) puts the slot's index in a
//! shared queue instead (once until it is polled: a flag), marks the queue
//! as holding one, and the driver takes the whole queue in one lock. A
//! wake that outlives its future (a connection keeps the waker of the last
//! exchange it served) at worst makes the slot's next future be polled
//! once for nothing, which a future allows.
//!
//! The driver's waker is registered once ([`TaskWaker`]); after a new
//! registration the driver takes the bits and the queue's mark with a
//! read-modify-write even when it finds them clear, which orders the
//! registration before every later wake's look at it.
//!
//! A slot among the first 64 may be *owned* by a caller (`owned.rs`): its
//! wakes then set its bit and wake that caller instead of the driver, and
//! the caller polls that one future itself. The driver may still poll an
//! owned slot whose bit it finds set: whoever polls it, under the driver's
//! lock, finds its output.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use futures::future::BoxFuture;

use super::task_waker::TaskWaker;

#[cfg(feature = "http")]
mod owned;
#[cfg(feature = "http")]
use super::ownership::Ownership;
#[cfg(feature = "http")]
pub(super) use owned::OwnedSlot;
#[cfg(not(feature = "http"))]
impl SlotWake {
    /// No slot is owned without HTTP.
    fn end_ownership(&self) {}
}

/// Slots below this index are woken through [`Shared::bits`].
const BITS: usize = 64;

/// The woken slots, and the driver's waker.
#[derive(Default)]
struct Shared {
    /// The woken slots below [`BITS`], a bit each.
    bits: AtomicU64,
    /// The woken slots from [`BITS`] on.
    woken: Mutex<Vec<usize>>,
    /// Set after a slot is pushed to `woken`, cleared by the take: the
    /// queue is looked at (locked) only when something was queued.
    queued: AtomicBool,
    driver: TaskWaker,
}

impl Shared {
    /// Appends the woken slots to `into`. Without `force`, a plain read of
    /// the bits and of the queue's mark first: nothing is taken (no
    /// read-modify-write, no lock) when nothing woke.
    fn take(&self, into: &mut Vec<usize>, force: bool) {
        if force || self.bits.load(Ordering::Acquire) != 0 {
            let mut bits = self.bits.swap(0, Ordering::AcqRel);
            while bits != 0 {
                into.push(bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        if (force || self.queued.load(Ordering::Acquire))
            && self.queued.swap(false, Ordering::AcqRel)
        {
            let mut woken = self.woken.lock().unwrap_or_else(PoisonError::into_inner);
            into.append(&mut woken);
        }
    }
}

/// One slot's waker.
struct SlotWake {
    index: usize,
    /// In the queue (or about to be polled) already (slots from [`BITS`]
    /// on; below it, the slot's bit says so).
    queued: AtomicBool,
    /// The slot's owner, if it has one: its wakes go to the owner's waker
    /// (`owned.rs`).
    #[cfg(feature = "http")]
    ownership: Ownership,
    shared: Arc<Shared>,
}

impl Wake for SlotWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let shared = &self.shared;
        if self.index < BITS {
            let bit = 1 << self.index;
            // A bit already set was set by a wake that woke the driver (or
            // the slot's owner).
            if shared.bits.fetch_or(bit, Ordering::AcqRel) & bit == 0 {
                #[cfg(feature = "http")]
                if self.ownership.wake_owner() {
                    return;
                }
                shared.driver.wake();
            }
        } else if !self.queued.swap(true, Ordering::AcqRel) {
            let mut woken = shared.woken.lock().unwrap_or_else(PoisonError::into_inner);
            woken.push(self.index);
            drop(woken);
            shared.queued.swap(true, Ordering::AcqRel);
            shared.driver.wake();
        }
    }
}

/// A slot: its future, when it holds one, and its waker.
struct Slot<T> {
    future: Option<BoxFuture<'static, T>>,
    wake: Arc<SlotWake>,
    waker: Waker,
}

/// A set of futures, each polled when its waker was woken; their outputs
/// come out in the order they finish.
pub(super) struct FutureSet<T> {
    slots: Vec<Slot<T>>,
    /// Slots without a future.
    free: Vec<usize>,
    /// Slots to poll (new futures, and the woken ones taken from the
    /// queue), from `next` on.
    due: Vec<usize>,
    next: usize,
    len: usize,
    shared: Arc<Shared>,
    /// The driver's waker registered last.
    held: Option<Waker>,
}

impl<T> FutureSet<T> {
    /// An empty set.
    pub(super) fn new() -> Self {
        FutureSet {
            slots: Vec::new(),
            free: Vec::new(),
            due: Vec::new(),
            next: 0,
            len: 0,
            shared: Arc::default(),
            held: None,
        }
    }

    /// Whether no future is in the set.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many futures are in the set.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Adds a future, to be polled by the next [`FutureSet::poll_next`];
    /// returns its slot.
    pub(super) fn push(&mut self, future: BoxFuture<'static, T>) -> usize {
        let index = self.free.pop().unwrap_or_else(|| {
            let wake = Arc::new(SlotWake {
                index: self.slots.len(),
                queued: AtomicBool::new(false),
                #[cfg(feature = "http")]
                ownership: Ownership::default(),
                shared: Arc::clone(&self.shared),
            });
            self.slots.push(Slot {
                future: None,
                waker: Waker::from(Arc::clone(&wake)),
                wake,
            });
            self.slots.len() - 1
        });
        let slot = &mut self.slots[index];
        slot.future = Some(future);
        // A wake before its first poll adds nothing: it is due already.
        if index >= BITS {
            slot.wake.queued.store(true, Ordering::Release);
        }
        self.due.push(index);
        self.len += 1;
        index
    }

    /// Drops the future in slot `index`, if it holds one (its slot is
    /// freed, its ownership ended); nothing comes out of it.
    #[cfg(feature = "http")]
    pub(super) fn remove(&mut self, index: usize) {
        if self.slots.get(index).is_some_and(|s| s.future.is_some()) {
            self.finished(index);
        }
    }

    /// Drops every future.
    pub(super) fn clear(&mut self) {
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if slot.future.take().is_some() {
                slot.wake.end_ownership();
                self.free.push(index);
            }
        }
        self.due.clear();
        self.next = 0;
        self.len = 0;
    }

    /// [`FutureSet::poll_next`] outside the driver's wait, with the
    /// driver's waker registered last: polls the new and woken futures
    /// (each with its own waker, which wakes the driver). `None` when no
    /// waker was ever registered (the driver's wait has to poll the set
    /// first, or the futures' wakes would wake no one).
    #[cfg(feature = "http")]
    pub(super) fn poll_due(&mut self) -> Option<Poll<Option<T>>> {
        self.held.is_some().then(|| self.poll_with(None))
    }

    /// The output of the next future to finish among the woken ones;
    /// `Ready(None)` when the set is empty. Polls at most as many futures
    /// as there are slots before yielding (a future that always wakes
    /// itself starves nothing).
    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.poll_with(Some(cx.waker()))
    }

    /// Frees the slot whose future just finished.
    fn finished(&mut self, index: usize) {
        let slot = &mut self.slots[index];
        slot.future = None;
        slot.wake.end_ownership();
        self.free.push(index);
        self.len -= 1;
    }

    /// [`FutureSet::poll_next`] with the driver's `waker`, or (`None`) with
    /// the one registered last, which stays.
    fn poll_with(&mut self, waker: Option<&Waker>) -> Poll<Option<T>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        let mut budget = self.slots.len();
        let mut registered = false;
        loop {
            while let Some(&index) = self.due.get(self.next) {
                let slot = &mut self.slots[index];
                let Some(future) = slot.future.as_mut() else {
                    self.next += 1;
                    continue;
                };
                if budget == 0 {
                    match waker {
                        Some(w) => w.wake_by_ref(),
                        None => self.shared.driver.wake(),
                    }
                    return Poll::Pending;
                }
                budget -= 1;
                self.next += 1;
                // Cleared first: a wake while it is polled queues it again.
                // A swap, not a store: a wake that found the flag set (and
                // queued nothing) is then ordered before this poll, which
                // sees what that wake's waker saw. (A slot below `BITS` had
                // its bit cleared by the take, with a swap too.)
                if index >= BITS {
                    slot.wake.queued.swap(false, Ordering::AcqRel);
                }
                let polled = future.as_mut().poll(&mut Context::from_waker(&slot.waker));
                if let Poll::Ready(out) = polled {
                    self.finished(index);
                    return Poll::Ready(Some(out));
                }
            }
            self.due.clear();
            self.next = 0;
            self.shared.take(&mut self.due, registered);
            if !self.due.is_empty() {
                continue;
            }
            if registered {
                return Poll::Pending;
            }
            // Nothing woken: wait. The waker registered before stays (a
            // wake does not take it); a new one is followed by one more
            // look, forced (see the module docs).
            let Some(waker) = waker else {
                return Poll::Pending;
            };
            registered = self.shared.driver.register(&mut self.held, waker);
            if !registered {
                return Poll::Pending;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::counting_waker::{counting_waker, park_until_woken, unpark_waker, wakes};
    use std::sync::Mutex as StdMutex;

    /// A future that finishes once told to, keeping the waker it was
    /// polled with.
    #[derive(Clone, Default)]
    pub(super) struct Gate(Arc<StdMutex<(bool, Option<Waker>, usize)>>);

    impl Gate {
        pub(in crate::driver::future_set) fn future(&self, out: u32) -> BoxFuture<'static, u32> {
            let gate = self.clone();
            Box::pin(std::future::poll_fn(move |cx| {
                let mut g = gate.0.lock().unwrap();
                g.2 += 1;
                if g.0 {
                    Poll::Ready(out)
                } else {
                    g.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }))
        }

        pub(in crate::driver::future_set) fn open(&self) {
            let mut g = self.0.lock().unwrap();
            g.0 = true;
            if let Some(w) = g.1.take() {
                w.wake();
            }
        }

        pub(in crate::driver::future_set) fn polls(&self) -> usize {
            self.0.lock().unwrap().2
        }
    }

    #[test]
    fn futures_are_polled_when_woken_and_finish_in_their_order() {
        let (driver, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut set = FutureSet::new();
        let (a, b) = (Gate::default(), Gate::default());
        set.push(a.future(1));
        set.push(b.future(2));
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!((a.polls(), b.polls()), (1, 1));
        // Not woken: not polled again.
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!((a.polls(), b.polls()), (1, 1));
        b.open();
        assert_eq!(wakes(&driver), 1, "the driver is woken");
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(2)));
        assert_eq!(a.polls(), 1);
        a.open();
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(1)));
        assert!(set.is_empty());
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(None));
    }

    #[test]
    fn slots_are_reused_and_a_stale_wake_only_polls_once_more() {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut set = FutureSet::new();
        let first = Gate::default();
        set.push(first.future(1));
        assert!(set.poll_next(&mut cx).is_pending());
        let stale = first.0.lock().unwrap().1.clone().unwrap();
        first.open();
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(1)));
        let second = Gate::default();
        set.push(second.future(2));
        assert_eq!(set.slots.len(), 1, "the slot is reused");
        assert!(set.poll_next(&mut cx).is_pending());
        stale.wake();
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(second.polls(), 2, "polled again, for nothing");
        second.open();
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(2)));
    }

    #[test]
    fn wakes_from_other_threads_are_not_lost() {
        let waker = unpark_waker();
        let mut cx = Context::from_waker(&waker);
        let mut set = FutureSet::new();
        // Past `BITS`: the bits and the queue both.
        let gates: Vec<Gate> = (0..100).map(|_| Gate::default()).collect();
        for (i, gate) in gates.iter().enumerate() {
            set.push(gate.future(i as u32));
        }
        assert!(set.poll_next(&mut cx).is_pending());
        let openers: Vec<_> = gates
            .chunks(25)
            .map(|chunk| {
                let chunk = chunk.to_vec();
                std::thread::spawn(move || chunk.iter().for_each(Gate::open))
            })
            .collect();
        let mut done = Vec::new();
        while done.len() < gates.len() {
            match set.poll_next(&mut cx) {
                Poll::Ready(Some(i)) => done.push(i),
                Poll::Ready(None) => panic!("empty before every output came"),
                // Woken by the next wake.
                Poll::Pending => park_until_woken(format_args!("{} done", done.len())),
            }
        }
        openers.into_iter().for_each(|t| t.join().unwrap());
        done.sort_unstable();
        assert_eq!(done, (0..100).collect::<Vec<u32>>());
        assert!(set.is_empty());
    }

    #[test]
    fn a_future_that_always_wakes_itself_yields_to_the_driver() {
        let (driver, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut set: FutureSet<()> = FutureSet::new();
        set.push(Box::pin(std::future::poll_fn(|cx| {
            cx.waker().wake_by_ref();
            Poll::Pending
        })));
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(wakes(&driver), 1, "yielded, with a wake to come back");
        set.clear();
        assert!(set.is_empty());
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(None));
    }
}

//! A global allocator that counts allocations on top of the system
//! allocator, so each bench client can report its allocations per call.
//! Every client installs it.
//!
//! Each thread counts in a counter of its own, with a plain load and
//! store: a shared counter's atomic add is a locked instruction (some
//! twenty cycles on this machine) on every allocation, which charged each
//! client in proportion to its allocations (rmcp's hundreds a call, the
//! floor's two) for the harness's own bookkeeping. The total is the sum
//! of the threads' counters.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The threads' counters (a bench process has a handful of threads; past
/// this many, threads share counters and a count may be lost).
const COUNTERS: usize = 256;

/// Allocations (including reallocations) so far, one counter per thread.
static COUNTS: [AtomicU64; COUNTERS] = [const { AtomicU64::new(0) }; COUNTERS];

/// The next thread's counter.
static NEXT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's counter (`usize::MAX` until its first allocation).
    static MINE: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Counts one allocation in this thread's counter: only this thread writes
/// it, so a relaxed load and store (no locked instruction) do.
fn count() {
    let counter = MINE
        .try_with(|mine| {
            if mine.get() == usize::MAX {
                mine.set(NEXT.fetch_add(1, Ordering::Relaxed) % COUNTERS);
            }
            mine.get()
        })
        .unwrap_or(0);
    let c = &COUNTS[counter];
    c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// The counting allocator.
pub struct Counting;

// SAFETY: every method forwards to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations so far, every thread's.
pub fn allocations() -> u64 {
    COUNTS.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}

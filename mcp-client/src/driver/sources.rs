//! Which of the driver's own sources (the command channel, the stdio
//! receiver, the line writer, the timer) can be ready.
//!
//! Each of them is polled with a waker of its own, which notes the
//! source's bit before it wakes the driver's task. A source whose last poll
//! returned `Pending` (so its waker is still registered) and that has not
//! woken since cannot be ready: the driver's wait skips it, instead of
//! polling every source on every turn (a sequential call wakes the driver
//! twice, once for its command and once for its reply, and each turn would
//! otherwise poll the empty channel, the empty pipe and the timer again).
//!
//! The bits are read after the task's waker is registered, so a wake that
//! comes after that wakes the task and one that came before is in the bits:
//! no wake-up is lost. A source the driver changes itself (a timer it
//! resets) is marked with [`forget`](Sources::forget) and polled again.
//!
//! The input may be leased to a caller (`lease.rs`): it is then polled with
//! that caller's own waker, and its wakes wake that caller, not the
//! driver's task.

mod lease;

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use super::task_waker::TaskWaker;
pub(super) use lease::LeaseEnd;

/// One of the sources with a waker of its own (its bit).
#[derive(Clone, Copy)]
pub(super) enum Source {
    Commands = 1,
    Inbound = 2,
    Write = 4,
    Timer = 8,
}

impl Source {
    fn bit(self) -> u8 {
        self as u8
    }

    fn index(self) -> usize {
        (self as u8).trailing_zeros() as usize
    }
}

/// What the sources' wakers share with the driver.
#[derive(Default)]
struct Flags {
    /// The bits of the sources that woke since the driver last took them.
    woken: AtomicU8,
    /// The driver task's waker.
    task: TaskWaker,
    /// The generation of the input's lease; 0 while the input is the
    /// driver's (`lease.rs`).
    lease: AtomicU64,
}

/// The waker one source is polled with.
struct SourceWaker {
    bit: u8,
    flags: Arc<Flags>,
}

impl Wake for SourceWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.flags.woken.fetch_or(self.bit, Ordering::AcqRel);
        self.flags.task.wake();
    }
}

/// The driver's view of its sources: which woke, which are registered.
pub(super) struct Sources {
    flags: Arc<Flags>,
    /// One waker per source, by [`Source::index`]; the same each poll, so
    /// a source that keeps its waker does not clone it again.
    wakers: [Waker; 4],
    /// Sources whose last poll returned `Pending`: their waker is held.
    registered: u8,
    /// Sources that woke and were not polled since.
    woken: u8,
    /// The task waker registered last.
    held: Option<Waker>,
    /// The last lease's generation (`lease.rs`).
    lease_generation: u64,
}

impl Sources {
    pub(super) fn new() -> Self {
        let flags = Arc::new(Flags::default());
        let waker = |s: Source| {
            Waker::from(Arc::new(SourceWaker {
                bit: s.bit(),
                flags: flags.clone(),
            }))
        };
        let wakers = [
            waker(Source::Commands),
            waker(Source::Inbound),
            waker(Source::Write),
            waker(Source::Timer),
        ];
        Sources {
            flags,
            wakers,
            registered: 0,
            woken: 0,
            held: None,
            lease_generation: 0,
        }
    }

    /// Starts one poll of the driver's wait: registers the task's waker
    /// (nothing to do when it is the one registered last), then takes the
    /// bits of the sources that woke (a look first: most turns find none).
    /// After a new registration the bits are taken with a read-modify-write
    /// even when none is set: that orders the registration before every
    /// later wake's look at it (a source's wake sets its bit with one).
    pub(super) fn begin(&mut self, cx: &Context<'_>) {
        let anew = self.flags.task.register(&mut self.held, cx.waker());
        if anew || self.flags.woken.load(Ordering::Acquire) != 0 {
            self.woken |= self.flags.woken.swap(0, Ordering::AcqRel);
        }
    }

    /// Whether `source` may be ready: it woke, or it holds no waker.
    pub(super) fn due(&self, source: Source) -> bool {
        (self.woken | !self.registered) & source.bit() != 0
    }

    /// Whether `source` may hold something now, for a try without a poll:
    /// `false` only when it holds its waker and has not woken since (a
    /// source that is skipped here is still polled by the wait once it
    /// wakes).
    pub(super) fn may_hold(&self, source: Source) -> bool {
        let woken = self.woken | self.flags.woken.load(Ordering::Acquire);
        (woken | !self.registered) & source.bit() != 0
    }

    /// Polls `source` with its own waker and notes whether it now holds it.
    pub(super) fn poll<T>(
        &mut self,
        source: Source,
        poll: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        let bit = source.bit();
        self.woken &= !bit;
        let polled = poll(&mut Context::from_waker(&self.wakers[source.index()]));
        if polled.is_pending() {
            self.registered |= bit;
        } else {
            self.registered &= !bit;
        }
        polled
    }

    /// Whether `source` holds its waker: its last poll returned `Pending`
    /// and it was not changed since.
    pub(super) fn holds(&self, source: Source) -> bool {
        self.registered & source.bit() != 0
    }

    /// Wakes the driver's task (its next poll looks at every due source).
    pub(super) fn wake_task(&self) {
        self.flags.task.wake();
    }

    /// `source` was changed by the driver (a timer reset): its next wait
    /// polls it again.
    pub(super) fn forget(&mut self, source: Source) {
        self.registered &= !source.bit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_source_is_skipped_until_it_wakes() {
        let mut s = Sources::new();
        let task = Waker::noop();
        s.begin(&Context::from_waker(task));
        assert!(s.due(Source::Inbound), "never polled");
        let mut held = None;
        let _ = s.poll(Source::Inbound, |cx| {
            held = Some(cx.waker().clone());
            Poll::<()>::Pending
        });
        s.begin(&Context::from_waker(task));
        assert!(!s.due(Source::Inbound), "registered, not woken");
        assert!(s.due(Source::Commands), "the others were never polled");
        held.expect("registered").wake();
        s.begin(&Context::from_waker(task));
        assert!(s.due(Source::Inbound), "woke");
        assert!(s.poll(Source::Inbound, |_| Poll::Ready(())).is_ready());
        assert!(s.due(Source::Inbound), "ready last time: holds no waker");
    }

    /// Counts the wakes of the driver task.
    struct Count(std::sync::atomic::AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_source_wakes_the_task_registered_last() {
        let mut s = Sources::new();
        let count = Arc::new(Count(Default::default()));
        let task = Waker::from(count.clone());
        s.begin(&Context::from_waker(&task));
        let mut held = None;
        let _ = s.poll(Source::Commands, |cx| {
            held = Some(cx.waker().clone());
            Poll::<()>::Pending
        });
        held.expect("registered").wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(s.may_hold(Source::Commands), "the bit is seen before begin");
        s.begin(&Context::from_waker(&task));
        assert!(s.due(Source::Commands));
    }

    #[test]
    fn a_wake_is_kept_until_its_source_is_polled() {
        let mut s = Sources::new();
        let task = Waker::noop();
        let mut held = None;
        let _ = s.poll(Source::Timer, |cx| {
            held = Some(cx.waker().clone());
            Poll::<()>::Pending
        });
        assert!(!s.may_hold(Source::Timer));
        held.expect("registered").wake();
        // Taken by two waits that did not poll the timer (not armed).
        s.begin(&Context::from_waker(task));
        s.begin(&Context::from_waker(task));
        assert!(s.due(Source::Timer), "still due when it is polled next");
        let _ = s.poll(Source::Timer, |_| Poll::<()>::Pending);
        assert!(!s.due(Source::Timer));
    }

    #[test]
    fn a_forgotten_source_is_polled_again() {
        let mut s = Sources::new();
        let _ = s.poll(Source::Timer, |_| Poll::<()>::Pending);
        assert!(!s.due(Source::Timer));
        s.forget(Source::Timer);
        assert!(s.due(Source::Timer));
    }
}

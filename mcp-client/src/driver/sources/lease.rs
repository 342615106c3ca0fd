//! The input's lease: over a byte stream, a caller that awaits the only
//! call in flight reads the input itself (`direct.rs`), so that its reply
//! wakes it, not the driver, and costs no turn of the driver's.
//!
//! Leased, the input is polled with the lessee's own waker (under the
//! driver's lock), so the pipe's readiness wakes the lessee's task itself:
//! no waker of the driver's in between, no owner record, no lock of its
//! own. What the driver keeps is the lease's generation (`Flags::lease`, 0
//! while the input is the driver's), and who holds the input's
//! registration follows from how the lease ends:
//!
//! * while it holds, the input counts as registered for the driver's wait,
//!   which skips it;
//! * it outlives its call: the caller's next call (any caller's next start
//!   that leases the input) polls the input with its own waker and takes
//!   the lease over, and a caller that makes one call after another keeps
//!   the input registered with its one waker (no waker changes hands);
//! * the driver's revocation ([`Sources::revoke_input`]: another call or
//!   command, a caller's start that leases nothing, the driver's look
//!   within `LOOK_EVERY` of the lease) forgets the input's registration, so
//!   that the driver's next wait polls it with its own waker (a revocation
//!   outside the driver's turn polls it at once, `Driver::reclaim_input`);
//!   a poll of the driver's own ends the lease too ([`Sources::poll_input`]);
//! * a lessee that drops its lease before its outcome came (its call
//!   dropped, or the driver's lock taken when it came to read) marks the
//!   input woken and wakes the driver's task ([`LeaseEnd::drop_lease`]).
//!
//! So a message that comes between two calls, to a caller that no longer
//! polls, is read by the driver's look at the latest. Each lease has a
//! generation of its own, so a stale end (of an earlier lease, or of one
//! the driver took back) ends nothing.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use super::{Flags, Source, Sources};

/// What a lessee's drop needs of the driver's sources, held outside the
/// driver's lock ([`DriverCell`](crate::driver::DriverCell)): it ends a
/// lease without that lock.
pub(in crate::driver) struct LeaseEnd(Arc<Flags>);

impl LeaseEnd {
    /// Ends the lease of `generation` if it still holds: the input is
    /// marked woken and the driver's task woken, so that the driver's wait
    /// polls the input with its own waker. Nothing (and no atomic write)
    /// when the lease ended already.
    #[inline]
    pub(in crate::driver) fn drop_lease(&self, generation: u64) {
        let flags = &self.0;
        if flags.lease.load(Ordering::Acquire) == generation
            && flags
                .lease
                .compare_exchange(generation, 0, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            flags
                .woken
                .fetch_or(Source::Inbound.bit(), Ordering::AcqRel);
            flags.task.wake();
        }
    }
}

impl Sources {
    /// What ends a lease from outside the driver's lock.
    pub(in crate::driver) fn lease_end(&self) -> LeaseEnd {
        LeaseEnd(Arc::clone(&self.flags))
    }

    /// Leases the input, whose last poll (the caller's, with its own
    /// waker) returned `Pending`: the driver's wait skips it from now on,
    /// and a wake of the driver's own that came before is forgotten (what
    /// it announced was read by that poll). The lease's generation, never
    /// 0; an earlier lease ends.
    pub(in crate::driver) fn begin_lease(&mut self) -> u64 {
        self.lease_generation += 1;
        let generation = self.lease_generation;
        let bit = Source::Inbound.bit();
        self.registered |= bit;
        self.woken &= !bit;
        if self.flags.woken.load(Ordering::Acquire) & bit != 0 {
            self.flags.woken.fetch_and(!bit, Ordering::AcqRel);
        }
        self.flags.lease.store(generation, Ordering::Release);
        generation
    }

    /// Whether the lease of `generation` still holds.
    #[inline]
    pub(in crate::driver) fn lease_holds(&self, generation: u64) -> bool {
        self.flags.lease.load(Ordering::Acquire) == generation
    }

    /// Polls the input with the driver's own waker ([`Sources::poll`],
    /// which notes the registration): a lease, if any, ends, since its
    /// lessee's waker is no longer the one the input wakes. Every poll of
    /// the driver's own goes through here.
    #[inline]
    pub(in crate::driver) fn poll_input<T>(
        &mut self,
        poll: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        self.flags.lease.store(0, Ordering::Release);
        self.poll(Source::Inbound, poll)
    }

    /// The input is the driver's to read on (a read stopped with more
    /// input than one turn takes, or at its end): a lease, if any, ends,
    /// the input is due to the driver's next poll, and the driver is
    /// woken for it.
    pub(in crate::driver) fn give_back_input(&mut self) {
        self.flags.lease.store(0, Ordering::Release);
        self.forget(Source::Inbound);
        self.wake_task();
    }

    /// Takes the input back from its lessee, if it is leased: its
    /// registration (the lessee's waker) is forgotten, so the input is due
    /// to the driver's next poll. `true` when it ended a lease: outside the
    /// driver's turn its caller polls the input then (no wait of the
    /// driver's would).
    pub(in crate::driver) fn revoke_input(&mut self) -> bool {
        if self.flags.lease.load(Ordering::Acquire) == 0 {
            return false;
        }
        self.flags.lease.store(0, Ordering::Release);
        self.forget(Source::Inbound);
        true
    }
}

#[cfg(test)]
mod tests {
    use std::task::Waker;

    use super::*;
    use crate::driver::counting_waker::{Count, counting_waker, wakes};

    /// Sources whose input was polled once by a driver whose waker counts
    /// (the input holds the driver's waker: registered).
    fn registered() -> (Sources, Arc<Count>) {
        let mut s = Sources::new();
        let (driver, driver_waker) = counting_waker();
        s.begin(&Context::from_waker(&driver_waker));
        let _ = s.poll(Source::Inbound, |_| Poll::<()>::Pending);
        (s, driver)
    }

    #[test]
    fn a_leased_input_is_skipped_by_the_drivers_wait_until_its_lease_ends() {
        let (mut s, driver) = registered();
        let lease = s.begin_lease();
        assert_ne!(lease, 0);
        assert!(s.lease_holds(lease));
        assert!(!s.due(Source::Inbound), "the lessee's waker is registered");
        let _ = s.poll_input(|_| Poll::<()>::Pending);
        assert!(!s.lease_holds(lease), "the driver's own poll ends it");
        // The lessee's drop after that: nothing to end.
        s.lease_end().drop_lease(lease);
        assert_eq!(wakes(&driver), 0);
        assert!(!s.due(Source::Inbound));
    }

    #[test]
    fn a_lease_forgets_a_wake_its_first_poll_read() {
        let (mut s, driver) = registered();
        let mut held = None;
        let _ = s.poll(Source::Inbound, |cx| {
            held = Some(cx.waker().clone());
            Poll::<()>::Pending
        });
        held.expect("registered").wake();
        assert_eq!(wakes(&driver), 1);
        let _lease = s.begin_lease();
        s.begin(&Context::from_waker(Waker::noop()));
        assert!(!s.due(Source::Inbound), "the wake was the lessee's to read");
    }

    #[test]
    fn a_revoked_lease_leaves_the_input_due_to_the_driver() {
        let (mut s, driver) = registered();
        let lease = s.begin_lease();
        assert!(s.revoke_input(), "it ended the lease");
        assert!(!s.revoke_input(), "once");
        assert!(!s.lease_holds(lease));
        assert!(s.due(Source::Inbound), "polled by the driver's next wait");
        s.lease_end().drop_lease(lease);
        assert_eq!(wakes(&driver), 0, "an ended lease ends nothing");
    }

    #[test]
    fn a_lease_dropped_while_it_holds_wakes_the_driver_for_the_input() {
        let (mut s, driver) = registered();
        let lease = s.begin_lease();
        let end = s.lease_end();
        end.drop_lease(lease);
        assert_eq!(wakes(&driver), 1);
        assert!(!s.lease_holds(lease));
        s.begin(&Context::from_waker(Waker::noop()));
        assert!(s.due(Source::Inbound), "marked woken");
        end.drop_lease(lease);
        assert_eq!(wakes(&driver), 1, "once");
    }

    #[test]
    fn an_earlier_leases_drop_does_not_end_a_later_one() {
        let (mut s, driver) = registered();
        let old = s.begin_lease();
        s.revoke_input();
        let new = s.begin_lease();
        assert_ne!(old, new);
        s.lease_end().drop_lease(old);
        assert!(s.lease_holds(new));
        assert_eq!(wakes(&driver), 0);
    }
}

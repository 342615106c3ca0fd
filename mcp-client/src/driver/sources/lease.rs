//! The input's lease: over a byte stream, a caller that awaits the only
//! call in flight reads the input itself (`direct.rs`), so that its reply
//! wakes it, not the driver, and costs no turn of the driver's.
//!
//! Leased, the input's wakes set its bit as always and wake the lessee
//! instead of the driver's task; the lessee polls the input with the
//! input's own waker, under the driver's lock, and handles what it reads
//! as the driver's turn would. The lease ends when the lessee drops it
//! ([`InputLease`]'s drop: its call ended, was dropped, or the driver was
//! busy) and when the driver takes the input back
//! ([`Sources::revoke_input`]: another call or command, or a lease that
//! outlived the driver's look, `Driver::look`); a wake that went
//! to the lessee and was not read then wakes the driver.
//!
//! Who holds the lease is an [`Ownership`](super::Ownership), as for a
//! caller's POST: a wake that races the lease's end never goes astray.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Waker;

use super::{Flags, Source, Sources};

impl Flags {
    /// Ends the lease (only `generation`'s, when given); when it ended one
    /// and a wake went to the lessee unread, wakes the driver's task.
    #[inline]
    fn end_lease(&self, generation: Option<u64>) {
        if self.input.end(generation)
            && self.woken.load(Ordering::Acquire) & Source::Inbound.bit() != 0
        {
            self.task.wake();
        }
    }
}

/// A caller's lease of the input ([`Sources::lease_input`]); dropping it
/// hands the input back to the driver.
pub(in crate::driver) struct InputLease {
    flags: Arc<Flags>,
    generation: u64,
}

impl Drop for InputLease {
    /// Hands the input back to the driver (woken if a wake went to the
    /// lessee unread); nothing when the lease ended already. Needs no lock
    /// of the driver's.
    #[inline]
    fn drop(&mut self) {
        self.flags.end_lease(Some(self.generation));
    }
}

impl Sources {
    /// Leases the input to `owner`: its wakes wake `owner`, which reads it
    /// with [`Sources::lease_holds`] and [`Sources::poll`] under the
    /// driver's lock.
    pub(in crate::driver) fn lease_input(&mut self, owner: &Waker) -> InputLease {
        InputLease {
            generation: self.flags.input.take(owner),
            flags: Arc::clone(&self.flags),
        }
    }

    /// The generation of the input's lease, if it is leased.
    pub(in crate::driver) fn input_lease(&self) -> Option<u64> {
        self.flags.input.current()
    }

    /// Takes the input back from its lessee, if it is leased: its wakes
    /// wake the driver again (woken now if one went to the lessee unread).
    pub(in crate::driver) fn revoke_input(&self) {
        self.flags.end_lease(None);
    }

    /// Whether `lease` still holds; if so, `owner` is the waker the input's
    /// wakes wake from now on, and a wake the lessee got is taken into the
    /// driver's view (the input is then [`due`](Sources::due)).
    pub(in crate::driver) fn lease_holds(&mut self, lease: &InputLease, owner: &Waker) -> bool {
        if !self.flags.input.holds(lease.generation, owner) {
            return false;
        }
        let bit = Source::Inbound.bit();
        if self.flags.woken.load(Ordering::Acquire) & bit != 0 {
            self.woken |= self.flags.woken.fetch_and(!bit, Ordering::AcqRel) & bit;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll};

    use super::*;
    use crate::driver::counting_waker::{Count, counting_waker, wakes};

    /// Sources whose input was polled once (its waker is registered, and
    /// returned) by a driver whose waker counts.
    fn registered() -> (Sources, Waker, Arc<Count>) {
        let mut s = Sources::new();
        let (driver, driver_waker) = counting_waker();
        s.begin(&Context::from_waker(&driver_waker));
        let mut held = None;
        let _ = s.poll(Source::Inbound, |cx| {
            held = Some(cx.waker().clone());
            Poll::<()>::Pending
        });
        (s, held.expect("registered"), driver)
    }

    #[test]
    fn a_leased_input_wakes_its_lessee_not_the_driver() {
        let (mut s, input, driver) = registered();
        let (lessee, lessee_waker) = counting_waker();
        let lease = s.lease_input(&lessee_waker);
        input.wake_by_ref();
        assert_eq!((wakes(&lessee), wakes(&driver)), (1, 0));
        assert!(s.lease_holds(&lease, &lessee_waker));
        assert!(s.due(Source::Inbound), "the lessee's wake is due");
        let _ = s.poll(Source::Inbound, |_| Poll::<()>::Pending);
        // Read: handing it back wakes no one.
        drop(lease);
        assert_eq!((wakes(&lessee), wakes(&driver)), (1, 0));
        input.wake_by_ref();
        assert_eq!(
            (wakes(&lessee), wakes(&driver)),
            (1, 1),
            "the driver's again"
        );
    }

    #[test]
    fn a_wake_the_lessee_left_unread_goes_to_the_driver_at_the_lease_end() {
        let (mut s, input, driver) = registered();
        let (lessee, lessee_waker) = counting_waker();
        let lease = s.lease_input(&lessee_waker);
        input.wake_by_ref();
        drop(lease);
        assert_eq!((wakes(&lessee), wakes(&driver)), (1, 1));
        // Revoked the same way.
        let lease = s.lease_input(&lessee_waker);
        s.revoke_input();
        assert!(!s.lease_holds(&lease, &lessee_waker), "revoked");
        assert_eq!(wakes(&driver), 2, "the bit is still set: woken again");
        drop(lease);
        assert_eq!(wakes(&driver), 2, "an ended lease ends nothing");
    }

    #[test]
    fn a_later_lease_is_not_ended_by_an_earlier_ones_drop() {
        let (mut s, input, driver) = registered();
        let (first, first_waker) = counting_waker();
        let (second, second_waker) = counting_waker();
        let old = s.lease_input(&first_waker);
        s.revoke_input();
        let new = s.lease_input(&second_waker);
        assert_eq!(s.input_lease(), Some(2));
        drop(old);
        assert!(s.lease_holds(&new, &second_waker));
        input.wake_by_ref();
        assert_eq!((wakes(&first), wakes(&second), wakes(&driver)), (0, 1, 0));
    }

    #[test]
    fn the_lessees_waker_follows_its_task() {
        let (mut s, input, _driver) = registered();
        let (first, first_waker) = counting_waker();
        let (moved, moved_waker) = counting_waker();
        let lease = s.lease_input(&first_waker);
        assert!(s.lease_holds(&lease, &moved_waker));
        input.wake_by_ref();
        assert_eq!((wakes(&first), wakes(&moved)), (0, 1));
    }
}

//! A slot of a [`FutureSet`] owned by a caller (`direct.rs`): its wakes
//! set its bit and wake the owner instead of the driver, and the owner
//! polls that one future itself, under the driver's lock
//! ([`FutureSet::poll_owned`]).
//!
//! The ownership ends when the future ends (whoever polled it last), or
//! when the owner leaves ([`OwnedSlot`]'s drop): its wakes go to the driver
//! again, and the driver is woken to look at the slot's bit (a wake that
//! went to the owner set it). Each ownership has a generation, so that a
//! stale [`OwnedSlot`] (of an earlier future of the slot) leaves nothing.
//! Only the first 64 slots can be owned: a wake of a later one goes
//! through the set's queue, which only the driver takes.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, Waker};

use super::{BITS, FutureSet, SlotWake};

impl SlotWake {
    /// Ends the slot's ownership, if it has one (its future ended): its
    /// wakes go to the driver again.
    pub(super) fn end_ownership(&self) {
        self.ownership.end(None);
    }

    /// Hands the slot back to the driver from the owner of `generation`
    /// (its leave, or the driver taking it back): the driver is woken to
    /// look at the slot's bit (a wake that went to the owner unread set
    /// it); nothing when that ownership had ended.
    fn hand_back(&self, generation: u64) {
        if self.ownership.end(Some(generation)) {
            self.shared.driver.wake();
        }
    }
}

/// A caller's ownership of one slot's future ([`FutureSet::own`]);
/// dropping it hands the slot back to the driver.
pub(in crate::driver) struct OwnedSlot {
    wake: Arc<SlotWake>,
    generation: u64,
    /// The owner saw the future end: nothing is left to hand back.
    ended: bool,
}

impl OwnedSlot {
    /// Whether the ownership holds (not ended by the future's end); if
    /// so, `owner` is the waker its wakes wake from now on.
    fn holds(&self, owner: &Waker) -> bool {
        self.wake.ownership.holds(self.generation, owner)
    }

    /// Its slot and the ownership's generation, for
    /// [`FutureSet::revoke`].
    pub(in crate::driver) fn key(&self) -> (usize, u64) {
        (self.wake.index, self.generation)
    }
}

impl Drop for OwnedSlot {
    /// Hands the slot back to the driver, which is woken to look at it;
    /// nothing when the ownership already ended. Needs no lock of the
    /// driver's.
    #[inline]
    fn drop(&mut self) {
        if !self.ended {
            self.wake.hand_back(self.generation);
        }
    }
}

impl<T> FutureSet<T> {
    /// Makes `owner` the owner of the future in slot `index`: its wakes
    /// wake `owner`, who polls it with [`FutureSet::poll_owned`]. `None`
    /// when the slot holds no future or is past the first 64.
    pub(in crate::driver) fn own(&mut self, index: usize, owner: &Waker) -> Option<OwnedSlot> {
        let slot = self.slots.get(index).filter(|_| index < BITS)?;
        slot.future.as_ref()?;
        Some(OwnedSlot {
            generation: slot.wake.ownership.take(owner),
            wake: Arc::clone(&slot.wake),
            ended: false,
        })
    }

    /// Whether the ownership `generation` of slot `index` still holds.
    pub(in crate::driver) fn owned(&self, index: usize, generation: u64) -> bool {
        self.slots
            .get(index)
            .is_some_and(|slot| slot.wake.ownership.current() == Some(generation))
    }

    /// Takes back the ownership `generation` of slot `index`, if it still
    /// holds: the slot's wakes go to the driver again, and the driver is
    /// woken to look at its bit (a wake that went to the owner unread set
    /// it). Its owner's next poll finds it no longer holds.
    pub(in crate::driver) fn revoke(&self, index: usize, generation: u64) {
        if let Some(slot) = self.slots.get(index) {
            slot.wake.hand_back(generation);
        }
    }

    /// Polls the future `owned` owns, if it was woken: `Some(Ready)` with
    /// its output (its slot freed, the ownership ended), `Some(Pending)`
    /// when it was not woken or is not done, `None` when the ownership
    /// ended (the driver polled the future to its end, or dropped it).
    /// `owner` is the owner's waker now (its future may have moved to
    /// another task since): the slot's later wakes wake that one.
    pub(in crate::driver) fn poll_owned(
        &mut self,
        owned: &mut OwnedSlot,
        owner: &Waker,
    ) -> Option<Poll<T>> {
        let index = owned.wake.index;
        let slot = self.slots.get_mut(index)?;
        if !Arc::ptr_eq(&slot.wake, &owned.wake) || !owned.holds(owner) {
            return None;
        }
        let future = slot.future.as_mut()?;
        let bit = 1 << index;
        // Taken as the driver takes it: a wake after this sets it again.
        if self.shared.bits.fetch_and(!bit, Ordering::AcqRel) & bit == 0 {
            return Some(Poll::Pending);
        }
        // The output is handed on where the poll put it (not taken out of
        // its `Poll` and wrapped again: it is as large as a POST's outcome).
        let polled = future.as_mut().poll(&mut Context::from_waker(&slot.waker));
        if polled.is_ready() {
            // `finished` ends the ownership: the owner's drop has nothing
            // to do.
            self.finished(index);
            owned.ended = true;
        }
        Some(polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::counting_waker::{counting_waker, wakes};
    use crate::driver::future_set::tests::Gate;

    /// A set holding one future, polled once by the driver (whose waker
    /// counts), and its gate.
    fn one(driver: &Waker) -> (FutureSet<u32>, Gate) {
        let mut set = FutureSet::new();
        let gate = Gate::default();
        set.push(gate.future(7));
        let mut cx = Context::from_waker(driver);
        assert!(set.poll_next(&mut cx).is_pending());
        (set, gate)
    }

    #[test]
    fn an_owned_futures_wakes_wake_its_owner_who_polls_it() {
        let (driver, driver_waker) = counting_waker();
        let (owner, owner_waker) = counting_waker();
        let (mut set, gate) = one(&driver_waker);
        let mut owned = set.own(0, &owner_waker).expect("owned");
        // Not woken: not polled.
        assert_eq!(
            set.poll_owned(&mut owned, &owner_waker),
            Some(Poll::Pending)
        );
        assert_eq!(gate.polls(), 1);
        gate.open();
        assert_eq!(
            (wakes(&owner), wakes(&driver)),
            (1, 0),
            "the owner is woken"
        );
        assert_eq!(
            set.poll_owned(&mut owned, &owner_waker),
            Some(Poll::Ready(7))
        );
        assert!(set.is_empty());
        // Ended: its drop wakes no one, and a second look finds nothing.
        assert_eq!(set.poll_owned(&mut owned, &owner_waker), None);
        drop(owned);
        assert_eq!((wakes(&owner), wakes(&driver)), (1, 0));
    }

    #[test]
    fn an_owner_that_leaves_after_a_wake_hands_it_to_the_driver() {
        let (driver, driver_waker) = counting_waker();
        let (owner, owner_waker) = counting_waker();
        let (mut set, gate) = one(&driver_waker);
        let owned = set.own(0, &owner_waker).expect("owned");
        gate.open();
        assert_eq!((wakes(&owner), wakes(&driver)), (1, 0));
        drop(owned);
        assert_eq!(wakes(&driver), 1, "the driver is woken to look");
        let mut cx = Context::from_waker(&driver_waker);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(7)));
    }

    #[test]
    fn wakes_after_the_owner_left_go_to_the_driver() {
        let (driver, driver_waker) = counting_waker();
        let (owner, owner_waker) = counting_waker();
        let (mut set, gate) = one(&driver_waker);
        drop(set.own(0, &owner_waker).expect("owned"));
        let left = wakes(&driver);
        gate.open();
        assert_eq!(wakes(&owner), 0);
        assert_eq!(wakes(&driver), left + 1);
        let mut cx = Context::from_waker(&driver_waker);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(7)));
    }

    #[test]
    fn the_owners_latest_waker_is_woken() {
        let (driver, driver_waker) = counting_waker();
        let (first, first_waker) = counting_waker();
        let (moved, moved_waker) = counting_waker();
        let (mut set, gate) = one(&driver_waker);
        let mut owned = set.own(0, &first_waker).expect("owned");
        // Polled from another task since: its wakes go there.
        assert_eq!(
            set.poll_owned(&mut owned, &moved_waker),
            Some(Poll::Pending)
        );
        gate.open();
        assert_eq!((wakes(&first), wakes(&moved), wakes(&driver)), (0, 1, 0));
    }

    #[test]
    fn a_future_the_driver_ends_ends_the_ownership() {
        let (driver, driver_waker) = counting_waker();
        let (owner, owner_waker) = counting_waker();
        let (mut set, gate) = one(&driver_waker);
        let mut owned = set.own(0, &owner_waker).expect("owned");
        gate.open();
        // The driver found the bit (polling for something else) and took
        // the output.
        let mut cx = Context::from_waker(&driver_waker);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(7)));
        assert_eq!(set.poll_owned(&mut owned, &owner_waker), None);
        // The slot's next future has no owner: the stale one leaves nothing.
        let next = Gate::default();
        set.push(next.future(8));
        assert!(set.poll_next(&mut cx).is_pending());
        let before = wakes(&driver);
        drop(owned);
        assert_eq!(wakes(&driver), before, "a stale owner wakes no one");
        next.open();
        assert_eq!((wakes(&owner), wakes(&driver)), (1, before + 1));
    }

    #[test]
    fn a_revoked_ownership_hands_a_wake_its_owner_left_unread_to_the_driver() {
        let (driver, driver_waker) = counting_waker();
        let (owner, owner_waker) = counting_waker();
        let (mut set, gate) = one(&driver_waker);
        let mut owned = set.own(0, &owner_waker).expect("owned");
        let (index, generation) = owned.key();
        assert!(set.owned(index, generation));
        gate.open();
        assert_eq!((wakes(&owner), wakes(&driver)), (1, 0));
        // The owner does not poll; the driver takes the slot back.
        set.revoke(index, generation);
        assert!(!set.owned(index, generation));
        assert_eq!(wakes(&driver), 1, "the driver is woken to look");
        assert_eq!(set.poll_owned(&mut owned, &owner_waker), None);
        let mut cx = Context::from_waker(&driver_waker);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(7)));
        // Revoked already, and then dropped: no one is woken again.
        set.revoke(index, generation);
        drop(owned);
        assert_eq!((wakes(&owner), wakes(&driver)), (1, 1));
    }

    #[test]
    fn only_a_slot_with_a_future_among_the_first_64_is_owned() {
        let waker = Waker::noop();
        let mut set: FutureSet<u32> = FutureSet::new();
        assert!(set.own(0, waker).is_none(), "no slot");
        let gates: Vec<Gate> = (0..65).map(|_| Gate::default()).collect();
        for (i, g) in gates.iter().enumerate() {
            set.push(g.future(i as u32));
        }
        assert!(set.own(63, waker).is_some());
        assert!(set.own(64, waker).is_none(), "woken through the queue");
    }
}

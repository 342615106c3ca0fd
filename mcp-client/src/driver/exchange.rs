//! The one allocation a call shares between its caller and the driver:
//! where the call's outcome goes.
//!
//! A call used to cost a `tokio::sync::oneshot` for its outcome and a boxed
//! spec; the spec now travels in the command itself (`Command::Start`, or
//! by hand when its caller starts it, `direct.rs`), so the driver takes it
//! without a lock. The caller keeps the [`OutcomeRx`] and hands the
//! [`CallTx`] to the driver; the driver keeps it in the call's `Pending`
//! and answers through it. Dropping the `CallTx` unanswered (the command
//! never delivered, the driver gone) ends the wait as closed, as a dropped
//! oneshot sender does. A caller that reads its own reply (`direct.rs`)
//! takes its outcome from that read instead ([`CallTx::hand_over`]): the
//! slot is not locked for it.
//!
//! The allocation also names the call to the driver: the driver writes the
//! call's id into it when the call starts, and a handle's later commands
//! (cancel, its id, a task's wait and input) carry a [`CallRef`] to it, so
//! the driver keeps no table from handles to ids.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use mcp_types::RequestId;

use super::calls::Outcome;
use crate::error::Error;

/// What a call's caller waits for.
pub(crate) type CallResult = Result<Outcome, Error>;

/// The wait ended without an outcome: the driver dropped the call (it is
/// gone, or the command never reached it).
#[derive(Debug)]
pub(crate) struct Closed;

struct Slot {
    /// The outcome, until its caller takes it.
    outcome: Option<CallResult>,
    waker: Option<Waker>,
    /// The [`CallTx`] is gone: no outcome comes after the one held.
    ended: bool,
}

/// The allocation: the slot both ends lock, and the call's id, which only
/// the driver writes and reads (it is outside the lock: writing and reading
/// it costs no atomic read-modify-write).
struct Exchange {
    slot: Mutex<Slot>,
    /// The call's id once the driver started it ([`UNSTARTED`] before).
    /// The core numbers every call (`RequestId::Number`).
    id: AtomicI64,
}

/// [`Exchange::id`] before the call started.
const UNSTARTED: i64 = i64::MIN;

type Shared = Arc<Exchange>;

fn lock(shared: &Shared) -> MutexGuard<'_, Slot> {
    shared.slot.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The driver's end: where the outcome goes.
pub(crate) struct CallTx {
    shared: Shared,
    /// [`CallTx::send`] ended the wait: dropping this has nothing left to do.
    sent: bool,
}

/// The caller's end: a future of the call's outcome.
pub(crate) struct OutcomeRx(Shared);

/// A new exchange for a call. `waiting` is the caller's waker when it
/// already waits (it starts the call from a poll): the outcome wakes it
/// without a first poll having left it under the lock.
#[inline]
pub(crate) fn exchange(waiting: Option<&Waker>) -> (CallTx, OutcomeRx) {
    let shared = Arc::new(Exchange {
        slot: Mutex::new(Slot {
            outcome: None,
            waker: waiting.cloned(),
            ended: false,
        }),
        id: AtomicI64::new(UNSTARTED),
    });
    let tx = CallTx {
        shared: Arc::clone(&shared),
        sent: false,
    };
    (tx, OutcomeRx(shared))
}

impl CallTx {
    /// Names the started call (read back through a [`CallRef`]). The core
    /// numbers every call; an id of another kind (or `i64::MIN`) would not
    /// be kept, and the call would then never be found in flight.
    pub(crate) fn set_id(&self, id: &RequestId) {
        if let RequestId::Number(n) = id {
            // Only the driver reads it (`CallRef::id`): no order to keep.
            self.shared.id.store(*n, Ordering::Relaxed);
        }
    }

    /// The call's allocation, as an address: names the call without a
    /// reference of its own (`direct.rs`). Never 0.
    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.shared).addr()
    }

    /// Ends the driver's end without handing the outcome to the slot: the
    /// caller is reading its own reply and takes the outcome from the
    /// driver (`direct.rs`, [`Reader`](super::Reader)). Its `OutcomeRx`
    /// is not polled again.
    pub(crate) fn hand_over(mut self) {
        self.sent = true;
    }

    /// Hands the caller its outcome and ends the wait, in one lock:
    /// dropping the sent `CallTx` has nothing more to do.
    pub(crate) fn send(mut self, outcome: CallResult) {
        self.sent = true;
        end(&self.shared, Some(outcome));
    }
}

/// Ends the wait, with an outcome or without one (closed), and wakes the
/// caller.
fn end(shared: &Shared, outcome: Option<CallResult>) {
    let waker = {
        let mut slot = lock(shared);
        slot.outcome = outcome;
        slot.ended = true;
        slot.waker.take()
    };
    if let Some(w) = waker {
        w.wake();
    }
}

impl Drop for CallTx {
    fn drop(&mut self) {
        if !self.sent {
            end(&self.shared, None);
        }
    }
}

impl Future for OutcomeRx {
    type Output = Result<CallResult, Closed>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = lock(&self.0);
        if let Some(outcome) = slot.outcome.take() {
            return Poll::Ready(Ok(outcome));
        }
        if slot.ended {
            return Poll::Ready(Err(Closed));
        }
        match &mut slot.waker {
            Some(w) => w.clone_from(cx.waker()),
            none => *none = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl OutcomeRx {
    /// A reference to the call, for commands about it.
    pub(crate) fn call_ref(&self) -> CallRef {
        CallRef(Arc::clone(&self.0))
    }
}

/// A handle's reference to its call, in commands about it: the driver reads
/// the call's id from it (`None` before the call started).
#[derive(Clone)]
pub(crate) struct CallRef(Shared);

impl CallRef {
    /// The call's id, once started (it stays after the call ended: the
    /// driver checks the call is still in flight).
    pub(crate) fn id(&self) -> Option<RequestId> {
        match self.0.id.load(Ordering::Relaxed) {
            UNSTARTED => None,
            n => Some(RequestId::Number(n)),
        }
    }
}

impl std::fmt::Debug for CallRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallRef").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for OutcomeRx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutcomeRx").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;
    use crate::driver::counting_waker::{counting_waker, wakes};

    #[tokio::test]
    async fn the_outcome_reaches_a_waiting_caller() {
        let (tx, mut rx) = exchange(None);
        let pending = poll_fn(|cx| Poll::Ready(Pin::new(&mut rx).poll(cx).is_pending())).await;
        assert!(pending);
        tx.send(Err(Error::closed()));
        let r = rx.await;
        assert!(matches!(r, Ok(Err(e)) if e.is_closed()));
    }

    #[test]
    fn a_caller_waiting_from_the_start_is_woken_by_the_outcome() {
        let (count, waker) = counting_waker();
        let (tx, mut rx) = exchange(Some(&waker));
        assert_eq!(wakes(&count), 0);
        tx.send(Ok(Outcome::Acknowledged(None)));
        assert_eq!(wakes(&count), 1);
        let mut cx = Context::from_waker(&waker);
        assert!(matches!(
            Pin::new(&mut rx).poll(&mut cx),
            Poll::Ready(Ok(Ok(_)))
        ));
    }

    #[test]
    fn the_call_id_is_read_back_once_set() {
        let (tx, rx) = exchange(None);
        let call = rx.call_ref();
        assert_eq!(call.id(), None);
        tx.set_id(&RequestId::Number(7));
        assert_eq!(call.id(), Some(RequestId::Number(7)));
    }

    #[tokio::test]
    async fn a_dropped_call_ends_the_wait_as_closed() {
        let (tx, rx) = exchange(None);
        drop(tx);
        assert!(rx.await.is_err());
    }

    #[tokio::test]
    async fn after_the_outcome_the_wait_is_closed() {
        let (tx, mut rx) = exchange(None);
        tx.send(Ok(Outcome::Acknowledged(None)));
        assert!(matches!((&mut rx).await, Ok(Ok(_))));
        assert!((&mut rx).await.is_err());
    }
}

//! The one allocation a call shares between its caller and the driver: the
//! call's [`CallSpec`] on the way in, its outcome on the way out.
//!
//! A call used to cost a boxed spec (so that the command and the callers'
//! futures move a pointer, not the spec) and a `tokio::sync::oneshot` for
//! its outcome: two allocations. An [`exchange`] is both in one: the caller
//! keeps the [`OutcomeRx`] and hands the [`CallTx`] to the driver in
//! `Command::Start`; the driver takes the spec out of it, keeps it in the
//! call's `Pending` and answers through it. Dropping the `CallTx` unanswered
//! (the command never delivered, the driver gone) ends the wait as closed,
//! as a dropped oneshot sender does.
//!
//! The allocation also names the call to the driver: the driver writes the
//! call's id into it when the call starts, and a handle's later commands
//! (cancel, its id, a task's wait and input) carry a [`CallRef`] to it, so
//! the driver keeps no table from handles to ids.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use mcp_types::RequestId;

use super::CallSpec;
use super::calls::Outcome;
use crate::error::Error;

/// What a call's caller waits for.
pub(crate) type CallResult = Result<Outcome, Error>;

/// The wait ended without an outcome: the driver dropped the call (it is
/// gone, or the command never reached it).
#[derive(Debug)]
pub(crate) struct Closed;

struct Slot {
    spec: Option<CallSpec>,
    outcome: Option<CallResult>,
    waker: Option<Waker>,
    /// The [`CallTx`] is gone: no outcome comes after the one held.
    ended: bool,
    /// The call's id, once the driver started it.
    id: Option<RequestId>,
}

type Shared = Arc<Mutex<Slot>>;

fn lock(shared: &Shared) -> MutexGuard<'_, Slot> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The driver's end: the spec to start, and where the outcome goes.
pub(crate) struct CallTx(Shared);

/// The caller's end: a future of the call's outcome.
pub(crate) struct OutcomeRx(Shared);

/// A new exchange carrying `spec` to the driver (inlined: the spec is
/// written into the allocation, not copied through one more frame).
#[inline]
pub(crate) fn exchange(spec: CallSpec) -> (CallTx, OutcomeRx) {
    let shared = Arc::new(Mutex::new(Slot {
        spec: Some(spec),
        outcome: None,
        waker: None,
        ended: false,
        id: None,
    }));
    (CallTx(Arc::clone(&shared)), OutcomeRx(shared))
}

impl CallTx {
    /// Takes the call's spec out (once; `None` afterwards).
    pub(crate) fn take_spec(&self) -> Option<CallSpec> {
        lock(&self.0).spec.take()
    }

    /// Names the started call (read back through a [`CallRef`]).
    pub(crate) fn set_id(&self, id: RequestId) {
        lock(&self.0).id = Some(id);
    }

    /// Hands the caller its outcome.
    pub(crate) fn send(self, outcome: CallResult) {
        lock(&self.0).outcome = Some(outcome);
        // Dropping `self` wakes the caller.
    }
}

impl Drop for CallTx {
    fn drop(&mut self) {
        let waker = {
            let mut slot = lock(&self.0);
            slot.ended = true;
            // An unstarted spec is dropped with the call.
            slot.spec = None;
            slot.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl Future for OutcomeRx {
    type Output = Result<CallResult, Closed>;

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
        lock(&self.0).id.clone()
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
    use crate::driver::SpecKind;
    use crate::options::CallOptions;

    fn spec() -> CallSpec {
        CallSpec {
            method: "ping".into(),
            params: None,
            opts: CallOptions::new(),
            kind: SpecKind::Plain,
        }
    }

    #[tokio::test]
    async fn the_outcome_reaches_a_waiting_caller() {
        let (tx, mut rx) = exchange(spec());
        assert_eq!(tx.take_spec().map(|s| s.method), Some("ping".into()));
        assert!(tx.take_spec().is_none());
        let pending = poll_fn(|cx| Poll::Ready(Pin::new(&mut rx).poll(cx).is_pending())).await;
        assert!(pending);
        tx.send(Err(Error::closed()));
        let r = rx.await;
        assert!(matches!(r, Ok(Err(e)) if e.is_closed()));
    }

    #[tokio::test]
    async fn a_dropped_call_ends_the_wait_as_closed() {
        let (tx, rx) = exchange(spec());
        drop(tx);
        assert!(rx.await.is_err());
    }

    #[tokio::test]
    async fn after_the_outcome_the_wait_is_closed() {
        let (tx, mut rx) = exchange(spec());
        tx.send(Ok(Outcome::Acknowledged(None)));
        assert!(matches!((&mut rx).await, Ok(Ok(_))));
        assert!((&mut rx).await.is_err());
    }
}

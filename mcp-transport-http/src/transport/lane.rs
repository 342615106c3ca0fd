//! The order of the messages that are not requests.
//!
//! Every message is its own POST, and separate POSTs may reach the server
//! in any order. Requests do not care (the server answers each by id), but
//! notifications and responses carry their order in time: progress must
//! arrive increasing, a handler's notifications before its response. So each
//! of them takes a [`Turn`] in the transport's one [`Lane`] when its slot is
//! reserved, and its POST goes out only once the turn before it has ended
//! (that POST answered, failed, or dropped unsent).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// The turns of one transport's notifications and responses.
#[derive(Default)]
pub(super) struct Lane {
    state: Mutex<State>,
    /// Wakes the turns waiting when one ends.
    ended: Notify,
}

#[derive(Default)]
struct State {
    /// The next turn to hand out.
    issued: u64,
    /// The turn whose POST may go out now.
    current: u64,
    /// Later turns that ended before theirs came (dropped unsent): skipped.
    ended_early: BTreeSet<u64>,
}

/// One message's place in the lane, held until its POST has ended.
pub(super) struct Turn {
    lane: Arc<Lane>,
    ticket: u64,
}

impl Lane {
    /// The next turn, in the order this is called.
    pub(super) fn take(self: &Arc<Self>) -> Turn {
        let mut state = self.lock();
        let ticket = state.issued;
        state.issued += 1;
        Turn {
            lane: self.clone(),
            ticket,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_current(&self, ticket: u64) -> bool {
        self.lock().current == ticket
    }
}

impl Turn {
    /// Waits until every turn before this one has ended (at once in the
    /// usual case: no other notification on its way).
    pub(super) async fn wait(&self) {
        while !self.lane.is_current(self.ticket) {
            let ended = self.lane.ended.notified();
            tokio::pin!(ended);
            // Registered before the second look: an end between the two is
            // not missed.
            ended.as_mut().enable();
            if self.lane.is_current(self.ticket) {
                return;
            }
            ended.await;
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut state = self.lane.lock();
        if state.current != self.ticket {
            state.ended_early.insert(self.ticket);
            return;
        }
        state.current += 1;
        // Past the turns that ended before theirs came.
        while state.ended_early.first() == Some(&state.current) {
            state.ended_early.pop_first();
            state.current += 1;
        }
        drop(state);
        self.lane.ended.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[tokio::test]
    async fn turns_go_in_the_order_taken_and_a_dropped_one_is_skipped() {
        let lane = Arc::new(Lane::default());
        let (first, second, third) = (lane.take(), lane.take(), lane.take());
        assert!(
            first.wait().now_or_never().is_some(),
            "the first goes at once"
        );
        assert!(second.wait().now_or_never().is_none());
        assert!(third.wait().now_or_never().is_none());
        // The second ends unsent before its turn: the third follows the first.
        drop(second);
        let waiting = tokio::spawn(async move { third.wait().await });
        drop(first);
        waiting.await.expect("the third's turn comes");
        assert!(
            lane.take().wait().now_or_never().is_some(),
            "the lane is free again"
        );
    }
}

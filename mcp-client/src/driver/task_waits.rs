//! The wait of a task handle: the driver hands it to the core
//! (`Connection::wait_task`) and carries the core's answer
//! (`Event::TaskWaitOver`) back to the handle. Nothing is decided here.

use std::time::Instant;

use mcp_core::{TaskWait, TaskWaitEnd};
use mcp_types::RequestId;
use tokio::sync::oneshot;

use super::Driver;
use super::exchange::CallRef;

impl Driver {
    /// A handle waits for its task: the answer goes to `reply`, replacing
    /// the call's previous wait. When the core refuses (the call is over,
    /// or has no task), `reply` is dropped: the handle goes by the call's
    /// outcome.
    pub(super) fn wait_for_task(
        &mut self,
        now: Instant,
        call: &CallRef,
        wait: TaskWait,
        reply: oneshot::Sender<TaskWaitEnd>,
    ) {
        let Some(id) = self.in_flight(call) else {
            return;
        };
        let Some(p) = self.pending.get_mut(&id) else {
            return;
        };
        p.rare_mut().task_wait = Some(reply);
        if let Err(e) = self.conn.wait_task(now, &id, wait) {
            tracing::debug!(error = %e, "a task wait without a task");
            if let Some(p) = self.pending.get_mut(&id) {
                p.take_task_wait();
            }
        }
    }

    /// The core's answer to a handle's wait. A call the driver is ending
    /// with an error of its own (an input nobody answered, a handler's
    /// error) gets none: that error is the wait's answer, not the
    /// `cancelled` state the core concludes from the cancel it sent.
    #[inline(never)]
    pub(super) fn task_wait_over(&mut self, id: &RequestId, end: TaskWaitEnd) {
        let Some(p) = self.pending.get_mut(id) else {
            return;
        };
        let overridden = p.overridden();
        if let Some(reply) = p.take_task_wait()
            && !overridden
        {
            let _ = reply.send(end);
        }
    }
}

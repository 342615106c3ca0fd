//! The driver's task ([`run`]) and its loop: a turn for each wake-up, under the driver's lock
//! (`direct.rs`), taken in the wait's poll that found it (`wait.rs`); the
//! yields that let runnable callers queue their requests before a write
//! (`batching.rs`); and the shutdown.

use std::sync::Arc;

use tokio::sync::oneshot;

use super::batching::Batching;
use super::command_queue::CommandRx;
use super::{Driver, DriverCell, Wake, clock};
use crate::transport::Link;

/// The driver's task: runs until the client is closed or every handle is
/// gone.
pub(super) async fn run(cell: Arc<DriverCell>, mut commands: CommandRx) {
    let sender = match &cell.lock().link {
        Some(Link::Stream { sender, .. }) => Some(sender.clone()),
        _ => None,
    };
    if let Some(sender) = sender {
        // A fresh sender: nothing else holds its writer.
        let writer = sender.exclusive().await;
        cell.lock().line_writer = Some(writer);
    }
    {
        let mut driver = cell.lock();
        driver.flush(clock());
        driver.in_turn = false;
    }
    commands.set_direct(Arc::clone(&cell));
    let close_done = turns(&cell, &mut commands).await;
    shut_down(&cell).await;
    if let Some(done) = close_done {
        let _ = done.send(());
    }
}

/// The driver's turns: each wake-up handled under the lock, in the poll
/// that found it (`wait.rs`); the lock is released while the driver waits
/// and while it lets callers go first (`direct.rs`). Returns when the
/// client is closed (with the closer to notify) or every handle is gone.
pub(super) async fn turns(
    cell: &DriverCell,
    commands: &mut CommandRx,
) -> Option<oneshot::Sender<()>> {
    loop {
        let turned = match cell.next_step(commands).await {
            Step::Turned(turned) => turned,
            Step::Custom(wake) => cell.lock().turn(wake, commands),
        };
        let mut batching = match turned {
            Ok(batching) => batching,
            Err(done) => return done,
        };
        while let Some(b) = batching {
            tokio::task::yield_now().await;
            batching = match cell.lock().after_yield(b, commands) {
                Ok(batching) => batching,
                Err(done) => return done,
            };
        }
    }
}

/// How a turn ended: `Some` when runnable callers are to go first (a
/// yield, then [`Driver::after_yield`]); `Err` ends the driver (with the
/// closer to notify).
pub(super) type Turned = Result<Yield, Option<oneshot::Sender<()>>>;

/// What the driver's wait ends with.
pub(super) enum Step {
    /// A turn taken in the wait's poll, which ended so.
    Turned(Turned),
    /// A wake-up with a custom transport's link taken out for the wait:
    /// its turn is taken once the link is back.
    Custom(Wake),
}

/// A turn's batching that wants callers to go first, before the write.
type Yield = Option<Batching>;

impl Driver {
    /// Handles one wake-up, and the work waiting with it; `Some` when
    /// runnable callers are to go first (a yield, then
    /// [`Driver::after_yield`]); `Err` ends the loop (with the closer to
    /// notify).
    pub(super) fn turn(&mut self, wake: Wake, commands: &mut CommandRx) -> Turned {
        self.in_turn = true;
        let now = clock();
        self.on_wake(now, wake)?;
        // Work that is already waiting is handled in the same turn (the
        // queues are still drained after each input), so a burst costs
        // one wake-up and one timer re-arm instead of one per message.
        self.take_ready(now, commands)?;
        // Requests are about to be written while callers that are
        // already runnable may still queue theirs (`Batching`): let them
        // first, so that a burst goes out in one write and one wake-up.
        self.drain_queues(now);
        Ok(self.end_turn(Batching::new(self.unwritten())))
    }

    /// After the callers went first: their commands, then the write (or
    /// one more yield).
    fn after_yield(&mut self, mut batching: Batching, commands: &mut CommandRx) -> Turned {
        let now = clock();
        self.take_ready(now, commands)?;
        self.drain_queues(now);
        batching.queued(self.unwritten());
        Ok(self.end_turn(batching))
    }

    /// Yields to callers while `batching` wants it; otherwise ends the
    /// turn.
    fn end_turn(&mut self, mut batching: Batching) -> Yield {
        if batching.waits_for_callers(self.conn.in_flight(), self.delivered) {
            return Some(batching);
        }
        // The queues were drained just before: only a custom transport's
        // sends are left to start.
        self.start_write();
        self.in_turn = false;
        None
    }
}

/// Closes the connection and its transport, within the shutdown's bounds.
/// The driver stays in a turn for good: callers' commands go to the
/// channel, and end with it.
pub(super) async fn shut_down(cell: &DriverCell) {
    let (writing, line_writer) = {
        let mut d = cell.lock();
        d.in_turn = true;
        let now = clock();
        d.conn.close(now);
        d.flush(now);
        (d.writing.take(), d.line_writer.take())
    };
    let written = async move {
        if let Some(w) = writing {
            let _ = w.await;
        }
        if let Some(mut w) = line_writer {
            let _ = w.flush().await;
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), written).await;
    // The line writer was released above, so that closing the link can
    // close the writer (lines still queued were written first, within the
    // shutdown's bounds).
    let link = {
        let mut d = cell.lock();
        d.http_io.clear();
        #[cfg(feature = "http")]
        {
            d.unregistered = mcp_core::IdTable::new();
            d.held_posts.clear();
        }
        d.handler_io.clear();
        d.link.take()
    };
    if let Some(link) = link {
        // Boxed: the close (a process's shutdown, HTTP's session end) is
        // a future of some KB, which the task would otherwise hold from
        // its start.
        Box::pin(link.close()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The task's future holds the driver's handle, not the driver, nor
    /// the link's close: a tokio task is allocated with its future, and
    /// its polls reserve stack for several copies of it (46 KB when it held
    /// the driver's 4 KB).
    #[test]
    fn the_task_holds_the_driver_by_its_handle() {
        fn size<F>(_: fn(Arc<DriverCell>, CommandRx) -> F) -> usize {
            std::mem::size_of::<F>()
        }
        let task = size(run);
        assert!(task <= 1024, "the driver's task future is {task} bytes");
        assert!(std::mem::size_of::<Driver>() > task);
    }
}

//! The channel the handles send the driver their [`Command`]s on: many
//! senders, one receiver (the driver), unbounded (each caller has at most a
//! few commands in it at a time).
//!
//! It is a queue under one lock rather than tokio's `mpsc`: a send is one
//! lock and its release (two atomic writes; tokio's channel spent six per
//! command between the sender's push, its wake of the receiver and the
//! receiver's permit), and the driver takes everything queued in one lock,
//! so a burst of commands costs it one lock, not one each. The driver's
//! waker is kept in the queue only while the driver waits on an empty one:
//! the first send after that wakes it, the others of the burst do not.
//!
//! It keeps `mpsc`'s ends: a send fails (the command comes back) once the
//! receiver is gone, and the receiver sees the end once every sender is.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use super::Command;

/// What the senders and the receiver share.
struct Queue {
    state: Mutex<State>,
    /// Commands may be queued: set by a send, cleared when the receiver
    /// takes them (both under the lock). The receiver reads it without the
    /// lock, so looking for commands where there are none (the driver does
    /// after each message it handles) costs a plain read, not a lock.
    queued: AtomicBool,
}

struct State {
    items: VecDeque<Command>,
    /// The receiver waits on an empty queue: the next send wakes it.
    waker: Option<Waker>,
    /// Live senders; at zero the receiver sees the end.
    senders: usize,
    /// The receiver is gone: sends fail.
    closed: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A new channel: its first sender and its receiver.
pub(crate) fn channel() -> (CommandTx, CommandRx) {
    let queue = Arc::new(Queue {
        state: Mutex::new(State {
            items: VecDeque::new(),
            waker: None,
            senders: 1,
            closed: false,
        }),
        queued: AtomicBool::new(false),
    });
    let rx = CommandRx {
        queue: Arc::clone(&queue),
        taken: VecDeque::new(),
    };
    (CommandTx { queue }, rx)
}

/// A sender of commands (cloned for each handle that sends them).
pub(crate) struct CommandTx {
    queue: Arc<Queue>,
}

impl CommandTx {
    /// Queues `command` for the driver.
    ///
    /// # Errors
    /// The command back when the driver is gone.
    pub(crate) fn send(&self, command: Command) -> Result<(), Command> {
        let waker = {
            let mut state = self.queue.lock();
            if state.closed {
                return Err(command);
            }
            state.items.push_back(command);
            self.queue.queued.store(true, Ordering::Release);
            state.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    /// Asks the driver to cancel `call` (nothing when the driver is gone:
    /// its calls ended with it).
    pub(crate) fn cancel(&self, call: super::CallRef) {
        let _ = self.send(Command::Cancel { call });
    }

    /// Whether the driver is gone (sends fail).
    pub(crate) fn is_closed(&self) -> bool {
        self.queue.lock().closed
    }
}

impl Clone for CommandTx {
    fn clone(&self) -> Self {
        self.queue.lock().senders += 1;
        CommandTx {
            queue: Arc::clone(&self.queue),
        }
    }
}

impl Drop for CommandTx {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.queue.lock();
            state.senders -= 1;
            if state.senders > 0 {
                return;
            }
            state.waker.take()
        };
        // The last sender: the waiting receiver sees the end.
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The driver's end.
pub(crate) struct CommandRx {
    queue: Arc<Queue>,
    /// Commands taken out of the queue in one lock, handed out one by one.
    taken: VecDeque<Command>,
}

impl CommandRx {
    /// The next command if one is queued, without waiting; `None` when none
    /// is. A command being sent at this very moment may be found only by
    /// the next call or by [`CommandRx::poll_recv`], which always looks
    /// under the lock (and sees the end of the channel).
    pub(crate) fn try_recv(&mut self) -> Option<Command> {
        if let Some(c) = self.taken.pop_front() {
            return Some(c);
        }
        if !self.queue.queued.load(Ordering::Acquire) {
            return None;
        }
        let mut state = self.queue.lock();
        take_all(&self.queue, &mut state, &mut self.taken);
        drop(state);
        self.taken.pop_front()
    }

    /// The next command, or `None` once every sender is gone and nothing is
    /// queued; `Pending` registers `cx`'s waker for the next send.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Command>> {
        if let Some(c) = self.taken.pop_front() {
            return Poll::Ready(Some(c));
        }
        let mut state = self.queue.lock();
        if state.items.is_empty() {
            if state.senders == 0 {
                return Poll::Ready(None);
            }
            match &mut state.waker {
                Some(w) => w.clone_from(cx.waker()),
                none => *none = Some(cx.waker().clone()),
            }
            return Poll::Pending;
        }
        take_all(&self.queue, &mut state, &mut self.taken);
        drop(state);
        Poll::Ready(self.taken.pop_front())
    }
}

/// Moves every queued command to `taken` (empty), under the lock held as
/// `state`: the queue's buffer and the emptied one change places, both
/// keeping their capacity, so a steady flow of commands allocates nothing.
fn take_all(queue: &Queue, state: &mut State, taken: &mut VecDeque<Command>) {
    std::mem::swap(&mut state.items, taken);
    queue.queued.store(false, Ordering::Relaxed);
}

impl Drop for CommandRx {
    fn drop(&mut self) {
        // Later sends fail; the queued commands are dropped here, outside
        // the lock (dropping a call's command ends its caller's wait).
        let queued = {
            let mut state = self.queue.lock();
            state.closed = true;
            state.waker = None;
            std::mem::take(&mut state.items)
        };
        drop(queued);
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;
    use crate::driver::counting_waker::{counting_waker, wakes};

    fn notify() -> Command {
        let (reply, _) = tokio::sync::oneshot::channel();
        Command::Notify {
            method: "notifications/initialized",
            reply,
        }
    }

    fn is_notify(c: &Command) -> bool {
        matches!(c, Command::Notify { .. })
    }

    #[test]
    fn commands_arrive_in_order_and_a_burst_is_taken_in_one_lock() {
        let (tx, mut rx) = channel();
        assert!(rx.try_recv().is_none());
        for _ in 0..3 {
            tx.send(notify()).ok().expect("open");
        }
        assert_eq!(rx.queue.lock().items.len(), 3);
        assert!(rx.try_recv().is_some_and(|c| is_notify(&c)));
        // The other two were taken with the first.
        assert!(rx.queue.lock().items.is_empty());
        assert!(rx.try_recv().is_some());
        assert!(rx.try_recv().is_some());
        assert!(rx.try_recv().is_none());
    }

    #[test]
    fn the_waiting_receiver_is_woken_once_per_burst() {
        let (tx, mut rx) = channel();
        let (count, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(rx.poll_recv(&mut cx).is_pending());
        tx.send(notify()).ok().expect("open");
        tx.send(notify()).ok().expect("open");
        assert_eq!(wakes(&count), 1);
        assert!(matches!(rx.poll_recv(&mut cx), Poll::Ready(Some(_))));
        assert!(matches!(rx.poll_recv(&mut cx), Poll::Ready(Some(_))));
        assert!(rx.poll_recv(&mut cx).is_pending());
    }

    #[tokio::test]
    async fn the_receiver_sees_the_end_when_every_sender_is_gone() {
        let (tx, mut rx) = channel();
        let other = tx.clone();
        other.send(notify()).ok().expect("open");
        other.send(notify()).ok().expect("open");
        drop(tx);
        drop(other);
        // What was queued still arrives, then the end.
        assert!(poll_fn(|cx| rx.poll_recv(cx)).await.is_some());
        assert!(rx.try_recv().is_some());
        assert!(rx.try_recv().is_none());
        assert!(poll_fn(|cx| rx.poll_recv(cx)).await.is_none());
    }

    #[test]
    fn the_last_sender_gone_wakes_the_waiting_receiver() {
        let (tx, mut rx) = channel();
        let (count, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let other = tx.clone();
        assert!(rx.poll_recv(&mut cx).is_pending());
        drop(other);
        assert_eq!(wakes(&count), 0);
        drop(tx);
        assert_eq!(wakes(&count), 1);
        assert!(matches!(rx.poll_recv(&mut cx), Poll::Ready(None)));
    }

    #[tokio::test]
    async fn sends_fail_once_the_receiver_is_gone_and_queued_commands_are_dropped() {
        let (tx, rx) = channel();
        let (reply, answer) = tokio::sync::oneshot::channel();
        tx.send(Command::Notify {
            method: "notifications/initialized",
            reply,
        })
        .ok()
        .expect("open");
        assert!(!tx.is_closed());
        drop(rx);
        assert!(tx.is_closed());
        // The queued command's reply was dropped with it.
        assert!(answer.await.is_err());
        assert!(tx.send(notify()).is_err());
    }
}

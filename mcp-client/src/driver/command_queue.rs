//! The channel the handles send the driver their [`Command`]s on: many
//! senders, one receiver (the driver), unbounded (each caller has at most a
//! few commands in it at a time).
//!
//! It is a queue under one lock rather than tokio's `mpsc`: a send is one
//! lock and its release (two atomic writes; tokio's channel spent six per
//! command between the sender's push, its wake of the receiver and the
//! receiver's permit), and the driver takes everything queued in one lock,
//! so a burst of commands costs it one lock, not one each.
//!
//! The receiver is woken by the first send after it found the queue empty
//! (it leaves the queue *armed* then), not by the others of a burst, nor by
//! sends while it is busy with the commands it took: on tokio's
//! multi-thread runtime a task woken by a running one runs next, so a
//! driver woken by each caller's send would run after each caller instead
//! of once after all of them (see `batching.rs`). Its waker is kept for
//! good ([`TaskWaker`]): a look at an armed queue with nothing sent since
//! (the `changed` flag, a plain read) costs no lock and no registration.
//!
//! It keeps `mpsc`'s ends: a send fails (the command comes back) once the
//! receiver is gone, and the receiver sees the end once every sender is.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use super::direct::{DriverCell, Reader};
use super::exchange::CallTx;
use super::task_waker::TaskWaker;
use super::{CallSpec, Command};

/// What the senders and the receiver share.
struct Queue {
    state: Mutex<State>,
    /// Something changed since the receiver last looked under the lock (a
    /// command was queued, or the last sender left): set by the sender
    /// under the lock, cleared by the receiver under it. The receiver
    /// reads it without the lock, so looking for commands where there are
    /// none (the driver does after each message it handles) costs a plain
    /// read, not a lock.
    changed: AtomicBool,
    /// The receiver's waker.
    waker: TaskWaker,
}

struct State {
    items: VecDeque<Command>,
    /// The receiver found the queue empty and waits: the next change
    /// wakes it (and disarms this).
    armed: bool,
    /// Live senders; at zero the receiver sees the end.
    senders: usize,
    /// The receiver is gone: sends fail.
    closed: bool,
    /// The driver, for a caller that starts its call itself while the
    /// driver waits (`direct.rs`).
    direct: Option<Arc<DriverCell>>,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a change under the lock held as `state`; whether the receiver
    /// is to be woken for it (once the lock is released).
    fn change(&self, state: &mut State) -> bool {
        // A plain store: a receiver that reads the flag stale was armed,
        // so this change wakes it, and its next poll (after the wake) sees
        // the flag.
        self.changed.store(true, Ordering::Release);
        std::mem::take(&mut state.armed)
    }
}

/// A new channel: its first sender and its receiver.
pub(crate) fn channel() -> (CommandTx, CommandRx) {
    let queue = Arc::new(Queue {
        state: Mutex::new(State {
            items: VecDeque::new(),
            armed: false,
            senders: 1,
            closed: false,
            direct: None,
        }),
        changed: AtomicBool::new(false),
        waker: TaskWaker::default(),
    });
    let rx = CommandRx {
        queue: Arc::clone(&queue),
        taken: VecDeque::new(),
        held: None,
        armed: false,
    };
    (CommandTx { queue }, rx)
}

/// The driver is gone: nothing sent reaches it.
#[derive(Debug)]
pub(crate) struct Gone;

/// A sender of commands (cloned for each handle that sends them).
pub(crate) struct CommandTx {
    queue: Arc<Queue>,
}

impl CommandTx {
    /// Queues `command` for the driver.
    ///
    /// # Errors
    /// The command back when the driver is gone.
    #[expect(
        clippy::result_large_err,
        reason = "the command comes back whole, as mpsc's does; a call's start, the largest, \
                  goes through `start` instead"
    )]
    pub(crate) fn send(&self, command: Command) -> Result<(), Command> {
        let state = self.queue.lock();
        if state.closed {
            return Err(command);
        }
        self.queue_up(state, command);
        Ok(())
    }

    /// Starts a call (`spec`, its outcome to go through `call`, `span` its
    /// client span) for its caller, with `waiting` the caller's waker when
    /// it awaits the call now: `Some` reader when the caller then reads its
    /// own reply (`direct.rs`).
    ///
    /// The pieces come apart, not as a `Command`: a call the caller starts
    /// itself never becomes one (some 150 bytes not moved from frame to
    /// frame); a queued one does.
    ///
    /// # Errors
    /// [`Gone`] when the driver is: the call is dropped, and its outcome
    /// is a closed wait.
    #[inline]
    pub(crate) fn start(
        &self,
        call: CallTx,
        spec: CallSpec,
        span: tracing::Span,
        waiting: Option<&Waker>,
    ) -> Result<Option<Reader>, Gone> {
        let state = self.queue.lock();
        if state.closed {
            return Err(Gone);
        }
        // The driver waits with nothing queued (armed: it found the queue
        // empty, and nothing was sent since): the start is carried out
        // here, without waking it (`direct.rs`). Tried under the channel's
        // lock, so that no command sent after this one is taken before it,
        // nor one sent before it after.
        if state.armed
            && let Some(cell) = state.direct.clone()
        {
            let owned = match cell.try_take() {
                Some(mut driver) => {
                    drop(state);
                    let addr = call.addr();
                    driver
                        .run_direct(call, spec, span, waiting)
                        .map(|owned| (owned, addr))
                }
                None => {
                    self.queue_up(state, Command::Start { call, spec, span });
                    return Ok(None);
                }
            };
            return Ok(owned.map(|(o, addr)| Reader::new(cell, o, addr)));
        }
        self.queue_up(state, Command::Start { call, spec, span });
        Ok(None)
    }

    /// Queues `command` under the channel's lock held as `state`, and
    /// wakes the driver if it waits for it.
    fn queue_up(&self, mut state: MutexGuard<'_, State>, command: Command) {
        state.items.push_back(command);
        let wake = self.queue.change(&mut state);
        drop(state);
        if wake {
            self.queue.waker.wake();
        }
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
        let wake = {
            let mut state = self.queue.lock();
            state.senders -= 1;
            if state.senders > 0 {
                return;
            }
            // The last sender: the receiver sees the end.
            self.queue.change(&mut state)
        };
        if wake {
            self.queue.waker.wake();
        }
    }
}

/// The driver's end.
pub(crate) struct CommandRx {
    queue: Arc<Queue>,
    /// Commands taken out of the queue in one lock, handed out one by one.
    taken: VecDeque<Command>,
    /// The waker registered last.
    held: Option<Waker>,
    /// This end left the queue armed (empty) when it last looked under
    /// the lock: until `changed` is set again, nothing was sent and the
    /// next send wakes it.
    armed: bool,
}

impl CommandRx {
    /// Lets callers start their calls on `driver` themselves while it
    /// waits (`direct.rs`); until the receiver is dropped.
    pub(super) fn set_direct(&self, driver: Arc<DriverCell>) {
        self.queue.lock().direct = Some(driver);
    }

    /// The next command if one is queued, without waiting; `None` when none
    /// is. A command being sent at this very moment may be found only by
    /// the next call or by [`CommandRx::poll_recv`].
    pub(crate) fn try_recv(&mut self) -> Option<Command> {
        if let Some(c) = self.taken.pop_front() {
            return Some(c);
        }
        if !self.queue.changed.load(Ordering::Acquire) {
            return None;
        }
        self.look(false);
        self.taken.pop_front()
    }

    /// The next command, or `None` once every sender is gone and nothing is
    /// queued; `Pending` when none is queued, and then the next send wakes
    /// `cx`'s waker.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Command>> {
        if let Some(c) = self.taken.pop_front() {
            return Poll::Ready(Some(c));
        }
        let anew = self.queue.waker.register(&mut self.held, cx.waker());
        // Armed by the last look with this waker, and nothing changed
        // since: the next change wakes it.
        if !anew && self.armed && !self.queue.changed.load(Ordering::Acquire) {
            return Poll::Pending;
        }
        match self.look(true) {
            true => Poll::Ready(None),
            false => match self.taken.pop_front() {
                Some(c) => Poll::Ready(Some(c)),
                None => Poll::Pending,
            },
        }
    }

    /// Looks under the lock: takes every queued command into `taken`
    /// (empty), and arms the queue when there was none and `wait`; `true`
    /// at the end (nothing queued and no sender left). The queue's buffer
    /// and the emptied one change places, both keeping their capacity, so
    /// a steady flow of commands allocates nothing.
    fn look(&mut self, wait: bool) -> bool {
        let mut state = self.queue.lock();
        std::mem::swap(&mut state.items, &mut self.taken);
        // Under the lock, as every change is.
        self.queue.changed.store(false, Ordering::Relaxed);
        // With no sender left nothing can change the queue any more: the
        // next poll looks again, and sees the end.
        let arm = wait && self.taken.is_empty() && state.senders > 0;
        state.armed = arm;
        self.armed = arm;
        self.taken.is_empty() && state.senders == 0
    }
}

impl Drop for CommandRx {
    fn drop(&mut self) {
        // Later sends fail; the queued commands are dropped here, outside
        // the lock (dropping a call's command ends its caller's wait).
        let queued = {
            let mut state = self.queue.lock();
            state.closed = true;
            state.armed = false;
            (std::mem::take(&mut state.items), state.direct.take())
        };
        drop(queued);
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;
    use crate::driver::counting_waker::{counting_waker, park_until_woken, unpark_waker, wakes};

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

    #[test]
    fn only_a_wait_on_the_empty_queue_arms_it_for_the_waker_polled_last() {
        let (tx, mut rx) = channel();
        let (first, first_waker) = counting_waker();
        let mut first_cx = Context::from_waker(&first_waker);
        assert!(rx.poll_recv(&mut first_cx).is_pending());
        tx.send(notify()).ok().expect("open");
        assert_eq!(wakes(&first), 1);
        // Taken by the busy receiver: sends wake nobody until it waits.
        assert!(rx.try_recv().is_some());
        tx.send(notify()).ok().expect("open");
        assert_eq!(wakes(&first), 1);
        assert!(matches!(rx.poll_recv(&mut first_cx), Poll::Ready(Some(_))));
        assert!(rx.try_recv().is_none());
        assert!(rx.poll_recv(&mut first_cx).is_pending());
        // Nothing sent since: pending again (armed, with no look).
        assert!(rx.poll_recv(&mut first_cx).is_pending());
        // Polled with another waker: the next send wakes that one.
        let (second, second_waker) = counting_waker();
        let mut second_cx = Context::from_waker(&second_waker);
        assert!(rx.poll_recv(&mut second_cx).is_pending());
        tx.send(notify()).ok().expect("open");
        assert_eq!((wakes(&first), wakes(&second)), (1, 1));
        assert!(matches!(rx.poll_recv(&mut second_cx), Poll::Ready(Some(_))));
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

    /// Senders on other threads, a receiver that waits between bursts
    /// (parked until woken): every command arrives and the end is seen,
    /// whatever the interleaving of the sends with the receiver's looks
    /// (a wake lost to the lock-free look would leave it parked for good).
    #[test]
    fn sends_from_other_threads_all_arrive_and_wake_the_waiting_receiver() {
        const THREADS: usize = 4;
        const EACH: usize = 2_000;
        let (tx, mut rx) = channel();
        let waker = unpark_waker();
        let mut cx = Context::from_waker(&waker);
        let senders: Vec<_> = (0..THREADS)
            .map(|_| {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        tx.send(notify()).ok().expect("open");
                        if i % 64 == 0 {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        let mut received = 0;
        loop {
            while rx.try_recv().is_some() {
                received += 1;
            }
            match rx.poll_recv(&mut cx) {
                Poll::Ready(Some(_)) => received += 1,
                Poll::Ready(None) => break,
                // Woken by the next send or the last sender's drop.
                Poll::Pending => park_until_woken(format_args!("{received} received")),
            }
        }
        senders.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(received, THREADS * EACH);
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

//! The driver's wait: the next source that is ready (a command, input,
//! a finished write, an HTTP exchange, a handler, the timer), and the one
//! timer it arms.
//!
//! The branches are polled in turn from the one after the last that was
//! ready, so that a source that is always ready starves none of the
//! others; the command channel, the stdio receiver, the line writer and the
//! timer are skipped while they cannot be ready (`sources.rs`). The
//! driver's lock is held for each poll only, so that a caller can start
//! its call in between (`direct.rs`).

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{Poll, ready};

use super::command_queue::CommandRx;
use super::sources::Source;
use super::{Driver, DriverCell, Step, Wake, stream_wake};
use crate::transport::Link;
use futures::FutureExt;

/// The branches of the wait: commands, input, the write, HTTP exchanges,
/// handlers, the timer.
const BRANCHES: u8 = 6;

impl Driver {
    /// Arms the timer for the core's next deadline, or the driver's next
    /// look at what callers read themselves if that comes first
    /// (`direct.rs`); `false` when there is neither. The timer is reset only for a deadline earlier than the armed
    /// one: when the earliest call ends, the next deadline is later, and
    /// the armed wake-up is kept (it then finds nothing due and re-arms),
    /// so a stream of calls does not move the runtime's timer once per
    /// call. That holds across an idle gap too (no deadline: the timer
    /// waits unpolled, still set), so sequential calls, each with its own
    /// deadline, do not reset it once per call either.
    pub(super) fn arm_timer(&mut self) -> bool {
        let Some(at) = [self.conn.next_timeout(), self.next_look]
            .into_iter()
            .flatten()
            .min()
        else {
            return false;
        };
        if self.timer_at.is_none_or(|armed| at < armed) {
            self.timer.reset(at);
            self.timer_at = Some(at);
            self.sources.forget(Source::Timer);
        }
        true
    }
}

impl DriverCell {
    /// Waits for the next source that is ready, polling them in turn from
    /// the one after the last ready (no branch is starved) and skipping
    /// those that cannot be ready (`sources.rs`), and takes the turn it
    /// calls for in the same poll, then waits again, until a turn wants
    /// callers to go first or ends the driver. The driver is locked for
    /// each poll and released in between (`direct.rs`).
    pub(super) async fn next_step(&self, commands: &mut CommandRx) -> Step {
        // A custom transport is taken out for the wait: its receive is a
        // future of its own, kept for the whole wait; its turns are taken
        // with it back in place.
        let mut custom = {
            let mut d = self.lock();
            match &d.link {
                Some(Link::Custom(_)) if d.link_open => d.link.take(),
                _ => None,
            }
        };
        let step = {
            let has_custom = custom.is_some();
            // Whether the wait polled now was begun (`Driver::begin_wait`).
            let mut begun = false;
            let mut custom_recv = pin!(async {
                match &mut custom {
                    Some(Link::Custom(t)) => match t.recv().await {
                        Some(Ok(m)) => Wake::Inbound(Some(Ok(m))),
                        Some(Err(e)) => Wake::CustomFailed(e),
                        None => Wake::Inbound(None),
                    },
                    _ => std::future::pending().await,
                }
            });
            poll_fn(|cx| {
                let custom_recv = has_custom.then_some(custom_recv.as_mut());
                self.lock()
                    .poll_turns(cx, commands, &mut begun, custom_recv)
            })
            .await
        };
        if custom.is_some() {
            self.lock().link = custom;
        }
        step
    }
}

impl Driver {
    /// Polls the wait, and takes each turn it calls for at once, until it
    /// is pending or a turn ends otherwise than by waiting again. `begun`:
    /// the wait being polled was begun (by an earlier poll).
    fn poll_turns(
        &mut self,
        cx: &mut std::task::Context<'_>,
        commands: &mut CommandRx,
        begun: &mut bool,
        mut custom_recv: Option<Pin<&mut impl Future<Output = Wake>>>,
    ) -> Poll<Step> {
        loop {
            let wake = match self.begin_wait(begun) {
                Some(wake) => wake,
                None => {
                    let wake = ready!(self.poll_wait(
                        cx,
                        commands,
                        custom_recv.as_mut().map(|r| r.as_mut())
                    ));
                    *begun = false;
                    wake
                }
            };
            if custom_recv.is_some() {
                return Poll::Ready(Step::Custom(wake));
            }
            match self.turn(wake, commands) {
                Ok(None) => {}
                turned => return Poll::Ready(Step::Turned(turned)),
            }
        }
    }

    /// Starts a wait unless it is `begun`: writes the queued lines (`Some`
    /// when that failed), and arms the timer.
    fn begin_wait(&mut self, begun: &mut bool) -> Option<Wake> {
        if *begun {
            return None;
        }
        if let Some(wake) = self.flush_queued() {
            return Some(wake);
        }
        self.wait_armed = self.arm_timer();
        *begun = true;
        None
    }

    /// Queued lines are written at once: the pipe nearly always takes
    /// them, and a write completed in the wait would cost a whole second
    /// turn. Only a write that would block is left to the wait (this poll
    /// registered the writer's waker).
    pub(super) fn flush_queued(&mut self) -> Option<Wake> {
        if let Some(w) = &mut self.line_writer
            && w.has_queued()
        {
            match self.sources.poll(Source::Write, |cx| w.poll_flush(cx)) {
                Poll::Ready(Ok(())) => self.written(),
                Poll::Ready(Err(e)) => return Some(Wake::Wrote(Err(e.to_string()))),
                Poll::Pending => {}
            }
        }
        None
    }

    /// One poll of the wait: polls the sources that may be ready (the timer
    /// when this wait, or a caller's start since, armed it).
    fn poll_wait(
        &mut self,
        cx: &mut std::task::Context<'_>,
        commands: &mut CommandRx,
        mut custom_recv: Option<Pin<&mut impl Future<Output = Wake>>>,
    ) -> Poll<Wake> {
        let armed = self.wait_armed;
        let recv_open = self.link_open;
        let Driver {
            link,
            line_writer,
            writing,
            http_io,
            handler_io,
            timer,
            sources,
            next_branch,
            ..
        } = self;
        let mut receiver = match link {
            Some(Link::Stream { receiver, .. }) if recv_open => Some(receiver),
            _ => None,
        };
        sources.begin(cx);
        // The branches that may be ready, one bit each, looked at once.
        let queued = line_writer.as_ref().is_some_and(|w| w.has_queued());
        let writer_due = match queued {
            true => sources.due(Source::Write),
            false => writing.is_some(),
        };
        let inbound_due = match receiver {
            Some(_) => sources.due(Source::Inbound),
            None => custom_recv.is_some(),
        };
        let may = u16::from(sources.due(Source::Commands))
            | u16::from(inbound_due) << 1
            | u16::from(writer_due) << 2
            | u16::from(!http_io.is_empty()) << 3
            | u16::from(!handler_io.is_empty()) << 4
            | u16::from(armed && sources.due(Source::Timer)) << 5;
        for branch in in_turn(may, *next_branch) {
            let polled = match branch {
                0 => sources
                    .poll(Source::Commands, |cx| commands.poll_recv(cx))
                    .map(Wake::Command),
                1 => match (receiver.as_deref_mut(), custom_recv.as_mut()) {
                    (Some(r), _) => sources.poll_input(|cx| r.poll_recv(cx)).map(stream_wake),
                    (None, Some(r)) => r.as_mut().poll(cx),
                    (None, None) => Poll::Pending,
                },
                2 => match (line_writer.as_mut(), writing.as_mut()) {
                    (Some(w), _) if queued => sources
                        .poll(Source::Write, |cx| w.poll_flush(cx))
                        .map(|r| Wake::Wrote(r.map_err(|e| e.to_string()))),
                    (_, Some(w)) => w.poll_unpin(cx).map(Wake::Wrote),
                    _ => Poll::Pending,
                },
                3 => match http_io.poll_next(cx) {
                    Poll::Ready(Some(io)) => Poll::Ready(Wake::Http(io)),
                    _ => Poll::Pending,
                },
                4 => match handler_io.poll_next(cx) {
                    Poll::Ready(Some((t, s))) => Poll::Ready(Wake::Handler(t, s)),
                    _ => Poll::Pending,
                },
                _ => sources
                    .poll(Source::Timer, |cx| timer.poll_fired(cx))
                    .map(|()| Wake::Timer),
            };
            if polled.is_ready() {
                *next_branch = (branch + 1) % BRANCHES;
                return polled;
            }
        }
        Poll::Pending
    }
}

/// The branches set in `may` (bit `b`: branch `b` may be ready), in turn
/// from `start`.
fn in_turn(may: u16, start: u8) -> impl Iterator<Item = u8> {
    // Bit `i` of `order` is branch `(start + i) % BRANCHES`.
    let mut order = ((may | may << BRANCHES) >> start) & ((1 << BRANCHES) - 1);
    std::iter::from_fn(move || {
        (order != 0).then(|| {
            let branch = (start + order.trailing_zeros() as u8) % BRANCHES;
            order &= order - 1;
            branch
        })
    })
}

#[cfg(test)]
mod tests {
    use super::in_turn;

    #[test]
    fn the_branches_that_may_be_ready_are_taken_in_turn_from_the_start() {
        let order = |may, start| in_turn(may, start).collect::<Vec<_>>();
        assert_eq!(order(0b10_0101, 2), [2, 5, 0]);
        assert_eq!(order(0b11_1111, 5), [5, 0, 1, 2, 3, 4]);
        assert_eq!(order(0b11_1111, 0), [0, 1, 2, 3, 4, 5]);
        assert_eq!(order(0b00_0001, 1), [0]);
        assert_eq!(order(0, 3), [0u8; 0]);
    }
}

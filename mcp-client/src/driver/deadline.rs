//! The driver's one timer (the core's next deadline): a Linux timerfd
//! watched by the runtime's reactor, or tokio's timer.
//!
//! A tokio timer that is set costs every park of the runtime's thread: the
//! time driver works out its next expiry and hands the reactor a finite
//! timeout, which the kernel sets up and tears down on each `epoll_wait`.
//! A connection with a call in flight always has a deadline set (the
//! request timeout), so every sequential call paid for it: some 6% of its
//! CPU over stdio (paired runs on one CPU against the rmcp-based
//! server, with and without a request timeout). A timerfd is a file the
//! reactor waits on like the pipe: set when the deadline moves earlier
//! (rarely: the armed one is kept while later ones come, `wait.rs`), and
//! the runtime parks with no timeout at all.
//!
//! tokio's timer is kept where there is no timerfd, and on a paused test
//! clock (`#[tokio::test(start_paused = true)]`), whose virtual time only
//! tokio's timers follow: told apart when the driver starts by whether
//! tokio's clock moves while real time does.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The timer; reset to each new earliest deadline, polled by the wait.
pub(super) enum DeadlineTimer {
    /// tokio's timer.
    Tokio(Pin<Box<tokio::time::Sleep>>),
    /// A timerfd on the monotonic clock (the one `Instant` reads).
    #[cfg(target_os = "linux")]
    Fd(tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>),
}

impl DeadlineTimer {
    /// A timer not set yet: a timerfd when there is one and tokio's clock
    /// is the real one, tokio's timer otherwise.
    pub(super) fn new() -> Self {
        #[cfg(target_os = "linux")]
        if !clock_is_paused()
            && let Some(fd) = timerfd()
        {
            return DeadlineTimer::Fd(fd);
        }
        // Set far out until the first deadline; never polled before it.
        DeadlineTimer::Tokio(Box::pin(tokio::time::sleep(Duration::from_secs(
            86_400 * 365,
        ))))
    }

    /// Sets the timer to fire at `at` (at once when it passed).
    pub(super) fn reset(&mut self, at: Instant) {
        match self {
            DeadlineTimer::Tokio(sleep) => sleep.as_mut().reset(tokio::time::Instant::from_std(at)),
            #[cfg(target_os = "linux")]
            DeadlineTimer::Fd(fd) => {
                use rustix::time::{Itimerspec, TimerfdTimerFlags, Timespec, timerfd_settime};
                // Relative: an `Instant` does not show its clock reading.
                // Zero would disarm it: a deadline that passed fires now.
                let left = at
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_nanos(1));
                let value = Timespec {
                    tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
                    tv_nsec: i64::from(left.subsec_nanos()),
                };
                let spec = Itimerspec {
                    it_interval: Timespec {
                        tv_sec: 0,
                        tv_nsec: 0,
                    },
                    it_value: value,
                };
                if let Err(e) = timerfd_settime(fd.get_ref(), TimerfdTimerFlags::empty(), &spec) {
                    // Not seen in practice (the arguments are valid); the
                    // deadline is then checked at the next wake-up.
                    tracing::warn!(error = %e, "setting the deadline timer failed");
                }
            }
        }
    }

    /// `Ready` once the time it was set to has come (tokio's timer stays
    /// ready until reset; a timerfd is ready once per expiry).
    pub(super) fn poll_fired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        match self {
            DeadlineTimer::Tokio(sleep) => sleep.as_mut().poll(cx),
            #[cfg(target_os = "linux")]
            DeadlineTimer::Fd(fd) => loop {
                // An error here is the runtime shutting down: the driver
                // ends with it.
                let Ok(mut ready) = std::task::ready!(fd.poll_read_ready(cx)) else {
                    return Poll::Pending;
                };
                let mut expiries = [0u8; 8];
                match rustix::io::read(fd.get_ref(), &mut expiries) {
                    Ok(_) => return Poll::Ready(()),
                    // Reset since it was ready (no expiry to read).
                    Err(rustix::io::Errno::AGAIN) => ready.clear_ready(),
                    Err(e) => {
                        tracing::warn!(error = %e, "reading the deadline timer failed");
                        ready.clear_ready();
                        return Poll::Ready(());
                    }
                }
            },
        }
    }
}

/// Whether tokio's clock is paused (a test's virtual time): it does not
/// move while real time does. A few microseconds of spinning, once per
/// connection.
#[cfg(target_os = "linux")]
fn clock_is_paused() -> bool {
    let before = tokio::time::Instant::now();
    let start = Instant::now();
    while start.elapsed() < Duration::from_micros(5) {
        std::hint::spin_loop();
    }
    tokio::time::Instant::now() == before
}

/// A non-blocking timerfd on the monotonic clock, registered with the
/// runtime's reactor; `None` when either fails (tokio's timer then).
#[cfg(target_os = "linux")]
fn timerfd() -> Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>> {
    use rustix::time::{TimerfdClockId, TimerfdFlags, timerfd_create};
    let fd = timerfd_create(
        TimerfdClockId::Monotonic,
        TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
    )
    .ok()?;
    #[expect(
        deprecated,
        reason = "the safe registration (its successor is unsafe, and the crate forbids \
                  unsafe code): sound here, the registered fd is an OwnedFd the AsyncFd \
                  owns, never closed or replaced while registered"
    )]
    let registered = tokio::io::unix::AsyncFd::with_interest(fd, tokio::io::Interest::READABLE);
    registered.ok()
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_paused_clock_gets_tokios_timer_on_virtual_time() {
        let mut timer = DeadlineTimer::new();
        assert!(matches!(timer, DeadlineTimer::Tokio(_)));
        let start = tokio::time::Instant::now();
        timer.reset((start + Duration::from_secs(30)).into_std());
        poll_fn(|cx| timer.poll_fired(cx)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_real_clock_gets_a_timerfd_that_fires_at_each_setting() {
        let mut timer = DeadlineTimer::new();
        assert!(matches!(timer, DeadlineTimer::Fd(_)));
        for ms in [30, 10] {
            let start = Instant::now();
            timer.reset(start + Duration::from_millis(ms));
            poll_fn(|cx| timer.poll_fired(cx)).await;
            assert!(start.elapsed() >= Duration::from_millis(ms));
        }
        // Moved earlier before it fired: it fires at the earlier time.
        let start = Instant::now();
        timer.reset(start + Duration::from_secs(60));
        timer.reset(start + Duration::from_millis(10));
        poll_fn(|cx| timer.poll_fired(cx)).await;
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(10) && took < Duration::from_secs(30));
        // A deadline that passed fires at once, and only once.
        timer.reset(start);
        poll_fn(|cx| timer.poll_fired(cx)).await;
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(timer.poll_fired(&mut cx).is_pending());
    }
}

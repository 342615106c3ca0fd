//! The pool reaper's tick (`pool.rs`): a periodic Linux timerfd watched by
//! the runtime's reactor, or tokio's interval.
//!
//! A tokio timer that is set costs every park of the runtime's thread (the
//! time driver works out its next expiry and hands the reactor a finite
//! timeout, which the kernel sets up and tears down on each `epoll_wait`),
//! and the reaper's interval is set for as long as the pool holds a
//! connection: a sequential HTTP call was some 3% dearer in CPU for it
//! (paired runs on one CPU against the rmcp-based server). A
//! periodic timerfd is set once, and fires once per period whatever the
//! runtime does in between. Reaping is hygiene, not protocol: it follows
//! the real clock even under a paused test clock.

use std::time::Duration;

/// Ticks every period, the first one period after it was made.
pub(crate) enum Ticker {
    /// tokio's interval (where there is no timerfd).
    Tokio(tokio::time::Interval),
    /// A periodic timerfd on the monotonic clock.
    #[cfg(target_os = "linux")]
    Fd(tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>),
}

impl Ticker {
    /// A ticker of period `every` (at least a millisecond).
    pub(crate) fn new(every: Duration) -> Ticker {
        let every = every.max(Duration::from_millis(1));
        #[cfg(target_os = "linux")]
        if let Some(fd) = periodic_timerfd(every) {
            return Ticker::Fd(fd);
        }
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Ticker::Tokio(interval)
    }

    /// Waits for the next tick; `false` when the runtime is shutting down.
    pub(crate) async fn tick(&mut self) -> bool {
        match self {
            Ticker::Tokio(interval) => {
                interval.tick().await;
                true
            }
            #[cfg(target_os = "linux")]
            Ticker::Fd(fd) => loop {
                let Ok(mut ready) = fd.readable().await else {
                    return false;
                };
                let mut expiries = [0u8; 8];
                match rustix::io::read(fd.get_ref(), &mut expiries) {
                    Ok(_) => return true,
                    Err(rustix::io::Errno::AGAIN) => ready.clear_ready(),
                    Err(e) => {
                        tracing::warn!(error = %e, "reading the pool's reaper timer failed");
                        return false;
                    }
                }
            },
        }
    }
}

/// A non-blocking timerfd that fires every `every`, registered with the
/// runtime's reactor; `None` when that fails (tokio's interval then).
#[cfg(target_os = "linux")]
fn periodic_timerfd(every: Duration) -> Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>> {
    use rustix::time::{
        Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, timerfd_create,
        timerfd_settime,
    };
    let fd = timerfd_create(
        TimerfdClockId::Monotonic,
        TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
    )
    .ok()?;
    let period = Timespec {
        tv_sec: i64::try_from(every.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(every.subsec_nanos()),
    };
    let spec = Itimerspec {
        it_interval: period,
        it_value: period,
    };
    timerfd_settime(&fd, TimerfdTimerFlags::empty(), &spec).ok()?;
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
    use super::*;

    #[tokio::test]
    async fn ticks_once_per_period() {
        let mut ticker = Ticker::new(Duration::from_millis(20));
        #[cfg(target_os = "linux")]
        assert!(matches!(ticker, Ticker::Fd(_)));
        let start = std::time::Instant::now();
        for n in 1..=3 {
            assert!(ticker.tick().await);
            assert!(start.elapsed() >= Duration::from_millis(20 * n));
        }
    }
}

//! Growing the pipe a server writes its messages into, once it carries a
//! large one.
//!
//! A Linux pipe holds 64 KiB by default. A server writing a 256 KiB result
//! fills it four times over: each time the client wakes, reads what fits,
//! and waits again (a `read` and an `epoll_wait` per 64 KiB, the server
//! blocked in between), which made a 256 KiB result cost this client a
//! third more CPU than the same bytes in one piece. The first time a
//! message longer than a default pipe arrives, the pipe is grown to
//! [`GROWN`] (`F_SETPIPE_SZ`; 1 MiB is the most an unprivileged process
//! may ask for under Linux's default `fs.pipe-max-size`), so later large
//! messages cross in one or a few pieces.
//!
//! Only a pipe that has carried a large message is grown: the kernel
//! charges a pipe's capacity to its user's `fs.pipe-user-pages-soft`
//! budget (64 MiB by default), and a host running many servers must not
//! spend it on pipes that only ever carry small lines. It is best effort:
//! a refusal (the budget spent, a lower `pipe-max-size`) leaves the pipe
//! as it was, and it is not asked again. On other systems nothing changes.

#[cfg(target_os = "linux")]
use std::os::fd::{AsFd, OwnedFd};

/// The default capacity of a Linux pipe: a message whose unread part
/// grows past it could not have crossed in one piece.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const DEFAULT: usize = 64 * 1024;

/// What the pipe is grown to.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const GROWN: usize = 1024 * 1024;

/// The right to grow one pipe, once.
#[derive(Debug, Default)]
pub(crate) struct PipeGrowth {
    /// A duplicate of the pipe's read end (the capacity belongs to the
    /// pipe, not to one descriptor); `None` once grown or refused.
    #[cfg(target_os = "linux")]
    fd: Option<OwnedFd>,
}

impl PipeGrowth {
    /// The growth of the pipe `read_end` reads from (a duplicate
    /// descriptor, held until the pipe is grown; none if it cannot be
    /// made).
    #[cfg(target_os = "linux")]
    pub(crate) fn of(read_end: &impl AsFd) -> Self {
        PipeGrowth {
            fd: read_end.as_fd().try_clone_to_owned().ok(),
        }
    }

    /// Notes that `unread` bytes of one message are buffered and not yet
    /// whole: past a default pipe's capacity, the pipe is grown (once).
    #[inline]
    pub(crate) fn note_unread(&mut self, unread: usize) {
        #[cfg(target_os = "linux")]
        if unread > DEFAULT
            && let Some(fd) = self.fd.take()
        {
            grow(&fd);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = unread;
    }
}

/// Grows the pipe `fd` (once a connection: out of line).
#[cfg(target_os = "linux")]
#[cold]
#[inline(never)]
fn grow(fd: &OwnedFd) {
    match rustix::pipe::fcntl_setpipe_size(fd, GROWN) {
        Ok(size) => tracing::debug!(size, "grew the server's stdout pipe"),
        Err(e) => tracing::debug!(error = %e, "the server's stdout pipe was not grown"),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn capacity(fd: &impl AsFd) -> usize {
        rustix::pipe::fcntl_getpipe_size(fd).expect("F_GETPIPE_SZ")
    }

    #[test]
    fn a_pipe_grows_once_a_message_outgrows_it_and_only_then() {
        let (read_end, _write_end) = rustix::pipe::pipe().expect("pipe");
        let before = capacity(&read_end);
        let mut growth = PipeGrowth::of(&read_end);
        growth.note_unread(DEFAULT);
        assert_eq!(
            capacity(&read_end),
            before,
            "a message that fit changed nothing"
        );
        growth.note_unread(DEFAULT + 1);
        assert_eq!(capacity(&read_end), GROWN);
        assert!(growth.fd.is_none(), "the duplicate is let go once grown");
    }
}

//! The staged shutdown of a server's process tree, and the guard that kills
//! the tree when a shutdown cannot run to its end.
//!
//! On Unix the server leads its own process group (its id is the group
//! id), so one signal reaches the server and every descendant that stayed
//! in the group (`npx` and `uv` wrappers and what they start). On Windows
//! the forced step runs `taskkill /T /F` on the tree and terminates the
//! direct child; there is no graceful signal step.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::command::ShutdownTimeouts;
use crate::process::{ProcState, ProcessInner};

/// How often survivors of the group are polled.
const POLL: Duration = Duration::from_millis(20);

/// How a staged shutdown ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShutdownOutcome {
    /// The process tree exited by itself: before the shutdown, or after
    /// stdin was closed.
    Exited,
    /// The tree needed SIGTERM (on Windows: the forced tree kill).
    Terminated,
    /// The tree needed SIGKILL.
    Killed,
    /// The process was still not reaped when the time bound ran out (for
    /// example stuck in the kernel). It was sent SIGKILL.
    Unresponsive,
}

/// The result of a shutdown.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ExitInfo {
    /// The server's exit status, if it was reaped.
    pub status: Option<ExitStatus>,
    /// Which stage ended it.
    pub outcome: ShutdownOutcome,
    /// The last lines the server wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// How long the shutdown took.
    pub elapsed: Duration,
}

/// Runs the staged shutdown to its end.
pub(crate) async fn staged(mut inner: ProcessInner) -> ExitInfo {
    let started = Instant::now();
    let t = inner.timeouts;
    let pid = inner.pid;

    let grace_end = started + t.after_stdin_close;
    // Finishing a half-written line could block on a server that no longer
    // reads, so closing stdin shares the grace period.
    let _ = tokio::time::timeout_at(grace_end, inner.stdin.close()).await;
    let mut outcome = ShutdownOutcome::Exited;
    if !wait_tree(&mut inner, grace_end).await {
        outcome = ShutdownOutcome::Terminated;
        tracing::debug!(pid, "server did not exit after stdin closed: terminating");
        platform::terminate_tree(pid);
        if !wait_tree(&mut inner, Instant::now() + t.after_terminate).await {
            outcome = ShutdownOutcome::Killed;
            tracing::debug!(pid, "server ignored termination: killing");
            inner.guard.kill_now();
            let _ = inner.kill.send(true);
            if !wait_tree(&mut inner, Instant::now() + t.after_kill).await {
                outcome = ShutdownOutcome::Unresponsive;
                tracing::warn!(pid, "server process could not be reaped");
            }
        }
    }
    // The server exited by itself, but the processes it left were stopped
    // by the supervisor (process.rs): say which stage that took.
    if outcome == ShutdownOutcome::Exited
        && let Some(orphans) = inner.state.borrow().orphans
    {
        outcome = orphans;
    }
    let reaped = inner.state.borrow().exit.is_some();
    if reaped && tree_gone(&inner) {
        inner.guard.disarm();
    }
    let _ = tokio::time::timeout(
        Duration::from_millis(100),
        inner.state.wait_for(|s| s.stderr_done),
    )
    .await;
    if reaped {
        // stderr may still be held open by a process outside the group.
        inner.supervisor.abort();
    }
    let status = inner.state.borrow().exit.flatten();
    ExitInfo {
        status,
        outcome,
        stderr_tail: inner.stderr.tail(),
        elapsed: started.elapsed(),
    }
}

/// Stops the processes a server left in its group when it exited: SIGTERM,
/// then (calling `on_kill` first) SIGKILL after `after_terminate`. Returns
/// true once the group is empty, false if it is still not after
/// `after_kill` more.
pub(crate) async fn stop_orphans(
    pid: Option<u32>,
    t: ShutdownTimeouts,
    on_kill: impl FnOnce() + Send,
) -> bool {
    platform::terminate_tree(pid);
    if group_empties(pid, Instant::now() + t.after_terminate).await {
        return true;
    }
    on_kill();
    tracing::debug!(pid, "processes left by the server ignored SIGTERM: killing");
    platform::kill_tree(pid);
    let gone = group_empties(pid, Instant::now() + t.after_kill).await;
    if !gone {
        tracing::warn!(pid, "processes left by the server survive SIGKILL");
    }
    gone
}

/// Polls until no live process of the group is left, or `deadline`.
async fn group_empties(pid: Option<u32>, deadline: Instant) -> bool {
    loop {
        if !platform::group_alive(pid) {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        tokio::time::sleep_until(deadline.min(now + POLL)).await;
    }
}

/// Waits until the server is reaped and its group is empty, or `deadline`.
async fn wait_tree(inner: &mut ProcessInner, deadline: Instant) -> bool {
    loop {
        let reaped = inner.state.borrow().exit.is_some();
        if reaped && tree_gone(inner) {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let tick = deadline.min(now + POLL);
        let woken = !reaped
            && matches!(
                tokio::time::timeout_at(tick, inner.state.changed()).await,
                Ok(Ok(()))
            );
        if !woken {
            // Survivors are polled; a vanished supervisor must not spin.
            tokio::time::sleep_until(tick).await;
        }
    }
}

/// True once the server was reaped and no process of its group is left.
///
/// An empty group is remembered (by the supervisor at reap time, or here):
/// its id may then be reused by an unrelated process group, which must
/// never be signalled.
fn tree_gone(inner: &ProcessInner) -> bool {
    let state = *inner.state.borrow();
    if state.exit.is_none() {
        return false;
    }
    if state.tree_gone || !platform::group_alive(inner.pid) {
        inner.guard.forget_group();
        return true;
    }
    false
}

/// True while a live process of the server's group exists (always false
/// where groups are not tracked).
pub(crate) fn group_alive(pid: Option<u32>) -> bool {
    platform::group_alive(pid)
}

/// Kills the process tree when dropped, unless disarmed. Lives inside the
/// shutdown, so a shutdown that never finishes (its runtime stopped, its
/// task dropped) still leaves no process behind.
#[derive(Debug)]
pub(crate) struct KillGuard {
    pid: Option<u32>,
    armed: bool,
    state: watch::Receiver<ProcState>,
    /// Set once the group is known empty: from then on nothing is signalled.
    group_gone: std::sync::atomic::AtomicBool,
}

impl KillGuard {
    pub(crate) fn new(pid: Option<u32>, state: watch::Receiver<ProcState>) -> Self {
        KillGuard {
            pid,
            armed: true,
            state,
            group_gone: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub(crate) fn kill_now(&self) {
        let gone = self.group_gone.load(std::sync::atomic::Ordering::Relaxed)
            || self.state.borrow().tree_gone;
        if !gone {
            platform::kill_tree(self.pid);
        }
    }

    fn forget_group(&self) {
        self.group_gone
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for KillGuard {
    fn drop(&mut self) {
        if self.armed {
            self.kill_now();
        }
    }
}

#[cfg(unix)]
mod platform {
    use rustix::io::Errno;
    use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};

    fn group(pid: Option<u32>) -> Option<Pid> {
        pid.and_then(|p| i32::try_from(p).ok())
            .and_then(Pid::from_raw)
    }

    fn signal(pid: Option<u32>, sig: Signal) {
        if let Some(pgid) = group(pid) {
            match kill_process_group(pgid, sig) {
                Ok(()) | Err(Errno::SRCH) => {}
                Err(e) => {
                    tracing::warn!(pgid = pgid.as_raw_pid(), error = %e, "cannot signal the server's process group")
                }
            }
        }
    }

    /// SIGTERM to the whole group.
    pub(super) fn terminate_tree(pid: Option<u32>) {
        signal(pid, Signal::TERM);
    }

    /// SIGKILL to the whole group.
    pub(super) fn kill_tree(pid: Option<u32>) {
        signal(pid, Signal::KILL);
    }

    /// True while any live (not zombie) process of the group exists.
    pub(super) fn group_alive(pid: Option<u32>) -> bool {
        let Some(pgid) = group(pid) else {
            return false;
        };
        if matches!(test_kill_process_group(pgid), Err(Errno::SRCH)) {
            return false;
        }
        has_live_member(pgid.as_raw_pid())
    }

    /// `kill(-pgid, 0)` also counts zombies, and killed grandchildren stay
    /// zombies for good under an init that does not reap (common in
    /// containers): look at the states in `/proc`.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn has_live_member(pgid: i32) -> bool {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return true;
        };
        dir.flatten().any(|entry| {
            let name = entry.file_name();
            if !name.as_encoded_bytes().iter().all(u8::is_ascii_digit) {
                return false;
            }
            std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .and_then(|stat| parse_stat(&stat))
                .is_some_and(|(state, pgrp)| pgrp == pgid && state != 'Z' && state != 'X')
        })
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn has_live_member(_pgid: i32) -> bool {
        true
    }

    /// The state and process group from `/proc/<pid>/stat`:
    /// `pid (comm) state ppid pgrp ...`, where `comm` may hold anything.
    #[cfg(any(target_os = "linux", target_os = "android", test))]
    pub(super) fn parse_stat(stat: &str) -> Option<(char, i32)> {
        let rest = &stat[stat.rfind(')')? + 1..];
        let mut fields = rest.split_ascii_whitespace();
        let state = fields.next()?.chars().next()?;
        let _ppid = fields.next()?;
        let pgrp = fields.next()?.parse().ok()?;
        Some((state, pgrp))
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn parses_stat_lines_with_odd_names() {
            assert_eq!(
                super::parse_stat("42 (a) b) (c) S 1 42 42 0 -1"),
                Some(('S', 42))
            );
            assert_eq!(super::parse_stat("garbage"), None);
        }
    }
}

#[cfg(windows)]
mod platform {
    /// Windows has no graceful signal for console servers: the terminate
    /// step is the forced tree kill.
    pub(super) fn terminate_tree(pid: Option<u32>) {
        kill_tree(pid);
    }

    /// `taskkill /T /F` on the tree; the supervisor terminates the direct
    /// child as well.
    pub(super) fn kill_tree(pid: Option<u32>) {
        use std::os::windows::process::CommandExt;
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        let Some(pid) = pid else { return };
        let spawned = std::process::Command::new("taskkill")
            .args(["/T", "/F", "/PID", &pid.to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .creation_flags(CREATE_NO_WINDOW)
            .spawn();
        if let Err(e) = spawned {
            tracing::warn!(pid, error = %e, "cannot run taskkill");
        }
    }

    /// Descendants cannot be tracked without Job Objects.
    pub(super) fn group_alive(_pid: Option<u32>) -> bool {
        false
    }
}

#[cfg(not(any(unix, windows)))]
mod platform {
    pub(super) fn terminate_tree(_pid: Option<u32>) {}
    pub(super) fn kill_tree(_pid: Option<u32>) {}
    pub(super) fn group_alive(_pid: Option<u32>) -> bool {
        false
    }
}

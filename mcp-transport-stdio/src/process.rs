//! Spawning the server and supervising it.
//!
//! One supervisor task per child owns the [`tokio::process::Child`]: it
//! waits for the exit (reaping the child), drains stderr, and publishes
//! both through a `watch` channel that the receiver and the shutdown read.
//! stdout is read directly by the [`Receiver`], with no task in between;
//! on every read it checks the exit through an [`ExitSignal`] (a flag and
//! a waker slot) instead of the channel.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::pin::pin;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, ChildStderr};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::command::{ServerCommand, ShutdownTimeouts, StderrMode};
use crate::error::{ProcessExited, RecvError, SpawnError};
use crate::framed::{Receiver, Sender};
use crate::shutdown::{KillGuard, ShutdownOutcome};
use crate::stderr::{StderrLines, StderrSink};

/// After the child exited, stdout counts as ended once it stays silent this
/// long (a grandchild may hold it open).
const EXIT_DRAIN_IDLE: Duration = Duration::from_millis(100);
/// After stdout ended, how long to wait for the exit status.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);
/// After the exit, how long to wait for the last stderr lines.
const STDERR_DRAIN_WAIT: Duration = Duration::from_millis(100);

/// What the supervisor knows about the child.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ProcState {
    /// `Some` once the child exited and was reaped; the inner `None` when
    /// waiting for it failed.
    pub(crate) exit: Option<Option<ExitStatus>>,
    /// stderr reached its end (or is not captured).
    pub(crate) stderr_done: bool,
    /// When the child was reaped, no other process of its group was left
    /// (or, later, the orphans it left were stopped and are gone).
    pub(crate) tree_gone: bool,
    /// The stage it took to stop the processes the server left in its
    /// group when it exited (`None`: it left none).
    pub(crate) orphans: Option<ShutdownOutcome>,
}

/// The parts of a freshly spawned server.
pub(crate) struct Spawned {
    pub(crate) sender: Sender,
    pub(crate) receiver: Receiver,
    pub(crate) process: ServerProcess,
}

/// Starts the server described by `command`.
pub(crate) fn spawn(command: &ServerCommand) -> Result<Spawned, SpawnError> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(SpawnError::NoRuntime);
    }
    let program = command.resolve_program()?;
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(&command.args);
    match &command.inherit {
        crate::command::EnvInherit::All => {}
        crate::command::EnvInherit::None => {
            cmd.env_clear();
        }
        crate::command::EnvInherit::Only(names) => {
            cmd.env_clear();
            for name in names {
                if let Some(value) = std::env::var_os(name) {
                    cmd.env(name, value);
                }
            }
        }
    }
    for (key, value) in &command.env {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    if let Some(dir) = &command.cwd {
        cmd.current_dir(dir);
    }
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
    cmd.stderr(match command.stderr {
        StderrMode::Capture => Stdio::piped(),
        StderrMode::Inherit => Stdio::inherit(),
        StderrMode::Discard => Stdio::null(),
    });
    // If everything else fails, Tokio kills the direct child when the
    // supervisor is dropped and reaps it in the background.
    cmd.kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(windows)]
    {
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        cmd.creation_flags(CREATE_NO_WINDOW);
    }

    let mut child = cmd.spawn().map_err(|source| SpawnError::Io {
        program: command.program.clone(),
        source,
    })?;
    let pid = child.id();
    let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
        (Some(stdin), Some(stdout)) => (stdin, stdout),
        _ => {
            return Err(SpawnError::Io {
                program: command.program.clone(),
                source: io::Error::other("the child's pipes were not created"),
            });
        }
    };
    let stderr = child.stderr.take();
    let sink = StderrSink::new(command.stderr_tail_lines, command.on_stderr.clone(), pid);
    let (state_tx, state_rx) = watch::channel(ProcState {
        exit: None,
        stderr_done: stderr.is_none(),
        tree_gone: false,
        orphans: None,
    });
    let guard = KillGuard::new(pid, state_rx.clone());
    let (kill_tx, kill_rx) = watch::channel(false);
    let exit = Arc::new(ExitSignal::default());
    let supervisor = tokio::spawn(supervise(
        Supervised {
            child,
            pid,
            timeouts: command.shutdown,
            exit: ExitNotice(Arc::clone(&exit)),
        },
        stderr,
        sink.clone(),
        state_tx,
        kill_rx,
    ));
    tracing::debug!(pid, program = ?program, "started server process");

    #[cfg(target_os = "linux")]
    let growth = crate::pipe_size::PipeGrowth::of(&stdout);
    #[cfg(not(target_os = "linux"))]
    let growth = crate::pipe_size::PipeGrowth::default();
    let sender = Sender::new(stdin);
    let mut receiver = Receiver::with_max_line_length(stdout, command.max_line_length);
    receiver.attach_process(ProcessLink {
        state: state_rx.clone(),
        exit,
        exit_waker: None,
        stderr: sink.clone(),
        exited: false,
        drain_idle: None,
        growth,
    });
    let process = ServerProcess {
        inner: Some(ProcessInner {
            pid,
            state: state_rx,
            kill: kill_tx,
            supervisor,
            stdin: sender.clone(),
            stderr: sink,
            timeouts: command.shutdown,
            guard,
        }),
    };
    Ok(Spawned {
        sender,
        receiver,
        process,
    })
}

/// The child and how to stop what it leaves behind.
struct Supervised {
    child: Child,
    pid: Option<u32>,
    timeouts: ShutdownTimeouts,
    /// Tells the receiver of the exit.
    exit: ExitNotice,
}

/// The child's exit as the receiver checks it on every read of stdout: a
/// flag and the reading task's waker, set once by the supervisor. A `watch`
/// wait would take the channel's lock and register and unregister a waiter
/// on every read; this costs an atomic load, and the lock only when the
/// reading task's waker changed.
#[derive(Debug, Default)]
struct ExitSignal {
    exited: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl ExitSignal {
    fn set(&self) {
        self.exited.store(true, Ordering::Release);
        let waker = self
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Ready once the exit is set; otherwise `cx` is woken when it is.
    /// `stored` is the waker this reader stored in the slot last: while it
    /// wakes the same task the slot is left alone, without its lock. Only
    /// [`ExitSignal::set`] takes the waker out, after setting the flag, and
    /// it wakes what it takes: a poll that misses the flag is woken again.
    #[inline]
    fn poll(&self, cx: &mut Context<'_>, stored: &mut Option<Waker>) -> Poll<()> {
        if self.exited.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        if stored.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            return Poll::Pending;
        }
        self.store(cx.waker(), stored)
    }

    /// [`ExitSignal::poll`] with a waker the slot does not hold yet (the
    /// first read, or a read from another task): out of line.
    #[cold]
    #[inline(never)]
    fn store(&self, waker: &Waker, stored: &mut Option<Waker>) -> Poll<()> {
        let mut slot = self.waker.lock().unwrap_or_else(PoisonError::into_inner);
        *slot = Some(waker.clone());
        drop(slot);
        *stored = Some(waker.clone());
        // Checked again after the store: a `set` that took the slot before
        // this waker was stored is seen here.
        if self.exited.load(Ordering::Acquire) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// The supervisor's side of the [`ExitSignal`]: set when the child is
/// reaped, and when the supervisor ends without reaping it (aborted by a
/// shutdown, or dropped with its runtime), as the `watch` channel closing
/// did, so a reader never waits on a supervisor that is gone.
struct ExitNotice(Arc<ExitSignal>);

impl Drop for ExitNotice {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// Owns the child: reaps it, drains stderr, and obeys kill requests.
///
/// When the child exits (crashed, killed, or ended on its own) while other
/// processes of its group live on, they are stopped at once (SIGTERM, then
/// SIGKILL after [`ShutdownTimeouts::after_terminate`]): the connection is
/// over, and a held but dead transport must not keep a server's helpers
/// running until it is shut down or dropped.
async fn supervise(
    supervised: Supervised,
    mut stderr: Option<ChildStderr>,
    sink: StderrSink,
    state: watch::Sender<ProcState>,
    mut kill: watch::Receiver<bool>,
) {
    let Supervised {
        mut child,
        pid,
        timeouts,
        exit,
    } = supervised;
    let mut lines = StderrLines::default();
    let mut buf = vec![0u8; 8192];
    let mut exited = false;
    let mut listen_kill = true;
    let mut orphans: Option<Pin<Box<dyn Future<Output = bool> + Send>>> = None;
    loop {
        tokio::select! {
            status = child.wait(), if !exited => {
                exited = true;
                let status = status.ok();
                tracing::debug!(status = ?status, "server process exited");
                let tree_gone = !crate::shutdown::group_alive(pid);
                // Recorded before any signal, so a shutdown that sees the
                // group empty afterwards knows who emptied it.
                state.send_modify(|s| {
                    s.exit = Some(status);
                    s.tree_gone = tree_gone;
                    if !tree_gone {
                        s.orphans = Some(ShutdownOutcome::Terminated);
                    }
                });
                exit.0.set();
                if !tree_gone {
                    tracing::debug!(pid, "the server left processes in its group: stopping them");
                    let state = state.clone();
                    let on_kill =
                        move || state.send_modify(|s| s.orphans = Some(ShutdownOutcome::Killed));
                    orphans = Some(Box::pin(crate::shutdown::stop_orphans(pid, timeouts, on_kill)));
                }
            }
            gone = poll_opt(&mut orphans) => {
                orphans = None;
                state.send_modify(|s| s.tree_gone |= gone);
            }
            read = read_opt(&mut stderr, &mut buf) => match read {
                Ok(n) if n > 0 => lines.push(&buf[..n], &mut |l| sink.line(l)),
                _ => {
                    lines.finish(&mut |l| sink.line(l));
                    stderr = None;
                    state.send_modify(|s| s.stderr_done = true);
                }
            },
            changed = kill.changed(), if listen_kill && !exited => {
                if changed.is_err() {
                    listen_kill = false;
                } else if *kill.borrow_and_update() {
                    listen_kill = false;
                    // The group is signalled elsewhere; this reaches the
                    // direct child on every platform.
                    let _ = child.start_kill();
                }
            }
            else => break,
        }
        if exited && stderr.is_none() && orphans.is_none() {
            break;
        }
    }
}

async fn poll_opt(f: &mut Option<Pin<Box<dyn Future<Output = bool> + Send>>>) -> bool {
    match f {
        Some(f) => f.await,
        None => std::future::pending().await,
    }
}

async fn read_opt(stderr: &mut Option<ChildStderr>, buf: &mut [u8]) -> io::Result<usize> {
    match stderr {
        Some(s) => s.read(buf).await,
        None => std::future::pending().await,
    }
}

/// The receiver's view of the child, to report how the connection ended.
#[derive(Debug)]
pub(crate) struct ProcessLink {
    state: watch::Receiver<ProcState>,
    exit: Arc<ExitSignal>,
    /// The waker this reader stored in the exit's slot last
    /// ([`ExitSignal::poll`]).
    exit_waker: Option<Waker>,
    stderr: StderrSink,
    exited: bool,
    /// After the exit: how long the current read may still wait for data.
    drain_idle: Option<Pin<Box<tokio::time::Sleep>>>,
    /// stdout's pipe, grown once a large message comes through it.
    pub(crate) growth: crate::pipe_size::PipeGrowth,
}

impl ProcessLink {
    /// Reads stdout; once the child has exited, a silent stdout counts as
    /// ended even if a grandchild still holds it open: each read then
    /// waits at most [`EXIT_DRAIN_IDLE`] (its wait is kept between polls).
    #[inline]
    pub(crate) fn poll_read(
        &mut self,
        reader: &mut (impl AsyncRead + Unpin + ?Sized),
        buf: &mut (impl bytes::BufMut + ?Sized),
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        if !self.exited {
            if let Poll::Ready(read) = pin!(reader.read_buf(&mut *buf)).poll(cx) {
                return Poll::Ready(read);
            }
            ready!(self.exit.poll(cx, &mut self.exit_waker));
            self.exited = true;
        }
        self.poll_read_after_exit(reader, buf, cx)
    }

    /// [`ProcessLink::poll_read`] once the child has exited (out of line:
    /// off every read of a running server).
    #[cold]
    #[inline(never)]
    fn poll_read_after_exit(
        &mut self,
        reader: &mut (impl AsyncRead + Unpin + ?Sized),
        buf: &mut (impl bytes::BufMut + ?Sized),
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        let idle = self
            .drain_idle
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(EXIT_DRAIN_IDLE)));
        if let Poll::Ready(read) = pin!(reader.read_buf(buf)).poll(cx) {
            self.drain_idle = None;
            return Poll::Ready(read);
        }
        ready!(idle.as_mut().poll(cx));
        self.drain_idle = None;
        Poll::Ready(Ok(0))
    }

    /// The error that ends the receiver once stdout has ended.
    pub(crate) async fn end_error(&mut self, messages_received: u64) -> RecvError {
        let state = &mut self.state;
        let exited = tokio::time::timeout(EXIT_STATUS_WAIT, async {
            state
                .wait_for(|s| s.exit.is_some())
                .await
                .map(|s| s.exit.flatten())
        })
        .await;
        let _ = tokio::time::timeout(STDERR_DRAIN_WAIT, async {
            let _ = state.wait_for(|s| s.stderr_done).await;
        })
        .await;
        let stderr_tail = self.stderr.tail();
        match exited {
            Ok(Ok(status)) => RecvError::ProcessExited(ProcessExited {
                status,
                stderr_tail,
                messages_received,
            }),
            // The supervisor is gone: the process was shut down.
            Ok(Err(_)) => RecvError::ProcessExited(ProcessExited {
                status: self.state.borrow().exit.flatten(),
                stderr_tail,
                messages_received,
            }),
            Err(_) => RecvError::StdoutClosed {
                stderr_tail,
                messages_received,
            },
        }
    }
}

/// The running server process: its id, its stderr, its exit, its
/// shutdown.
///
/// Dropping it without calling [`shutdown`](Self::shutdown) runs the same
/// staged shutdown in the background (on the current Tokio runtime); if no
/// runtime is running, the process group is killed at once.
#[derive(Debug)]
pub struct ServerProcess {
    inner: Option<ProcessInner>,
}

#[derive(Debug)]
pub(crate) struct ProcessInner {
    pub(crate) pid: Option<u32>,
    pub(crate) state: watch::Receiver<ProcState>,
    pub(crate) kill: watch::Sender<bool>,
    pub(crate) supervisor: JoinHandle<()>,
    pub(crate) stdin: Sender,
    pub(crate) stderr: StderrSink,
    pub(crate) timeouts: ShutdownTimeouts,
    /// Kills the process group if dropped before the tree is known dead.
    pub(crate) guard: KillGuard,
}

impl ServerProcess {
    /// The operating-system process id of the server (also its process
    /// group id on Unix), if it was known at spawn.
    pub fn id(&self) -> Option<u32> {
        self.inner.as_ref().and_then(|i| i.pid)
    }

    /// The last lines the server wrote to stderr, oldest first (empty
    /// unless stderr is captured).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner
            .as_ref()
            .map(|i| i.stderr.tail())
            .unwrap_or_default()
    }

    /// True once the server process has exited and was reaped.
    pub fn has_exited(&self) -> bool {
        self.inner
            .as_ref()
            .is_none_or(|i| i.state.borrow().exit.is_some())
    }

    /// The exit status, once the process has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.inner
            .as_ref()
            .and_then(|i| i.state.borrow().exit.flatten())
    }

    /// Waits until the process exits on its own, without stopping it.
    /// Returns its status (`None` if it could not be waited for).
    pub async fn wait(&self) -> Option<ExitStatus> {
        let inner = self.inner.as_ref()?;
        let mut state = inner.state.clone();
        let s = state.wait_for(|s| s.exit.is_some()).await.ok()?;
        s.exit.flatten()
    }

    /// Stops the server in stages and reaps it: closes stdin, waits, sends
    /// SIGTERM to the process group, waits, sends SIGKILL, waits. Bounded by
    /// [`ShutdownTimeouts::total`]. Survivors of the group (grandchildren)
    /// are stopped the same way after the server itself has exited.
    pub async fn shutdown(mut self) -> crate::ExitInfo {
        match self.inner.take() {
            Some(inner) => crate::shutdown::staged(inner).await,
            // `inner` is only taken by `shutdown` (which consumes `self`)
            // and `drop`, so this is never reached.
            None => crate::shutdown::ExitInfo {
                status: None,
                outcome: crate::ShutdownOutcome::Exited,
                stderr_tail: Vec::new(),
                elapsed: std::time::Duration::ZERO,
            },
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                // If the runtime drops this task unfinished, the guard inside
                // kills the group synchronously.
                drop(runtime.spawn(crate::shutdown::staged(inner)));
            }
            Err(_) => drop(inner),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    use super::*;

    /// A waker that counts its wakes.
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Arc::clone(&count), Waker::from(count))
    }

    #[test]
    fn the_exit_wakes_the_task_that_polled_last_and_is_then_ready() {
        let signal = ExitSignal::default();
        let mut stored = None;
        let (first, first_waker) = counting();
        let (second, second_waker) = counting();
        let mut cx = Context::from_waker(&first_waker);
        assert!(signal.poll(&mut cx, &mut stored).is_pending());
        // The same task again: nothing is stored anew.
        assert!(signal.poll(&mut cx, &mut stored).is_pending());
        // Another task: its waker replaces the first.
        let mut cx = Context::from_waker(&second_waker);
        assert!(signal.poll(&mut cx, &mut stored).is_pending());
        signal.set();
        assert_eq!(first.0.load(Ordering::SeqCst), 0);
        assert_eq!(second.0.load(Ordering::SeqCst), 1);
        assert!(signal.poll(&mut cx, &mut stored).is_ready());
    }

    #[test]
    fn an_exit_before_the_first_poll_is_ready_at_once() {
        let signal = ExitSignal::default();
        signal.set();
        let (count, waker) = counting();
        let mut stored = None;
        assert!(
            signal
                .poll(&mut Context::from_waker(&waker), &mut stored)
                .is_ready()
        );
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
    }
}

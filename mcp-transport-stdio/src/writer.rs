//! The writing half of the newline-delimited framing: [`Sender`], shared
//! by its clones, one future per send; and [`LineWriter`], the writer held
//! by one owner that queues whole lines into one buffer and polls their
//! write itself (no future, no allocation per message).
//!
//! Both keep the framing whole: bytes of a line that went out in part (a
//! send cancelled mid-write, lines a [`LineWriter`] queued) are written
//! before any later line.

use std::fmt;
use std::future::poll_fn;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::error::SendError;

type BoxWriter = Box<dyn AsyncWrite + Send + Unpin>;

/// The capacity a [`LineWriter`]'s buffer keeps once it is written out;
/// a larger one (a burst of big requests) is given back.
const KEEP_CAPACITY: usize = 64 * 1024;

/// The writing half: sends one message per line.
///
/// Cloning is cheap; clones share one writer, and concurrent sends are
/// written one whole line after another, in the order they got the lock.
/// If a send is cancelled after part of its line was written, the rest of
/// the line is written before the next message, so the framing is never
/// corrupted.
#[derive(Clone)]
pub struct Sender {
    shared: Arc<Mutex<WriteState>>,
}

struct WriteState {
    /// `None` once closed or broken.
    writer: Option<BoxWriter>,
    /// Why the writer is gone.
    failure: Option<SendError>,
    /// Bytes owed to the stream before any other line: the rest of a line
    /// whose send was cancelled mid-write, or the lines a [`LineWriter`]
    /// queued. Written from `queued_pos`.
    queued: Vec<u8>,
    queued_pos: usize,
}

/// A frame must be one non-empty line.
fn check_frame(message: &[u8]) -> Result<(), SendError> {
    if message.is_empty() {
        return Err(SendError::Empty);
    }
    if memchr::memchr(b'\n', message).is_some() {
        return Err(SendError::EmbeddedNewline);
    }
    Ok(())
}

impl Sender {
    /// A sender writing to `writer`.
    pub fn new<W: AsyncWrite + Send + Unpin + 'static>(writer: W) -> Self {
        Sender {
            shared: Arc::new(Mutex::new(WriteState {
                writer: Some(Box::new(writer)),
                failure: None,
                queued: Vec::new(),
                queued_pos: 0,
            })),
        }
    }

    /// Writes `message` (one serialized JSON-RPC message, without a
    /// trailing newline) followed by `\n`, and flushes.
    ///
    /// # Errors
    /// [`SendError::Empty`] or [`SendError::EmbeddedNewline`] for a
    /// malformed frame (nothing is written); [`SendError::Closed`] after
    /// [`close`](Self::close); [`SendError::PeerClosed`] when the peer
    /// stopped reading (for a child process: it exited);
    /// [`SendError::Io`] otherwise.
    pub async fn send(&self, message: &[u8]) -> Result<(), SendError> {
        self.send_batch(&[message]).await
    }

    /// Writes several messages, one line each and in order, as one write
    /// where the pipe takes it whole, then flushes once: a burst costs one
    /// system call instead of one per message.
    ///
    /// The lines are written back to back under one hold of the writer, so
    /// no other sender's line comes between them. Cancel-safe like
    /// [`send`](Self::send): a batch cut off mid-write is completed before
    /// the next message.
    ///
    /// # Errors
    /// As [`send`](Self::send). A malformed message ([`SendError::Empty`],
    /// [`SendError::EmbeddedNewline`]) fails the whole batch before
    /// anything is written.
    pub async fn send_batch<M: AsRef<[u8]>>(&self, messages: &[M]) -> Result<(), SendError> {
        for m in messages {
            check_frame(m.as_ref())?;
        }
        let joined;
        let message = match messages {
            [] => return Ok(()),
            [one] => one.as_ref(),
            many => {
                // The lines joined with `\n`; `LineWrite` adds the last one.
                let len = many.iter().map(|m| m.as_ref().len() + 1).sum::<usize>();
                let mut buf = Vec::with_capacity(len);
                for (i, m) in many.iter().enumerate() {
                    if i > 0 {
                        buf.push(b'\n');
                    }
                    buf.extend_from_slice(m.as_ref());
                }
                joined = buf;
                &joined[..]
            }
        };
        let mut state = self.shared.lock().await;
        poll_fn(|cx| state.poll_write_queued(cx)).await?;
        let mut line = LineWrite {
            state: &mut state,
            message,
            written: 0,
        };
        line.run().await
    }

    /// Takes the writer for one owner until the [`LineWriter`] is dropped:
    /// it queues lines and polls their write itself, with no future or
    /// allocation per message. Waits for a send in progress to finish or
    /// be dropped.
    ///
    /// While the `LineWriter` lives, the sends and [`close`](Self::close)
    /// of this sender's clones wait for it (a child process's staged
    /// shutdown bounds its wait with a timeout).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use mcp_transport_stdio::{Inbound, memory_pair};
    /// let ((client_tx, _client_rx), (_server_tx, mut server_rx)) = memory_pair();
    /// let mut writer = client_tx.exclusive().await;
    /// writer.queue(br#"{"jsonrpc":"2.0","method":"ping","id":1}"#).unwrap();
    /// writer.queue(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#).unwrap();
    /// writer.flush().await.unwrap();
    /// assert!(matches!(server_rx.recv().await, Some(Ok(Inbound::Message(_)))));
    /// assert!(matches!(server_rx.recv().await, Some(Ok(Inbound::Message(_)))));
    /// # }
    /// ```
    pub async fn exclusive(&self) -> LineWriter {
        LineWriter {
            state: Arc::clone(&self.shared).lock_owned().await,
        }
    }

    /// Closes the writer: finishes a line left half-written by a cancelled
    /// send (and lines a dropped [`LineWriter`] queued), then shuts the
    /// stream down and drops it (for a child process, its stdin is
    /// closed). Later sends fail with [`SendError::Closed`].
    ///
    /// Waits for a send in progress, for a [`LineWriter`] to be dropped,
    /// and for the peer to take the queued bytes: bound it with a timeout
    /// when the peer may have stopped reading (the staged shutdown does).
    ///
    /// # Errors
    /// The error that broke the writer, if finishing or shutting it down
    /// failed. The writer is dropped either way.
    pub async fn close(&self) -> Result<(), SendError> {
        let mut state = self.shared.lock().await;
        let finished = poll_fn(|cx| state.poll_write_queued(cx)).await;
        let shut = match state.writer.as_mut() {
            Some(w) => w.shutdown().await.map_err(SendError::from_io),
            None => Ok(()),
        };
        state.writer = None;
        if state.failure.is_none() {
            state.failure = Some(SendError::Closed);
        }
        finished.and(shut)
    }

    /// True once the writer was closed or broke.
    pub async fn is_closed(&self) -> bool {
        self.shared.lock().await.writer.is_none()
    }
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl WriteState {
    fn writer(&mut self) -> Result<&mut BoxWriter, SendError> {
        if self.writer.is_none() {
            return Err(self.gone());
        }
        self.writer.as_mut().ok_or(SendError::Closed)
    }

    /// The error for a writer that is closed or broken.
    fn gone(&self) -> SendError {
        self.failure
            .as_ref()
            .map_or(SendError::Closed, SendError::replay)
    }

    fn fail(&mut self, e: io::Error) -> SendError {
        let err = SendError::from_io(e);
        self.failure = Some(err.replay());
        self.writer = None;
        self.queued = Vec::new();
        self.queued_pos = 0;
        err
    }

    /// Writes the queued bytes. Cancel-safe: progress is recorded after
    /// every write, and what is left stays queued.
    fn poll_write_queued(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        while self.queued_pos < self.queued.len() {
            let Some(w) = self.writer.as_mut() else {
                self.queued.clear();
                self.queued_pos = 0;
                return Poll::Ready(Err(self.gone()));
            };
            match ready!(Pin::new(w).poll_write(cx, &self.queued[self.queued_pos..])) {
                Ok(0) => return Poll::Ready(Err(self.fail(io::ErrorKind::WriteZero.into()))),
                Ok(n) => self.queued_pos += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(self.fail(e))),
            }
        }
        self.queued.clear();
        self.queued_pos = 0;
        if self.queued.capacity() > KEEP_CAPACITY {
            self.queued = Vec::new();
        }
        Poll::Ready(Ok(()))
    }
}

/// A [`Sender`]'s writer, held by one owner (from
/// [`Sender::exclusive`]): [`queue`](Self::queue) appends a line to one
/// reused buffer, [`poll_flush`](Self::poll_flush) writes everything
/// queued (as few system calls as the pipe allows) and flushes. An event
/// loop polls the write next to its other work instead of boxing a future
/// per message.
///
/// Dropping it releases the writer; lines still queued are written before
/// the next send of any clone, or by [`Sender::close`].
pub struct LineWriter {
    state: OwnedMutexGuard<WriteState>,
}

impl LineWriter {
    /// Queues `message` (one serialized JSON-RPC message, without a
    /// trailing newline) and its `\n`; nothing is written until
    /// [`poll_flush`](Self::poll_flush).
    ///
    /// # Errors
    /// [`SendError::Empty`] or [`SendError::EmbeddedNewline`] for a
    /// malformed frame (nothing is queued). A writer that is closed or
    /// broken is reported by [`poll_flush`](Self::poll_flush).
    pub fn queue(&mut self, message: &[u8]) -> Result<(), SendError> {
        check_frame(message)?;
        let queued = &mut self.state.queued;
        queued.reserve(message.len() + 1);
        queued.extend_from_slice(message);
        queued.push(b'\n');
        Ok(())
    }

    /// Whether queued bytes wait to be written.
    pub fn has_queued(&self) -> bool {
        self.state.queued_pos < self.state.queued.len()
    }

    /// Writes every queued byte, then flushes the stream. Cancel-safe: a
    /// `Pending` keeps what is left queued, and the next poll goes on.
    ///
    /// # Errors
    /// As [`Sender::send`]; after [`SendError::PeerClosed`] or
    /// [`SendError::Io`] the writer is broken and the queue emptied.
    pub fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        ready!(self.state.poll_write_queued(cx))?;
        let Some(w) = self.state.writer.as_mut() else {
            return Poll::Ready(Err(self.state.gone()));
        };
        match ready!(Pin::new(w).poll_flush(cx)) {
            Ok(()) => Poll::Ready(Ok(())),
            Err(e) => Poll::Ready(Err(self.state.fail(e))),
        }
    }

    /// [`poll_flush`](Self::poll_flush) as a future.
    ///
    /// # Errors
    /// As [`poll_flush`](Self::poll_flush).
    pub async fn flush(&mut self) -> Result<(), SendError> {
        poll_fn(|cx| self.poll_flush(cx)).await
    }
}

impl fmt::Debug for LineWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineWriter")
            .field("queued", &(self.state.queued.len() - self.state.queued_pos))
            .finish_non_exhaustive()
    }
}

/// One line being written; if dropped half-way (the send was cancelled),
/// it queues the unwritten rest so the next writer completes the line.
struct LineWrite<'a, 'm> {
    state: &'a mut WriteState,
    message: &'m [u8],
    /// Bytes of `message` plus its `\n` written so far.
    written: usize,
}

impl LineWrite<'_, '_> {
    async fn run(&mut self) -> Result<(), SendError> {
        let total = self.message.len() + 1;
        while self.written < total {
            let result = if self.written < self.message.len() {
                let parts = [
                    IoSlice::new(&self.message[self.written..]),
                    IoSlice::new(b"\n"),
                ];
                self.state.writer()?.write_vectored(&parts).await
            } else {
                self.state.writer()?.write(b"\n").await
            };
            match result {
                Ok(0) => return Err(self.abandon(io::ErrorKind::WriteZero.into())),
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.abandon(e)),
            }
        }
        if let Err(e) = self.state.writer()?.flush().await {
            return Err(self.state.fail(e));
        }
        Ok(())
    }

    fn abandon(&mut self, e: io::Error) -> SendError {
        // The writer is broken; nothing is left to complete.
        self.written = self.message.len() + 1;
        self.state.fail(e)
    }
}

impl Drop for LineWrite<'_, '_> {
    fn drop(&mut self) {
        let total = self.message.len() + 1;
        if self.written == 0 || self.written >= total {
            return;
        }
        // The queue was written out before this line started.
        let rest = &mut self.state.queued;
        rest.clear();
        if self.written < self.message.len() {
            rest.extend_from_slice(&self.message[self.written..]);
        }
        rest.push(b'\n');
        self.state.queued_pos = 0;
    }
}

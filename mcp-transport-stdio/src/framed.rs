//! Newline-delimited JSON-RPC framing over any byte stream.
//!
//! A [`Sender`] writes one message per line through a serialized writer; a
//! [`Receiver`] splits the incoming bytes with a bounded
//! [`LineSplitter`](crate::line_splitter::LineSplitter) and parses each line
//! once, straight from the read buffer, into a [`Message`]; a large result
//! stays in the read buffer until it is decoded (see the splitter's buffer
//! rule). The same types
//! serve a child process, a custom pipe or socket, a server's own stdio, and
//! the in-memory pair of [`memory_pair`].

use std::fmt;
use std::io::{self, IoSlice};
use std::sync::Arc;

use mcp_types::Message;
use mcp_types::jsonrpc::ReadError;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::envelope::BrokenEnvelope;
use crate::error::{LineTooLong, RecvError, SendError};
use crate::line_splitter::{Frame, LineSplitter};
#[cfg(feature = "process")]
use crate::process::ProcessLink;

/// The default maximum length of one incoming line: 16 MiB.
///
/// A line is buffered whole before it is parsed, so this cap is the memory
/// one server can make the client hold for a single message (plus its
/// parsed form). 16 MiB is the same bound as the HTTP transport's largest
/// body and event (`mcp_transport_http::Limits`), so a tool result that fits
/// one transport fits the other; it leaves room for a base64 screenshot or
/// a large document, while a host running 32 servers stays under 512 MiB
/// of line buffers in the worst case (64 MiB, the former default, allowed
/// 2 GiB). A longer line is discarded up to its newline and reported as
/// [`Inbound::Oversized`] naming this cap; the session goes on. Raise or
/// lower it per server with
/// [`ServerCommand::max_line_length`](crate::ServerCommand::max_line_length)
/// (or [`Receiver::with_max_line_length`]).
pub const DEFAULT_MAX_LINE_LENGTH: usize = 16 * 1024 * 1024;

/// How much of a skipped line is kept for diagnostics.
const EXCERPT_BYTES: usize = 256;

/// One item read from the peer. Every variant leaves the session open.
#[derive(Debug)]
#[non_exhaustive]
pub enum Inbound {
    /// A JSON-RPC message.
    Message(Message),
    /// A line that is not a JSON-RPC message (a banner, a log line, or JSON
    /// of the wrong shape); it was skipped.
    Skipped(SkippedLine),
    /// A line over the length limit; it was discarded.
    Oversized(LineTooLong),
    /// A line that broke the JSON-RPC envelope rules (see
    /// [`Receiver::set_envelope_checks`]); it names the request it answers,
    /// if it can.
    Broken(BrokenEnvelope),
}

/// Why a line was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The line is not JSON at all (typically a banner or a log line).
    NotJson,
    /// The line is JSON but not a valid JSON-RPC message.
    InvalidMessage,
}

/// A line the receiver skipped, described for diagnostics.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SkippedLine {
    /// Why it was skipped.
    pub reason: SkipReason,
    /// The parser's explanation.
    pub error: String,
    /// The first bytes of the line, decoded lossily.
    pub excerpt: String,
    /// The full length of the line in bytes.
    pub len: usize,
}

impl SkippedLine {
    fn new(line: &[u8], error: &serde_json::Error) -> Self {
        let reason = match error.classify() {
            serde_json::error::Category::Data => SkipReason::InvalidMessage,
            _ => SkipReason::NotJson,
        };
        let cut = line.len().min(EXCERPT_BYTES);
        SkippedLine {
            reason,
            error: error.to_string(),
            excerpt: String::from_utf8_lossy(&line[..cut]).into_owned(),
            len: line.len(),
        }
    }
}

type BoxWriter = Box<dyn AsyncWrite + Send + Unpin>;
type BoxReader = Box<dyn AsyncRead + Send + Unpin>;

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
    /// The unwritten rest of a line whose send was cancelled mid-write.
    leftover: Vec<u8>,
    leftover_pos: usize,
}

impl Sender {
    /// A sender writing to `writer`.
    pub fn new<W: AsyncWrite + Send + Unpin + 'static>(writer: W) -> Self {
        Sender {
            shared: Arc::new(Mutex::new(WriteState {
                writer: Some(Box::new(writer)),
                failure: None,
                leftover: Vec::new(),
                leftover_pos: 0,
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
            let m = m.as_ref();
            if m.is_empty() {
                return Err(SendError::Empty);
            }
            if memchr::memchr(b'\n', m).is_some() {
                return Err(SendError::EmbeddedNewline);
            }
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
        state.finish_leftover().await?;
        let mut line = LineWrite {
            state: &mut state,
            message,
            written: 0,
        };
        line.run().await
    }

    /// Closes the writer: finishes a line left half-written by a cancelled
    /// send, then shuts the stream down and drops it (for a child process,
    /// its stdin is closed). Later sends fail with [`SendError::Closed`].
    ///
    /// Waits for a send in progress and for the peer to take a half-written
    /// line: bound it with a timeout when the peer may have stopped reading
    /// (the staged shutdown does).
    ///
    /// # Errors
    /// The error that broke the writer, if finishing or shutting it down
    /// failed. The writer is dropped either way.
    pub async fn close(&self) -> Result<(), SendError> {
        let mut state = self.shared.lock().await;
        let finished = state.finish_leftover().await;
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
        self.leftover = Vec::new();
        self.leftover_pos = 0;
        err
    }

    /// Writes what a cancelled send left unwritten. Cancel-safe: progress
    /// is recorded after every write.
    async fn finish_leftover(&mut self) -> Result<(), SendError> {
        while self.leftover_pos < self.leftover.len() {
            let pos = self.leftover_pos;
            let result = match self.writer.as_mut() {
                Some(w) => w.write(&self.leftover[pos..]).await,
                None => return Err(self.gone()),
            };
            match result {
                Ok(0) => return Err(self.fail(io::ErrorKind::WriteZero.into())),
                Ok(n) => self.leftover_pos += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
            }
        }
        self.leftover = Vec::new();
        self.leftover_pos = 0;
        Ok(())
    }
}

/// One line being written; if dropped half-way (the send was cancelled),
/// it saves the unwritten rest so the next writer completes the line.
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
        let mut rest = Vec::with_capacity(total - self.written);
        if self.written < self.message.len() {
            rest.extend_from_slice(&self.message[self.written..]);
        }
        rest.push(b'\n');
        self.state.leftover = rest;
        self.state.leftover_pos = 0;
    }
}

/// The reading half: yields the messages the peer sends.
pub struct Receiver {
    reader: BoxReader,
    splitter: LineSplitter,
    max_line: usize,
    messages: u64,
    phase: Phase,
    #[cfg(feature = "process")]
    process: Option<ProcessLink>,
    check_envelopes: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Reading,
    Ended,
    Done,
}

impl Receiver {
    /// A receiver reading from `reader`, with the default line limit.
    pub fn new<R: AsyncRead + Send + Unpin + 'static>(reader: R) -> Self {
        Receiver::with_max_line_length(reader, DEFAULT_MAX_LINE_LENGTH)
    }

    /// A receiver reading from `reader` that discards lines longer than
    /// `max_line` bytes.
    pub fn with_max_line_length<R: AsyncRead + Send + Unpin + 'static>(
        reader: R,
        max_line: usize,
    ) -> Self {
        Receiver {
            reader: Box::new(reader),
            splitter: LineSplitter::new(max_line),
            max_line,
            messages: 0,
            phase: Phase::Reading,
            #[cfg(feature = "process")]
            process: None,
            check_envelopes: false,
        }
    }

    /// Checks every envelope rule on every line (a client's strict mode):
    /// a message the lenient reader would accept despite a broken rule (a
    /// missing `jsonrpc`, say) arrives as [`Inbound::Broken`] instead.
    /// Lines the lenient reader rejects but that name a request arrive as
    /// [`Inbound::Broken`] either way.
    pub fn set_envelope_checks(&mut self, on: bool) {
        self.check_envelopes = on;
    }

    #[cfg(feature = "process")]
    pub(crate) fn attach_process(&mut self, link: ProcessLink) {
        self.process = Some(link);
    }

    /// The next item from the peer.
    ///
    /// Blank lines are ignored. `Some(Ok(_))` items never end the session.
    /// At the end of a plain stream, returns `None`. For a child process,
    /// the end is reported first as `Some(Err(_))`:
    /// [`RecvError::ProcessExited`] with the exit status and stderr tail
    /// (also when the child dies while its stdout is held open by a
    /// grandchild), or [`RecvError::StdoutClosed`]. After an `Err`, the next
    /// call returns `None`.
    ///
    /// Cancel-safe: it may be used in `select!` without losing data.
    pub async fn recv(&mut self) -> Option<Result<Inbound, RecvError>> {
        loop {
            let buffer = self.splitter.buffer_capacity();
            if let Some(frame) = self.splitter.next_frame() {
                if let Some(item) = classify(
                    frame,
                    self.max_line,
                    buffer,
                    self.check_envelopes,
                    &mut self.messages,
                ) {
                    return Some(Ok(item));
                }
                continue;
            }
            match self.phase {
                Phase::Reading => {
                    let mut space = self.splitter.read_space();
                    #[cfg(feature = "process")]
                    let read = match &mut self.process {
                        Some(link) => link.read(&mut self.reader, &mut space).await,
                        None => self.reader.read_buf(&mut space).await,
                    };
                    #[cfg(not(feature = "process"))]
                    let read = self.reader.read_buf(&mut space).await;
                    match read {
                        Ok(0) => {
                            self.phase = Phase::Ended;
                            let buffer = self.splitter.buffer_capacity();
                            if let Some(frame) = self.splitter.finish()
                                && let Some(item) = classify(
                                    frame,
                                    self.max_line,
                                    buffer,
                                    self.check_envelopes,
                                    &mut self.messages,
                                )
                            {
                                return Some(Ok(item));
                            }
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            self.phase = Phase::Done;
                            return Some(Err(RecvError::Io(e)));
                        }
                    }
                }
                Phase::Ended => {
                    #[cfg(feature = "process")]
                    let end = match &mut self.process {
                        Some(link) => Some(link.end_error(self.messages).await),
                        None => None,
                    };
                    #[cfg(not(feature = "process"))]
                    let end: Option<RecvError> = None;
                    self.phase = Phase::Done;
                    return end.map(Err);
                }
                Phase::Done => return None,
            }
        }
    }

    /// How many valid messages were received so far.
    pub fn messages_received(&self) -> u64 {
        self.messages
    }
}

impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("max_line", &self.max_line)
            .field("messages", &self.messages)
            .field("pending_bytes", &self.splitter.pending())
            .finish_non_exhaustive()
    }
}

/// Turns a frame into an item; `None` for a blank line.
///
/// A line that fills a good part of its read buffer (a quarter or more) is
/// parsed as a [`bytes::Bytes`] view: a large result in it stays where it
/// arrived, and is decoded from there, without a copy. A smaller line's
/// result is copied (so it does not keep a much larger buffer alive).
fn classify(
    frame: Frame<'_>,
    limit: usize,
    buffer: usize,
    check: bool,
    messages: &mut u64,
) -> Option<Inbound> {
    match frame {
        Frame::Oversized { len, head, tail } => {
            let id = crate::envelope::discarded_response_id(head, tail);
            tracing::warn!(
                len,
                limit,
                ?id,
                "discarded an oversized line from the server"
            );
            Some(Inbound::Oversized(LineTooLong { len, limit, id }))
        }
        Frame::Line(line) => {
            if line.iter().all(u8::is_ascii_whitespace) {
                return None;
            }
            let read = if line.len() >= buffer / 4 {
                Message::read_bytes(&line, check)
            } else {
                Message::read(&line, check)
            };
            match read {
                Ok(message) => {
                    *messages += 1;
                    Some(Inbound::Message(message))
                }
                Err(ReadError::Broken { id, violations }) => {
                    tracing::warn!(?violations, "a line broke the JSON-RPC envelope");
                    Some(Inbound::Broken(BrokenEnvelope { id, violations }))
                }
                Err(ReadError::Invalid(e)) => {
                    let skipped = SkippedLine::new(&line, &e);
                    tracing::debug!(
                        reason = ?skipped.reason,
                        excerpt = %skipped.excerpt,
                        "skipped a line that is not a JSON-RPC message"
                    );
                    Some(Inbound::Skipped(skipped))
                }
            }
        }
    }
}

/// Frames a reader and a writer with the default line limit.
///
/// For a server's own stdio this is `framed(tokio::io::stdin(),
/// tokio::io::stdout())` (Tokio's `io-std` feature).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use mcp_transport_stdio::{framed, Inbound};
/// let (client, server) = tokio::io::duplex(1024);
/// let (client_tx, _client_rx) = {
///     let (r, w) = tokio::io::split(client);
///     framed(r, w)
/// };
/// let (r, _w) = tokio::io::split(server);
/// let mut server_rx = mcp_transport_stdio::Receiver::new(r);
/// client_tx.send(br#"{"jsonrpc":"2.0","method":"ping","id":1}"#).await.unwrap();
/// assert!(matches!(server_rx.recv().await, Some(Ok(Inbound::Message(_)))));
/// # }
/// ```
pub fn framed<R, W>(reader: R, writer: W) -> (Sender, Receiver)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    (Sender::new(writer), Receiver::new(reader))
}

/// Frames one bidirectional stream (a TCP or Unix socket, a named pipe)
/// with the default line limit.
pub fn framed_stream<S>(stream: S) -> (Sender, Receiver)
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (reader, writer) = tokio::io::split(stream);
    framed(reader, writer)
}

/// Two linked in-memory endpoints, for tests: what one sends, the other
/// receives. Returns `(client, server)`.
pub fn memory_pair() -> ((Sender, Receiver), (Sender, Receiver)) {
    const BUFFER: usize = 64 * 1024;
    let (a, b) = tokio::io::duplex(BUFFER);
    (framed_stream(a), framed_stream(b))
}

#[cfg(test)]
mod tests;

//! Newline-delimited JSON-RPC framing over any byte stream.
//!
//! A [`Sender`] (`writer.rs`) writes one message per line through a
//! serialized writer; a [`Receiver`] splits the incoming bytes with a bounded
//! [`LineSplitter`](crate::line_splitter::LineSplitter) and parses each line
//! once, straight from the read buffer, into a [`Message`]; a large result
//! stays in the read buffer until it is decoded (see the splitter's buffer
//! rule). The same types
//! serve a child process, a custom pipe or socket, a server's own stdio, and
//! the in-memory pair of [`memory_pair`].

use std::fmt;
use std::future::{Future, poll_fn};
use std::io;
#[cfg(feature = "process")]
use std::pin::Pin;
use std::pin::pin;
use std::task::{Context, Poll, ready};

use mcp_types::Message;
use mcp_types::jsonrpc::ReadError;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

use crate::envelope::BrokenEnvelope;
use crate::error::{LineTooLong, RecvError};
use crate::line_splitter::{Frame, LineSplitter};
#[cfg(feature = "process")]
use crate::process::ProcessLink;
pub(crate) use crate::writer::Sender;

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

type BoxReader = Box<dyn AsyncRead + Send + Unpin>;

/// The reading half: yields the messages the peer sends.
pub struct Receiver {
    reader: BoxReader,
    splitter: LineSplitter,
    max_line: usize,
    messages: u64,
    phase: Phase,
    #[cfg(feature = "process")]
    process: Option<ProcessLink>,
    /// The child's end being explained (exit status, stderr tail), kept
    /// between polls so that its bounded waits run once.
    #[cfg(feature = "process")]
    ending: Option<Pin<Box<dyn Future<Output = RecvError> + Send>>>,
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
            #[cfg(feature = "process")]
            ending: None,
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

    /// The splitter's next line (at the end of input, `at_end`, its
    /// unterminated rest), classified: `None` when it holds no line,
    /// `Some(None)` for a blank one.
    fn classify_next(&mut self, at_end: bool) -> Option<Option<Inbound>> {
        let buffer = self.splitter.buffer_capacity();
        if !at_end {
            if self.splitter.pending() == 0 {
                // Every line read was taken: nothing to scan.
                return None;
            }
            // A line well under the buffer's size is parsed where it lies
            // (its result is copied out anyway, see `classify`).
            let (check, messages) = (self.check_envelopes, &mut self.messages);
            let small = self.splitter.next_small_line(buffer / 4, |line| {
                classify_line(line, None, check, messages)
            });
            if small.is_some() {
                return small;
            }
        }
        let frame = if at_end {
            self.splitter.finish()
        } else {
            self.splitter.next_frame()
        }?;
        Some(classify(
            frame,
            self.max_line,
            buffer,
            self.check_envelopes,
            &mut self.messages,
        ))
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
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// [`recv`](Self::recv) as a poll, for an event loop that polls its
    /// sources itself (no future to build per wait): `Pending` leaves `cx`
    /// registered with every source of the next item (the pipe and, for a
    /// child process, its exit). The waits at the end of a child's output
    /// are kept between polls.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Inbound, RecvError>>> {
        loop {
            if let Some(item) = self.classify_next(false) {
                match item {
                    Some(item) => return Poll::Ready(Some(Ok(item))),
                    None => continue,
                }
            }
            match self.phase {
                Phase::Reading => match ready!(self.poll_read(cx)) {
                    Ok(0) => {
                        std::hint::cold_path();
                        self.phase = Phase::Ended;
                        if let Some(Some(item)) = self.classify_next(true) {
                            return Poll::Ready(Some(Ok(item)));
                        }
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        std::hint::cold_path();
                        self.phase = Phase::Done;
                        return Poll::Ready(Some(Err(RecvError::Io(e))));
                    }
                },
                Phase::Ended => {
                    std::hint::cold_path();
                    #[cfg(feature = "process")]
                    let end = {
                        if let Some(mut link) = self.process.take() {
                            let messages = self.messages;
                            self.ending =
                                Some(Box::pin(async move { link.end_error(messages).await }));
                        }
                        match &mut self.ending {
                            Some(ending) => Some(ready!(ending.as_mut().poll(cx))),
                            None => None,
                        }
                    };
                    #[cfg(not(feature = "process"))]
                    let end: Option<RecvError> = None;
                    #[cfg(feature = "process")]
                    {
                        self.ending = None;
                    }
                    self.phase = Phase::Done;
                    return Poll::Ready(end.map(Err));
                }
                Phase::Done => return Poll::Ready(None),
            }
        }
    }

    /// One read into the splitter's free space.
    fn poll_read(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let mut space = self.splitter.read_space();
        #[cfg(feature = "process")]
        if let Some(link) = &mut self.process {
            let read = ready!(link.poll_read(&mut self.reader, &mut space, cx));
            if matches!(read, Ok(n) if n > 0) {
                link.growth.note_unread(self.splitter.pending());
            }
            return Poll::Ready(read);
        }
        pin!(self.reader.read_buf(&mut space)).poll(cx)
    }

    /// How many valid messages were received so far.
    pub fn messages_received(&self) -> u64 {
        self.messages
    }

    /// Whether bytes read from the peer wait in the buffer (a whole line
    /// or the start of one): only then can [`recv`](Self::recv) find an
    /// item before reading again. An event loop that just saw `recv`
    /// return an item asks this before trying for the next one at once,
    /// and otherwise leaves the read to its next wait.
    pub fn has_buffered_input(&self) -> bool {
        self.splitter.pending() > 0
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
            let whole = (line.len() >= buffer / 4).then_some(&line);
            classify_line(&line, whole, check, messages)
        }
    }
}

/// Turns a line into an item; `None` for a blank one. `whole` is the line
/// as a view of its buffer when the result is to stay in it (a large
/// line); otherwise the result is copied out of `line`.
fn classify_line(
    line: &[u8],
    whole: Option<&bytes::Bytes>,
    check: bool,
    messages: &mut u64,
) -> Option<Inbound> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let read = match whole {
        Some(whole) => Message::read_bytes(whole, check),
        None => Message::read(line, check),
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
            let skipped = SkippedLine::new(line, &e);
            tracing::debug!(
                reason = ?skipped.reason,
                excerpt = %skipped.excerpt,
                "skipped a line that is not a JSON-RPC message"
            );
            Some(Inbound::Skipped(skipped))
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

//! Response streams: the messages of one `text/event-stream` in order, and
//! the resumption of broken 2025-11-25 streams.
//!
//! A request's stream is first read by its POST ([`inline`]): one that
//! carries nothing but the reply and ends with it needs no pump. Every
//! other stream (the GET stream, a notification's, and a request's from
//! the first message that is not its reply, or from a break) is read by
//! its own task (a pump) so that cancelling it closes the HTTP stream at
//! once, even when nobody is reading. The pump starts from what the POST
//! read ([`Prelude`]), parses events, turns each `message` event into one
//! [`Message`] (parsed once), and hands them over through a bounded
//! channel.
//!
//! * The reply (a response or error whose id is the request's) marks the
//!   stream complete and releases the request's concurrency permit; the
//!   pump then reads the body to its end, for at most the reply grace
//!   period ([`crate::HttpConfig::with_reply_grace`]), so the
//!   connection can be reused (messages that still arrive are delivered),
//!   and the stream ends.
//! * A stream that ends before its reply fails with
//!   [`HttpError::StreamEnded`] at once, unless it can be resumed: in the
//!   2025-11-25 era, after an event id was seen, the pump waits the
//!   server's `retry:` (clamped by [`crate::ReconnectPolicy`]) and GETs
//!   the endpoint with `Last-Event-ID` (the newest id seen across every
//!   reconnection), a bounded number of consecutive times.
//! * Dropping a [`ResponseStream`] before its reply closes the HTTP stream
//!   (the 2026-07-28 cancellation signal, and how `subscriptions/listen`
//!   ends).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::h1::ResponseBody;
use http_body_util::BodyExt;
use mcp_types::{Message, ProtocolVersion, RequestId};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, sleep_until};

use crate::cancel::Cancel;
use crate::config::HttpConfig;
use crate::error::{Fault, HttpError};
use crate::permits::Permit;
use crate::sse::{LastId, SseError, SseEvent, SseParser};
use crate::transport::Inner;

mod inline;

pub(crate) use inline::{Inline, Prelude, read_to_reply};
use inline::{Queued, Read};

/// The parser of the transport's event streams: events up to the
/// configured size, and only the last event id kept (the transport reads
/// no event's own).
pub(crate) fn event_parser(config: &HttpConfig) -> SseParser {
    SseParser::new(config.limits.max_event_bytes).without_event_ids()
}

/// What a stream belongs to.
pub(crate) enum StreamKind {
    /// The answer to a POST; `resumable` in the 2025-11-25 era.
    Post {
        resumable: bool,
        version: Option<ProtocolVersion>,
    },
    /// The 2025-11-25 GET stream.
    ServerStream { version: Option<ProtocolVersion> },
}

#[derive(Default)]
struct Shared {
    reply_seen: AtomicBool,
}

/// The messages the server sends on one response stream, in order.
///
/// Read with [`ResponseStream::next`] or as a [`futures::Stream`]. Items are
/// messages, then possibly one final error (for example
/// [`HttpError::StreamEnded`]); `None` ends the stream.
pub struct ResponseStream {
    rx: mpsc::Receiver<Result<Message, HttpError>>,
    shared: Arc<Shared>,
    task: tokio::task::AbortHandle,
    request_id: Option<RequestId>,
}

impl std::fmt::Debug for ResponseStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseStream")
            .field("request_id", &self.request_id)
            .field("reply_received", &self.reply_received())
            .finish_non_exhaustive()
    }
}

impl ResponseStream {
    pub(crate) fn spawn(
        inner: Arc<Inner>,
        body: ResponseBody,
        kind: StreamKind,
        cancel: Cancel,
        permit: Option<Permit>,
        prelude: Option<Box<Prelude>>,
    ) -> Self {
        let (tx, rx) = mpsc::channel(inner.config.stream_buffer);
        let shared = Arc::new(Shared::default());
        let request_id = cancel.request_id();
        let session = inner.session.id();
        let (parser, queued, fault) = match prelude.map(|p| *p) {
            Some(Prelude {
                parser,
                queued,
                fault,
            }) => (parser, queued, fault),
            None => (event_parser(&inner.config), Vec::new(), None),
        };
        let mut pump = Pump {
            parser,
            session,
            inner,
            body,
            tx,
            shared: shared.clone(),
            cancel,
            permit,
            kind,
            request_id: request_id.clone(),
            last_id: LastId::default(),
            retry: None,
            drain_until: None,
            reader_gone: false,
        };
        // What the POST's parser read already.
        pump.note_parser();
        let task = tokio::spawn(pump.run(queued, fault)).abort_handle();
        ResponseStream {
            rx,
            shared,
            task,
            request_id,
        }
    }

    /// The next message, or an error; `None` at the end. Every error ends
    /// the stream except [`HttpError::InvalidEnvelope`] for a message that
    /// is not the reply to this stream's request: that one reports a broken
    /// message and the stream goes on.
    pub async fn next(&mut self) -> Option<Result<Message, HttpError>> {
        self.rx.recv().await
    }

    /// The id of the request this stream answers (`None` for the GET stream).
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request_id.as_ref()
    }

    /// Whether the reply to the request has arrived.
    pub fn reply_received(&self) -> bool {
        self.shared.reply_seen.load(Ordering::Acquire)
    }
}

impl futures::Stream for ResponseStream {
    type Item = Result<Message, HttpError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().rx.poll_recv(cx)
    }
}

impl Drop for ResponseStream {
    fn drop(&mut self) {
        // Before the reply, dropping closes the HTTP stream now. After it,
        // the pump finishes reading so the connection can be reused.
        if !self.reply_received() {
            self.task.abort();
        }
    }
}

struct Pump {
    inner: Arc<Inner>,
    body: ResponseBody,
    parser: SseParser,
    tx: mpsc::Sender<Result<Message, HttpError>>,
    shared: Arc<Shared>,
    cancel: Cancel,
    /// Held until the reply arrives (the concurrent-request limit).
    permit: Option<Permit>,
    kind: StreamKind,
    request_id: Option<RequestId>,
    last_id: LastId,
    /// The 2025-11-25 session the stream was opened in: it is resumed only
    /// in that session, never in one that replaced it.
    session: Option<http::HeaderValue>,
    retry: Option<Duration>,
    /// Set when the reply arrives: the stream is read until its end or
    /// this instant, whichever comes first.
    drain_until: Option<Instant>,
    /// The reader dropped its [`ResponseStream`] after the reply.
    reader_gone: bool,
}

impl Pump {
    async fn run(mut self, queued: Vec<Queued>, fault: Option<SseError>) {
        let result = match self.deliver_prelude(queued, fault).await {
            Ok(()) => self.pump().await,
            Err(err) => Err(err),
        };
        let tx = self.tx.clone();
        let reader_gone = self.reader_gone;
        // Close the HTTP stream and release the permit before reporting.
        drop(self);
        if let Err(err) = result
            && !reader_gone
        {
            let _ = tx.send(Err(err)).await;
        }
    }

    fn reply_seen(&self) -> bool {
        self.shared.reply_seen.load(Ordering::Acquire)
    }

    async fn pump(&mut self) -> Result<(), HttpError> {
        let mut failures = 0u32;
        loop {
            let progressed = self.read_to_end().await?;
            if self.reply_seen() {
                return Ok(());
            }
            let version = match &self.kind {
                StreamKind::Post { .. } if self.request_id.is_none() => return Ok(()),
                StreamKind::Post { resumable, version } => {
                    if !*resumable || self.last_id.get().is_none() {
                        return Err(HttpError::StreamEnded);
                    }
                    version.clone()
                }
                StreamKind::ServerStream { version } => version.clone(),
            };
            if progressed {
                failures = 0;
            }
            match self.reconnect(&mut failures, version.as_ref()).await? {
                Some(body) => {
                    self.body = body;
                    self.parser = event_parser(&self.inner.config);
                }
                None if matches!(self.kind, StreamKind::ServerStream { .. }) => return Ok(()),
                None => return Err(HttpError::StreamEnded),
            }
        }
    }

    /// Reads the current body to its end; returns whether any event came.
    async fn read_to_end(&mut self) -> Result<bool, HttpError> {
        let mut progressed = false;
        let mut events = Vec::new();
        loop {
            let draining = self.drain_until;
            let reader_gone = self.reader_gone;
            let frame = tokio::select! {
                biased;
                err = self.cancel.cancelled() => return Err(err),
                () = self.tx.closed(), if !reader_gone => {
                    if !self.reply_seen() {
                        return Err(HttpError::Cancelled);
                    }
                    self.reader_gone = true;
                    continue;
                }
                () = sleep_until(draining.unwrap_or_else(Instant::now)), if draining.is_some() => {
                    return Ok(progressed);
                }
                frame = self.body.frame() => frame,
            };
            let frame = match frame {
                None => return Ok(progressed),
                Some(Err(err)) => {
                    tracing::debug!(%err, "event stream broke");
                    return Ok(progressed);
                }
                Some(Ok(frame)) => frame,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let fed = self.parser.feed(&data, &mut events);
            self.note_parser();
            for event in events.drain(..) {
                progressed = true;
                self.deliver(event).await?;
            }
            fed?;
        }
    }

    /// Reads one event ([`inline::read_event`]). A broken reply to this
    /// stream's request ends the stream (and so that request) now, with the
    /// envelope's faults, not at its deadline. Another broken message is
    /// passed on as a non-final [`HttpError::InvalidEnvelope`] item and the
    /// stream goes on; anything else that is not a message is dropped.
    async fn deliver(&mut self, event: SseEvent) -> Result<(), HttpError> {
        let check = self.inner.config.check_envelopes;
        let read = inline::read_event(event, self.request_id.as_ref(), check);
        self.act(read).await
    }

    /// Keeps the parser's last (non-empty) event id and retry delay: the
    /// stream's own outlive the parser, replaced at each reconnection.
    fn note_parser(&mut self) {
        if let Some(id) = self.parser.last_event_id()
            && !id.is_empty()
            && self.last_id.get() != Some(id)
        {
            self.last_id.set(id);
        }
        if let Some(retry) = self.parser.retry() {
            self.retry = Some(retry);
        }
    }

    /// Acts on one event read: a message is forwarded, a broken one that
    /// is not the reply is reported and the stream goes on, a broken reply
    /// ends the stream.
    async fn act(&mut self, read: Read) -> Result<(), HttpError> {
        match read {
            Read::Skip => Ok(()),
            Read::Message(message) => self.forward(message).await,
            Read::Broken(err) => self.send(Err(err)).await,
            Read::BrokenReply(err) => Err(err),
        }
    }

    /// Delivers what was read before the pump started.
    async fn deliver_prelude(
        &mut self,
        queued: Vec<Queued>,
        fault: Option<SseError>,
    ) -> Result<(), HttpError> {
        for item in queued {
            match item {
                Queued::Read(read) => self.act(read).await?,
                Queued::Event(event) => self.deliver(event).await?,
            }
        }
        fault.map_or(Ok(()), |fault| Err(fault.into()))
    }

    async fn forward(&mut self, message: Message) -> Result<(), HttpError> {
        if self.is_reply(&message) {
            self.shared.reply_seen.store(true, Ordering::Release);
            self.drain_until = Some(Instant::now() + self.inner.config.reply_grace);
            self.permit = None;
        }
        self.send(Ok(message)).await
    }

    /// Hands one item to the reader, unless it is gone.
    async fn send(&mut self, item: Result<Message, HttpError>) -> Result<(), HttpError> {
        if self.reader_gone {
            return Ok(());
        }
        tokio::select! {
            biased;
            err = self.cancel.cancelled() => Err(err),
            sent = self.tx.send(item) => {
                if sent.is_err() {
                    if !self.reply_seen() {
                        return Err(HttpError::Cancelled);
                    }
                    self.reader_gone = true;
                }
                Ok(())
            }
        }
    }

    fn is_reply(&self, message: &Message) -> bool {
        self.request_id
            .as_ref()
            .is_some_and(|expected| inline::is_reply(message, expected))
    }

    /// Waits and GETs with `Last-Event-ID` until a stream opens (`Some`),
    /// the server has none (`None`, `405`), or the attempts run out.
    async fn reconnect(
        &mut self,
        failures: &mut u32,
        version: Option<&ProtocolVersion>,
    ) -> Result<Option<ResponseBody>, HttpError> {
        let policy = self.inner.config.reconnect;
        loop {
            let delay = policy.delay(self.retry);
            if *failures >= policy.max_attempts {
                return Err(HttpError::ResumeFailed {
                    attempts: *failures,
                    last_delay: delay,
                });
            }
            *failures += 1;
            tokio::select! {
                biased;
                err = self.cancel.cancelled() => return Err(err),
                () = sleep(delay) => {}
            }
            // Events belong to their session: once it expired or was
            // replaced, there is nothing to resume (and resuming with the new
            // id would make the server end the new session).
            if self.inner.session.id() != self.session {
                return Err(HttpError::StreamEnded);
            }
            let inner = self.inner.clone();
            let attempt = inner.open_get(self.last_id.get(), version);
            let result = tokio::select! {
                biased;
                err = self.cancel.cancelled() => return Err(err),
                result = attempt => result,
            };
            match result {
                Ok(body) => return Ok(body),
                Err(err)
                    if err.fault() == Fault::Network
                        || err.status().is_some_and(|s| s.is_server_error()) =>
                {
                    tracing::debug!(%err, "reconnecting the event stream failed");
                }
                Err(err) => return Err(err),
            }
        }
    }
}

//! A POST's event stream read by the POST itself, up to its reply.
//!
//! Most event streams that answer a request carry nothing but its reply
//! (in the 2025-11-25 era after a priming event that only sets an id and
//! a retry delay), and the server ends them right after it. Such a stream
//! needs no pump: the POST's own future reads it, and its reply is the
//! POST's [`Reply::Message`](crate::Reply::Message), as a JSON body's is.
//!
//! Everything else goes to a pump ([`ResponseStream`](super::ResponseStream)),
//! with what was read so far ([`Prelude`]), as soon as it shows:
//!
//! * a message that is not the reply (progress, a log, a request from the
//!   server): handed over at once, not held back until the reply;
//! * the body ending or breaking before the reply: the pump resumes the
//!   stream or fails the request, as for any stream;
//! * a fault in the event stream (an event over its size limit);
//! * a body whose end is not already there when the reply is read: the
//!   pump reads it to its end (for at most the reply grace period), and
//!   delivers the reply first and then anything that still arrives.
//!
//! A broken reply (one that names the request and breaks the JSON-RPC
//! envelope) fails the request at once, as it does from a pump.

use std::future::poll_fn;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use mcp_types::jsonrpc::ReadError;
use mcp_types::{Message, RequestId};

use crate::config::HttpConfig;
use crate::error::HttpError;
use crate::h1::ResponseBody;
use crate::sse::{SseError, SseEvent, SseParser};

/// What reading a POST's event stream in place gave.
pub(crate) enum Inline {
    /// The reply, and the body read to its end (its connection is free).
    Reply(Message),
    /// The stream needs a pump, which starts from here (boxed: a reply,
    /// the common outcome, is moved without its room).
    Pump(Box<Prelude>),
}

/// What was read of a stream before its pump started: the parser (its
/// partial event, last event id and retry delay), what is still to be
/// delivered, in order, and a fault the parser hit after it.
pub(crate) struct Prelude {
    pub(super) parser: SseParser,
    pub(super) queued: Vec<Queued>,
    pub(super) fault: Option<SseError>,
}

/// One thing a [`Prelude`] has to deliver.
pub(super) enum Queued {
    /// An event read already: a message (it may be the reply) or a broken
    /// one that is not the reply.
    Read(Read),
    /// An event not looked at yet.
    Event(SseEvent),
}

/// What one event of a POST's stream is.
pub(super) enum Read {
    /// Not a message (another event type, or no data), or data that is not
    /// JSON-RPC at all (logged and dropped).
    Skip,
    /// A message.
    Message(Message),
    /// A message that breaks the envelope and is not the reply: reported
    /// as a non-final [`HttpError::InvalidEnvelope`] item.
    Broken(HttpError),
    /// The reply, broken: the stream (and so the request) fails with it.
    BrokenReply(HttpError),
}

/// Whether `event` carries a message to read: a `message` event with data.
fn carries_message(event: &SseEvent) -> bool {
    event.is_message() && !event.data.is_empty()
}

/// Reads one event ([`Message::read_own_bytes`]: its data is its own,
/// so the result is a slice of it; strictly when `check`).
pub(super) fn read_event(event: SseEvent, request_id: Option<&RequestId>, check: bool) -> Read {
    if !carries_message(&event) {
        return Read::Skip;
    }
    let data = Bytes::from(event.data);
    match Message::read_own_bytes(&data, check) {
        Ok(message) => Read::Message(message),
        Err(ReadError::Broken { id, violations }) if id.is_some() && id.as_ref() == request_id => {
            Read::BrokenReply(HttpError::InvalidEnvelope { id, violations })
        }
        Err(ReadError::Broken { id, violations }) => {
            tracing::warn!(
                ?violations,
                "a message on the stream breaks the JSON-RPC envelope"
            );
            Read::Broken(HttpError::InvalidEnvelope { id, violations })
        }
        Err(ReadError::Invalid(err)) => {
            tracing::warn!(%err, "ignoring a server-sent event that is not a JSON-RPC message");
            Read::Skip
        }
    }
}

/// Whether `message` answers the request `expected`.
pub(super) fn is_reply(message: &Message, expected: &RequestId) -> bool {
    match message {
        Message::Response(r) => &r.id == expected,
        Message::Error(e) => e.id.as_ref() == Some(expected),
        Message::Request(_) | Message::Notification(_) => false,
    }
}

/// Reads the event stream that answers the request `request_id` up to its
/// reply (see the module docs for when it stops short and hands over).
/// Each piece of the body is parsed where it arrived, in the connection's
/// buffer ([`ResponseBody::poll_visit`]).
///
/// # Errors
/// [`HttpError::InvalidEnvelope`] for a broken reply.
pub(crate) async fn read_to_reply(
    body: &mut ResponseBody,
    request_id: &RequestId,
    config: &HttpConfig,
) -> Result<Inline, HttpError> {
    let mut read = InlineRead {
        parser: super::event_parser(config),
        reply: None,
        request_id,
        check: config.check_envelopes,
    };
    loop {
        let polled = match read.reply {
            None => poll_fn(|cx| body.poll_visit(cx, |piece| read.events(piece))).await,
            // After the reply only what is already there is read: a body
            // that goes on goes to a pump, the reply first.
            Some(_) => {
                let mut cx = Context::from_waker(Waker::noop());
                match body.poll_visit(&mut cx, |piece| read.events(piece)) {
                    Poll::Ready(polled) => polled,
                    Poll::Pending => return read.end(Stop::Pump(Vec::new(), None)),
                }
            }
        };
        match polled {
            Some(Ok(None)) => {}
            Some(Ok(Some(stop))) => return read.end(stop),
            // The end, or a break (then the connection is not reused).
            None | Some(Err(_)) => {
                if let Some(Err(err)) = &polled {
                    tracing::debug!(%err, "event stream broke");
                }
                return match read.reply {
                    Some(reply) => Ok(Inline::Reply(reply)),
                    None => read.end(Stop::Pump(Vec::new(), None)),
                };
            }
        }
    }
}

/// [`read_to_reply`]'s state: the parser and the reply once read.
struct InlineRead<'a> {
    parser: SseParser,
    reply: Option<Message>,
    request_id: &'a RequestId,
    check: bool,
}

/// Why [`read_to_reply`] stops before the body's end.
enum Stop {
    /// The reply is broken: the request fails.
    Broken(HttpError),
    /// A pump takes over, with these to deliver after the reply (if one
    /// was read) and the parser's fault after them.
    Pump(Vec<Queued>, Option<SseError>),
}

impl InlineRead<'_> {
    /// Handles each event in `piece` as it is read (most streams' events
    /// are read without ever being collected); why the read stops short,
    /// once it does (then what is left of `piece` is parsed into the pump's
    /// queue).
    fn events(&mut self, mut piece: &[u8]) -> Option<Stop> {
        loop {
            let event = match self.parser.next_event(&mut piece) {
                Ok(Some(event)) => event,
                Ok(None) => return None,
                Err(fault) => {
                    std::hint::cold_path();
                    return Some(Stop::Pump(Vec::new(), Some(fault)));
                }
            };
            let first = if self.reply.is_some() {
                if !carries_message(&event) {
                    continue;
                }
                std::hint::cold_path();
                Queued::Event(event)
            } else {
                match read_event(event, Some(self.request_id), self.check) {
                    Read::Skip => continue,
                    Read::BrokenReply(err) => {
                        std::hint::cold_path();
                        return Some(Stop::Broken(err));
                    }
                    Read::Message(m) if is_reply(&m, self.request_id) => {
                        self.reply = Some(m);
                        continue;
                    }
                    other => {
                        // A message before the reply: a pump takes over.
                        std::hint::cold_path();
                        Queued::Read(other)
                    }
                }
            };
            let (rest, fault) = rest_of(&mut self.parser, piece);
            let queued = std::iter::once(first)
                .chain(rest.into_iter().map(Queued::Event))
                .collect();
            return Some(Stop::Pump(queued, fault));
        }
    }

    /// The read's end short of the body's: the broken reply's error, or the
    /// pump's prelude (the reply first, if one was read).
    #[cold]
    fn end(self, stop: Stop) -> Result<Inline, HttpError> {
        let (events, fault) = match stop {
            Stop::Broken(err) => return Err(err),
            Stop::Pump(events, fault) => (events, fault),
        };
        let queued = self
            .reply
            .map(|m| Queued::Read(Read::Message(m)))
            .into_iter()
            .chain(events)
            .collect();
        Ok(Inline::Pump(Box::new(Prelude {
            parser: self.parser,
            queued,
            fault,
        })))
    }
}

/// The events left in `chunk` (and a fault after them), for a pump that
/// takes over in the middle of a chunk (out of line: a stream of only its
/// reply never gets here).
#[cold]
#[inline(never)]
fn rest_of(parser: &mut SseParser, chunk: &[u8]) -> (Vec<SseEvent>, Option<SseError>) {
    let mut rest = Vec::new();
    let fault = parser.feed(chunk, &mut rest).err();
    (rest, fault)
}

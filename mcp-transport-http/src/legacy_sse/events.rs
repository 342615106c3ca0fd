//! Reading the HTTP+SSE event stream: first the `endpoint` event, then
//! every server message (responses included) until the stream ends.
//!
//! Events go through the crate's bounded [`SseParser`], so no event may
//! exceed [`Limits::max_event_bytes`](crate::Limits::max_event_bytes).

use crate::h1::ResponseBody;
use bytes::Bytes;
use http::Uri;
use http_body_util::BodyExt;
use mcp_types::Message;
use mcp_types::jsonrpc::ReadError;
use tokio::sync::mpsc;

use super::endpoint::resolve_endpoint;
use super::error::LegacySseError;
use crate::error::HttpError;
use crate::headers::bounded;
use crate::sse::{SseEvent, SseParser};

/// How much of an unexpected event type an error repeats.
const MAX_TYPE_SHOWN: usize = 64;

/// The open event stream: its body and the parser state.
pub(super) struct EventStream {
    pub(super) body: ResponseBody,
    pub(super) parser: SseParser,
    /// Events parsed but not handled yet.
    pub(super) pending: Vec<SseEvent>,
}

/// What reading the next chunk gave.
enum Read {
    Events,
    Ended,
}

impl EventStream {
    /// Reads one more chunk into `pending`.
    async fn read(&mut self) -> Result<Read, LegacySseError> {
        loop {
            let frame = match self.body.frame().await {
                None => return Ok(Read::Ended),
                Some(Err(err)) => return Err(LegacySseError::Stream(HttpError::Body(err))),
                Some(Ok(frame)) => frame,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            self.parser
                .feed(&data, &mut self.pending)
                .map_err(|e| LegacySseError::Stream(HttpError::Sse(e)))?;
            return Ok(Read::Events);
        }
    }

    /// Reads until the first event, which must be `endpoint`; returns the
    /// message URL it names (resolved against `server`, same origin). Events
    /// after it stay in `pending`.
    pub(super) async fn endpoint(&mut self, server: &Uri) -> Result<Uri, LegacySseError> {
        while self.pending.is_empty() {
            if let Read::Ended = self.read().await? {
                return Err(LegacySseError::StreamEnded {
                    before_endpoint: true,
                });
            }
        }
        let first = self.pending.remove(0);
        match first.event.as_deref() {
            Some("endpoint") => Ok(resolve_endpoint(server, &first.data)?),
            other => Err(LegacySseError::NotEndpointFirst {
                found: bounded(other.unwrap_or("message"), MAX_TYPE_SHOWN),
            }),
        }
    }

    /// Hands every server message to `tx` until the stream ends or breaks
    /// (then the reason is the last item) or the receiver is gone.
    pub(super) async fn forward(
        mut self,
        tx: mpsc::Sender<Result<Message, LegacySseError>>,
        check_envelopes: bool,
    ) {
        let end = loop {
            for event in std::mem::take(&mut self.pending) {
                if let Some(message) = message_of(event, check_envelopes)
                    && tx.send(Ok(message)).await.is_err()
                {
                    return;
                }
            }
            let read = tokio::select! {
                biased;
                () = tx.closed() => return,
                read = self.read() => read,
            };
            match read {
                Ok(Read::Events) => {}
                Ok(Read::Ended) => {
                    break LegacySseError::StreamEnded {
                        before_endpoint: false,
                    };
                }
                Err(err) => break err,
            }
        };
        tracing::debug!(error = %end, "the HTTP+SSE event stream is over");
        // Close the connection before reporting.
        drop(self);
        let _ = tx.send(Err(end)).await;
    }
}

/// The JSON-RPC message of one event, if it holds one. Anything else (an
/// event of another type, empty data, a value that is not a message, a
/// broken envelope) is dropped with a log line: on this transport an event
/// names no request, so it cannot fail one.
fn message_of(event: SseEvent, check_envelopes: bool) -> Option<Message> {
    if !event.is_message() {
        tracing::debug!(event = ?event.event, "ignoring a non-message event");
        return None;
    }
    if event.data.is_empty() {
        return None;
    }
    match Message::read_own_bytes(&Bytes::from(event.data), check_envelopes) {
        Ok(message) => Some(message),
        Err(ReadError::Broken { id, violations }) => {
            tracing::warn!(?id, ?violations, "a message breaks the JSON-RPC envelope");
            None
        }
        Err(ReadError::Invalid(err)) => {
            tracing::warn!(%err, "ignoring an event that is not a JSON-RPC message");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: Option<&str>, data: &str) -> SseEvent {
        let mut parser = SseParser::new(1024);
        let mut out = Vec::new();
        let text = match kind {
            Some(k) => format!("event: {k}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        };
        parser.feed(text.as_bytes(), &mut out).expect("parses");
        out.remove(0)
    }

    #[test]
    fn only_message_events_with_a_json_rpc_message_pass() {
        let ping = r#"{"jsonrpc":"2.0","method":"ping","id":1}"#;
        assert!(message_of(ev(None, ping), false).is_some());
        assert!(message_of(ev(Some("message"), ping), false).is_some());
        assert!(message_of(ev(Some("endpoint"), ping), false).is_none());
        assert!(message_of(ev(None, "not json"), false).is_none());
        assert!(message_of(ev(None, r#"{"id":1}"#), false).is_none());
    }
}

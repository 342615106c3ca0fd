//! HTTP response bodies: a complete body, or a Server-Sent Events stream fed
//! from a handler's frames.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame as BodyFrame;
use tokio::sync::mpsc;
use tokio_util::sync::DropGuard;

use crate::dispatch::Frame;

/// A response body.
pub(crate) enum Body {
    /// A complete body (possibly empty).
    Full(Option<Bytes>),
    /// An SSE stream; dropping it (the client went away) fires the guard.
    Stream {
        rx: mpsc::UnboundedReceiver<Bytes>,
        _guard: Option<DropGuard>,
    },
}

impl Body {
    pub(crate) fn empty() -> Body {
        Body::Full(None)
    }

    pub(crate) fn bytes(b: impl Into<Bytes>) -> Body {
        Body::Full(Some(b.into()))
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BodyFrame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Full(b) => Poll::Ready(b.take().map(|b| Ok(BodyFrame::data(b)))),
            Body::Stream { rx, .. } => rx.poll_recv(cx).map(|o| o.map(|b| Ok(BodyFrame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Full(None))
    }
}

/// Event ids of a legacy stream: `<stream>-<n>`, unique per session.
pub(crate) struct EventIds {
    pub(crate) stream: String,
    pub(crate) next: u64,
    pub(crate) retry_ms: u64,
}

impl EventIds {
    fn take(&mut self) -> String {
        let id = format!("{}-{}", self.stream, self.next);
        self.next += 1;
        id
    }
}

/// One SSE event carrying a JSON-RPC message.
pub(crate) fn event(id: Option<String>, msg: &mcp_types::Message) -> Bytes {
    let mut out = Vec::with_capacity(64);
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"event: message\ndata: ");
    // serde_json writes no raw newlines, so one data line suffices.
    let _ = serde_json::to_writer(&mut out, msg);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// Copies frames into SSE events until the final response (or, for
/// streams without one, until the frames end or the client goes away), then
/// hands the frame receiver back. Legacy streams start with a priming event
/// carrying an id and `retry`.
pub(crate) async fn pump(
    first: Option<Frame>,
    mut frames: mpsc::UnboundedReceiver<Frame>,
    out: mpsc::UnboundedSender<Bytes>,
    mut ids: Option<EventIds>,
    keep_alive: Option<Duration>,
) -> mpsc::UnboundedReceiver<Frame> {
    if let Some(ids) = &mut ids {
        let priming = format!("id: {}\nretry: {}\ndata: \n\n", ids.take(), ids.retry_ms);
        if out.send(Bytes::from(priming)).is_err() {
            return frames;
        }
    }
    let mut next = first;
    let period = keep_alive.unwrap_or(Duration::from_secs(3600));
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    loop {
        let frame = match next.take() {
            Some(f) => f,
            None => tokio::select! {
                f = frames.recv() => match f {
                    Some(f) => f,
                    None => return frames,
                },
                _ = tick.tick(), if keep_alive.is_some() => {
                    if out.send(Bytes::from_static(b":\n\n")).is_err() {
                        return frames;
                    }
                    continue;
                }
                () = out.closed() => return frames,
            },
        };
        let (msg, last) = match frame {
            Frame::Notice(m) => (m, false),
            Frame::Final(m, _) => (m, true),
        };
        let id = ids.as_mut().map(EventIds::take);
        if out.send(event(id, &msg)).is_err() || last {
            return frames;
        }
    }
}

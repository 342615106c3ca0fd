//! Bounded reading of response bodies.
//!
//! A body is read to its end so the connection goes back to the pool, but
//! never past a limit: past it the body is dropped (which closes the
//! connection) and a typed error says so.

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Body;
use mcp_types::Message;
use mcp_types::jsonrpc::ReadError;

use crate::error::HttpError;
use crate::headers::bounded;

/// How much of an error body is read when looking for a JSON-RPC message.
pub(crate) const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The most a body's announced length may reserve up front; a larger body
/// grows past it as it arrives (a server cannot make the client allocate
/// by announcing a length it never sends).
pub(crate) const MAX_PRESIZE: usize = 4 * 1024 * 1024;

/// A one-frame body up to this size is copied out of the connection's
/// read buffer, unless its end is known to be read already (the body's
/// size hint says no data is left). The frame is a view of that buffer,
/// and while a view is held the connection cannot reuse the buffer: a read
/// for the rest of the body would allocate a fresh one (`h1/` reads into
/// 8 KiB at a time). A small copy costs less than that allocation; a large
/// body keeps its view. A body whose end is already read needs no copy:
/// its view is gone before the connection reads again, as the message read
/// from it copies a small result out ([`Message::read_bytes`]) and the body
/// is dropped with the exchange.
const COPY_SMALL_BODY: usize = 4 * 1024;

/// Reads the whole body, failing past `limit` bytes. A body that arrives
/// in one frame is returned without a copy when it is large or its end is
/// already read (another small one is copied, see [`COPY_SMALL_BODY`]); otherwise the buffer is sized
/// from `Content-Length` (bounded) so a large body is not copied as it
/// grows.
pub(crate) async fn read_limited<B>(body: &mut B, limit: usize) -> Result<Bytes, HttpError>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let announced = usize::try_from(body.size_hint().lower()).unwrap_or(usize::MAX);
    if announced > limit {
        return Err(HttpError::BodyTooLarge { limit });
    }
    let mut first: Option<Bytes> = None;
    let mut buf = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| HttpError::Body(e.into()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let held = first.as_ref().map_or(0, Bytes::len) + buf.len();
        if held.saturating_add(data.len()) > limit {
            return Err(HttpError::BodyTooLarge { limit });
        }
        match first.take() {
            // Copied at once: the view goes before the body's end, when
            // the connection reads again.
            None if buf.is_empty()
                && data.len() <= COPY_SMALL_BODY
                && body.size_hint().upper() != Some(0) =>
            {
                first = Some(Bytes::copy_from_slice(&data));
            }
            None if buf.is_empty() => first = Some(data),
            None => buf.extend_from_slice(&data),
            Some(head) => {
                buf.reserve(announced.min(MAX_PRESIZE).max(head.len() + data.len()));
                buf.extend_from_slice(&head);
                buf.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| buf.freeze()))
}

/// Reads at most `limit` bytes of the body; a longer or broken body is cut.
pub(crate) async fn read_prefix<B>(body: &mut B, limit: usize) -> Bytes
where
    B: Body<Data = Bytes> + Unpin,
{
    let mut buf = BytesMut::new();
    while let Some(Ok(frame)) = body.frame().await {
        if let Ok(data) = frame.into_data() {
            let room = limit - buf.len();
            if data.len() > room {
                buf.extend_from_slice(&data[..room]);
                break;
            }
            buf.extend_from_slice(&data);
        }
    }
    buf.freeze()
}

/// What an error body says: a bounded text excerpt and the JSON-RPC message
/// it holds, if it holds one.
pub(crate) fn describe_error_body(
    bytes: &[u8],
    max_excerpt: usize,
) -> (String, Option<Box<Message>>) {
    let message = Message::from_slice(bytes).ok().map(Box::new);
    let text = bounded(String::from_utf8_lossy(bytes).trim(), max_excerpt);
    (text, message)
}

/// A whole JSON body, as [`json_reply`] reads it.
pub(crate) enum JsonBody<'a> {
    /// A small body in its connection's buffer
    /// ([`ResponseBody::read_buffered`](crate::h1::ResponseBody::read_buffered)):
    /// what is kept from it is copied ([`Message::read`]).
    InPlace(&'a [u8]),
    /// A body of its own, read whole: a large result is kept as a slice of
    /// it, unparsed until decoded ([`Message::read_bytes`]).
    Own(&'a Bytes),
}

impl JsonBody<'_> {
    /// The body's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            JsonBody::InPlace(bytes) => bytes,
            JsonBody::Own(bytes) => bytes,
        }
    }
}

/// The one JSON-RPC message of an `application/json` reply body: a broken
/// envelope is [`HttpError::InvalidEnvelope`], so the request it names
/// fails as the server's protocol fault; anything else unreadable is
/// [`HttpError::InvalidMessage`].
pub(crate) fn json_reply(body: JsonBody<'_>, check: bool) -> Result<Message, HttpError> {
    let read = match body {
        JsonBody::InPlace(bytes) => Message::read(bytes, check),
        JsonBody::Own(bytes) => Message::read_bytes(bytes, check),
    };
    read.map_err(|e| match e {
        ReadError::Broken { id, violations } => HttpError::InvalidEnvelope { id, violations },
        ReadError::Invalid(e) => HttpError::InvalidMessage(e),
    })
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use hyper::body::{Frame, SizeHint};

    use super::*;

    /// A body of one frame that says, once the frame is taken, whether
    /// anything is left (`ends`: an exact size of zero) or not known.
    struct OneFrame {
        frame: Option<Bytes>,
        ends: bool,
    }

    impl Body for OneFrame {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.frame.take().map(|data| Ok(Frame::data(data))))
        }

        fn size_hint(&self) -> SizeHint {
            match (&self.frame, self.ends) {
                (Some(data), _) => SizeHint::with_exact(data.len() as u64),
                (None, true) => SizeHint::with_exact(0),
                (None, false) => SizeHint::default(),
            }
        }
    }

    /// A small body is copied out of the buffer it is a view of unless
    /// its end is already read; a large one is never copied.
    #[tokio::test]
    async fn a_small_body_is_copied_only_when_its_end_is_still_to_be_read() {
        let small = Bytes::from(vec![b'{'; 100]);
        let large = Bytes::from(vec![b'{'; COPY_SMALL_BODY + 1]);
        for (frame, ends, copied) in [
            (&small, false, true),
            (&small, true, false),
            (&large, false, false),
        ] {
            let mut body = OneFrame {
                frame: Some(frame.clone()),
                ends,
            };
            let read = read_limited(&mut body, usize::MAX).await.expect("read");
            assert_eq!(read, frame);
            assert_eq!(
                read.as_ptr() != frame.as_ptr(),
                copied,
                "{} bytes, ends {ends}",
                frame.len()
            );
        }
    }
}

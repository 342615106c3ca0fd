//! HTTP/1.1 connections, spoken here rather than through hyper: one
//! exchange at a time per connection, the request head written straight
//! from its fields ([`request_head`]), the response head parsed ([`wire`]:
//! by a scan of its own in the shape servers write, by `httparse`
//! otherwise) and the body read from the connection's own buffer as views
//! of it ([`chunked`] decodes in place).
//!
//! The exchange drives its connection itself: there is no task per
//! connection and no channel between a connection and its exchange, so a
//! request and its response cost no wake-up of another task. The socket's
//! readiness wakes the task that waits for the answer (the client's driver,
//! or a response stream's reader), which reads it in the same poll.
//!
//! When the body has been read to its end the connection goes back to the
//! pool ([`Pool::put_back`]), idle and unpolled until the next exchange
//! takes it, unless the response said it would close (`Connection: close`,
//! HTTP/1.0, a body delimited by the close) or the server sent more than
//! the response. A body dropped before its end drops the connection with
//! it (the socket closes). An idle connection the server closed is found
//! out before the next request is written (a read that sees the end of
//! the stream): the request then goes out on another connection, unsent.
//! Nothing that was written is ever sent again.

mod chunked;
mod request_head;
pub(crate) use request_head::Target;
pub(crate) mod wire;

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker, ready};

use bytes::{Buf, Bytes, BytesMut};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::rt::Write;
use mcp_types::Message;

use self::chunked::{Chunked, Piece};
use self::wire::{Framing, Parsed, WireError};
use crate::body::MAX_PRESIZE;
use crate::client::{BoxError, Conn};
use crate::parts::{InResponse, OutRequest, ResponseFields};
use crate::pool::Pool;

/// How much room a read asks for at least (a small response fits at once).
const READ_CHUNK: usize = 8 * 1024;

/// How much room a read of a response head needs before the buffer is
/// made room in (to [`READ_CHUNK`]): the next few responses are read
/// after the last ones (up to 1 KiB of them), and only then is the
/// buffer's start moved back (`BytesMut`'s reclaim, a call to its slow
/// path: every call before, when each head asked for all of
/// `READ_CHUNK`). Not further: with many connections, each buffer's
/// bytes in use stay few enough to stay in the data cache (a walk through
/// all of every buffer cost more than the reclaims it saved).
const HEAD_ROOM: usize = READ_CHUNK - 1024;

/// The largest request body written in one piece with its head (copied
/// after it in the head's buffer); a larger one is written from where it
/// is.
const COALESCE_MAX: usize = 8 * 1024;

/// One HTTP/1.1 connection between exchanges.
pub(crate) struct H1 {
    io: Conn,
    /// Bytes read and not yet consumed.
    buf: BytesMut,
    /// The request head being written (its allocation reused).
    head: Vec<u8>,
    /// Whether it has carried an exchange (a fresh one needs no check that
    /// the server has not closed it).
    used: bool,
    /// Whether the server closed it (or it failed).
    closed: bool,
}

impl H1 {
    /// A connection just opened. Boxed once for its life, so handing it
    /// between the pool and its exchanges moves a pointer.
    pub(crate) fn new(io: Conn) -> Box<Self> {
        Box::new(H1 {
            io,
            buf: BytesMut::new(),
            head: Vec::new(),
            used: false,
            closed: false,
        })
    }

    /// Whether it is known to be closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Reads what is there, without waiting: an idle connection that
    /// reads the end of the stream (or anything at all: a server says
    /// nothing unasked) is closed. Registers no interest worth keeping:
    /// the next poll of an exchange does that.
    fn check_idle(&mut self) -> bool {
        // Nothing seen since the last read: nothing to read now (what the
        // read below would find out, through more layers).
        if !self.io.may_have_input() {
            return true;
        }
        let mut cx = Context::from_waker(Waker::noop());
        match self.io.poll_read_buf(&mut cx, &mut self.buf) {
            Poll::Pending => true,
            Poll::Ready(Ok(_) | Err(_)) => {
                self.closed = true;
                false
            }
        }
    }

    /// Reads more into the buffer, with room for `want` more bytes (up to
    /// [`MAX_PRESIZE`], the bound `body.rs` also presizes to: a server cannot
    /// make the client allocate by announcing a length it never sends);
    /// `Ok(0)` is the end of the stream.
    fn poll_fill(&mut self, cx: &mut Context<'_>, want: usize) -> Poll<io::Result<usize>> {
        let want = want.clamp(1, MAX_PRESIZE);
        if self.buf.capacity() - self.buf.len() < want {
            // Reclaims the buffer in place when no view of it is left.
            self.buf.reserve(want.max(READ_CHUNK));
        }
        let n = ready!(self.io.poll_read_buf(cx, &mut self.buf));
        if !matches!(n, Ok(n) if n > 0) {
            self.closed = true;
        }
        Poll::Ready(n)
    }

    /// Writes the head (already in `self.head`, with a small body after it)
    /// and the body (a large one; empty otherwise), then flushes.
    fn poll_write_request(
        &mut self,
        cx: &mut Context<'_>,
        written: &mut usize,
        body: &[u8],
    ) -> Poll<io::Result<()>> {
        let total = self.head.len() + body.len();
        while *written < total {
            let (head, rest) = if *written < self.head.len() {
                (&self.head[*written..], body)
            } else {
                (&[][..], &body[*written - self.head.len()..])
            };
            let n = if head.is_empty() {
                ready!(Pin::new(&mut self.io).poll_write(cx, rest))?
            } else if rest.is_empty() || !self.io.is_write_vectored() {
                ready!(Pin::new(&mut self.io).poll_write(cx, head))?
            } else {
                let bufs = [io::IoSlice::new(head), io::IoSlice::new(rest)];
                ready!(Pin::new(&mut self.io).poll_write_vectored(cx, &bufs))?
            };
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Pin::new(&mut self.io).poll_flush(cx)
    }

    /// Reads until the final response head is whole, skipping `1xx`.
    fn poll_head(
        &mut self,
        cx: &mut Context<'_>,
        fields: ResponseFields,
    ) -> Poll<Result<wire::Head, BoxError>> {
        // Nothing to parse before the first bytes.
        if self.buf.is_empty() && ready!(self.poll_fill(cx, HEAD_ROOM))? == 0 {
            return Poll::Ready(Err(WireError::Closed.into()));
        }
        loop {
            match wire::parse_head(&mut self.buf, fields)? {
                Parsed::Final(head) => return Poll::Ready(Ok(head)),
                Parsed::Interim => {}
                Parsed::Partial => {
                    if ready!(self.poll_fill(cx, HEAD_ROOM))? == 0 {
                        return Poll::Ready(Err(WireError::Closed.into()));
                    }
                }
            }
        }
    }
}

/// One exchange on an HTTP/1.1 connection: its request written into the
/// connection's buffer when it starts ([`Exchange::start`]: the request is
/// read where it is, not moved here), then written out and the final
/// response head read by [`Exchange::poll_head`]; the exchange holds a
/// view of the body (borrowed from the sender), not the request. A request
/// the connection cannot start (the server closed it while idle) stays the
/// caller's; once written, a failure is the request's
/// ([`SendError::Failed`]). Dropping it drops the connection (the socket
/// closes).
///
/// [`SendError::Failed`]: crate::pool::SendError::Failed
pub(crate) struct Exchange {
    h1: Box<H1>,
    /// How much of the request has gone out.
    written: usize,
    /// All of it: the response head is read.
    sent: bool,
    /// The request's body is written from where it is (it did not fit
    /// the head's buffer), not from the buffer.
    body_apart: bool,
    fields: ResponseFields,
}

impl Exchange {
    /// Starts `request` on the idle connection `h1`: its head written into
    /// the connection's buffer, with the body when it is small. `None`
    /// when the connection is found closed (it is dropped; the request was
    /// not started).
    pub(crate) fn start(
        mut h1: Box<H1>,
        request: &OutRequest<'_>,
        target: &Target,
    ) -> Option<Self> {
        if h1.used && !h1.check_idle() {
            return None;
        }
        request_head::encode_head(
            &mut h1.head,
            &request.method,
            target,
            &request.post,
            &request.headers,
            request.body.len(),
        );
        // A small body goes out in one write with its head (one `send`,
        // not a `writev` of two pieces; over TLS one record, not two); a
        // large one is written from where it is, not copied.
        let body_apart = request.body.len() > COALESCE_MAX;
        if !body_apart {
            h1.head.extend_from_slice(request.body);
        }
        h1.used = true;
        Some(Exchange {
            h1,
            written: 0,
            sent: false,
            body_apart,
            fields: request.response_fields,
        })
    }

    /// Writes the request (`body` is its body, the one it started with),
    /// then reads until the final response head is whole.
    pub(crate) fn poll_head(
        &mut self,
        cx: &mut Context<'_>,
        body: &[u8],
    ) -> Poll<Result<wire::Head, BoxError>> {
        let h1 = &mut self.h1;
        if !self.sent {
            let body = if self.body_apart { body } else { &[] };
            ready!(h1.poll_write_request(cx, &mut self.written, body))?;
            self.sent = true;
        }
        h1.poll_head(cx, self.fields)
    }

    /// Writes the request (`body`, the one it started with) and reads its
    /// response's head: the response, whose body holds the connection
    /// until it goes back to `pool`. Once written to, a connection's
    /// failure is the request's: nothing here gives the request back
    /// unsent.
    pub(crate) async fn respond(
        mut self,
        body: &[u8],
        pool: Arc<Pool>,
    ) -> Result<InResponse, BoxError> {
        let head = poll_fn(|cx| self.poll_head(cx, body)).await?;
        Ok(self.response(head, pool))
    }

    /// The response after its `head`: its body holds the connection, which
    /// goes back to `pool` at the body's end.
    pub(crate) fn response(self, head: wire::Head, pool: Arc<Pool>) -> InResponse {
        ResponseBody::h1(head, self.h1, pool)
    }
}

/// What is left to read of an HTTP/1.1 body.
enum Reading {
    /// This many bytes of a `Content-Length` body.
    Length(u64),
    Chunked(Chunked),
    /// Until the server closes the connection.
    UntilClose,
}

/// An HTTP/1.1 body being read, with the connection it arrives on.
struct H1Body {
    conn: Box<H1>,
    pool: Arc<Pool>,
    reading: Reading,
    keep_alive: bool,
}

/// A response body: over HTTP/1.1 read here from the connection it
/// arrives on, which goes back to the pool once the body has ended;
/// over HTTP/2 hyper's. Dropping it before its end closes an HTTP/1.1
/// connection.
pub(crate) struct ResponseBody {
    kind: Kind,
}

enum Kind {
    H1(H1Body),
    H2(Incoming),
    /// Ended (or empty from the start).
    Done,
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            Kind::H1(_) => "http1",
            Kind::H2(_) => "http2",
            Kind::Done => "ended",
        };
        f.debug_struct("ResponseBody").field("kind", &kind).finish()
    }
}

impl ResponseBody {
    /// The whole body, when all of it is in its connection's buffer
    /// already, within `limit` and shorter than [`Message::SHARE_FROM`] (a
    /// `Content-Length` body that came with its head, as most JSON replies
    /// do; an empty one), handed to `read` where it is, without a poll: no
    /// split of the buffer, no shared count taken and dropped (what `read`
    /// keeps, it copies). The connection goes back to the pool after, as
    /// at the body's end. `None` leaves the body as it was, to be read as
    /// a [`Body`]: a larger one is split off the buffer then, so that a
    /// large result is kept as a slice of it, not copied.
    #[inline]
    pub(crate) fn read_buffered<R>(
        &mut self,
        limit: usize,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Option<R> {
        let body = match &mut self.kind {
            Kind::H1(body) => body,
            Kind::Done => return Some(read(&[])),
            Kind::H2(_) => return None,
        };
        let Reading::Length(left) = body.reading else {
            return None;
        };
        let left = usize::try_from(left)
            .ok()
            .filter(|&n| n <= limit && n < Message::SHARE_FROM && n <= body.conn.buf.len())?;
        let out = read(&body.conn.buf[..left]);
        body.conn.buf.advance(left);
        self.end();
        Some(out)
    }

    /// A body whose connection runs elsewhere (HTTP/2's own task).
    pub(crate) fn detached(incoming: Incoming) -> Self {
        ResponseBody {
            kind: Kind::H2(incoming),
        }
    }

    /// The body after `head` on `conn`. A response without a body gives
    /// the connection back at once. `pool` is the exchange's own reference,
    /// moved into the body (no reference count taken for it).
    fn h1(head: wire::Head, conn: Box<H1>, pool: Arc<Pool>) -> InResponse {
        let response = |kind| InResponse {
            status: head.status,
            content_type: head.content_type,
            headers: head.headers,
            body: ResponseBody { kind },
        };
        let reading = match head.framing {
            Framing::Empty => {
                finish(conn, &pool, head.keep_alive);
                return response(Kind::Done);
            }
            Framing::Length(n) => Reading::Length(n),
            Framing::Chunked => Reading::Chunked(Chunked::new()),
            Framing::UntilClose => Reading::UntilClose,
        };
        let body = H1Body {
            conn,
            pool,
            reading,
            keep_alive: head.keep_alive,
        };
        response(Kind::H1(body))
    }
}

/// An exchange is over: the connection goes back to the pool when it may
/// carry another (nothing unread, not closed, not to be closed).
fn finish(conn: Box<H1>, pool: &Arc<Pool>, keep_alive: bool) {
    if keep_alive && !conn.closed && conn.buf.is_empty() {
        pool.put_back(conn);
    }
}

impl H1Body {
    /// The next piece of the body, left in the connection's buffer: its
    /// first `len` bytes, then `then` bytes to skip (a chunk's line end),
    /// both the caller's to consume; `None` at its end
    /// (then the body gives its connection back and this is not called
    /// again).
    fn poll_piece(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(usize, usize), BoxError>>> {
        let conn = &mut self.conn;
        loop {
            let want = match &mut self.reading {
                Reading::Length(0) => return Poll::Ready(None),
                Reading::Length(left) => {
                    if !conn.buf.is_empty() {
                        let n = conn
                            .buf
                            .len()
                            .min(usize::try_from(*left).unwrap_or(usize::MAX));
                        *left -= n as u64;
                        return Poll::Ready(Some(Ok((n, 0))));
                    }
                    usize::try_from(*left).unwrap_or(usize::MAX)
                }
                Reading::Chunked(decoder) => match decoder.next_piece(&mut conn.buf) {
                    Ok(Piece::Data { len, then }) => return Poll::Ready(Some(Ok((len, then)))),
                    Ok(Piece::End) => return Poll::Ready(None),
                    Ok(Piece::NeedMore) => READ_CHUNK,
                    Err(e) => {
                        std::hint::cold_path();
                        return Poll::Ready(Some(Err(e.into())));
                    }
                },
                Reading::UntilClose => {
                    if !conn.buf.is_empty() {
                        return Poll::Ready(Some(Ok((conn.buf.len(), 0))));
                    }
                    READ_CHUNK
                }
            };
            match ready!(conn.poll_fill(cx, want)) {
                Ok(0) if matches!(self.reading, Reading::UntilClose) => {
                    return Poll::Ready(None);
                }
                Ok(0) => {
                    std::hint::cold_path();
                    return Poll::Ready(Some(Err(WireError::Closed.into())));
                }
                Ok(_) => {}
                Err(e) => {
                    std::hint::cold_path();
                    return Poll::Ready(Some(Err(e.into())));
                }
            }
        }
    }
}

impl ResponseBody {
    /// The next piece of the body, read in place by `visit` (over HTTP/1.1
    /// a view of the connection's buffer: no `Bytes` made of it, no count
    /// taken of the buffer; a frame without data is an empty piece): what
    /// `visit` made of it, `Ready(None)` at the end (its connection then
    /// goes back to the pool, as after [`Body::poll_frame`]'s end).
    pub(crate) fn poll_visit<T>(
        &mut self,
        cx: &mut Context<'_>,
        visit: impl FnOnce(&[u8]) -> T,
    ) -> Poll<Option<Result<T, BoxError>>> {
        let polled = match &mut self.kind {
            Kind::H1(body) => ready!(body.poll_piece(cx)).map(|piece| {
                piece.map(|(len, then)| {
                    let visited = visit(&body.conn.buf[..len]);
                    body.conn.buf.advance(len + then);
                    visited
                })
            }),
            Kind::H2(_) | Kind::Done => {
                let frame = ready!(Pin::new(self).poll_frame(cx));
                return Poll::Ready(frame.map(|frame| {
                    frame.map(|frame| visit(frame.data_ref().map_or(&[][..], |d| &d[..])))
                }));
            }
        };
        Poll::Ready(self.after_h1(polled))
    }

    /// What an HTTP/1.1 body's poll gave, with its end handled: a broken
    /// body's connection is not reused, an ended body's goes back to the
    /// pool.
    fn after_h1<T>(&mut self, polled: Option<Result<T, BoxError>>) -> Option<Result<T, BoxError>> {
        match polled {
            Some(Ok(piece)) => Some(Ok(piece)),
            Some(Err(e)) => {
                std::hint::cold_path();
                self.kind = Kind::Done;
                Some(Err(e))
            }
            None => {
                self.end();
                None
            }
        }
    }

    /// The body has ended: an HTTP/1.1 connection goes back to the pool
    /// when it may carry another exchange.
    #[inline]
    fn end(&mut self) {
        if let Kind::H1(body) = std::mem::replace(&mut self.kind, Kind::Done) {
            finish(body.conn, &body.pool, body.keep_alive);
        }
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        let polled = match &mut this.kind {
            Kind::Done => return Poll::Ready(None),
            Kind::H2(incoming) => {
                return Pin::new(incoming).poll_frame(cx).map_err(Into::into);
            }
            Kind::H1(body) => ready!(body.poll_piece(cx)).map(|piece| {
                piece.map(|(len, then)| {
                    let data = body.conn.buf.split_to(len).freeze();
                    body.conn.buf.advance(then);
                    data
                })
            }),
        };
        Poll::Ready(this.after_h1(polled).map(|data| data.map(Frame::data)))
    }

    #[inline]
    fn is_end_stream(&self) -> bool {
        // Until the end has been polled the connection is still lent.
        match &self.kind {
            Kind::Done => true,
            Kind::H2(incoming) => incoming.is_end_stream(),
            Kind::H1(_) => false,
        }
    }

    #[inline]
    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Done => SizeHint::with_exact(0),
            Kind::H2(incoming) => incoming.size_hint(),
            Kind::H1(H1Body {
                reading: Reading::Length(n),
                ..
            }) => SizeHint::with_exact(*n),
            // No data left, and the end already read: the body's end is
            // polled without reading from the connection again.
            Kind::H1(H1Body {
                reading: Reading::Chunked(decoder),
                conn,
                ..
            }) if decoder.ends_within(&conn.buf) => SizeHint::with_exact(0),
            Kind::H1(_) => SizeHint::default(),
        }
    }
}

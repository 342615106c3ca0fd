//! HTTP/1.1 connections driven by the exchange that uses them.
//!
//! hyper splits a connection into a sending half and the connection
//! future that does its reads and writes; the usual way is a task per
//! connection that polls the latter. Here nobody spawns it: an HTTP/1.1
//! connection carries one exchange at a time, so the exchange itself polls
//! the connection while it waits for the response head ([`send`]) and while
//! its body is read ([`ResponseBody`]). A request and its response then cost
//! no wake-up of another task: the socket's readiness wakes the task that
//! waits for the answer (the client's driver, or a response stream's
//! reader), which does the I/O and reads the answer in the same poll.
//!
//! When the body has been read to its end the connection goes back to the
//! pool ([`Pool::put_back`]), idle and unpolled until the next exchange
//! takes it. A body dropped before its end drops the connection with it
//! (the socket closes, as hyper does for an unfinished body). An idle
//! connection the server closed is found out by the next exchange: its
//! first poll reads the end of the stream before writing, and hyper gives
//! the request back unsent, to go out on another connection.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::client::conn::{TrySendError, http1};

use crate::client::{Conn, RequestBody};
use crate::pool::Pool;

/// One HTTP/1.1 connection: its sending half and the connection future,
/// polled by whoever uses it.
pub(crate) struct H1 {
    sender: http1::SendRequest<RequestBody>,
    /// `None` once the connection future has finished (closed or failed).
    conn: Option<http1::Connection<Conn, RequestBody>>,
}

impl H1 {
    /// A connection just handshaken, not yet polled. Boxed once for its
    /// life (hyper's connection state with its buffers is large), so
    /// handing it between the pool and its exchanges moves a pointer.
    pub(crate) fn new(
        sender: http1::SendRequest<RequestBody>,
        conn: http1::Connection<Conn, RequestBody>,
    ) -> Box<Self> {
        Box::new(H1 {
            sender,
            conn: Some(conn),
        })
    }

    /// Does the connection's pending reads and writes (the socket's
    /// readiness wakes `cx`'s task for more).
    fn drive(&mut self, cx: &mut Context<'_>) {
        if let Some(conn) = &mut self.conn
            && let Poll::Ready(result) = Pin::new(conn).poll(cx)
        {
            if let Err(e) = result {
                tracing::debug!(error = %e, "HTTP/1.1 connection ended");
            }
            self.conn = None;
        }
    }

    /// Whether it is open and ready for a request (the previous response,
    /// if any, was read to its end).
    pub(crate) fn is_idle(&self) -> bool {
        self.conn.is_some() && !self.sender.is_closed() && self.sender.is_ready()
    }

    /// Whether it is known to be closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.conn.is_none() || self.sender.is_closed()
    }
}

/// Sends `request` (target and `Host` already set) on `h1` and polls the
/// connection until the response head arrives. The response body keeps
/// the connection ([`ResponseBody`]). A request the connection could not
/// start comes back inside the error ([`TrySendError::take_message`]).
///
/// The request is handed to the connection now, not at the first poll:
/// the future (part of every POST's) then holds no copy of it. hyper's
/// wait for the head is boxed: it has room for the request (given back
/// in its error), and pinned in place inside this future it would be
/// held twice (as captured, and pinned), making every POST's future,
/// and each move of it, that much larger.
pub(crate) fn send(
    pool: &Arc<Pool>,
    mut h1: Box<H1>,
    request: Request<RequestBody>,
) -> impl Future<Output = Result<Response<ResponseBody>, TrySendError<Request<RequestBody>>>> + use<>
{
    let mut sent = Box::pin(h1.sender.try_send_request(request));
    let pool = pool.clone();
    async move {
        let response = poll_fn(|cx| {
            h1.drive(cx);
            sent.as_mut().poll(cx)
        })
        .await?;
        let lease = Lease { h1, pool };
        Ok(response.map(|incoming| ResponseBody {
            incoming,
            lease: Some(lease),
        }))
    }
}

/// A connection lent to one response body, returned at its end.
struct Lease {
    h1: Box<H1>,
    pool: Arc<Pool>,
}

/// A response body: hyper's, plus (over HTTP/1.1) the connection it
/// arrives on, polled as the body is read and returned to the pool once
/// the body has ended. Dropping it before its end closes that connection.
pub(crate) struct ResponseBody {
    incoming: Incoming,
    lease: Option<Lease>,
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseBody")
            .field("http1", &self.lease.is_some())
            .finish_non_exhaustive()
    }
}

impl ResponseBody {
    /// A body whose connection runs elsewhere (HTTP/2's own task).
    pub(crate) fn detached(incoming: Incoming) -> Self {
        ResponseBody {
            incoming,
            lease: None,
        }
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        let mut polled = Pin::new(&mut this.incoming).poll_frame(cx);
        let Some(lease) = &mut this.lease else {
            return polled;
        };
        if polled.is_pending() {
            // What the body waits for is the connection's next read.
            lease.h1.drive(cx);
            polled = Pin::new(&mut this.incoming).poll_frame(cx);
        }
        match &polled {
            Poll::Ready(None) => {
                if let Some(mut lease) = this.lease.take() {
                    // The poll that read the body's end has usually left
                    // the connection idle (ready for the next request);
                    // if not, one more poll lets it settle.
                    if !lease.h1.is_idle() {
                        lease.h1.drive(cx);
                    }
                    if lease.h1.is_idle() {
                        lease.pool.put_back(lease.h1);
                    }
                }
            }
            // A broken body: its connection is not reused.
            Poll::Ready(Some(Err(_))) => this.lease = None,
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        // Until the end has been polled the connection is still lent.
        self.lease.is_none() && self.incoming.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.incoming.size_hint()
    }
}

//! The usual POST, the shorter way: a request with no field but its own
//! (no auth provider, no configured or per-request field, no
//! `Mcp-Param-*`) on an idle HTTP/1.1 connection. Its request is built and
//! written into the connection's buffer before anything is awaited, its
//! response head read by one poll of the exchange ([`Usual::poll_head`]),
//! and its reply read where it lies ([`Inner::read_posted`]): no future
//! of the general way's (`Inner::post`, `Inner::execute`, the pool's
//! send) is made or passed through. A stream is read on in the one box
//! the general way makes for it too ([`Inner::read_stream`]); a response
//! that is not a success, or a body not all there yet, goes on in a boxed
//! future of the general way's own steps; anything else about the request
//! (a field, a provider, no idle connection, HTTP/2) takes the general way
//! from the start.

use std::task::{Context, Poll};

use http::{HeaderMap, HeaderValue};
use mcp_types::routing::HttpRouting;

use super::Inner;
use super::exchange::{Exchange, Posted, Read, answers_nothing, build};
use crate::auth::BoxFuture;
use crate::client::BoxError;
use crate::error::HttpError;
use crate::h1;
use crate::headers::BodyKind;

/// A usual POST under way: its exchange, and the session id it carries.
pub(super) struct Usual {
    exchange: h1::Exchange,
    session: Option<HeaderValue>,
}

impl Usual {
    /// Writes the request (`body`, the one it started with), then reads
    /// until the response head is whole.
    #[inline]
    pub(super) fn poll_head(
        &mut self,
        cx: &mut Context<'_>,
        body: &[u8],
    ) -> Poll<Result<h1::wire::Head, BoxError>> {
        self.exchange.poll_head(cx, body)
    }
}

/// What a usual POST's response head gives.
pub(super) enum Then<'a> {
    /// The POST's outcome.
    Now(Result<Posted, HttpError>),
    /// The rest, to read (boxed: not the usual reply).
    Later(BoxFuture<'a, Result<Posted, HttpError>>),
}

impl Inner {
    /// Starts the POST of `body` the usual way, when it is a usual one
    /// (see the module's doc): its request written into an idle
    /// connection's buffer. `None` leaves it to [`Inner::post`]; an error
    /// is the request's own (a routing text that cannot travel as a
    /// field, a lost session: nothing was sent), as [`Inner::post`] would
    /// give it.
    pub(super) fn start_usual(
        &self,
        body: &[u8],
        routing: &HttpRouting,
        extra: &HeaderMap,
    ) -> Option<Result<Usual, HttpError>> {
        if !extra.is_empty() || !routing.params.is_empty() || !self.runtime.is_unset() {
            return None;
        }
        let session = match self.session_for(routing) {
            Ok(session) => session,
            Err(e) => return Some(Err(e)),
        };
        let mut spec = Exchange::post_only(body, routing);
        let request = match build(&mut spec, false, session.as_ref(), None) {
            Ok((request, _)) => request,
            Err(e) => return Some(Err(e)),
        };
        let exchange = self.pool.start_idle(&request)?;
        Some(Ok(Usual { exchange, session }))
    }

    /// What a usual POST's response `head` (or its failure) gives: the
    /// outcome when the reply came with it, as [`Inner::post`] would read
    /// it; the rest of the general way's reading otherwise.
    pub(super) fn usual_response<'a>(
        &'a self,
        usual: Usual,
        head: Result<h1::wire::Head, BoxError>,
        routing: &'a HttpRouting,
    ) -> Then<'a> {
        let head = match head {
            Ok(head) => head,
            Err(e) => return Then::Now(Err(HttpError::Network(e))),
        };
        let Usual { exchange, session } = usual;
        let response = exchange.response(head, self.pool.clone());
        if !response.status.is_success() {
            std::hint::cold_path();
            return Then::Later(Box::pin(async move {
                Err(self.refused(response, session.as_ref()).await)
            }));
        }
        match self.read_posted(response, session.as_ref(), routing) {
            Read::Now(posted) => Then::Now(posted),
            // A stream (a 2025-11-25 server's usual reply) in the one box
            // the general way makes for it too.
            Read::Later(body, status, BodyKind::EventStream) if !answers_nothing(status) => {
                Then::Later(self.read_stream(body, routing))
            }
            Read::Later(body, status, kind) => {
                std::hint::cold_path();
                Then::Later(Box::pin(self.read_reply(body, status, kind, routing)))
            }
        }
    }
}

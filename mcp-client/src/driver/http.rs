//! HTTP exchanges inside the driver: POSTs, response streams and the
//! 2025-11-25 GET stream, each a future in the driver's `http_io` set, and
//! how their outcomes (and failures) reach the core.

use std::future::Future;
use std::sync::LazyLock;
use std::time::Instant;

use mcp_transport_http::{HttpError, HttpTransport, PostSlot, Reply, ResponseStream};
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::routing::HttpRouting;
use mcp_types::{Message, RequestId};

use super::Driver;
use super::get_stream::GetIo;
use crate::handlers::BoxFuture;
use crate::transport::Link;

/// A POST that has its place and is about to be sent.
pub(super) struct Admitted {
    http: HttpTransport,
    slot: PostSlot,
    bytes: Vec<u8>,
    routing: HttpRouting,
    /// The call's extra headers, when it has any (most calls have none:
    /// nothing is made, moved or dropped for them).
    headers: Option<Box<http::HeaderMap>>,
}

/// One finished HTTP step.
pub(super) enum HttpIo {
    /// A POST left the transport's queue: it is sent now.
    Admitted(Box<Admitted>),
    Posted {
        id: Option<RequestId>,
        result: Result<Reply, HttpError>,
        /// The request's buffer, read in place by the transport and given
        /// back for the core's next request (empty when it was not sent).
        spent: Vec<u8>,
    },
    Item {
        id: Option<RequestId>,
        stream: ResponseStream,
        item: Option<Result<Message, HttpError>>,
    },
    /// A step of the 2025-11-25 GET stream (`get_stream.rs`).
    Get(GetIo),
}

impl Driver {
    pub(super) fn on_http(&mut self, now: Instant, io: HttpIo) {
        match io {
            HttpIo::Admitted(a) => {
                if let Some(id) = &a.routing.request_id {
                    self.conn.handle_request_sent(now, id);
                }
                self.http_io.push(send_in(*a));
            }
            HttpIo::Posted { id, result, spent } => {
                if let Some(n) = id.as_ref().and_then(RequestId::as_number) {
                    self.unregistered.remove(n);
                }
                self.conn.recycle(spent);
                self.on_posted(now, id, result);
            }
            HttpIo::Item { id, stream, item } => match item {
                Some(Ok(m)) => {
                    self.receive(now, m);
                    self.http_io.push(read_next(id, stream));
                }
                // A broken message that is not this stream's reply: the
                // core hears of it and the stream goes on (it ends by
                // itself, with `None`, when the broken one was its reply).
                Some(Err(e @ HttpError::InvalidEnvelope { .. })) => {
                    self.http_failed(now, id.as_ref(), e);
                    self.http_io.push(read_next(id, stream));
                }
                Some(Err(e)) => self.http_failed(now, id.as_ref(), e),
                None => {
                    if let Some(id) = id {
                        self.conn.handle_stream_closed(now, &id);
                    }
                }
            },
            HttpIo::Get(io) => self.on_get_io(now, io),
        }
    }

    /// A POST's end: its reply to the core, its stream read on.
    fn on_posted(&mut self, now: Instant, id: Option<RequestId>, result: Result<Reply, HttpError>) {
        match result {
            // A request answered with an empty 202: the core fails it as
            // the server's protocol violation.
            Ok(Reply::Accepted) => {
                if let Some(id) = id {
                    self.conn.handle_accepted_without_body(now, &id);
                }
            }
            Ok(Reply::Message(m)) => self.receive(now, m),
            Ok(Reply::Stream(s)) => {
                self.http_io.push(read_next(id, s));
            }
            Ok(_) => {}
            Err(e) => self.http_failed(now, id.as_ref(), e),
        }
    }

    pub(super) fn http_failed(&mut self, now: Instant, id: Option<&RequestId>, e: HttpError) {
        let body_error = |m: Option<&Message>| -> Option<ErrorObject> {
            match m {
                Some(Message::Error(e)) => Some(e.error.clone()),
                _ => None,
            }
        };
        match &e {
            HttpError::Cancelled => {}
            // Not sent (its session was gone): the core sends it again in
            // the new session.
            HttpError::SessionLost => match id {
                Some(id) => self.conn.handle_request_unsent(now, id),
                None => {
                    let newer =
                        matches!(&self.link, Some(Link::Http(h)) if h.session_id().is_some());
                    self.conn.handle_session_expired(now, None, newer);
                }
            },
            // The transport forgot the stale id; the core fails the request
            // (not replayed) and starts one fresh `initialize`.
            HttpError::SessionExpired => {
                // A transport that holds a session id after a 404 has already
                // adopted a newer session: the core then treats the 404 as a
                // late answer and starts no new session.
                let newer = matches!(&self.link, Some(Link::Http(h)) if h.session_id().is_some());
                self.conn.handle_session_expired(now, id, newer);
            }
            // A broken reply fails its request at once, as the peer's
            // protocol fault (in either mode).
            HttpError::InvalidEnvelope { id, violations } => {
                tracing::warn!(error = %e, "the server broke the JSON-RPC envelope");
                self.conn
                    .handle_envelope_violation(now, id.as_ref(), violations.clone());
            }
            HttpError::Status { status, .. } | HttpError::Unauthorized { status, .. } => {
                let error = body_error(e.jsonrpc_message());
                let recovering = self.conn.is_recovering_session();
                self.conn.handle_http_error(now, id, status.as_u16(), error);
                // The core read the answer as an ended session (a `400` that
                // names it): the transport forgets the stale id, as a `404`
                // makes it do, so the fresh `initialize` goes out without it.
                if !recovering
                    && self.conn.is_recovering_session()
                    && let Some(Link::Http(http)) = &self.link
                {
                    http.clear_session();
                }
                // The challenge's summary reaches the caller: the core only
                // knows the status.
                if matches!(e, HttpError::Unauthorized { .. }) {
                    self.keep_cause(id, e);
                }
            }
            _ => {
                tracing::debug!(error = %e, "HTTP exchange failed");
                self.last_transport_error = Some(e.to_string());
                // Keep the typed error: the core only learns that the
                // stream closed, the caller gets this as the cause.
                self.keep_cause(id, e);
                if let Some(id) = id {
                    self.conn.handle_stream_closed(now, id);
                }
            }
        }
    }

    /// Keeps `e` as the cause of the request `id` fails with, or (no such
    /// pending call: `connect`'s requests) of the next connect failure.
    fn keep_cause(&mut self, id: Option<&RequestId>, e: HttpError) {
        match id.and_then(|id| self.pending.get_mut(id)) {
            Some(p) => p.rare_mut().cause = Some(e),
            None => self.last_http_error = Some(e),
        }
    }
}

impl Driver {
    /// Starts one POST. When the transport has a place for it now (the
    /// usual case) the core starts the request's deadline at once and the
    /// POST is one future from send to reply; otherwise it first waits for
    /// a place ([`HttpIo::Admitted`], when the deadline starts), then sends.
    pub(super) fn post(
        &mut self,
        now: Instant,
        http: HttpTransport,
        bytes: Vec<u8>,
        routing: HttpRouting,
        headers: Option<Box<http::HeaderMap>>,
    ) {
        // A POST that ends with its request's reply may be read by its
        // caller (`direct.rs`), and is cancelled by dropping its future: it
        // is not registered for the transport's cancellation. One that
        // carries nothing but that reply (2026-07-28) freely; one whose
        // stream may carry the server's requests first (2025-11-25) only
        // between two of the driver's looks (`looked`): a caller that
        // stops polling its call holds those up for one look at most.
        let readable = match &routing.request_id {
            Some(RequestId::Number(n)) if routing.ends_with_its_reply() => Some(*n),
            _ => None,
        };
        let looked = !routing.only_its_reply();
        let reserved = match readable {
            Some(_) => http.try_reserve_unregistered(&routing),
            None => http.try_reserve(&routing),
        };
        let a = match reserved {
            Some(Ok(slot)) => Admitted {
                http,
                slot,
                bytes,
                routing,
                headers,
            },
            Some(Err(e)) => {
                std::hint::cold_path();
                let id = routing.request_id;
                self.http_io.push(Box::pin(async move {
                    HttpIo::Posted {
                        id,
                        result: Err(e),
                        spent: Vec::new(),
                    }
                }));
                return;
            }
            None => {
                // Every place taken: waits its turn (rare but under load).
                std::hint::cold_path();
                self.http_io
                    .push(wait_to_post(http, bytes, routing, headers));
                return;
            }
        };
        if let Some(id) = &a.routing.request_id {
            self.conn.handle_request_sent(now, id);
        }
        if !looked
            && let Some(n) = readable
            && self.direct_start != 0
            && self.handoff.is_none()
            && self.pending.addr_of(n) == Some(self.direct_start)
        {
            // Its caller holds it (`direct.rs`): no slot, no ownership.
            self.handoff = Some(send_in(a));
            return;
        }
        let index = self.http_io.push(send_in(a));
        if let Some(n) = readable {
            self.unregistered.insert(n, index);
        }
        self.last_post = readable.map(|n| (n, index, looked));
    }
}

/// A POST that must wait for a place among the transport's concurrent
/// POSTs: waits ([`HttpIo::Admitted`]), then is sent with [`send_in`].
fn wait_to_post(
    http: HttpTransport,
    bytes: Vec<u8>,
    routing: HttpRouting,
    headers: Option<Box<http::HeaderMap>>,
) -> BoxFuture<'static, HttpIo> {
    Box::pin(async move {
        match http.reserve(&routing).await {
            Ok(slot) => HttpIo::Admitted(Box::new(Admitted {
                http,
                slot,
                bytes,
                routing,
                headers,
            })),
            Err(e) => HttpIo::Posted {
                id: routing.request_id,
                result: Err(e),
                spent: Vec::new(),
            },
        }
    })
}

/// The extra headers of a call that has none (most calls).
static NO_HEADERS: LazyLock<http::HeaderMap> = LazyLock::new(http::HeaderMap::new);

fn send_in(a: Admitted) -> BoxFuture<'static, HttpIo> {
    boxed_in_place(Box::new_uninit(), posting(a))
}

/// A POST's future, to be boxed. The `Admitted` is taken apart before the
/// future is made: it then holds each part once (not the whole `Admitted`
/// beside the parts it was split into). A call's extra headers are boxed
/// when it has any (`Admitted::headers`): the future stays small enough
/// for the allocator's quick sizes (`tests::POST_FUTURE_MAX`). The
/// request's buffer is lent to the transport and comes back with the
/// outcome, for the core to encode its next request into (no allocation,
/// no shared count, no free).
#[inline(always)]
fn posting(a: Admitted) -> impl Future<Output = HttpIo> + Send + 'static {
    let Admitted {
        http,
        slot,
        bytes,
        routing,
        headers,
    } = a;
    async move {
        let headers = headers.as_deref().unwrap_or(&NO_HEADERS);
        let result = http.send_in(slot, &bytes, &routing, headers).await;
        HttpIo::Posted {
            id: routing.request_id,
            result,
            spent: bytes,
        }
    }
}

/// `future` written into `room`, allocated before the future was made:
/// a POST's future is about a kilobyte (its largest state), of which
/// only the captured parts are set when it is made; made into its box,
/// it is not made on the stack and then copied whole.
#[inline(always)]
fn boxed_in_place<F>(
    room: Box<std::mem::MaybeUninit<F>>,
    future: F,
) -> BoxFuture<'static, F::Output>
where
    F: Future + Send + 'static,
{
    let boxed: Box<F> = Box::write(room, future);
    Box::into_pin(boxed)
}

fn read_next(id: Option<RequestId>, mut stream: ResponseStream) -> BoxFuture<'static, HttpIo> {
    Box::pin(async move {
        let item = stream.next().await;
        HttpIo::Item { id, stream, item }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_transport_http::HttpConfig;

    /// The largest POST future glibc serves from its small blocks: a
    /// request of 1,001 bytes or more takes a block of 1,024 bytes or more
    /// (with its 8-byte header, rounded up to 16), a "large" one, whose
    /// allocation past the per-thread cache (32 POSTs in flight outrun its
    /// seven blocks) consolidates the free lists first: ~370 instructions
    /// more per call at 1,016 bytes, ~550 at 1,024 (each measured when a
    /// field pushed the future from 1,000 bytes).
    const POST_FUTURE_MAX: usize = 1000;

    #[test]
    fn a_post_future_stays_small() {
        let config = HttpConfig::new("http://127.0.0.1:1/mcp").expect("config");
        let http = HttpTransport::new(config).expect("transport");
        let routing = HttpRouting::new(mcp_types::ProtocolVersion::V2025_11_25)
            .with_method("tools/call")
            .with_request_id(RequestId::Number(1));
        let slot = http.try_reserve(&routing).expect("a permit").expect("open");
        let future = posting(Admitted {
            http,
            slot,
            bytes: b"{}".to_vec(),
            routing,
            headers: None,
        });
        let size = std::mem::size_of_val(&future);
        assert!(
            size <= POST_FUTURE_MAX,
            "a POST's future is {size} bytes, over {POST_FUTURE_MAX}: see POST_FUTURE_MAX"
        );
    }
}

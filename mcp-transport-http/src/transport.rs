//! [`HttpTransport`]: one MCP endpoint, one connection pool.
//!
//! Every message is a POST of bytes the core serialized, with headers
//! rendered from its [`HttpRouting`]. The answer is a [`Reply`]: `202`
//! (nothing to read), one message (a JSON body, or an event stream of
//! nothing but the reply), or a [`ResponseStream`] of messages in arrival
//! order (progress, logs, server requests, then the reply).

use std::future::poll_fn;
use std::sync::Arc;

use crate::permits::{Permit, Permits};
use bytes::Bytes;
use http::HeaderMap;
use mcp_types::routing::HttpRouting;
use mcp_types::{Era, Message, ProtocolVersion, RequestId};

use crate::cancel::{Cancel, Registry};
use crate::client::Connector;
use crate::config::HttpConfig;
use crate::error::HttpError;
use crate::pool::Pool;
use crate::session::{Session, SessionId};
use crate::stream::{ResponseStream, StreamKind};

mod close;
mod exchange;
mod lane;
mod usual;

use exchange::{Exchange, Posted};
use lane::{Lane, Turn};
use usual::Then;

/// A request's place among the transport's concurrent POSTs, from
/// [`HttpTransport::reserve`]: holds its permit (if it needs one) and its
/// cancellation registration (unless it comes from
/// [`HttpTransport::try_reserve_unregistered`]) until it is sent with
/// [`HttpTransport::send_in`] or dropped; a notification's or response's
/// slot holds its turn among them (see [`HttpTransport::send_with`]).
pub struct PostSlot {
    permit: Option<Permit>,
    cancel: Option<Cancel>,
    turn: Option<Turn>,
}

impl std::fmt::Debug for PostSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostSlot")
            .field("permit", &self.permit.is_some())
            .finish_non_exhaustive()
    }
}

/// What the server answered to one POST.
#[derive(Debug)]
#[non_exhaustive]
pub enum Reply {
    /// `202 Accepted` (or another success without a body): nothing to read.
    Accepted,
    /// One message: an `application/json` body, or a `text/event-stream`
    /// that carried nothing but the request's reply and ended with it.
    Message(Message),
    /// A `text/event-stream` of messages: one that carries more than the
    /// reply (progress, logs, server requests), breaks, or stays open
    /// after it.
    Stream(ResponseStream),
}

/// A Streamable HTTP connection to one MCP endpoint, for both eras.
///
/// Cheap to clone: clones share the pool, the session and the limits.
///
/// ```no_run
/// # async fn demo() -> Result<(), mcp_transport_http::HttpError> {
/// use mcp_transport_http::{HttpConfig, HttpTransport, Reply};
/// use mcp_types::{routing::HttpRouting, ProtocolVersion, RequestId};
/// let transport = HttpTransport::new(HttpConfig::new("https://example.com/mcp")?)?;
/// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
/// let routing = HttpRouting::new(ProtocolVersion::V2026_07_28)
///     .with_method("tools/list")
///     .with_request_id(RequestId::Number(1));
/// match transport.send(body.as_slice().into(), &routing).await? {
///     Reply::Accepted => {}
///     Reply::Message(message) => println!("{message:?}"),
///     Reply::Stream(mut stream) => {
///         while let Some(message) = stream.next().await {
///             println!("{:?}", message?);
///         }
///     }
///     _ => {}
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct HttpTransport {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) config: HttpConfig,
    pool: Arc<Pool>,
    pub(crate) session: Session,
    /// Headers and the auth provider, changeable after build.
    pub(crate) runtime: crate::runtime::Runtime,
    permits: Arc<Permits>,
    /// The order of the notifications and responses (`lane.rs`).
    lane: Arc<Lane>,
    /// The requests in flight, by id, and the closing signal.
    pub(crate) registry: Arc<Registry>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("config", &self.config)
            .field("session", &self.session.public_id())
            .finish_non_exhaustive()
    }
}

fn is_modern(version: Option<&ProtocolVersion>) -> bool {
    version.and_then(ProtocolVersion::era) == Some(Era::Modern)
}

impl HttpTransport {
    /// Builds the transport: TLS settings, proxy rules and the pool. No
    /// connection is opened until the first request.
    ///
    /// # Errors
    /// [`HttpError::Config`] for an invalid configuration.
    pub fn new(config: HttpConfig) -> Result<Self, HttpError> {
        config.validate()?;
        let pool = Pool::new(
            Connector::new(&config)?,
            &config.endpoint,
            config.pool_idle_timeout,
        )?;
        Ok(HttpTransport {
            inner: Arc::new(Inner {
                permits: Permits::new(config.max_concurrent_posts),
                lane: Arc::default(),
                runtime: crate::runtime::Runtime::new(&config),
                config,
                pool: Arc::new(pool),
                session: Session::default(),
                registry: Registry::new(),
            }),
        })
    }

    /// POSTs one serialized message.
    ///
    /// # Errors
    /// See [`HttpError`]; [`HttpError::fault`] tells who is at fault.
    pub async fn send(&self, body: Bytes, routing: &HttpRouting) -> Result<Reply, HttpError> {
        self.send_with(body, routing, &HeaderMap::new()).await
    }

    /// POSTs one serialized message with extra headers for this request only.
    /// The transport's own headers take precedence over them, and extra
    /// headers named `Mcp-*`, `Last-Event-ID`, `Host` or `Content-Length`
    /// are ignored (the transport alone renders those).
    ///
    /// An `Authorization` header among them is this request's own
    /// credential: it replaces the configured one, the
    /// [`AuthProvider`](crate::auth::AuthProvider) is not consulted for the
    /// request, and a `401`/`403` answer is returned as
    /// [`HttpError::Unauthorized`] without a retry. Its value is marked
    /// sensitive (never logged).
    ///
    /// Requests (`routing.request_id` set) that are not long-lived take one
    /// of the `max_concurrent_posts` permits until their reply arrives (or
    /// their stream ends); notifications, responses and long-lived streams
    /// never wait for a permit, so answering a server request can never be
    /// starved by the requests waiting for that answer. While the request is
    /// in flight, [`HttpTransport::cancel`] with its id aborts it.
    ///
    /// Notifications and responses (no `routing.request_id`) go out in the
    /// order their slots were reserved, each once the POST of the one
    /// before it has ended: separate POSTs may reach the server in any
    /// order, and theirs matters (progress increasing, a handler's
    /// notifications before its response). Requests are not held back.
    ///
    /// The transport applies no per-request timeout (deadlines belong to the
    /// core; it cancels through [`HttpTransport::cancel`] or by dropping the
    /// future or stream).
    ///
    /// # Errors
    /// See [`HttpError`].
    pub async fn send_with(
        &self,
        body: Bytes,
        routing: &HttpRouting,
        extra: &HeaderMap,
    ) -> Result<Reply, HttpError> {
        let slot = self.reserve(routing).await?;
        self.send_in(slot, body, routing, extra).await
    }

    /// The first half of [`HttpTransport::send_with`]: waits for one of the
    /// `max_concurrent_posts` permits when the request needs one (see
    /// there), and returns the slot to send it in with
    /// [`HttpTransport::send_in`]. A caller that measures a deadline starts
    /// it when this returns: the time before is the client's own queue.
    /// [`HttpTransport::cancel`] with the request's id ends the wait.
    ///
    /// # Errors
    /// [`HttpError::Cancelled`] or [`HttpError::Closed`].
    pub async fn reserve(&self, routing: &HttpRouting) -> Result<PostSlot, HttpError> {
        let mut cancel = self.inner.register(routing.request_id.as_ref());
        if cancel.is_closed() {
            return Err(HttpError::Closed);
        }
        let permit = if routing.request_id.is_some() && !routing.long_lived {
            let acquire = self.inner.permits.acquire();
            let permit = tokio::select! {
                biased;
                err = cancel.cancelled() => return Err(err),
                permit = acquire => permit,
            };
            Some(permit)
        } else {
            None
        };
        let turn = self.turn(routing);
        Ok(PostSlot {
            permit,
            cancel: Some(cancel),
            turn,
        })
    }

    /// [`HttpTransport::reserve`] without waiting: the slot when the
    /// request needs no permit or one is free now, `None` when it would
    /// have to wait for one (then [`HttpTransport::reserve`] waits). A
    /// caller that measures a deadline starts it when this returns a slot.
    ///
    /// ```no_run
    /// # async fn demo(transport: mcp_transport_http::HttpTransport) -> Result<(), mcp_transport_http::HttpError> {
    /// use mcp_types::{routing::HttpRouting, ProtocolVersion, RequestId};
    /// let routing = HttpRouting::new(ProtocolVersion::V2026_07_28)
    ///     .with_method("ping")
    ///     .with_request_id(RequestId::Number(7));
    /// let slot = match transport.try_reserve(&routing) {
    ///     Some(slot) => slot?,
    ///     None => transport.reserve(&routing).await?,
    /// };
    /// let body = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    /// let reply = transport
    ///     .send_in(slot, body.as_slice(), &routing, &http::HeaderMap::new())
    ///     .await?;
    /// # let _ = reply; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`HttpError::Closed`] once the transport is closed.
    pub fn try_reserve(&self, routing: &HttpRouting) -> Option<Result<PostSlot, HttpError>> {
        self.try_slot(routing, true)
    }

    /// [`HttpTransport::try_reserve`] for a POST its caller cancels by
    /// dropping its future (a client's driver, which holds every POST's
    /// future): the request is not registered for
    /// [`HttpTransport::cancel`] and its POST waits for no cancellation, so
    /// a request costs no registry entry and no look at one. Its response
    /// stream, if the reply comes as one, is registered when it starts (and
    /// is then cancelled by [`HttpTransport::cancel`] like any other). Nor
    /// does closing the transport end the POST: its caller drops it.
    ///
    /// # Errors
    /// [`HttpError::Closed`] once the transport is closed.
    pub fn try_reserve_unregistered(
        &self,
        routing: &HttpRouting,
    ) -> Option<Result<PostSlot, HttpError>> {
        self.try_slot(routing, false)
    }

    /// A slot now: its permit, if the request needs one (`None` when it
    /// would have to wait for it), its registration when `registered`,
    /// its turn.
    fn try_slot(
        &self,
        routing: &HttpRouting,
        registered: bool,
    ) -> Option<Result<PostSlot, HttpError>> {
        let permit = match routing.request_id.is_none() || routing.long_lived {
            true => None,
            false => Some(self.inner.permits.try_acquire()?),
        };
        let cancel = registered.then(|| self.inner.register(routing.request_id.as_ref()));
        if self.inner.registry.is_closed() {
            return Some(Err(HttpError::Closed));
        }
        let turn = self.turn(routing);
        Some(Ok(PostSlot {
            permit,
            cancel,
            turn,
        }))
    }

    /// A notification's or response's turn in the lane, taken now.
    fn turn(&self, routing: &HttpRouting) -> Option<Turn> {
        routing.request_id.is_none().then(|| self.inner.lane.take())
    }

    /// The second half of [`HttpTransport::send_with`]: POSTs the message in
    /// a slot from [`HttpTransport::reserve`] for the same routing.
    ///
    /// `body` is the serialized message as any bytes (`Bytes`, a `Vec<u8>`,
    /// a reference to a buffer): it is read in place for the whole
    /// exchange, never copied over HTTP/1.1, so a caller that passes a
    /// reference keeps its buffer, to reuse for its next message.
    ///
    /// # Errors
    /// See [`HttpError`].
    #[allow(clippy::manual_async_fn)] // an async block: see inside
    pub fn send_in<'a, B>(
        &'a self,
        mut slot: PostSlot,
        body: B,
        routing: &'a HttpRouting,
        extra: &'a HeaderMap,
    ) -> impl Future<Output = Result<Reply, HttpError>> + Send + 'a
    where
        B: AsRef<[u8]> + Send + Sync + 'a,
    {
        // An async block, not an `async fn`: the slot stays where it was
        // captured instead of being copied into the body's own variables
        // (this future is part of every POST's, and moved with it).
        async move {
            if let Some(turn) = &slot.turn {
                // A notification's turn: off a call's path.
                std::hint::cold_path();
                turn.wait().await;
            }
            // An unregistered POST (its caller drops it to cancel it) goes
            // the usual way when it is a usual one (`usual.rs`).
            let usual = match slot.cancel {
                None => self.inner.start_usual(body.as_ref(), routing, extra),
                Some(_) => None,
            };
            // The POST first: the poll that finds its reply ends here,
            // without a look at the cancellation (a look takes the
            // registry's lock). A cancellation's wake polls the POST once
            // more, then finds the cancellation. An unregistered POST waits
            // for none (its caller drops it).
            let posted = match (usual, &mut slot.cancel) {
                (Some(Ok(mut usual)), _) => {
                    let head = poll_fn(|cx| usual.poll_head(cx, body.as_ref())).await;
                    match self.inner.usual_response(usual, head, routing) {
                        Then::Now(posted) => posted?,
                        Then::Later(rest) => rest.await?,
                    }
                }
                (Some(Err(e)), _) => return Err(e),
                (None, Some(cancel)) => tokio::select! {
                    biased;
                    posted = self.inner.post(body.as_ref(), routing, extra) => posted?,
                    err = cancel.cancelled() => return Err(err),
                },
                (None, None) => self.inner.post(body.as_ref(), routing, extra).await?,
            };
            let PostSlot {
                permit,
                cancel,
                turn,
            } = slot;
            // The POST has ended: the next notification may go out.
            drop(turn);
            // The permit (held until here, or by the stream to its end) and the
            // cancellation handle go to the stream as they are: no second
            // handle (each is a table update) for the common JSON reply.
            Ok(match posted {
                Posted::Reply(reply) => reply,
                Posted::Stream(body, kind, prelude) => {
                    // An unregistered POST's stream is registered now.
                    let cancel =
                        cancel.unwrap_or_else(|| self.inner.register(routing.request_id.as_ref()));
                    Reply::Stream(ResponseStream::spawn(
                        self.inner.clone(),
                        body,
                        kind,
                        cancel,
                        permit,
                        prelude,
                    ))
                }
            })
        }
    }

    /// Cancels the request with this id: an in-flight POST fails with
    /// [`HttpError::Cancelled`] and its response stream is closed (which is
    /// how a 2026-07-28 server learns of the cancellation). Returns whether a
    /// request with this id was in flight.
    pub fn cancel(&self, id: &RequestId) -> bool {
        self.inner.registry.cancel(id)
    }

    /// Records the protocol version the session negotiated, for the requests
    /// that carry no routing of their own (the GET stream, the closing
    /// `DELETE`): every request after initialization must name it in
    /// `MCP-Protocol-Version`. POSTs record it too, but the GET stream may
    /// open before any versioned POST has gone out.
    #[inline]
    pub fn set_protocol_version(&self, version: &ProtocolVersion) {
        self.inner.session.note_version(version);
    }

    /// Opens the optional 2025-11-25 GET stream for server-initiated
    /// messages. `Ok(None)` when the server offers none (`405`); it is not
    /// retried. The stream resumes with `Last-Event-ID` when it breaks.
    ///
    /// # Errors
    /// See [`HttpError`].
    pub async fn open_server_stream(&self) -> Result<Option<ResponseStream>, HttpError> {
        let mut cancel = self.inner.register(None);
        if cancel.is_closed() {
            return Err(HttpError::Closed);
        }
        let version = self.inner.session.version();
        let open = self.inner.open_get(None, version.as_ref());
        let body = tokio::select! {
            biased;
            err = cancel.cancelled() => return Err(err),
            body = open => body?,
        };
        Ok(body.map(|body| {
            ResponseStream::spawn(
                self.inner.clone(),
                body,
                StreamKind::ServerStream { version },
                cancel,
                None,
                None,
            )
        }))
    }

    /// The current 2025-11-25 session id, if the server issued one.
    pub fn session_id(&self) -> Option<SessionId> {
        self.inner.session.public_id()
    }

    /// Forgets the session id, so the next request (a fresh `initialize`)
    /// starts a new session. A `404` on a request that carried the id does
    /// this already.
    pub fn clear_session(&self) {
        self.inner.session.clear();
    }
}

//! [`HttpTransport`]: one MCP endpoint, one connection pool.
//!
//! Every message is a POST of bytes the core serialized, with headers
//! rendered from its [`HttpRouting`]. The answer is a [`Reply`]: `202`
//! (nothing to read), one JSON message, or a [`ResponseStream`] of messages
//! in arrival order (progress, logs, server requests, then the reply).

use std::sync::Arc;

use crate::h1::ResponseBody;
use bytes::Bytes;
use http::header::{LOCATION, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::Full;
use mcp_types::routing::HttpRouting;
use mcp_types::{Era, Message, ProtocolVersion, RequestId};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::auth::{AuthChallenge, AuthDecision, AuthRequest, MAX_AUTH_RETRIES};
use crate::body::{ERROR_BODY_LIMIT, describe_error_body, json_reply, read_limited, read_prefix};
use crate::cancel::{Cancel, Registry};
use crate::client::Connector;
use crate::config::HttpConfig;
use crate::error::HttpError;
use crate::headers::{
    self, BodyKind, ValueCache, body_kind, bounded, header_texts, render_cached, render_routing,
};
use crate::pool::Pool;
use crate::session::{Session, SessionId};
use crate::stream::{ResponseStream, StreamKind};

mod close;

/// A request's place among the transport's concurrent POSTs, from
/// [`HttpTransport::reserve`]: holds its permit (if it needs one) and its
/// cancellation registration until it is sent with
/// [`HttpTransport::send_in`] or dropped.
pub struct PostSlot {
    permit: Option<OwnedSemaphorePermit>,
    cancel: Cancel,
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
    /// One `application/json` message.
    Message(Message),
    /// A `text/event-stream` of messages.
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
    permits: Arc<Semaphore>,
    /// The requests in flight, by id, and the closing signal.
    pub(crate) registry: Arc<Registry>,
    /// Recent `Mcp-Method` and `Mcp-Name` values, shared by the requests
    /// that name them again.
    values: ValueCache,
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
                permits: Arc::new(Semaphore::new(config.max_concurrent_posts)),
                runtime: crate::runtime::Runtime::new(&config),
                config,
                pool: Arc::new(pool),
                session: Session::default(),
                registry: Registry::new(),
                values: ValueCache::default(),
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
            let acquire = self.inner.permits.clone().acquire_owned();
            let permit = tokio::select! {
                biased;
                err = cancel.cancelled() => return Err(err),
                permit = acquire => permit,
            };
            Some(permit.map_err(|_| HttpError::Closed)?)
        } else {
            None
        };
        Ok(PostSlot { permit, cancel })
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
    ///     .send_in(slot, body.as_slice().into(), &routing, &http::HeaderMap::new())
    ///     .await?;
    /// # let _ = reply; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`HttpError::Closed`] once the transport is closed.
    pub fn try_reserve(&self, routing: &HttpRouting) -> Option<Result<PostSlot, HttpError>> {
        let permit = if routing.request_id.is_some() && !routing.long_lived {
            match self.inner.permits.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(tokio::sync::TryAcquireError::NoPermits) => return None,
                Err(tokio::sync::TryAcquireError::Closed) => return Some(Err(HttpError::Closed)),
            }
        } else {
            None
        };
        let cancel = self.inner.register(routing.request_id.as_ref());
        if cancel.is_closed() {
            return Some(Err(HttpError::Closed));
        }
        Some(Ok(PostSlot { permit, cancel }))
    }

    /// The second half of [`HttpTransport::send_with`]: POSTs the message in
    /// a slot from [`HttpTransport::reserve`] for the same routing.
    ///
    /// # Errors
    /// See [`HttpError`].
    #[allow(clippy::manual_async_fn)] // an async block: see inside
    pub fn send_in<'a>(
        &'a self,
        mut slot: PostSlot,
        body: Bytes,
        routing: &'a HttpRouting,
        extra: &'a HeaderMap,
    ) -> impl Future<Output = Result<Reply, HttpError>> + Send + 'a {
        // An async block, not an `async fn`: the slot stays where it was
        // captured instead of being copied into the body's own variables
        // (this future is part of every POST's, and moved with it).
        async move {
            let posted = tokio::select! {
                biased;
                err = slot.cancel.cancelled() => return Err(err),
                posted = self.inner.post(body, routing, extra) => posted?,
            };
            let PostSlot { permit, cancel } = slot;
            // The permit (held until here, or by the stream to its end) and the
            // cancellation handle go to the stream as they are: no second
            // handle (each is a table update) for the common JSON reply.
            Ok(match posted {
                Posted::Reply(reply) => reply,
                Posted::Stream(body, kind) => Reply::Stream(ResponseStream::spawn(
                    self.inner.clone(),
                    body,
                    kind,
                    cancel,
                    permit,
                )),
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

/// What one POST gave, before its stream (if any) is started by
/// [`HttpTransport::send_in`], which holds the request's permit and
/// cancellation handle.
enum Posted {
    /// Nothing more to read: the reply is whole.
    Reply(Reply),
    /// A `text/event-stream` body to read as a [`ResponseStream`].
    Stream(ResponseBody, StreamKind),
}

/// A successful response and the session id its request carried.
type Executed = (Response<ResponseBody>, Option<HeaderValue>);

/// One request about to go out (before session and auth headers).
pub(crate) struct Exchange<'a> {
    method: Method,
    body: Bytes,
    /// Its headers: the request's own (the transport's and the caller's);
    /// [`Inner::execute`] adds the configured ones and sends the map itself
    /// (a copy only when the auth provider may ask for a re-send).
    headers: HeaderMap,
    /// The JSON-RPC method, for the auth provider.
    operation: Option<&'a str>,
}

impl Inner {
    fn register(&self, id: Option<&RequestId>) -> Cancel {
        self.registry.register(id)
    }

    /// One POST: its request ([`Inner::post_exchange`]) sent, its
    /// response's head read here, its body by [`Inner::read_reply`].
    ///
    /// Each await is of one future that holds its own state, so the two
    /// halves share their room in this future (it is part of every
    /// POST's, and moved with it).
    async fn post(
        &self,
        body: Bytes,
        routing: &HttpRouting,
        extra: &HeaderMap,
    ) -> Result<Posted, HttpError> {
        let legacy = !is_modern(routing.protocol_version.as_ref());
        let (response, sent_session) = {
            let mut spec = self.post_exchange(body, routing, extra)?;
            let session = match legacy {
                true => {
                    let version = routing.protocol_version.as_ref();
                    let (id, lost) = self.session.for_post(version);
                    // A legacy request other than `initialize` (which alone
                    // has no version yet) must not go out sessionless after
                    // an expiry: it is not sent, and says so (the caller
                    // sends it in the new session).
                    if id.is_none() && version.is_some() && lost {
                        return Err(HttpError::SessionLost);
                    }
                    id
                }
                false => None,
            };
            self.execute(&mut spec, session).await?
        };
        if legacy && let Some(received) = response.headers().get(headers::SESSION_ID) {
            if !headers::valid_session_id(received) {
                return Err(HttpError::InvalidSessionId);
            }
            self.session.adopt(sent_session.as_ref(), received);
        }
        let status = response.status();
        let kind = body_kind(response.headers(), self.config.limits.max_error_excerpt);
        // The head goes before the body is read: its header values are
        // views of the connection's read buffer, and the read at the
        // body's end can then reuse that buffer instead of allocating one.
        let body = response.into_body();
        self.read_reply(body, status, kind, routing).await
    }

    /// The request of one POST, before session and auth headers.
    fn post_exchange<'a>(
        &self,
        body: Bytes,
        routing: &'a HttpRouting,
        extra: &HeaderMap,
    ) -> Result<Exchange<'a>, HttpError> {
        // Sized for the basics, the routing, a session id and a credential,
        // so it is allocated once.
        let mut headers = HeaderMap::with_capacity(8 + extra.len() + routing.params.len());
        for (name, value) in extra {
            if !headers::is_reserved(name) {
                headers.append(name, value.clone());
            }
        }
        headers::set_post_basics(&mut headers);
        render_cached(routing, &mut headers, &self.values)?;
        Ok(Exchange {
            method: Method::POST,
            body,
            headers,
            operation: routing.method.as_deref(),
        })
    }

    /// What a POST's response body gives: nothing (`202`), one message, a
    /// stream to read, or the error its content type means.
    #[allow(clippy::manual_async_fn)] // an async block: see inside
    fn read_reply<'a>(
        &'a self,
        mut body: ResponseBody,
        status: StatusCode,
        kind: BodyKind,
        routing: &'a HttpRouting,
    ) -> impl Future<Output = Result<Posted, HttpError>> + Send + 'a {
        // An async block: the body and its kind stay where they were
        // captured (an `async fn` would copy them into its own variables).
        async move {
            if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
                let _ = read_prefix(&mut body, ERROR_BODY_LIMIT).await;
                return Ok(Posted::Reply(Reply::Accepted));
            }
            match kind {
                BodyKind::EventStream => {
                    let stream_kind = StreamKind::Post {
                        resumable: !is_modern(routing.protocol_version.as_ref()),
                        version: routing.protocol_version.clone(),
                    };
                    Ok(Posted::Stream(body, stream_kind))
                }
                BodyKind::Json => {
                    let limit = self.config.limits.max_body_bytes;
                    let bytes = read_limited(&mut body, limit).await?;
                    if bytes.iter().all(u8::is_ascii_whitespace) && routing.request_id.is_none() {
                        return Ok(Posted::Reply(Reply::Accepted));
                    }
                    Ok(Posted::Reply(Reply::Message(json_reply(
                        &bytes,
                        self.config.check_envelopes,
                    )?)))
                }
                BodyKind::Missing | BodyKind::Other(_) => {
                    let bytes = read_prefix(&mut body, ERROR_BODY_LIMIT).await;
                    if bytes.is_empty() && routing.request_id.is_none() {
                        return Ok(Posted::Reply(Reply::Accepted));
                    }
                    let content_type = match kind {
                        BodyKind::Other(text) => text,
                        _ => String::new(),
                    };
                    Err(HttpError::UnexpectedContentType {
                        status,
                        content_type,
                    })
                }
            }
        }
    }

    /// GET for the server stream or a resumption. `Ok(None)` on `405`.
    pub(crate) async fn open_get(
        &self,
        last_event_id: Option<&str>,
        version: Option<&ProtocolVersion>,
    ) -> Result<Option<ResponseBody>, HttpError> {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ACCEPT, headers::ACCEPT_SSE);
        if let Some(version) = version {
            render_routing(&HttpRouting::new(version.clone()), &mut headers)?;
        }
        if let Some(id) = last_event_id {
            let value = HeaderValue::try_from(id).map_err(|_| HttpError::InvalidHeader {
                name: headers::LAST_EVENT_ID.to_string(),
            })?;
            headers.insert(headers::LAST_EVENT_ID, value);
        }
        let mut spec = Exchange {
            method: Method::GET,
            body: Bytes::new(),
            headers,
            operation: None,
        };
        let response = match self.execute(&mut spec, self.session.id()).await {
            Ok((response, _)) => response,
            Err(err) if err.status() == Some(StatusCode::METHOD_NOT_ALLOWED) => return Ok(None),
            Err(err) => return Err(err),
        };
        let status = response.status();
        match body_kind(response.headers(), self.config.limits.max_error_excerpt) {
            BodyKind::EventStream => Ok(Some(response.into_body())),
            BodyKind::Other(content_type) => Err(HttpError::UnexpectedContentType {
                status,
                content_type,
            }),
            _ => Err(HttpError::UnexpectedContentType {
                status,
                content_type: String::new(),
            }),
        }
    }

    /// Sends one request with session and auth headers; answers `401`/`403`
    /// through the auth provider (at most [`MAX_AUTH_RETRIES`] re-sends).
    /// Returns only `2xx` responses, with the session id the request
    /// carried; every other status becomes a typed error after a bounded read
    /// of its body.
    #[allow(clippy::manual_async_fn)] // an async block: see inside
    fn execute<'a>(
        &'a self,
        spec: &'a mut Exchange<'_>,
        session: Option<HeaderValue>,
    ) -> impl Future<Output = Result<Executed, HttpError>> + Send + 'a {
        // An async block: the session id stays where it was captured (an
        // `async fn` would copy it into the body's own variables).
        async move {
            let mut retries = 0;
            // A request carrying its own `Authorization` leaves the provider out.
            let auth = self.runtime.apply(&mut spec.headers);
            for (name, value) in &mut spec.headers {
                if crate::runtime::is_credential(name) {
                    value.set_sensitive(true);
                }
            }
            loop {
                let may_retry = auth.is_some() && retries < MAX_AUTH_RETRIES;
                let credentials = match &auth {
                    Some(auth) => Some(
                        auth.credentials(AuthRequest {
                            method: &spec.method,
                            uri: &self.config.endpoint,
                            operation: spec.operation,
                        })
                        .await?,
                    ),
                    None => None,
                };
                let (request, generation) = build(spec, may_retry, session.as_ref(), credentials);
                let response = self.pool.send(request).await.map_err(HttpError::Network)?;
                if response.status().is_success() {
                    if let Some(auth) = &auth {
                        auth.on_success(spec.operation, response.headers());
                    }
                    return Ok((response, session));
                }
                // Boxed: the failures (their bodies, a refused credential and
                // the provider's answer) are rare, and their state would make
                // every request's future larger.
                let refusal = Refusal {
                    session: session.as_ref(),
                    auth: auth.as_deref().filter(|_| may_retry),
                    generation,
                    operation: spec.operation,
                };
                Box::pin(self.refused(response, refusal)).await?;
                retries += 1;
            }
        }
    }

    /// A response that is not a success: the typed error, after a bounded
    /// read of its body, or `Ok` when the auth provider asks for the
    /// request to be sent again.
    async fn refused(
        &self,
        mut response: Response<ResponseBody>,
        refusal: Refusal<'_>,
    ) -> Result<(), HttpError> {
        let status = response.status();
        let excerpt_limit = self.config.limits.max_error_excerpt;
        if status.is_redirection() {
            let location = response
                .headers()
                .get(LOCATION)
                .map(|v| bounded(&String::from_utf8_lossy(v.as_bytes()), excerpt_limit));
            let _ = read_prefix(response.body_mut(), ERROR_BODY_LIMIT).await;
            return Err(HttpError::Redirect { status, location });
        }
        if status == StatusCode::NOT_FOUND
            && let Some(sent) = refusal.session
        {
            let _ = read_prefix(response.body_mut(), ERROR_BODY_LIMIT).await;
            self.session.expire(sent);
            return Err(HttpError::SessionExpired);
        }
        let bytes = read_prefix(response.body_mut(), ERROR_BODY_LIMIT).await;
        let (body, message) = describe_error_body(&bytes, excerpt_limit);
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            let www_authenticate =
                header_texts(response.headers(), &WWW_AUTHENTICATE, 8, excerpt_limit);
            if let Some(auth) = refusal.auth {
                let mut challenge = AuthChallenge::new(status, www_authenticate.clone());
                challenge.headers = response.headers().clone();
                challenge.body = bytes;
                challenge.generation = refusal.generation;
                challenge.operation = refusal.operation.map(str::to_owned);
                if auth.on_unauthorized(&challenge).await? == AuthDecision::Retry {
                    return Ok(());
                }
            }
            return Err(HttpError::Unauthorized {
                status,
                www_authenticate,
                message,
            });
        }
        Err(HttpError::Status {
            status,
            body,
            message,
        })
    }
}

/// What [`Inner::refused`] needs of the request a server refused.
struct Refusal<'a> {
    /// The session id it carried.
    session: Option<&'a HeaderValue>,
    /// The auth provider, when it may still ask for a re-send.
    auth: Option<&'a dyn crate::auth::AuthProvider>,
    /// The credential generation it carried.
    generation: u64,
    /// Its JSON-RPC method.
    operation: Option<&'a str>,
}

/// The request with every header; the credential generation it carries.
/// It takes the exchange's header map and body, or copies of them when
/// it may be sent again (`may_retry`). The pool sets its URI and `Host`.
fn build(
    spec: &mut Exchange<'_>,
    may_retry: bool,
    session: Option<&HeaderValue>,
    credentials: Option<crate::auth::Credentials>,
) -> (Request<Full<Bytes>>, u64) {
    let (headers, body) = match may_retry {
        true => (spec.headers.clone(), spec.body.clone()),
        false => (
            std::mem::take(&mut spec.headers),
            std::mem::take(&mut spec.body),
        ),
    };
    let mut request = Request::new(Full::new(body));
    *request.method_mut() = spec.method.clone();
    *request.headers_mut() = headers;
    let headers = request.headers_mut();
    if let Some(id) = session {
        headers.insert(headers::SESSION_ID, id.clone());
    }
    let mut generation = 0;
    if let Some(credentials) = credentials {
        generation = credentials.generation;
        for (name, mut value) in credentials.headers {
            value.set_sensitive(true);
            headers.insert(name, value);
        }
    }
    (request, generation)
}

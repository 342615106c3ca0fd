//! One POST's exchange: the request built from its routing, sent with the
//! session and auth headers (`Inner::execute`; with an auth provider
//! `Inner::execute_authorized`, which answers its challenges with
//! re-sends), and its response read into a [`Posted`] (a JSON reply that
//! came with its head at once, `Inner::post`).

use std::sync::Arc;

use crate::h1::ResponseBody;
use crate::parts::{HeaderList, InResponse, OutRequest, PostFields, ResponseFields};
use http::header::{LOCATION, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use mcp_types::routing::HttpRouting;
use mcp_types::{ProtocolVersion, RequestId};

use super::{Inner, Reply, is_modern};
use crate::auth::{
    AuthChallenge, AuthDecision, AuthProvider, AuthRequest, BoxFuture, MAX_AUTH_RETRIES,
};
use crate::body::{
    ERROR_BODY_LIMIT, JsonBody, describe_error_body, json_reply, read_limited, read_prefix,
};
use crate::cancel::Cancel;
use crate::error::HttpError;
use crate::headers::{
    self, BodyKind, body_kind, bounded, header_texts, render_list, render_params, set_post_fields,
};
use crate::stream::{Inline, Prelude, StreamKind, read_to_reply};

/// What a POST's successful response gives now.
pub(super) enum Read {
    /// Its outcome.
    Now(Result<Posted, HttpError>),
    /// A body to read ([`Inner::read_reply`]), with its status and kind.
    Later(ResponseBody, StatusCode, BodyKind),
}

/// What one POST gave, before its stream (if any) is started by
/// [`HttpTransport::send_in`](super::HttpTransport::send_in), which holds the request's permit and
/// cancellation handle.
pub(super) enum Posted {
    /// Nothing more to read: the reply is whole.
    Reply(Reply),
    /// A `text/event-stream` body to read as a [`ResponseStream`](crate::stream::ResponseStream),
    /// from where the POST stopped reading it (if it started).
    Stream(ResponseBody, StreamKind, Option<Box<Prelude>>),
}

/// One request about to go out (before session and auth headers).
pub(super) struct Exchange<'a> {
    method: Method,
    /// Borrowed from the POST's sender for the whole exchange (a re-send
    /// sends it again: nothing is copied).
    body: &'a [u8],
    /// Its headers but a POST's own ([`PostFields`]): the caller's and
    /// the routing's `Mcp-Param-*` ones (usually none: then the list is
    /// not allocated); [`Inner::execute`] adds the configured ones and
    /// sends the list itself (a copy only when the auth provider may ask
    /// for a re-send).
    headers: HeaderList,
    /// A POST's routing: its own fields are rendered from it for each
    /// send (into the request, which is not kept in the future), and its
    /// JSON-RPC method is the auth provider's operation.
    routing: Option<&'a HttpRouting>,
}

impl<'a> Exchange<'a> {
    /// A POST of `body` with its routing's fields and no other.
    pub(super) fn post_only(body: &'a [u8], routing: &'a HttpRouting) -> Self {
        Exchange {
            method: Method::POST,
            body,
            headers: HeaderList::default(),
            routing: Some(routing),
        }
    }

    /// A request with no body and no JSON-RPC method (the GET stream, the
    /// session's `DELETE`).
    pub(super) fn without_body(method: Method, headers: HeaderList) -> Self {
        Exchange {
            method,
            body: &[],
            headers,
            routing: None,
        }
    }

    /// The JSON-RPC method, for the auth provider.
    fn operation(&self) -> Option<&str> {
        self.routing.and_then(|r| r.method.as_deref())
    }
}

impl Inner {
    pub(super) fn register(&self, id: Option<&RequestId>) -> Cancel {
        self.registry.register(id)
    }

    /// One POST: its request ([`Inner::post_exchange`]) sent, its
    /// response read ([`Inner::read_posted`], [`Inner::read_reply`]). The
    /// usual POST goes a shorter way (`usual.rs`).
    ///
    /// Each await is of one future that holds its own state, so the two
    /// halves share their room in this future.
    pub(super) async fn post(
        &self,
        body: &[u8],
        routing: &HttpRouting,
        extra: &HeaderMap,
    ) -> Result<Posted, HttpError> {
        let session;
        let response = {
            let mut spec = self.post_exchange(body, routing, extra)?;
            session = self.session_for(routing)?;
            self.execute(&mut spec, session.as_ref()).await?
        };
        match self.read_posted(response, session.as_ref(), routing) {
            Read::Now(posted) => posted,
            Read::Later(body, status, kind) => self.read_reply(body, status, kind, routing).await,
        }
    }

    /// The session id a POST carries: a legacy one's (and the version it
    /// carries noted); none for a 2026-07-28 one.
    ///
    /// # Errors
    /// [`HttpError::SessionLost`]: a legacy request other than
    /// `initialize` (which alone has no version yet) must not go out
    /// sessionless after an expiry: it is not sent, and says so (the
    /// caller sends it in the new session).
    pub(super) fn session_for(
        &self,
        routing: &HttpRouting,
    ) -> Result<Option<HeaderValue>, HttpError> {
        let version = routing.protocol_version.as_ref();
        if is_modern(version) {
            return Ok(None);
        }
        let (id, lost) = self.session.for_post(version);
        if id.is_none() && version.is_some() && lost {
            std::hint::cold_path();
            return Err(HttpError::SessionLost);
        }
        Ok(id)
    }

    /// What a POST's successful `response` gives now (a legacy one's
    /// session adopted; it carried `sent`): its outcome, when its body is
    /// read without waiting ([`Inner::reply_now`]), or the body to read
    /// ([`Inner::read_reply`]).
    pub(super) fn read_posted(
        &self,
        response: InResponse,
        sent: Option<&HeaderValue>,
        routing: &HttpRouting,
    ) -> Read {
        if !is_modern(routing.protocol_version.as_ref())
            && let Some(received) = response.headers.get(&headers::SESSION_ID)
        {
            if !headers::valid_session_id(received) {
                std::hint::cold_path();
                return Read::Now(Err(HttpError::InvalidSessionId));
            }
            self.session.adopt(sent, received);
        }
        let InResponse {
            status,
            content_type,
            headers,
            mut body,
        } = response;
        let kind = body_kind(content_type.as_ref(), self.config.limits.max_error_excerpt);
        drop(content_type);
        // The head goes before the body is read: its header values are
        // views of the connection's read buffer, and the read at the
        // body's end can then reuse that buffer instead of allocating one.
        drop(headers);
        match self.reply_now(&mut body, status, &kind, routing) {
            Some(posted) => Read::Now(posted),
            None => Read::Later(body, status, kind),
        }
    }

    /// What a POST's response body gives when it can be read without
    /// waiting: most replies are a JSON body that came with its head, read
    /// here with no future for the rest. `None` leaves the body to
    /// [`Inner::read_reply`].
    #[inline]
    fn reply_now(
        &self,
        body: &mut ResponseBody,
        status: StatusCode,
        kind: &BodyKind,
        routing: &HttpRouting,
    ) -> Option<Result<Posted, HttpError>> {
        if *kind != BodyKind::Json || answers_nothing(status) {
            return None;
        }
        body.read_buffered(self.config.limits.max_body_bytes, |bytes| {
            self.json_posted(JsonBody::InPlace(bytes), routing)
        })
    }

    /// What a whole `application/json` body gives: nothing (whitespace, to
    /// a notification or response) or its one message.
    fn json_posted(&self, body: JsonBody<'_>, routing: &HttpRouting) -> Result<Posted, HttpError> {
        if body.bytes().iter().all(u8::is_ascii_whitespace) && routing.request_id.is_none() {
            return Ok(Posted::Reply(Reply::Accepted));
        }
        Ok(Posted::Reply(Reply::Message(json_reply(
            body,
            self.config.check_envelopes,
        )?)))
    }

    /// The request of one POST, before session and auth headers.
    fn post_exchange<'a>(
        &self,
        body: &'a [u8],
        routing: &'a HttpRouting,
        extra: &HeaderMap,
    ) -> Result<Exchange<'a>, HttpError> {
        // The POST's own fields are not in the list ([`PostFields`]); a
        // caller's field of a name the transport sets gives way to the
        // transport's, so every field is appended as it comes (no look for
        // an earlier one). Without any, nothing is allocated.
        let mut headers = HeaderList::with_capacity(extra.len() + routing.params.len());
        render_params(routing, &mut headers)?;
        for (name, value) in extra {
            if !headers::is_reserved(name) && !headers::is_post_basic(name) {
                headers.append(name.clone(), value.clone());
            }
        }
        Ok(Exchange {
            method: Method::POST,
            body,
            headers,
            routing: Some(routing),
        })
    }

    /// What a POST's response body gives: nothing (`202`), one message, a
    /// stream to read, or the error its content type means.
    #[allow(clippy::manual_async_fn)] // an async block: see inside
    pub(super) fn read_reply<'a>(
        &'a self,
        mut body: ResponseBody,
        status: StatusCode,
        kind: BodyKind,
        routing: &'a HttpRouting,
    ) -> impl Future<Output = Result<Posted, HttpError>> + Send + 'a {
        // An async block: the body and its kind stay where they were
        // captured (an `async fn` would copy them into its own variables).
        async move {
            if answers_nothing(status) {
                // A notification's answer: off a call's path.
                std::hint::cold_path();
                let _ = read_prefix(&mut body, ERROR_BODY_LIMIT).await;
                return Ok(Posted::Reply(Reply::Accepted));
            }
            match kind {
                BodyKind::EventStream => self.read_stream(body, routing).await,
                BodyKind::Json => {
                    // Not all in the buffer yet, or 16 KiB or more
                    // ([`Inner::reply_now`] takes a smaller one that is,
                    // in place).
                    let bytes = read_limited(&mut body, self.config.limits.max_body_bytes).await?;
                    self.json_posted(JsonBody::Own(&bytes), routing)
                }
                BodyKind::Missing | BodyKind::Other(_) => {
                    std::hint::cold_path();
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

    /// A POST's `text/event-stream` body, read here up to the request's
    /// reply: the reply, when the stream carried nothing before it and
    /// ended with it, or the stream to read on (boxed: only event streams
    /// pay for its room).
    pub(super) fn read_stream<'a>(
        &'a self,
        mut body: ResponseBody,
        routing: &'a HttpRouting,
    ) -> BoxFuture<'a, Result<Posted, HttpError>> {
        Box::pin(async move {
            let prelude = match &routing.request_id {
                Some(id) => match read_to_reply(&mut body, id, &self.config).await? {
                    Inline::Reply(message) => return Ok(Posted::Reply(Reply::Message(message))),
                    Inline::Pump(prelude) => Some(prelude),
                },
                None => None,
            };
            let stream_kind = StreamKind::Post {
                resumable: !is_modern(routing.protocol_version.as_ref()),
                version: routing.protocol_version.clone(),
            };
            Ok(Posted::Stream(body, stream_kind, prelude))
        })
    }

    /// GET for the server stream or a resumption. `Ok(None)` on `405`.
    pub(crate) async fn open_get(
        &self,
        last_event_id: Option<&str>,
        version: Option<&ProtocolVersion>,
    ) -> Result<Option<ResponseBody>, HttpError> {
        let mut headers = HeaderList::with_capacity(4);
        headers.insert(http::header::ACCEPT, headers::ACCEPT_SSE);
        if let Some(version) = version {
            render_list(&HttpRouting::new(version.clone()), &mut headers)?;
        }
        if let Some(id) = last_event_id {
            let value = HeaderValue::try_from(id).map_err(|_| HttpError::InvalidHeader {
                name: headers::LAST_EVENT_ID.to_string(),
            })?;
            headers.insert(headers::LAST_EVENT_ID, value);
        }
        let mut spec = Exchange::without_body(Method::GET, headers);
        let session = self.session.id();
        let response = match self.execute(&mut spec, session.as_ref()).await {
            Ok(response) => response,
            Err(err) if err.status() == Some(StatusCode::METHOD_NOT_ALLOWED) => return Ok(None),
            Err(err) => return Err(err),
        };
        let status = response.status;
        match body_kind(
            response.content_type.as_ref(),
            self.config.limits.max_error_excerpt,
        ) {
            BodyKind::EventStream => Ok(Some(response.body)),
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
    /// Returns only `2xx` responses (the session id the request carried is
    /// the caller's, lent here); every other status becomes a typed error
    /// after a bounded read of its body.
    #[allow(clippy::manual_async_fn)] // an async block: see inside
    pub(super) fn execute<'a>(
        &'a self,
        spec: &'a mut Exchange<'_>,
        session: Option<&'a HeaderValue>,
    ) -> impl Future<Output = Result<InResponse, HttpError>> + Send + 'a {
        // An async block: what it was given stays where it was captured (an
        // `async fn` would copy it into the body's own variables).
        async move {
            // A request carrying its own `Authorization` leaves the provider out.
            let auth = self
                .runtime
                .apply(&mut spec.headers, spec.routing.is_some());
            for (name, value) in spec.headers.iter_mut() {
                if crate::runtime::is_credential(name) {
                    value.set_sensitive(true);
                }
            }
            if let Some(auth) = auth {
                // Boxed: a transport without a provider (most) sends each
                // request once, with no room in its future for the
                // provider's calls and re-sends.
                std::hint::cold_path();
                return Box::pin(self.execute_authorized(spec, session, auth)).await;
            }
            let (request, _) = build(spec, false, session, None)?;
            let response = self.pool.send(request).await.map_err(HttpError::Network)?;
            if response.status.is_success() {
                return Ok(response);
            }
            // Boxed, as the failures are rare (their bodies' state would
            // make every request's future larger).
            std::hint::cold_path();
            Err(Box::pin(self.refused(response, session)).await)
        }
    }

    /// [`Inner::execute`] with an auth provider: its credentials on each
    /// send, its look at each success, and its answer to a `401`/`403`
    /// ([`Inner::challenged`]), which may ask for a re-send.
    async fn execute_authorized(
        &self,
        spec: &mut Exchange<'_>,
        session: Option<&HeaderValue>,
        auth: Arc<dyn AuthProvider>,
    ) -> Result<InResponse, HttpError> {
        let mut retries = 0;
        loop {
            let may_retry = retries < MAX_AUTH_RETRIES;
            let credentials = auth
                .credentials(AuthRequest {
                    method: &spec.method,
                    uri: &self.config.endpoint,
                    operation: spec.operation(),
                })
                .await?;
            let (request, generation) = build(spec, may_retry, session, Some(credentials))?;
            let response = self.pool.send(request).await.map_err(HttpError::Network)?;
            if response.status.is_success() {
                auth.on_success(spec.operation(), &response.headers.to_map());
                return Ok(response);
            }
            let status = response.status;
            if !(may_retry
                && (status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN))
            {
                return Err(self.refused(response, session).await);
            }
            self.challenged(response, &*auth, generation, spec.operation())
                .await?;
            retries += 1;
        }
    }

    /// A `401`/`403` shown to the auth provider, after a bounded read of
    /// its body: `Ok` when the provider asks for the request to be sent
    /// again, the typed error otherwise.
    async fn challenged(
        &self,
        mut response: InResponse,
        auth: &dyn AuthProvider,
        generation: u64,
        operation: Option<&str>,
    ) -> Result<(), HttpError> {
        let status = response.status;
        let excerpt_limit = self.config.limits.max_error_excerpt;
        let bytes = read_prefix(&mut response.body, ERROR_BODY_LIMIT).await;
        let www_authenticate = header_texts(&response.headers, &WWW_AUTHENTICATE, 8, excerpt_limit);
        let mut challenge = AuthChallenge::new(status, www_authenticate.clone());
        challenge.headers = response.headers.to_map();
        challenge.generation = generation;
        challenge.operation = operation.map(str::to_owned);
        let (_, message) = describe_error_body(&bytes, excerpt_limit);
        challenge.body = bytes;
        if auth.on_unauthorized(&challenge).await? == AuthDecision::Retry {
            return Ok(());
        }
        Err(HttpError::Unauthorized {
            status,
            www_authenticate,
            message,
        })
    }

    /// The typed error of a response that is not a success, after a
    /// bounded read of its body (a `401`/`403` the auth provider, if any,
    /// has seen already).
    pub(super) async fn refused(
        &self,
        mut response: InResponse,
        session: Option<&HeaderValue>,
    ) -> HttpError {
        let status = response.status;
        let excerpt_limit = self.config.limits.max_error_excerpt;
        if status.is_redirection() {
            let location = response
                .headers
                .get(&LOCATION)
                .map(|v| bounded(&String::from_utf8_lossy(v.as_bytes()), excerpt_limit));
            let _ = read_prefix(&mut response.body, ERROR_BODY_LIMIT).await;
            return HttpError::Redirect { status, location };
        }
        if status == StatusCode::NOT_FOUND
            && let Some(sent) = session
        {
            let _ = read_prefix(&mut response.body, ERROR_BODY_LIMIT).await;
            self.session.expire(sent);
            return HttpError::SessionExpired;
        }
        let bytes = read_prefix(&mut response.body, ERROR_BODY_LIMIT).await;
        let (body, message) = describe_error_body(&bytes, excerpt_limit);
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return HttpError::Unauthorized {
                status,
                www_authenticate: header_texts(
                    &response.headers,
                    &WWW_AUTHENTICATE,
                    8,
                    excerpt_limit,
                ),
                message,
            };
        }
        HttpError::Status {
            status,
            body,
            message,
        }
    }
}

/// Whether a POST's `status` says its body carries no reply (`202`, `204`:
/// a notification's or response's answer).
pub(super) fn answers_nothing(status: StatusCode) -> bool {
    status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT
}

/// The request with every header; the credential generation it carries.
/// It takes the exchange's headers and body, or copies of them when it
/// may be sent again (`may_retry`); a POST's own fields are its routing's
/// texts, borrowed (nothing copied). The pool sets its target and `Host`.
///
/// # Errors
/// [`HttpError::InvalidHeader`] when a routing value cannot travel as a
/// header (nothing is sent).
pub(super) fn build<'a>(
    spec: &mut Exchange<'a>,
    may_retry: bool,
    session: Option<&HeaderValue>,
    credentials: Option<crate::auth::Credentials>,
) -> Result<(OutRequest<'a>, u64), HttpError> {
    // The auth provider (whose credentials these are) sees every field of
    // the response; without one, only the fields the transport reads are
    // kept.
    let response_fields = match credentials.is_some() {
        true => ResponseFields::All,
        false => ResponseFields::Read,
    };
    // Made where it is returned from, its own fields set in place (a
    // request's fields are moved as few times as they can be).
    let mut request = OutRequest {
        method: spec.method.clone(),
        post: PostFields::default(),
        headers: HeaderList::default(),
        body: spec.body,
        response_fields,
    };
    if let Some(routing) = spec.routing {
        set_post_fields(routing, &mut request.post)?;
    }
    // A field of its own (reserved: no field of the exchange's has its
    // name), so that a POST of a session allocates no list for it.
    request.post.session = session.cloned();
    request.headers = match may_retry {
        true => spec.headers.clone(),
        false => std::mem::take(&mut spec.headers),
    };
    let mut generation = 0;
    if let Some(credentials) = credentials {
        generation = credentials.generation;
        for (name, mut value) in credentials.headers {
            // The POST's own fields stay the transport's.
            if request.post.has(&name) {
                continue;
            }
            value.set_sensitive(true);
            request.headers.insert(name, value);
        }
    }
    Ok((request, generation))
}

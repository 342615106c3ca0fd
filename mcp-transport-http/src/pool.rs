//! The connection pool of one transport: the open connections to its one
//! endpoint, grown to demand.
//!
//! Every request of a transport goes to its one endpoint, so the pool is a
//! list of connections, not a map of hosts. An HTTP/1.1 connection carries
//! one exchange at a time: a request takes an idle one out of the pool (the
//! one used last) and its response body puts it back once read to its end
//! (`h1/`: the transport speaks HTTP/1.1 itself, the exchange reads and
//! writes the connection, there is no task per connection); only when none
//! is idle is a new one opened, so there are as many as requests were ever
//! in flight at once, each with `TCP_NODELAY`
//! (see [`Connector`]). An HTTP/2 connection (when TLS's ALPN picks it)
//! multiplexes: it stays in the pool, shared, and runs on a task of its own.
//!
//! A request the connection could not even start (the server had closed the
//! idle connection) is sent again on another one; nothing that reached the
//! server is ever re-sent.
//!
//! One reaper task per pool (while it holds connections) closes the ones
//! idle for the configured `pool_idle_timeout` (between one and two of it),
//! on a timerfd where there is one (`ticker.rs`: no tokio timer set while
//! calls go on).

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use bytes::Bytes;
use futures::FutureExt;
use futures::future::Either;
use http::header::HOST;
use http::{HeaderValue, Request, Uri};
use http_body_util::Full;
use hyper::client::conn::{TrySendError, http2};
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::client::{BoxError, Conn, Connector, RequestBody};
use crate::error::ConfigError;
use crate::h1::{self, H1, ResponseBody};
use crate::parts::{HeaderList, InResponse, OutRequest, PostFields, ResponseFields};

/// A pooled connection and whether it was used since the reaper last
/// looked.
struct Entry<C> {
    conn: C,
    used: bool,
}

#[derive(Default)]
struct State {
    /// Idle HTTP/1.1 connections (the ones in use are held by their
    /// exchanges), the most recently used last.
    idle: Vec<Entry<Box<H1>>>,
    /// Open HTTP/2 connections, shared by every request.
    h2: Vec<Entry<http2::SendRequest<RequestBody>>>,
    /// Whether the reaper task runs.
    reaping: bool,
}

impl State {
    /// The most recently used idle HTTP/1.1 connection not known to be
    /// closed (the closed ones before it are dropped).
    fn pop_idle(&mut self) -> Option<Box<H1>> {
        while let Some(entry) = self.idle.pop() {
            if !entry.conn.is_closed() {
                return Some(entry.conn);
            }
        }
        None
    }
}

/// The connections of one transport to its endpoint.
pub(crate) struct Pool {
    connector: Connector,
    /// The absolute endpoint URI (HTTP/2 requests carry it).
    endpoint: Uri,
    /// The target of an HTTP/1.1 request: the endpoint's origin form
    /// (`/path?query`) and `Host` (the port only when not the scheme's
    /// default).
    target: h1::Target,
    idle_timeout: Duration,
    state: Mutex<State>,
}

/// A connection taken for one request.
enum Taken {
    H1(Box<H1>),
    H2(http2::SendRequest<RequestBody>),
}

/// Why sending on a connection failed (an HTTP/1.1 connection's failure
/// is always `Failed`: one found closed before the request is written is
/// told apart before its exchange starts).
pub(crate) enum SendError<'a> {
    /// The connection had closed before the request was written: it may
    /// go out on another one.
    Unsent(Box<OutRequest<'a>>),
    /// Writing the request or reading the response head failed.
    Failed(BoxError),
}

/// What sending on a connection gave.
pub(crate) type Sent<'a> = Result<InResponse, SendError<'a>>;

/// A request a connection did not start (it had closed), given back to
/// go on another; any other failure is the send's error.
fn unsent(e: SendError<'_>) -> Result<OutRequest<'_>, BoxError> {
    match e {
        SendError::Unsent(request) => Ok(*request),
        SendError::Failed(e) => Err(e),
    }
}

/// hyper's HTTP/2 send error as the pool's: a request not started comes
/// back with its fields and `body` (the sender's, borrowed again).
fn h2_error(mut e: TrySendError<Request<RequestBody>>, body: &[u8]) -> SendError<'_> {
    match e.take_message() {
        Some(request) => {
            let (parts, _) = request.into_parts();
            SendError::Unsent(Box::new(OutRequest {
                method: parts.method,
                // Every field is in the map, the POST's own among them.
                post: PostFields::default(),
                headers: HeaderList::from_map(parts.headers),
                body,
                // It goes out again on HTTP/2, which keeps every field.
                response_fields: ResponseFields::All,
            }))
        }
        None => SendError::Failed(e.into_error().into()),
    }
}

impl Pool {
    /// A pool for `endpoint` (absolute, with a host: the configuration
    /// checked it).
    pub(crate) fn new(
        connector: Connector,
        endpoint: &Uri,
        idle_timeout: Duration,
    ) -> Result<Self, ConfigError> {
        let invalid = || ConfigError::InvalidEndpoint("no valid host".into());
        let host = endpoint.host().ok_or_else(invalid)?;
        let default_port = if endpoint.scheme_str() == Some("https") {
            443
        } else {
            80
        };
        let host = match endpoint.port_u16() {
            Some(port) if port != default_port => HeaderValue::try_from(format!("{host}:{port}")),
            _ => HeaderValue::try_from(host),
        }
        .map_err(|_| invalid())?;
        let origin = match endpoint.path_and_query() {
            Some(path) => Uri::from(path.clone()),
            None => Uri::from_static("/"),
        };
        Ok(Pool {
            connector,
            endpoint: endpoint.clone(),
            target: h1::Target::new(origin, host),
            idle_timeout,
            state: Mutex::new(State::default()),
        })
    }

    /// Sends a request (its URI and `Host` are set here) on a pooled
    /// connection, opening one when none is free.
    ///
    /// The usual case, an idle HTTP/1.1 connection that is open, gets the
    /// request now ([`Pool::start_idle`], as the transport's usual POST
    /// does), and the future is that connection's exchange itself (it
    /// holds the wait for the response head, not the request, and no
    /// future of the pool's is around it). Anything else goes the boxed way
    /// ([`Pool::send_slow`]), which keeps the request: an HTTP/2 connection
    /// (whose request may come back unsent), another idle connection when
    /// the first was found closed, none idle (connecting's large state is
    /// only ever in that box).
    pub(crate) fn send<'a>(
        self: &Arc<Self>,
        request: OutRequest<'a>,
    ) -> impl Future<Output = Result<InResponse, BoxError>> + use<'a> {
        if let Some(exchange) = self.start_idle(&request) {
            return Either::Left(exchange.respond(request.body, self.clone()));
        }
        std::hint::cold_path();
        Either::Right(Box::pin(Arc::clone(self).send_slow(request)))
    }

    /// The rest of [`Pool::send`]: an HTTP/2 connection, another idle
    /// connection, or a new connection.
    async fn send_slow(
        self: Arc<Self>,
        mut request: OutRequest<'_>,
    ) -> Result<InResponse, BoxError> {
        while let Some(taken) = self.take() {
            // Not started (the connection had closed): try another one.
            request = match self.send_on(taken, &request) {
                Ok(sent) => match sent.await {
                    Ok(response) => return Ok(response),
                    Err(e) => unsent(e)?,
                },
                Err(()) => request,
            };
        }
        let taken = self.open().await?;
        let unsent = || "the new connection closed before the request was sent".into();
        match self.send_on(taken, &request) {
            Ok(sent) => sent.await.map_err(|e| match e {
                SendError::Unsent(_) => unsent(),
                SendError::Failed(e) => e,
            }),
            Err(_) => Err(unsent()),
        }
    }

    /// The most recently used idle HTTP/1.1 connection, started on
    /// `request` ([`h1::Exchange::start`]), when the pool has no HTTP/2
    /// connection to share and that one is open; `None` leaves the request
    /// to [`Pool::send`] (a closed one is dropped).
    pub(crate) fn start_idle(&self, request: &OutRequest<'_>) -> Option<h1::Exchange> {
        let conn = {
            let mut state = self.lock();
            if !state.h2.is_empty() {
                return None;
            }
            state.pop_idle()?
        };
        h1::Exchange::start(conn, request, &self.target)
    }

    /// Takes the most recently used idle HTTP/1.1 connection, or shares an
    /// open HTTP/2 one (dropping closed connections on the way).
    fn take(&self) -> Option<Taken> {
        let mut state = self.lock();
        if !state.h2.is_empty() {
            state.h2.retain(|e| !e.conn.is_closed());
            if let Some(entry) = state.h2.first_mut() {
                entry.used = true;
                return Some(Taken::H2(entry.conn.clone()));
            }
        }
        state.pop_idle().map(Taken::H1)
    }

    /// Sends the request on one connection and waits for the response
    /// head, for [`Pool::send_slow`] (whose boxed future holds the wait:
    /// nothing here is part of the usual POST's). The request is read now,
    /// where it is; an idle HTTP/1.1 connection found closed leaves it to
    /// the caller (`Err`).
    fn send_on<'a>(
        self: &Arc<Self>,
        taken: Taken,
        request: &OutRequest<'a>,
    ) -> Result<impl Future<Output = Sent<'a>> + use<'a>, ()> {
        match taken {
            Taken::H1(conn) => {
                // `Host` and `Content-Length` are written with the head.
                let exchange = h1::Exchange::start(conn, request, &self.target).ok_or(())?;
                let sent = exchange.respond(request.body, self.clone());
                Ok(Either::Left(sent.map(|r| r.map_err(SendError::Failed))))
            }
            Taken::H2(sender) => Ok(Either::Right(self.send_h2(sender, request))),
        }
    }

    /// [`Pool::send_on`] for an HTTP/2 connection: its wait is held by
    /// [`Pool::send_slow`]'s box, the one allocation an HTTP/2 request's
    /// path through the pool makes. Out of line, so that an HTTP/1.1
    /// request's path does not carry its code.
    #[inline(never)]
    fn send_h2<'a>(
        &self,
        mut sender: http2::SendRequest<Full<Bytes>>,
        request: &OutRequest<'a>,
    ) -> impl Future<Output = Sent<'a>> + use<'a> {
        let headers = request.header_map();
        let body = request.body;
        // HTTP/2's body is hyper's to hold: a copy of the sender's.
        let mut h2_request = Request::new(Full::new(Bytes::copy_from_slice(body)));
        *h2_request.method_mut() = request.method.clone();
        *h2_request.uri_mut() = self.endpoint.clone();
        *h2_request.headers_mut() = headers;
        h2_request.headers_mut().remove(HOST);
        let sent = sender.try_send_request(h2_request);
        async move {
            // Held until the head arrives, as the pool's own is.
            let _sender = sender;
            let (parts, response) = sent.await.map_err(|e| h2_error(e, body))?.into_parts();
            Ok(InResponse {
                status: parts.status,
                content_type: parts.headers.get(http::header::CONTENT_TYPE).cloned(),
                headers: HeaderList::from_map(parts.headers),
                body: ResponseBody::detached(response),
            })
        }
    }

    /// Opens a connection (TCP, tunnel, TLS: [`Connector`]): an HTTP/1.1
    /// one for the caller, or an HTTP/2 one that joins the pool at once and
    /// runs on a task of its own.
    async fn open(self: &Arc<Self>) -> Result<Taken, BoxError> {
        let conn = self.connector.open(&self.endpoint).await?;
        if conn.is_h2() {
            let (sender, connection) = http2::Builder::new(TokioExecutor::new())
                .timer(TokioTimer::new())
                .handshake::<Conn, RequestBody>(conn)
                .await?;
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!(error = %e, "HTTP/2 connection ended");
                }
            });
            let mut state = self.lock();
            state.h2.push(Entry {
                conn: sender.clone(),
                used: true,
            });
            self.reap_later(&mut state);
            return Ok(Taken::H2(sender));
        }
        Ok(Taken::H1(H1::new(conn)))
    }

    /// An HTTP/1.1 connection whose exchange is over, idle again.
    pub(crate) fn put_back(self: &Arc<Self>, conn: Box<H1>) {
        let mut state = self.lock();
        state.idle.push(Entry { conn, used: true });
        self.reap_later(&mut state);
    }

    /// Starts the reaper if it is not running.
    fn reap_later(self: &Arc<Self>, state: &mut State) {
        if !state.reaping {
            state.reaping = true;
            let every = self.idle_timeout.max(Duration::from_millis(10));
            tokio::spawn(reap(Arc::downgrade(self), every));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One look of the reaper: drops closed connections and the ones not
    /// used since the last look. Returns whether the reaper goes on (it
    /// stops with the last pooled connection; a connection put back starts
    /// it again).
    fn prune(&self) -> bool {
        let mut state = self.lock();
        state
            .idle
            .retain_mut(|e| !e.conn.is_closed() && std::mem::take(&mut e.used));
        state
            .h2
            .retain_mut(|e| !e.conn.is_closed() && std::mem::take(&mut e.used));
        state.reaping = !(state.idle.is_empty() && state.h2.is_empty());
        state.reaping
    }
}

/// Closes idle connections every `every` until the pool is empty or gone
/// (on a ticker that costs the runtime nothing between ticks, `ticker.rs`).
async fn reap(pool: Weak<Pool>, every: Duration) {
    let mut ticker = crate::ticker::Ticker::new(every);
    loop {
        if !ticker.tick().await {
            return;
        }
        match pool.upgrade() {
            Some(pool) if pool.prune() => {}
            _ => return,
        }
    }
}

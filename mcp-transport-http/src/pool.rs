//! The connection pool of one transport: a hyper `SendRequest` per open
//! connection to the endpoint, grown to demand.
//!
//! Every request of a transport goes to its one endpoint, so the pool is a
//! list of connections, not a map of hosts. A request takes the first
//! connection that is ready for it (an HTTP/1.1 connection whose previous
//! response was read to its end, or any open HTTP/2 connection, which
//! multiplexes) and only opens a new one when none is: as many HTTP/1.1
//! connections as requests were ever in flight at once, each with
//! `TCP_NODELAY` (see [`Connector`]), HTTP/2 when TLS's ALPN picks it.
//!
//! A connection goes back to the pool by itself: hyper marks an HTTP/1.1
//! connection ready again once its response body has been read to the end,
//! so nothing is returned, spawned or boxed per request. A request the
//! connection could not even start (the server had closed the idle
//! connection) is sent again on another one; nothing that reached the
//! server is ever re-sent.
//!
//! One reaper task per pool (while it holds connections) closes the ones
//! idle for the configured `pool_idle_timeout` (between one and two of it).

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures::future::Either;
use http::header::HOST;
use http::{HeaderValue, Request, Response, Uri};
use hyper::body::Incoming;
use hyper::client::conn::{TrySendError, http1, http2};
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::client::{BoxError, Conn, Connector, RequestBody};
use crate::error::ConfigError;

/// The sending half of one connection.
enum Sender {
    H1(http1::SendRequest<RequestBody>),
    H2(http2::SendRequest<RequestBody>),
}

impl Sender {
    fn is_closed(&self) -> bool {
        match self {
            Sender::H1(s) => s.is_closed(),
            Sender::H2(s) => s.is_closed(),
        }
    }

    /// Whether a request can start on it now.
    fn is_ready(&self) -> bool {
        match self {
            Sender::H1(s) => s.is_ready(),
            Sender::H2(s) => !s.is_closed(),
        }
    }
}

/// One pooled connection.
struct Entry {
    sender: Sender,
    /// Used (or busy) since the reaper last looked.
    used: bool,
}

#[derive(Default)]
struct State {
    entries: Vec<Entry>,
    /// Whether the reaper task runs.
    reaping: bool,
}

/// The connections of one transport to its endpoint.
pub(crate) struct Pool {
    connector: Connector,
    /// The absolute endpoint URI (HTTP/2 requests carry it).
    endpoint: Uri,
    /// Its origin form (`/path?query`), the target of an HTTP/1.1 request.
    origin: Uri,
    /// The `Host` of an HTTP/1.1 request (the port only when not the
    /// scheme's default).
    host: HeaderValue,
    idle_timeout: Duration,
    state: Mutex<State>,
}

/// What sending on a pooled connection gave.
type Sent = Result<Response<Incoming>, TrySendError<Request<RequestBody>>>;

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
            origin,
            host,
            idle_timeout,
            state: Mutex::new(State::default()),
        })
    }

    /// Sends a request (its URI and `Host` are set here) on a ready
    /// connection, opening one when none is ready.
    pub(crate) async fn send(
        self: &Arc<Self>,
        mut request: Request<RequestBody>,
    ) -> Result<Response<Incoming>, BoxError> {
        loop {
            match self.start_pooled(request) {
                Ok(sent) => match sent.await {
                    Ok(response) => return Ok(response),
                    // Not started: the connection had closed. Try another.
                    Err(mut e) => match e.take_message() {
                        Some(back) => request = back,
                        None => return Err(e.into_error().into()),
                    },
                },
                Err(back) => {
                    request = back;
                    break;
                }
            }
        }
        let mut sender = self.open().await?;
        let sent = self.start_on(&mut sender, request);
        self.keep(sender);
        sent.await.map_err(|e| e.into_error().into())
    }

    /// Starts the request on the first ready pooled connection (dropping
    /// closed ones on the way), or gives it back when none is ready.
    #[allow(clippy::result_large_err, reason = "the request comes back whole")]
    fn start_pooled(
        &self,
        request: Request<RequestBody>,
    ) -> Result<impl Future<Output = Sent> + use<>, Request<RequestBody>> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.entries.retain(|e| !e.sender.is_closed());
        let Some(entry) = state.entries.iter_mut().find(|e| e.sender.is_ready()) else {
            return Err(request);
        };
        entry.used = true;
        Ok(self.start_on(&mut entry.sender, request))
    }

    /// Starts the request on one connection; the returned future only
    /// waits for the response.
    fn start_on(
        &self,
        sender: &mut Sender,
        mut request: Request<RequestBody>,
    ) -> impl Future<Output = Sent> + use<> {
        match sender {
            Sender::H1(s) => {
                *request.uri_mut() = self.origin.clone();
                request.headers_mut().insert(HOST, self.host.clone());
                Either::Left(s.try_send_request(request))
            }
            Sender::H2(s) => {
                *request.uri_mut() = self.endpoint.clone();
                request.headers_mut().remove(HOST);
                Either::Right(s.try_send_request(request))
            }
        }
    }

    /// Opens a connection (TCP, tunnel, TLS: [`Connector`]) and runs its
    /// HTTP/1.1 or HTTP/2 side on a task of its own.
    async fn open(&self) -> Result<Sender, BoxError> {
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
            return Ok(Sender::H2(sender));
        }
        let (sender, connection) = http1::Builder::new()
            .handshake::<Conn, RequestBody>(conn)
            .await?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "HTTP/1.1 connection ended");
            }
        });
        Ok(Sender::H1(sender))
    }

    /// Adds a new connection to the pool, starting the reaper if it is not
    /// running.
    fn keep(self: &Arc<Self>, sender: Sender) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.entries.push(Entry { sender, used: true });
        if !state.reaping {
            state.reaping = true;
            let every = self.idle_timeout.max(Duration::from_millis(10));
            tokio::spawn(reap(Arc::downgrade(self), every));
        }
    }

    /// One look of the reaper: drops closed connections and the ones
    /// neither used nor busy since the last look. Returns whether the
    /// reaper goes on (it stops with the last connection).
    fn prune(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.entries.retain_mut(|e| {
            if e.sender.is_closed() {
                return false;
            }
            // An HTTP/1.1 connection still reading a response is in use.
            let busy = matches!(&e.sender, Sender::H1(s) if !s.is_ready());
            let keep = e.used || busy;
            e.used = busy;
            keep
        });
        state.reaping = !state.entries.is_empty();
        state.reaping
    }
}

/// Closes idle connections every `every` until the pool is empty or gone.
async fn reap(pool: Weak<Pool>, every: Duration) {
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match pool.upgrade() {
            Some(pool) if pool.prune() => {}
            _ => return,
        }
    }
}

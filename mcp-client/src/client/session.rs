//! Session control: connecting without initializing, HTTP headers and
//! credentials changed at runtime, and the 2025-11-25 GET stream opened
//! and closed on demand.
//!
//! By default [`ClientBuilder::connect`] runs the lifecycle at once and,
//! on a 2025-11-25 HTTP connection, opens the GET stream right after the
//! handshake. The methods here let a host take those steps itself:
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_client::Error> {
//! use mcp_client::Client;
//! let client = Client::builder()
//!     .http("http://127.0.0.1:8080/mcp")
//!     .connect_uninitialized()?;            // nothing sent yet
//! client.set_access_token(Some("s3cr3t")).await?;
//! client.set_http_header("X-Tenant", "acme").await?;
//! client.initialize().await?;               // initialize or server/discover
//! if client.close_server_stream().await? {  // 2025-11-25 HTTP only
//!     println!("GET stream closed; server messages wait on the server");
//! }
//! client.open_server_stream().await?;
//! # Ok(()) }
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::{AbortHandle, Abortable};
use mcp_core::RequestError;
use mcp_transport_http::auth::{AuthProvider, BearerToken};
use mcp_transport_http::{HttpError, ResponseStream};
use mcp_types::{Era, Message};
use tokio::sync::oneshot;

use crate::client::Client;
use crate::client::builder::ClientBuilder;
use crate::driver::http::HttpIo;
use crate::driver::{Command, Driver};
use crate::error::{Error, ErrorKind};
use crate::handlers::BoxFuture;
use crate::transport::Link;

/// How many times an opening GET that met `409 Conflict` (the server still
/// holds the stream this client just closed) is tried again.
const CONFLICT_RETRIES: u32 = 4;

/// The first pause before such a retry; it doubles each time.
const CONFLICT_BACKOFF: Duration = Duration::from_millis(50);

const GET_STREAM_ONLY: &str = "the GET stream exists only on 2025-11-25 HTTP connections";
const HTTP_ONLY: &str = "HTTP headers and credentials apply to HTTP connections only";

type Reply<T> = oneshot::Sender<Result<T, Error>>;

/// A session-control request from a handle.
pub(crate) enum SessionCommand {
    Initialize(Reply<()>),
    OpenStream(Reply<bool>),
    CloseStream(Reply<bool>),
    Http {
        change: HttpChange,
        reply: Reply<bool>,
    },
}

/// A change to the HTTP transport's per-connection settings.
pub(crate) enum HttpChange {
    SetHeader(String, String),
    RemoveHeader(String),
    Auth(Option<Arc<dyn AuthProvider>>),
}

/// One step of the GET stream, tagged with the opening it belongs to.
pub(crate) enum GetIo {
    Opened {
        generation: u64,
        result: Result<Option<ResponseStream>, HttpError>,
    },
    Item {
        generation: u64,
        stream: ResponseStream,
        item: Option<Result<Message, HttpError>>,
    },
    Retry {
        generation: u64,
    },
    Aborted,
}

/// The driver's session-control state.
#[derive(Default)]
pub(crate) struct SessionControl {
    /// Connected with `connect_uninitialized` and not initialized yet.
    pub(crate) uninitialized: bool,
    /// Bumped whenever the GET stream is (re)opened or closed: anything
    /// from an older opening is dropped.
    generation: u64,
    stream: Stream,
    /// Stops the GET exchange in progress (the open or the next read).
    abort: Option<AbortHandle>,
    conflicts: u32,
    /// `open_server_stream` callers waiting for the GET's answer.
    waiters: Vec<Reply<bool>>,
}

#[derive(Default, PartialEq, Eq)]
enum Stream {
    #[default]
    Closed,
    Opening,
    Open,
}

impl SessionControl {
    /// The state of a new connection (`uninitialized` when the lifecycle
    /// waits for `Client::initialize`).
    pub(crate) fn new(uninitialized: bool) -> Self {
        SessionControl {
            uninitialized,
            ..SessionControl::default()
        }
    }

    fn stop(&mut self) {
        if let Some(a) = self.abort.take() {
            a.abort();
        }
        self.generation += 1;
        self.stream = Stream::Closed;
    }

    fn answer(&mut self, r: impl Fn() -> Result<bool, Error>) {
        for w in self.waiters.drain(..) {
            let _ = w.send(r());
        }
    }

    /// Wraps a GET step so closing the stream can drop it at once.
    fn abortable(&mut self, fut: BoxFuture<HttpIo>) -> BoxFuture<HttpIo> {
        let (handle, registration) = AbortHandle::new_pair();
        self.abort = Some(handle);
        Box::pin(async move {
            Abortable::new(fut, registration)
                .await
                .unwrap_or(HttpIo::Session(GetIo::Aborted))
        })
    }
}

impl Driver {
    /// Opens the 2025-11-25 GET stream when this is an HTTP link that wants
    /// one (replacing a stream of an older session); returns whether it did.
    pub(crate) fn open_server_stream(&mut self) -> bool {
        if !self.get_stream || !matches!(self.link, Some(Link::Http(_))) {
            return false;
        }
        self.session_ctl.stop();
        self.session_ctl.conflicts = 0;
        self.send_get();
        true
    }

    fn send_get(&mut self) {
        let Some(Link::Http(http)) = &self.link else {
            return;
        };
        let http = http.clone();
        let generation = self.session_ctl.generation;
        self.session_ctl.stream = Stream::Opening;
        let fut: BoxFuture<HttpIo> = Box::pin(async move {
            let result = http.open_server_stream().await;
            HttpIo::Session(GetIo::Opened { generation, result })
        });
        let fut = self.session_ctl.abortable(fut);
        self.http_io.push(fut);
    }

    fn read_get(&mut self, generation: u64, mut stream: ResponseStream) {
        let fut: BoxFuture<HttpIo> = Box::pin(async move {
            let item = stream.next().await;
            HttpIo::Session(GetIo::Item {
                generation,
                stream,
                item,
            })
        });
        let fut = self.session_ctl.abortable(fut);
        self.http_io.push(fut);
    }

    /// One step of the GET stream.
    pub(crate) fn on_get_io(&mut self, now: Instant, io: GetIo) {
        let current = self.session_ctl.generation;
        match io {
            GetIo::Opened { generation, result } => {
                self.release_connect();
                if generation == current {
                    self.get_opened(now, result);
                }
            }
            GetIo::Item {
                generation,
                stream,
                item,
            } if generation == current => match item {
                Some(Ok(m)) => {
                    self.receive(now, m);
                    self.read_get(generation, stream);
                }
                // A broken message: reported, and the stream goes on.
                Some(Err(e @ HttpError::InvalidEnvelope { .. })) => {
                    self.http_failed(now, None, e);
                    self.read_get(generation, stream);
                }
                Some(Err(e)) => {
                    self.session_ctl.stream = Stream::Closed;
                    self.http_failed(now, None, e);
                }
                None => {
                    tracing::debug!("the GET stream ended");
                    self.session_ctl.stream = Stream::Closed;
                }
            },
            GetIo::Retry { generation } if generation == current => self.send_get(),
            GetIo::Item { .. } | GetIo::Retry { .. } | GetIo::Aborted => {}
        }
    }

    fn get_opened(&mut self, now: Instant, result: Result<Option<ResponseStream>, HttpError>) {
        let ctl = &mut self.session_ctl;
        match result {
            Ok(Some(stream)) => {
                ctl.stream = Stream::Open;
                ctl.conflicts = 0;
                ctl.answer(|| Ok(true));
                let generation = ctl.generation;
                self.read_get(generation, stream);
            }
            Ok(None) => {
                tracing::debug!("the server offers no GET stream");
                ctl.stream = Stream::Closed;
                ctl.answer(|| Ok(false));
            }
            Err(e)
                if e.status() == Some(http::StatusCode::CONFLICT)
                    && ctl.conflicts < CONFLICT_RETRIES =>
            {
                // The server has not noticed yet that the previous stream
                // is gone; it allows one per session.
                let pause = CONFLICT_BACKOFF * 2u32.pow(ctl.conflicts);
                ctl.conflicts += 1;
                let generation = ctl.generation;
                let fut: BoxFuture<HttpIo> = Box::pin(async move {
                    tokio::time::sleep(pause).await;
                    HttpIo::Session(GetIo::Retry { generation })
                });
                let fut = ctl.abortable(fut);
                self.http_io.push(fut);
            }
            Err(e @ HttpError::SessionExpired) => {
                ctl.stream = Stream::Closed;
                ctl.answer(|| Err(RequestError::SessionExpired.into()));
                self.http_failed(now, None, e);
            }
            Err(e) => {
                tracing::debug!(error = %e, "GET stream failed");
                ctl.stream = Stream::Closed;
                let text = e.to_string();
                ctl.answer(|| Err(Error::new(ErrorKind::Transport(text.clone()))));
            }
        }
    }

    /// Why the GET stream cannot be controlled here, if it cannot.
    fn get_stream_unavailable(&self) -> Option<Error> {
        if self.closed {
            return Some(Error::closed());
        }
        if self.session_ctl.uninitialized {
            return Some(Error::new(ErrorKind::NotInitialized));
        }
        let http = matches!(self.link, Some(Link::Http(_)));
        (!http || self.conn.era() != Some(Era::Legacy))
            .then(|| Error::new(ErrorKind::NotApplicable(GET_STREAM_ONLY)))
    }

    pub(crate) fn on_session_command(&mut self, now: Instant, c: SessionCommand) {
        match c {
            SessionCommand::Initialize(reply) => self.initialize(now, reply),
            SessionCommand::OpenStream(reply) => {
                if let Some(e) = self.get_stream_unavailable() {
                    let _ = reply.send(Err(e));
                    return;
                }
                self.get_stream = true;
                match self.session_ctl.stream {
                    Stream::Open => {
                        let _ = reply.send(Ok(true));
                    }
                    Stream::Opening => self.session_ctl.waiters.push(reply),
                    Stream::Closed => {
                        self.session_ctl.waiters.push(reply);
                        self.open_server_stream();
                    }
                }
            }
            SessionCommand::CloseStream(reply) => {
                if let Some(e) = self.get_stream_unavailable() {
                    let _ = reply.send(Err(e));
                    return;
                }
                self.get_stream = false;
                let was_open = self.session_ctl.stream != Stream::Closed;
                self.session_ctl.stop();
                // An `initialize` waiting for this GET need not wait more:
                // the handshake is done (the era is known).
                self.release_connect();
                self.session_ctl.answer(|| {
                    Err(Error::new(ErrorKind::NotInProgress(
                        "the GET stream was closed before it opened",
                    )))
                });
                let _ = reply.send(Ok(was_open));
            }
            SessionCommand::Http { change, reply } => {
                let _ = reply.send(self.change_http(change));
            }
        }
    }

    fn initialize(&mut self, now: Instant, reply: Reply<()>) {
        if self.closed {
            let _ = reply.send(Err(Error::closed()));
            return;
        }
        match self.conn.connect(now) {
            Ok(()) => {
                self.session_ctl.uninitialized = false;
                self.connect_reply = Some(reply);
            }
            Err(e) => {
                let _ = reply.send(Err(e.into()));
            }
        }
    }

    fn change_http(&mut self, change: HttpChange) -> Result<bool, Error> {
        let Some(Link::Http(http)) = &self.link else {
            return Err(if self.closed {
                Error::closed()
            } else {
                Error::new(ErrorKind::NotApplicable(HTTP_ONLY))
            });
        };
        let invalid = |name: &str| {
            Error::new(ErrorKind::InvalidHeader {
                name: name.to_owned(),
            })
        };
        match change {
            HttpChange::SetHeader(name, value) => http
                .set_header(&name, &value)
                .map(|()| true)
                .map_err(|_| invalid(&name)),
            HttpChange::RemoveHeader(name) => http.remove_header(&name).map_err(|_| invalid(&name)),
            HttpChange::Auth(auth) => {
                http.set_auth(auth);
                Ok(true)
            }
        }
    }
}

impl ClientBuilder {
    /// Connects without initializing: starts the transport (a stdio server
    /// process is spawned, an HTTP client is built) and the driver, but
    /// sends nothing. Set credentials and headers
    /// ([`Client::set_access_token`], [`Client::set_auth_provider`],
    /// [`Client::set_http_header`]), then call [`Client::initialize`].
    /// Until then every request fails with
    /// [`Error::is_not_initialized`]. Must be called within a Tokio
    /// runtime.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::Client;
    /// let client = Client::builder()
    ///     .http("http://127.0.0.1:8080/mcp")
    ///     .connect_uninitialized()?;
    /// assert!(client.list_tools(None).await.unwrap_err().is_not_initialized());
    /// client.set_access_token(Some("s3cr3t")).await?;
    /// client.initialize().await?;
    /// let tools = client.list_tools(None).await?;
    /// # let _ = tools; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error`] when the transport cannot start.
    pub fn connect_uninitialized(self) -> Result<Client, Error> {
        let (client, _connected) = self.launch(false)?;
        Ok(client)
    }
}

impl Client {
    async fn session<T>(&self, c: impl FnOnce(Reply<T>) -> SessionCommand) -> Result<T, Error> {
        let (reply, rx) = oneshot::channel();
        self.inner
            .commands
            .send(Command::Session(c(reply)))
            .map_err(|_| Error::closed())?;
        rx.await.map_err(|_| Error::closed())?
    }

    /// Runs the lifecycle of a client made with
    /// [`ClientBuilder::connect_uninitialized`]: the era probe and
    /// `initialize`, or `server/discover`, exactly as
    /// [`ClientBuilder::connect`] would, with the headers and credentials
    /// set since. Returns when the client is ready (on a 2025-11-25 HTTP
    /// connection, once the GET stream has answered too).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::{Client, ServerCommand};
    /// let client = Client::builder()
    ///     .stdio(ServerCommand::new("my-mcp-server"))
    ///     .connect_uninitialized()?;
    /// client.initialize().await?;
    /// println!("{:?}", client.protocol_version());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`ClientBuilder::connect`]; [`Error::is_usage`] when the client
    /// is already initialized (or initializing).
    pub async fn initialize(&self) -> Result<(), Error> {
        self.session(SessionCommand::Initialize).await
    }

    /// Opens the 2025-11-25 GET stream (server-initiated requests and
    /// notifications) after [`Client::close_server_stream`] or a builder
    /// with [`get_stream(false)`](ClientBuilder::get_stream), and keeps it
    /// wanted: a recovered session opens it again. Returns once the server
    /// answered: `true` when the stream is open (or already was), `false`
    /// when the server offers none (`405`). A `409 Conflict` (the server
    /// still holds the stream just closed) is retried a few times with a
    /// short backoff.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.close_server_stream().await?;
    /// // ... a quiet period: the server keeps its messages for later ...
    /// let open = client.open_server_stream().await?;
    /// println!("GET stream open: {open}");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`] on a stdio, custom or 2026-07-28 connection (no
    /// GET stream there) and before [`Client::initialize`];
    /// [`Error::is_transport`] when the GET fails;
    /// [`Error::is_session_recovered`] when the session had expired.
    pub async fn open_server_stream(&self) -> Result<bool, Error> {
        self.session(SessionCommand::OpenStream).await
    }

    /// Closes the 2025-11-25 GET stream and keeps it closed (a recovered
    /// session does not reopen it) until [`Client::open_server_stream`].
    /// Responses to the client's own requests are unaffected; what the
    /// server sends on the GET stream meanwhile (its requests, list
    /// changes, resource updates) waits on the server or is lost, as the
    /// server decides. Returns whether a stream was open or opening.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let was_open = client.close_server_stream().await?;
    /// # let _ = was_open; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::open_server_stream`] (nothing to fail on the wire).
    pub async fn close_server_stream(&self) -> Result<bool, Error> {
        self.session(SessionCommand::CloseStream).await
    }

    /// Sets a header sent on every later HTTP request of this connection
    /// (POST, GET, DELETE), replacing one of the same name; an
    /// `Authorization` value is kept out of logs (an authorization
    /// provider, when set, still supplies `Authorization`: see
    /// [`Client::set_access_token`]). Per-call headers
    /// ([`CallOptions::with_header`](crate::CallOptions::with_header)) win
    /// over it.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.set_http_header("X-Tenant", "acme").await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`]: an invalid or reserved (`Mcp-*`, `Host`, ...)
    /// header, or a connection that is not HTTP.
    pub async fn set_http_header(&self, name: &str, value: &str) -> Result<(), Error> {
        let change = HttpChange::SetHeader(name.to_owned(), value.to_owned());
        self.session(|reply| SessionCommand::Http { change, reply })
            .await
            .map(drop)
    }

    /// Stops sending a header set with [`Client::set_http_header`] (or
    /// configured on the `HttpConfig`); returns whether it was set.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.set_http_header("X-Trace", "on").await?;
    /// assert!(client.remove_http_header("X-Trace").await?);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::set_http_header`].
    pub async fn remove_http_header(&self, name: &str) -> Result<bool, Error> {
        let change = HttpChange::RemoveHeader(name.to_owned());
        self.session(|reply| SessionCommand::Http { change, reply })
            .await
    }

    /// Sends `Authorization: Bearer <token>` on every later HTTP request
    /// (replacing the configured authorization provider, OAuth included);
    /// `None` removes it. The token never reaches logs or `Debug` output.
    /// For one request only, see
    /// [`CallOptions::with_access_token`](crate::CallOptions::with_access_token).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.set_access_token(Some("rotated-token")).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`]: a token that cannot travel in a header, or a
    /// connection that is not HTTP.
    pub async fn set_access_token(&self, token: Option<&str>) -> Result<(), Error> {
        let provider = match token {
            Some(t) => {
                let bearer = BearerToken::new(t).map_err(|_| {
                    Error::new(ErrorKind::InvalidHeader {
                        name: "authorization".into(),
                    })
                })?;
                Some(Arc::new(bearer) as Arc<dyn AuthProvider>)
            }
            None => None,
        };
        self.set_auth_provider(provider).await
    }

    /// Replaces the authorization provider of every later HTTP request
    /// (an OAuth provider, a custom one, or `None` for none).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use mcp_client::auth::BearerToken;
    /// client.set_auth_provider(Some(Arc::new(BearerToken::new("s3cr3t")?))).await?;
    /// client.set_auth_provider(None).await?; // unauthenticated from now on
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`] on a connection that is not HTTP.
    pub async fn set_auth_provider(
        &self,
        provider: Option<Arc<dyn AuthProvider>>,
    ) -> Result<(), Error> {
        let change = HttpChange::Auth(provider);
        self.session(|reply| SessionCommand::Http { change, reply })
            .await
            .map(drop)
    }
}

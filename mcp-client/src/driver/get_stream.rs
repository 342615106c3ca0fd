//! The 2025-11-25 GET stream (server requests and notifications outside
//! any request): opened after the handshake and after a recovered session
//! when wanted, opened and closed on demand
//! ([`Client::open_server_stream`](crate::Client::open_server_stream),
//! [`Client::close_server_stream`](crate::Client::close_server_stream)),
//! retried after `409 Conflict`, and the wait `connect` makes for its
//! first answer.
//!
//! Each step (the opening GET, each read, a retry pause) is a future in
//! the driver's HTTP set, tagged with the opening it belongs to, so closing
//! or reopening the stream drops whatever an older opening still does.

use std::time::{Duration, Instant};

use futures::future::{AbortHandle, Abortable};
use mcp_core::RequestError;
use mcp_transport_http::{HttpError, ResponseStream};
use mcp_types::{Era, Message};

use super::Driver;
use super::commands::Reply;
use super::http::HttpIo;
use crate::error::{Error, ErrorKind};
use crate::handlers::BoxFuture;
use crate::transport::Link;

/// How many times an opening GET that met `409 Conflict` (the server still
/// holds the stream this client just closed) is tried again.
const CONFLICT_RETRIES: u32 = 4;

/// The first pause before such a retry; it doubles each time.
const CONFLICT_BACKOFF: Duration = Duration::from_millis(50);

/// How long `connect` waits for the GET stream's answer before returning
/// anyway (a server that holds its response headers back).
const GET_STREAM_WAIT: Duration = Duration::from_secs(2);

const GET_STREAM_ONLY: &str = "the GET stream exists only on 2025-11-25 HTTP connections";

/// One step of the GET stream, tagged with the opening it belongs to.
pub(super) enum GetIo {
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
    /// [`GET_STREAM_WAIT`] passed since the first GET went out.
    WaitOver,
    Aborted,
}

/// The driver's GET-stream state.
#[derive(Default)]
pub(super) struct GetStream {
    /// Whether the stream is wanted (the builder's `get_stream`, then
    /// `open_server_stream` / `close_server_stream`).
    wanted: bool,
    /// Bumped whenever the stream is (re)opened or closed: anything from
    /// an older opening is dropped.
    generation: u64,
    state: State,
    /// Stops the GET exchange in progress (the open or the next read).
    abort: Option<AbortHandle>,
    conflicts: u32,
    /// `open_server_stream` callers waiting for the GET's answer.
    waiters: Vec<Reply<bool>>,
}

#[derive(Default, PartialEq, Eq)]
enum State {
    #[default]
    Closed,
    Opening,
    Open,
}

impl GetStream {
    /// The state of a new connection; `wanted` opens the stream after the
    /// handshake.
    pub(super) fn new(wanted: bool) -> Self {
        GetStream {
            wanted,
            ..GetStream::default()
        }
    }

    fn stop(&mut self) {
        if let Some(a) = self.abort.take() {
            a.abort();
        }
        self.generation += 1;
        self.state = State::Closed;
    }

    fn answer(&mut self, r: impl Fn() -> Result<bool, Error>) {
        for w in self.waiters.drain(..) {
            let _ = w.send(r());
        }
    }

    /// Wraps a GET step so closing the stream can drop it at once.
    fn abortable(&mut self, fut: BoxFuture<GetIo>) -> BoxFuture<HttpIo> {
        let (handle, registration) = AbortHandle::new_pair();
        self.abort = Some(handle);
        Box::pin(async move {
            HttpIo::Get(
                Abortable::new(fut, registration)
                    .await
                    .unwrap_or(GetIo::Aborted),
            )
        })
    }
}

impl Driver {
    /// Opens the GET stream when this is an HTTP link that wants one
    /// (replacing a stream of an older session); returns whether it did.
    pub(super) fn open_server_stream(&mut self) -> bool {
        if !self.get_stream.wanted || !matches!(self.link, Some(Link::Http(_))) {
            return false;
        }
        self.get_stream.stop();
        self.get_stream.conflicts = 0;
        self.send_get();
        true
    }

    fn send_get(&mut self) {
        let Some(Link::Http(http)) = &self.link else {
            return;
        };
        let http = http.clone();
        let generation = self.get_stream.generation;
        self.get_stream.state = State::Opening;
        let fut = self.get_stream.abortable(Box::pin(async move {
            let result = http.open_server_stream().await;
            GetIo::Opened { generation, result }
        }));
        self.http_io.push(fut);
    }

    fn read_get(&mut self, generation: u64, mut stream: ResponseStream) {
        let fut = self.get_stream.abortable(Box::pin(async move {
            let item = stream.next().await;
            GetIo::Item {
                generation,
                stream,
                item,
            }
        }));
        self.http_io.push(fut);
    }

    /// Holds `connect`'s answer until the GET stream answers, for at most
    /// [`GET_STREAM_WAIT`].
    pub(super) fn wait_for_server_stream(&mut self) {
        self.http_io.push(Box::pin(async {
            tokio::time::sleep(GET_STREAM_WAIT).await;
            HttpIo::Get(GetIo::WaitOver)
        }));
    }

    /// Tells `connect` it succeeded, if it still waits.
    pub(super) fn release_connect(&mut self) {
        if let Some(tx) = self.connect_reply.take() {
            let _ = tx.send(Ok(()));
        }
    }

    /// One step of the GET stream.
    pub(super) fn on_get_io(&mut self, now: Instant, io: GetIo) {
        let current = self.get_stream.generation;
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
                    self.get_stream.state = State::Closed;
                    self.http_failed(now, None, e);
                }
                None => {
                    tracing::debug!("the GET stream ended");
                    self.get_stream.state = State::Closed;
                }
            },
            GetIo::Retry { generation } if generation == current => self.send_get(),
            GetIo::WaitOver => self.release_connect(),
            GetIo::Item { .. } | GetIo::Retry { .. } | GetIo::Aborted => {}
        }
    }

    fn get_opened(&mut self, now: Instant, result: Result<Option<ResponseStream>, HttpError>) {
        let ctl = &mut self.get_stream;
        match result {
            Ok(Some(stream)) => {
                ctl.state = State::Open;
                ctl.conflicts = 0;
                ctl.answer(|| Ok(true));
                let generation = ctl.generation;
                self.read_get(generation, stream);
            }
            Ok(None) => {
                tracing::debug!("the server offers no GET stream");
                ctl.state = State::Closed;
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
                let fut = ctl.abortable(Box::pin(async move {
                    tokio::time::sleep(pause).await;
                    GetIo::Retry { generation }
                }));
                self.http_io.push(fut);
            }
            Err(e @ HttpError::SessionExpired) => {
                ctl.state = State::Closed;
                ctl.answer(|| Err(RequestError::SessionExpired.into()));
                self.http_failed(now, None, e);
            }
            Err(e) => {
                tracing::debug!(error = %e, "GET stream failed");
                ctl.state = State::Closed;
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
        if self.uninitialized {
            return Some(Error::new(ErrorKind::NotInitialized));
        }
        let http = matches!(self.link, Some(Link::Http(_)));
        (!http || self.conn.era() != Some(Era::Legacy))
            .then(|| Error::new(ErrorKind::NotApplicable(GET_STREAM_ONLY)))
    }

    /// `Client::open_server_stream`: wanted from now on; answered once the
    /// GET has its answer.
    pub(super) fn want_server_stream(&mut self, reply: Reply<bool>) {
        if let Some(e) = self.get_stream_unavailable() {
            let _ = reply.send(Err(e));
            return;
        }
        self.get_stream.wanted = true;
        match self.get_stream.state {
            State::Open => {
                let _ = reply.send(Ok(true));
            }
            State::Opening => self.get_stream.waiters.push(reply),
            State::Closed => {
                self.get_stream.waiters.push(reply);
                self.open_server_stream();
            }
        }
    }

    /// `Client::close_server_stream`: closed, and not wanted until opened
    /// again.
    pub(super) fn unwant_server_stream(&mut self, reply: Reply<bool>) {
        if let Some(e) = self.get_stream_unavailable() {
            let _ = reply.send(Err(e));
            return;
        }
        self.get_stream.wanted = false;
        let was_open = self.get_stream.state != State::Closed;
        self.get_stream.stop();
        // An `initialize` waiting for this GET need not wait more: the
        // handshake is done (the era is known).
        self.release_connect();
        self.get_stream.answer(|| {
            Err(Error::new(ErrorKind::NotInProgress(
                "the GET stream was closed before it opened",
            )))
        });
        let _ = reply.send(Ok(was_open));
    }
}

//! The 2025-11-25 GET stream (server requests and notifications outside
//! any request) as the core decides it (`mcp_core::connection::server_stream`):
//! the core says when to open a GET ([`Transmit::OpenServerStream`],
//! tagged with a generation) and when to drop it; this module opens it,
//! reads it, reports what became of it
//! ([`Connection::handle_server_stream`]), and answers the handles that
//! asked for it ([`Client::open_server_stream`],
//! [`Client::close_server_stream`]). When to retry after `409 Conflict`,
//! how long `connect` waits for the first answer and whether a recovered
//! session reopens it are the core's decisions and timers.
//!
//! [`Transmit::OpenServerStream`]: mcp_core::Transmit::OpenServerStream
//! [`Connection::handle_server_stream`]: mcp_core::Connection::handle_server_stream
//! [`Client::open_server_stream`]: crate::Client::open_server_stream
//! [`Client::close_server_stream`]: crate::Client::close_server_stream
//!
//! Without the `http` feature there is no GET to open: the handles' calls
//! are answered as on any connection that is not 2025-11-25 HTTP.

use std::time::Instant;

use futures::future::AbortHandle;
#[cfg(feature = "http")]
use futures::future::Abortable;
#[cfg(feature = "http")]
use mcp_core::ServerStreamOutcome;
use mcp_core::{RequestError, ServerStreamChange, ServerStreamState};
#[cfg(feature = "http")]
use mcp_transport_http::{HttpError, ResponseStream};
use mcp_types::Era;
#[cfg(feature = "http")]
use mcp_types::Message;

use super::Driver;
use super::commands::Reply;
#[cfg(feature = "http")]
use super::http::HttpIo;
use crate::error::{Error, ErrorKind};
#[cfg(feature = "http")]
use crate::handlers::BoxFuture;
use crate::transport::Link;

const GET_STREAM_ONLY: &str = "the GET stream exists only on 2025-11-25 HTTP connections";

/// One step of the GET stream, tagged with the opening it belongs to.
#[cfg(feature = "http")]
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
    Aborted,
}

/// The GET exchange in progress and the handles waiting for it to open.
#[derive(Default)]
pub(super) struct GetStream {
    /// The generation of the GET in progress (the core's tag).
    #[cfg(feature = "http")]
    generation: u64,
    /// Stops the GET exchange in progress (the open or the next read).
    abort: Option<AbortHandle>,
    /// `open_server_stream` callers waiting for the GET's answer.
    waiters: Vec<Reply<bool>>,
}

impl GetStream {
    fn stop(&mut self) {
        if let Some(a) = self.abort.take() {
            a.abort();
        }
    }

    fn answer(&mut self, r: impl Fn() -> Result<bool, Error>) {
        for w in self.waiters.drain(..) {
            let _ = w.send(r());
        }
    }

    /// Wraps a GET step so dropping the stream drops it at once.
    #[cfg(feature = "http")]
    fn abortable(&mut self, fut: BoxFuture<'static, GetIo>) -> BoxFuture<'static, HttpIo> {
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
    /// `Transmit::OpenServerStream` in a build without HTTP: the core asks
    /// for a GET only on HTTP connections, so there is none to open.
    #[cfg(not(feature = "http"))]
    pub(super) fn open_get(&mut self, generation: u64) {
        tracing::debug!(generation, "no GET stream without the `http` feature");
    }

    /// `Transmit::OpenServerStream`: opens the GET (dropping an older one).
    #[cfg(feature = "http")]
    #[cold]
    pub(super) fn open_get(&mut self, generation: u64) {
        let Some(Link::Http(http)) = &self.link else {
            return;
        };
        let http = http.clone();
        if let Some(version) = self.conn.protocol_version() {
            http.set_protocol_version(version);
        }
        self.get_stream.stop();
        self.get_stream.generation = generation;
        let fut = self.get_stream.abortable(Box::pin(async move {
            let result = http.open_server_stream().await;
            GetIo::Opened { generation, result }
        }));
        self.http_io.push(fut);
    }

    /// `Transmit::CloseServerStream`: drops the GET, open or opening.
    #[cold]
    pub(super) fn close_get(&mut self) {
        self.get_stream.stop();
    }

    #[cfg(feature = "http")]
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

    /// Whether the transport already holds a newer session than the one a
    /// `404` ended.
    #[cfg(feature = "http")]
    fn newer_session_live(&self) -> bool {
        matches!(&self.link, Some(Link::Http(h)) if h.session_id().is_some())
    }

    /// One step of the GET: its answer or an item, reported to the core.
    /// Out of line: not on a call's path.
    #[cfg(feature = "http")]
    #[inline(never)]
    pub(super) fn on_get_io(&mut self, now: Instant, io: GetIo) {
        match io {
            GetIo::Opened { generation, result } => {
                let outcome = match result {
                    Ok(Some(stream)) => {
                        self.read_get(generation, stream);
                        ServerStreamOutcome::Opened
                    }
                    Ok(None) => ServerStreamOutcome::NotOffered,
                    Err(e) if e.status() == Some(http::StatusCode::CONFLICT) => {
                        ServerStreamOutcome::Conflict
                    }
                    Err(HttpError::SessionExpired) => ServerStreamOutcome::SessionExpired {
                        newer_session_live: self.newer_session_live(),
                    },
                    Err(e) => {
                        tracing::debug!(error = %e, "GET stream failed");
                        ServerStreamOutcome::Failed(e.to_string())
                    }
                };
                self.conn.handle_server_stream(now, generation, outcome);
            }
            GetIo::Item {
                generation,
                stream,
                item,
            } if generation == self.get_stream.generation => match item {
                Some(Ok(m)) => {
                    self.receive(now, m);
                    self.read_get(generation, stream);
                }
                // A broken message: reported, and the stream goes on.
                Some(Err(e @ HttpError::InvalidEnvelope { .. })) => {
                    self.http_failed(now, None, e);
                    self.read_get(generation, stream);
                }
                Some(Err(HttpError::SessionExpired)) => {
                    let outcome = ServerStreamOutcome::SessionExpired {
                        newer_session_live: self.newer_session_live(),
                    };
                    self.conn.handle_server_stream(now, generation, outcome);
                }
                Some(Err(e)) => {
                    let outcome = ServerStreamOutcome::Failed(e.to_string());
                    self.conn.handle_server_stream(now, generation, outcome);
                    self.http_failed(now, None, e);
                }
                None => {
                    tracing::debug!("the GET stream ended");
                    let outcome = ServerStreamOutcome::Ended;
                    self.conn.handle_server_stream(now, generation, outcome);
                }
            },
            GetIo::Item { .. } | GetIo::Aborted => {}
        }
    }

    /// Tells `connect` it succeeded, if it still waits.
    #[inline(never)]
    pub(super) fn release_connect(&mut self) {
        if let Some(tx) = self.connect_reply.take() {
            let _ = tx.send(Ok(()));
        }
    }

    /// `Event::ServerStream`: answers the handles waiting for the stream.
    #[inline(never)]
    pub(super) fn server_stream_changed(&mut self, change: ServerStreamChange) {
        match change {
            ServerStreamChange::Opened => self.get_stream.answer(|| Ok(true)),
            ServerStreamChange::NotOffered => {
                tracing::debug!("the server offers no GET stream");
                self.get_stream.answer(|| Ok(false));
            }
            ServerStreamChange::Failed(RequestError::ServerStream(reason)) => {
                let e = || Error::new(ErrorKind::Transport(reason.clone()));
                self.get_stream.answer(|| Err(e()));
            }
            ServerStreamChange::Failed(error) => {
                let text = error.to_string();
                tracing::debug!(error = %text, "GET stream failed");
                let kind = matches!(error, RequestError::SessionExpired);
                self.get_stream.answer(|| {
                    Err(match kind {
                        true => RequestError::SessionExpired.into(),
                        false => Error::new(ErrorKind::Transport(text.clone())),
                    })
                });
            }
            ServerStreamChange::Ended => self.get_stream.answer(|| Ok(false)),
            ServerStreamChange::Closed => self.get_stream.answer(|| {
                Err(Error::new(ErrorKind::NotInProgress(
                    "the GET stream was closed before it opened",
                )))
            }),
            other => tracing::debug!(change = ?other, "GET stream change"),
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
        (!is_http(self.link.as_ref()) || self.conn.era() != Some(Era::Legacy))
            .then(|| Error::new(ErrorKind::NotApplicable(GET_STREAM_ONLY)))
    }

    /// `Client::open_server_stream`: wanted from now on; answered once the
    /// GET has its answer.
    pub(super) fn want_server_stream(&mut self, now: Instant, reply: Reply<bool>) {
        if let Some(e) = self.get_stream_unavailable() {
            let _ = reply.send(Err(e));
            return;
        }
        match self.conn.open_server_stream(now) {
            Ok(ServerStreamState::Open) => {
                let _ = reply.send(Ok(true));
            }
            Ok(_) => self.get_stream.waiters.push(reply),
            Err(e) => {
                let _ = reply.send(Err(e.into()));
            }
        }
    }

    /// `Client::close_server_stream`: closed, and not wanted until opened
    /// again.
    pub(super) fn unwant_server_stream(&mut self, now: Instant, reply: Reply<bool>) {
        if let Some(e) = self.get_stream_unavailable() {
            let _ = reply.send(Err(e));
            return;
        }
        let _ = reply.send(self.conn.close_server_stream(now).map_err(Error::from));
    }
}

/// Whether the driver talks Streamable HTTP.
#[cfg(feature = "http")]
fn is_http(link: Option<&Link>) -> bool {
    matches!(link, Some(Link::Http(_)))
}

/// No HTTP transport in this build.
#[cfg(not(feature = "http"))]
fn is_http(_: Option<&Link>) -> bool {
    false
}

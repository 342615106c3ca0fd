//! The 2025-11-25 GET stream (the server's channel for its own requests
//! and notifications over Streamable HTTP): whether it is wanted, when to
//! open it, what its answers mean, the `409 Conflict` backoff, and how long
//! a caller of `connect` waits for it.
//!
//! # For the driver
//!
//! * Output [`Transmit::OpenServerStream`]`{generation}`: open a GET (drop
//!   any GET of an older generation first), then report what became of it
//!   with [`Connection::handle_server_stream`]`(now, generation, outcome)`:
//!   [`ServerStreamOutcome::Opened`] when the event stream is open,
//!   `NotOffered` for `405` (or no stream), `Conflict` for `409`,
//!   `SessionExpired` for the `404` of an ended session, `Failed` for any
//!   other failure, and `Ended` when an open stream ends. Feed the messages
//!   it carries to `handle_message` as usual. Outcomes of an older
//!   generation are ignored.
//! * Output [`Transmit::CloseServerStream`]: drop the GET (open, opening or
//!   waiting for a retry).
//! * Events [`Event::ServerStream`]: how the stream changed (answer callers
//!   of `open_server_stream` from them), and [`Event::ServerStreamSettled`]:
//!   the GET opened when the session became ready has answered (or
//!   [`SERVER_STREAM_WAIT`] passed, or it was closed): a `connect` held for
//!   it may return now. A 2025-11-25 server may send its first request on
//!   the GET stream right after the handshake, and SDK servers drop
//!   messages for a stream that is not open yet. So after
//!   [`Event::Connected`], hold the caller of `connect` until
//!   `ServerStreamSettled` when [`Connection::server_stream_state`] is
//!   `Opening`, and release it at once otherwise.
//! * Commands [`Connection::open_server_stream`] and
//!   [`Connection::close_server_stream`]; getter
//!   [`Connection::server_stream_state`].
//! * Timers [`Timer::ServerStreamRetry`] (a `409` backoff) and
//!   [`Timer::ServerStreamWait`]: nothing to do beyond `handle_timeout`.
//!
//! The stream is wanted from the start when
//! [`Config::server_stream`](crate::Config::server_stream) is set (the
//! default), and opened each time a 2025-11-25 session over HTTP becomes
//! ready, a recovered session included; `close_server_stream` keeps it
//! closed (a recovered session does not reopen it) until
//! `open_server_stream`.

use std::time::{Duration, Instant};

use mcp_types::Era;

use super::Connection;
use crate::config::TransportKind;
use crate::error::{RequestError, UsageError};
use crate::event::{Event, Transmit};
use crate::lifecycle::State;
use crate::timers::Timer;

/// How long `connect` waits for the GET stream's first answer before it
/// returns anyway (a server may hold its response headers back).
pub const SERVER_STREAM_WAIT: Duration = Duration::from_secs(2);

/// How many times an opening GET that met `409 Conflict` (the server still
/// holds the stream this client just closed; it allows one per session) is
/// tried again.
pub const CONFLICT_RETRIES: u32 = 4;

/// The pause before the first such retry; it doubles each time.
pub const CONFLICT_BACKOFF: Duration = Duration::from_millis(50);

/// Where the GET stream stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStreamState {
    /// No GET is open or opening.
    #[default]
    Closed,
    /// A GET was asked for (or waits for its retry) and has not answered.
    Opening,
    /// The event stream is open.
    Open,
}

/// What became of the GET of a [`Transmit::OpenServerStream`] (the input
/// of [`Connection::handle_server_stream`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStreamOutcome {
    /// The server answered with an event stream.
    Opened,
    /// The server offers no GET stream (`405 Method Not Allowed`).
    NotOffered,
    /// `409 Conflict`: the server still holds an older stream.
    Conflict,
    /// The GET carried a session the server ended (`404`); the transport
    /// has forgotten that session id. `newer_session_live` as for
    /// [`Connection::handle_session_expired`].
    SessionExpired {
        /// The transport already holds a newer session id.
        newer_session_live: bool,
    },
    /// Any other failure, described (never containing credentials).
    Failed(String),
    /// The open stream ended.
    Ended,
}

/// How the GET stream changed ([`Event::ServerStream`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerStreamChange {
    /// The stream is open.
    Opened,
    /// The server offers no GET stream (`405`): nothing is retried.
    NotOffered,
    /// Opening failed; the stream stays closed until asked for again.
    Failed(RequestError),
    /// The open stream ended; it stays closed until asked for again.
    Ended,
    /// The client closed it ([`Connection::close_server_stream`]); callers
    /// waiting for it to open learn it never will.
    Closed,
}

/// The GET stream's state within a connection.
#[derive(Debug)]
pub(super) struct ServerStream {
    wanted: bool,
    state: ServerStreamState,
    /// Bumped at every opening and closing: outcomes of older ones are stale.
    generation: u64,
    conflicts: u32,
    /// A `connect` waits for the first answer of this generation.
    settling: Option<u64>,
}

impl ServerStream {
    pub(super) fn new(wanted: bool) -> Self {
        ServerStream {
            wanted,
            state: ServerStreamState::Closed,
            generation: 0,
            conflicts: 0,
            settling: None,
        }
    }
}

impl ServerStream {
    /// The connection closed: nothing more is opened or waited for.
    pub(super) fn close_quietly(&mut self) {
        self.state = ServerStreamState::Closed;
        self.settling = None;
        self.generation += 1;
    }
}

impl Connection {
    /// Where the 2025-11-25 GET stream stands.
    pub fn server_stream_state(&self) -> ServerStreamState {
        self.stream.state
    }

    /// Whether this connection has a GET stream at all: a ready 2025-11-25
    /// session over HTTP.
    fn stream_applies(&self) -> Result<(), UsageError> {
        match self.state {
            State::Closed => return Err(UsageError::Closed),
            State::Ready => {}
            _ if self.recovering => {}
            _ => return Err(UsageError::NotReady),
        }
        let http = self.config.transport == TransportKind::Http;
        if http && self.era == Some(Era::Legacy) {
            Ok(())
        } else {
            Err(UsageError::NoServerStream)
        }
    }

    /// Asks for the GET stream and keeps it wanted (a recovered session
    /// opens it again). Returns where it stands: `Open` at once when it
    /// already is, else `Opening` (an [`Event::ServerStream`] follows).
    ///
    /// # Errors
    /// [`UsageError::NoServerStream`] on a stdio, 2026-07-28 or
    /// non-Streamable-HTTP connection; `NotReady` / `Closed`.
    pub fn open_server_stream(&mut self, now: Instant) -> Result<ServerStreamState, UsageError> {
        self.promote_quick();
        self.stream_applies()?;
        self.stream.wanted = true;
        if self.stream.state == ServerStreamState::Closed && self.state == State::Ready {
            self.stream.conflicts = 0;
            self.send_open_stream(now);
        }
        Ok(match self.stream.state {
            ServerStreamState::Open => ServerStreamState::Open,
            _ => ServerStreamState::Opening,
        })
    }

    /// Closes the GET stream and keeps it closed (a recovered session does
    /// not reopen it) until [`Connection::open_server_stream`]. Returns
    /// whether a stream was open or opening.
    ///
    /// # Errors
    /// As [`Connection::open_server_stream`].
    pub fn close_server_stream(&mut self, now: Instant) -> Result<bool, UsageError> {
        self.promote_quick();
        let _ = now;
        self.stream_applies()?;
        self.stream.wanted = false;
        Ok(self.drop_stream(Some(ServerStreamChange::Closed)))
    }

    /// Drops the GET stream, if any, reporting `change`; returns whether
    /// there was one.
    pub(super) fn drop_stream(&mut self, change: Option<ServerStreamChange>) -> bool {
        self.settle_stream();
        let was = self.stream.state != ServerStreamState::Closed;
        self.stream.generation += 1;
        self.stream.state = ServerStreamState::Closed;
        self.timers.cancel(&Timer::ServerStreamRetry);
        if was {
            self.transmits.push_back(Transmit::CloseServerStream);
            if let Some(change) = change {
                self.events.push_back(Event::ServerStream(change));
            }
        }
        was
    }

    /// A 2025-11-25 HTTP session became ready: opens the GET stream when it
    /// is wanted, and holds `connect` for its first answer.
    pub(super) fn open_stream_on_ready(&mut self, now: Instant) {
        if !self.stream.wanted || self.stream_applies().is_err() {
            return;
        }
        self.stream.conflicts = 0;
        self.send_open_stream(now);
        self.stream.settling = Some(self.stream.generation);
        self.timers
            .set(Timer::ServerStreamWait, now + SERVER_STREAM_WAIT);
    }

    fn send_open_stream(&mut self, now: Instant) {
        let _ = now;
        self.stream.generation += 1;
        self.stream.state = ServerStreamState::Opening;
        self.transmits.push_back(Transmit::OpenServerStream {
            generation: self.stream.generation,
        });
    }

    /// The driver reports what became of the GET of generation
    /// `generation` (see the [module docs](self)).
    pub fn handle_server_stream(
        &mut self,
        now: Instant,
        generation: u64,
        outcome: ServerStreamOutcome,
    ) {
        self.promote_quick();
        if generation != self.stream.generation || self.state == State::Closed {
            return;
        }
        let expired = match &outcome {
            ServerStreamOutcome::SessionExpired { newer_session_live } => Some(*newer_session_live),
            _ => None,
        };
        // Any answer ends the wait at connect, a 409 included.
        if self.stream.settling.is_some() {
            self.settle_stream();
        }
        let change = match outcome {
            ServerStreamOutcome::Opened => {
                self.stream.state = ServerStreamState::Open;
                self.stream.conflicts = 0;
                ServerStreamChange::Opened
            }
            ServerStreamOutcome::Conflict if self.stream.conflicts < CONFLICT_RETRIES => {
                let pause = CONFLICT_BACKOFF * 2u32.pow(self.stream.conflicts);
                self.stream.conflicts += 1;
                self.timers.set(Timer::ServerStreamRetry, now + pause);
                return;
            }
            ServerStreamOutcome::Conflict => {
                let reason = format!(
                    "the server answered the GET stream with 409 Conflict {} times",
                    CONFLICT_RETRIES + 1
                );
                ServerStreamChange::Failed(RequestError::ServerStream(reason))
            }
            ServerStreamOutcome::NotOffered => ServerStreamChange::NotOffered,
            ServerStreamOutcome::SessionExpired { .. } => {
                ServerStreamChange::Failed(RequestError::SessionExpired)
            }
            ServerStreamOutcome::Failed(reason) => {
                ServerStreamChange::Failed(RequestError::ServerStream(reason))
            }
            ServerStreamOutcome::Ended => ServerStreamChange::Ended,
        };
        if !matches!(change, ServerStreamChange::Opened) {
            self.stream.state = ServerStreamState::Closed;
        }
        self.events.push_back(Event::ServerStream(change));
        if let Some(newer_session_live) = expired {
            self.handle_session_expired(now, None, newer_session_live);
        }
    }

    /// `Timer::ServerStreamRetry`: the backoff after a `409` is over.
    pub(super) fn on_stream_retry(&mut self, now: Instant) {
        if self.stream.state == ServerStreamState::Opening && self.stream.wanted {
            self.send_open_stream(now);
        }
    }

    /// The wait at connect is over (an answer, the timer, or a close).
    pub(super) fn settle_stream(&mut self) {
        if self.stream.settling.take().is_some() {
            self.timers.cancel(&Timer::ServerStreamWait);
            self.events.push_back(Event::ServerStreamSettled);
        }
    }
}

//! The sans-I/O engine of a Model Context Protocol client.
//!
//! Every decision a client makes lives here, once: lifecycle and era
//! negotiation, correlation, deadlines, pagination, multi round-trip
//! requests, task polling, caching and HTTP header derivation. There is no
//! I/O and no clock: time is the `now` argument of every mutating call, so
//! the engine is deterministic and testable with a virtual clock.
//!
//! # Driver API
//!
//! [`Connection`] has four groups of methods (after quinn-proto):
//!
//! 1. **getters**: `state`, `era`, `protocol_version`, `era_outcome`,
//!    `server_info`, `server_capabilities`, `instructions`, `in_flight`...
//! 2. **inputs**: `handle_message(now, Message)` for every frame the
//!    transport parsed, `handle_timeout(now)`, `handle_http_error(now, ..)`,
//!    `handle_stream_closed(now, id)`, `handle_server_stream(now,
//!    generation, outcome)` (the 2025-11-25 GET stream),
//!    `handle_transport_closed(now, reason)`.
//! 3. **commands**: `connect`, `send_request` / `request::<M>` /
//!    `call_tool` / `list_all` / `listen`, `respond` / `respond_to::<M>`,
//!    `answer_input` / `answer_input_with`, `answer_task_input` /
//!    `answer_task_input_with` (the typed forms take `mcp_types` results),
//!    `start_task` / `wait_task` / `watch_task` / `unwatch_task`,
//!    `open_server_stream` / `close_server_stream`, `finish_served_task`,
//!    `set_wall_clock`, `cancel`, `close`.
//! 4. **outputs**: `poll_transmit`, `poll_event`, `poll_timeout`.
//!
//! **The drain rule**: after every input or command, drain
//! [`Connection::poll_transmit`] and [`Connection::poll_event`] until both
//! return `None`, then arm one timer at [`Connection::poll_timeout`]. Nothing
//! happens between calls: the engine never acts on its own.
//!
//! # Run loop
//!
//! (`tests/run_loop.rs` runs this very loop against a scripted server.)
//!
//! ```
//! use std::time::{Duration, Instant};
//! use mcp_core::{Config, Connection, Event, Transmit};
//! use mcp_types::Message;
//!
//! // A stand-in for a real transport: answers the probe like a modern server.
//! fn server(bytes: &[u8]) -> Option<Message> {
//!     let req: serde_json::Value = serde_json::from_slice(bytes).ok()?;
//!     let id = req.get("id")?;
//!     let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
//!         "resultType": "complete", "supportedVersions": ["2026-07-28"],
//!         "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"}});
//!     Message::from_slice(reply.to_string().as_bytes()).ok()
//! }
//!
//! // `start` comes from the caller's clock: the core never reads one.
//! fn run(start: Instant) {
//! let mut now = start;
//! let mut conn = Connection::new(Config::new("example", "1.0"));
//! conn.connect(now).unwrap();
//! let mut connected = false;
//! for _ in 0..10 {
//!     // 1. drain transmits
//!     let mut inbox = Vec::new();
//!     while let Some(t) = conn.poll_transmit() {
//!         if let Transmit::Message { bytes, .. } = t {
//!             inbox.extend(server(&bytes));
//!         }
//!     }
//!     // 2. drain events
//!     while let Some(e) = conn.poll_event() {
//!         if let Event::Connected { .. } = e {
//!             connected = true;
//!         }
//!     }
//!     // 3. feed input, or wait for the timer
//!     if let Some(m) = inbox.pop() {
//!         conn.handle_message(now, m);
//!     } else if let Some((at, _why)) = conn.poll_timeout() {
//!         now = at;
//!         conn.handle_timeout(now);
//!     } else {
//!         break;
//!     }
//! }
//! assert!(connected);
//! now += Duration::from_millis(1);
//! let id = conn.call_tool(now, "echo", serde_json::json!({"text": "hi"}), Default::default()).unwrap();
//! assert_eq!(conn.in_flight(), 1);
//! # let _ = id;
//! }
//! ```
//!
//! # Public surface
//!
//! The crate root exports [`Connection`], what goes in (its [`Config`],
//! [`RequestOptions`], [`RetryExtras`], the driver's reports), what comes
//! out ([`Transmit`], [`Event`], [`Timer`] and the types they carry) and
//! the errors; among them the task types ([`TaskSnapshot`], the
//! [`TaskStates`] and [`TaskWait`] a handle waits for, the [`TaskWaitEnd`]
//! that answers it; the status is `mcp_types::tasks::TaskStatus`). What a
//! server sends on its own arrives classified once, by method, as
//! `mcp_types::incoming::ServerNotification` ([`Event::Notification`],
//! [`Event::SubscriptionNotification`]) or `mcp_types::incoming::ServerRequest`
//! ([`Event::ServerRequest`], [`Event::InputRequested`],
//! [`Event::TaskInputRequested`], [`Event::ServedTaskStarted`]), its params
//! still raw. One small
//! public module holds the types of one concern: [`strict`] (what strict
//! mode reports). [`connection`] documents what a driver wires, with a
//! usage note each: watching a task by id ([`connection::attach`]), the
//! wait of a task handle ([`connection::task_wait`]), the 2025-11-25 GET stream
//! ([`connection::server_stream`]), session restore
//! ([`connection::restore`]), served callback tasks
//! ([`connection::served`]). [`trace_context`] decides how a W3C trace
//! context given with a request joins its `_meta`.
//!
//! The machines are private, one small module per concern: era
//! negotiation, lifecycle, pagination, multi round-trip rounds, task
//! polls and the record of what was seen of a task, header derivation, notification coalescing, served tasks,
//! correlation (in-flight requests by id), timers (one deadline table;
//! the driver sees only [`Timer`] and `Connection::poll_timeout`) and the
//! 2026-07-28 result cache (reached through `RequestOptions`).

mod cache;
mod coalesce;
mod config;
pub mod connection;
mod correlation;
mod era;
mod error;
mod event;
mod headers;
mod id_table;
mod lifecycle;
mod mrtr;
mod pagination;
mod params;
mod served_tasks;
pub mod strict;
mod tasks;
mod timers;
pub mod trace_context;
mod wire;

pub use config::{
    ClientFeatures, Config, DEFAULT_PROBE_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, InputMode,
    RequestOptions, TransportKind,
};
pub use connection::{
    CloseReason, Connection, Debounce, ResponseTarget, RestoreFailure, ServerStreamChange,
    ServerStreamOutcome, ServerStreamState, call_tool_params,
};
pub use era::{EraDecision, EraOutcome, EraPreference};
pub use error::{ConnectError, PeerMisbehaved, RequestError, UsageError};
pub use event::{Completed, Event, MethodName, SubscriptionEnd, Transmit};
pub use headers::{HeaderAnnotationError, HeaderBinding, HeaderBindings};
pub use id_table::IdTable;
pub use lifecycle::State;
pub use mcp_types::meta::TASKS_EXTENSION;
pub use mrtr::{DEFAULT_MAX_ROUNDS, InputRequest, RetryExtras};
pub use pagination::{DEFAULT_MAX_PAGES, PaginationError};
pub use params::ToolCall;
pub use served_tasks::{Served, ServedTaskError, ServedTaskOptions};
pub use tasks::{
    MAX_TASK_ID, POLL_FLOOR, TaskSnapshot, TaskStates, TaskWait, TaskWaitEnd, related_task_id,
};
pub use timers::Timer;
pub use trace_context::{InvalidTraceContext, TraceContext};

/// The unit tests' origin instant, kept outside `src/` (the library reads
/// no clock; see the file).
#[cfg(test)]
#[path = "../tests/support/origin.rs"]
mod test_clock;

/// Fixtures the unit tests share with the integration tests.
#[cfg(test)]
#[path = "../tests/support/fixtures.rs"]
mod test_fixtures;

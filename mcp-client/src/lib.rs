//! A batteries-included async Model Context Protocol client.
//!
//! [`Client`] assembles the sans-I/O engine (`mcp-core`) and a transport
//! (`mcp-transport-stdio`, `mcp-transport-http`, or your own
//! [`Transport`]) into one cheap, cloneable handle. It does the right
//! thing by default: the era is negotiated (2025-11-25 `initialize` or
//! 2026-07-28 `server/discover`), every request has a deadline, dropping a
//! call's future cancels it on the wire, listings paginate with a page cap
//! and a repeated-cursor guard, multi round-trip requests are answered
//! through the registered [handlers], and cacheable results are cached.
//!
//! ```no_run
//! use mcp_client::{Client, ServerCommand};
//!
//! # async fn run() -> Result<(), mcp_client::Error> {
//! let client = Client::builder()
//!     .stdio(ServerCommand::new("demo-server"))
//!     .connect()
//!     .await?;
//! println!("connected to {:?} ({:?})", client.server_info(), client.era());
//! for tool in client.list_all_tools().await? {
//!     println!("- {}", tool.name);
//! }
//! let result = client.call_tool("echo", serde_json::json!({"text": "hello"})).await?;
//! println!("{:?}", result.content);
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! # Architecture
//!
//! One driver task per connection owns the core `Connection` and the
//! transport; every [`Client`] clone sends commands to it over one
//! channel. The driver follows the core's drain rule after every input:
//! transmits to the transport, events to the waiting callers, one timer.
//! HTTP exchanges and handler futures are polled inside the driver, not
//! spawned.
//!
//! # Errors
//!
//! Every fallible method returns the opaque [`Error`]; ask it with
//! predicates ([`Error::is_timeout`], [`Error::is_cancelled`],
//! [`Error::remote_error`], [`Error::is_transport`], ...).
//!
//! # Sessions and reconnection
//!
//! When a 2025-11-25 HTTP server ends its session (`404` on a request that
//! carried the `Mcp-Session-Id`), the client starts exactly one new session
//! (`initialize`, `notifications/initialized`) without the stale id. The
//! request that met the `404` fails with [`Error::is_session_recovered`]
//! and is not replayed; requests made meanwhile wait for the new session,
//! and resource subscriptions and the log level are sent again in it. A
//! 2026-07-28 connection has no session and nothing to reconnect: a
//! [`Subscription`] whose stream ends yields its end and then `None`.
//!
//! # Features
//!
//! `output-schema` (default): [`CallOptions::validate_output`] checks a
//! tool's `structuredContent` against its `outputSchema` with `boon`
//! (about a dozen small crates, `regex` among them). Turn default features
//! off to leave it out.
//!
//! # Modules
//!
//! [`handlers`] (what the server may ask of the client), [`Transport`]
//! (bring your own), [`CallOptions`] (per request), [`EraCache`],
//! [`Subscription`] (2026-07-28 `subscriptions/listen`), [`TaskHandle`]
//! (status callback, [`TaskHandle::wait_for`] chosen [`TaskStates`],
//! [`TaskHandle::wait_for_task_with_inputs`], cached results, typed
//! results, [`Client::call_tool_and_poll`], [`Client::attach_task`]),
//! [`RequestHandle`] (a request started now, awaited or cancelled later),
//! [`throughput`] (the bounded, debounced notification queue),
//! [`llm_server`] (asking a server's model: the inverse of host sampling),
//! [`legacy_sse`] (the HTTP+SSE fallback for servers of the 2024-11-05
//! transport).
//! [`ClientBuilder::connect_uninitialized`] and [`Client::initialize`]
//! split connecting from the handshake; [`Client::close_server_stream`] and
//! [`Client::open_server_stream`] control the 2025-11-25 GET stream.
//!
//! # Changing things after connect
//!
//! [`Client::set_roots`] replaces the root list (and tells a 2025-11-25
//! server when it really changed); `Client::set_*_handler` replaces the
//! sampling, elicitation and notification handlers for every clone. See
//! [Changing handlers at runtime](Client#changing-handlers-at-runtime) for
//! what capabilities advertised at connect mean for them.

mod builder;
mod client;
mod driver;
mod era_cache;
mod error;
mod features;
mod form_defaults;
pub mod handlers;
mod http_io;
pub mod legacy_sse;
mod listen;
pub mod llm_server;
mod notify_queue;
mod options;
mod output_check;
mod progress_out;
mod prompt_args;
mod request_handle;
mod router;
mod runtime;
#[cfg(feature = "output-schema")]
mod schema;
mod served_serve;
mod served_store;
mod served_tasks;
mod server_exit;
mod session_control;
mod setup_errors;
pub mod skills;
pub mod strict;
mod task_attach;
mod task_inputs;
mod task_typed;
mod task_wait;
mod tasks;
pub mod throughput;

/// Coming from pmcp or FastestMCP: each client function of theirs mapped to
/// its counterpart here.
#[doc = include_str!("../docs/parity.md")]
pub mod parity {}
mod transport;

pub use builder::ClientBuilder;
pub use client::{Client, RawOutcome};
pub use era_cache::{EraCache, MAX_ERA_CACHE_ENTRIES};
pub use error::{Error, ErrorKind};
pub use handlers::{
    FormElicitationHandler, HandlerError, HandlerResult, NotificationHandler, RootsHandler,
    SamplingHandler, UrlElicitation, UrlElicitationHandler,
};
pub use listen::{Subscription, SubscriptionEvent};
pub use options::{CallOptions, Progress, ProgressCallback};
pub use progress_out::{ProgressError, ProgressReporter};
pub use request_handle::RequestHandle;
pub use served_tasks::{ServedTaskError, ServedTaskOptions};
pub use task_inputs::TaskInputRequest;
pub use tasks::TaskHandle;
pub use transport::{Transport, TransportFuture};

pub use mcp_core::tasks::{TaskSnapshot, TaskStates, TaskStatus};
pub use mcp_core::{EraOutcome, EraPreference};
/// The HTTP authorization hook ([`auth::AuthProvider`], [`auth::BearerToken`]),
/// for [`Client::set_auth_provider`] and `HttpConfig::with_auth`.
pub use mcp_transport_http::auth;
pub use mcp_transport_http::{
    ConfigError, HttpConfig, HttpError, Limits, ProxyConfig, ReconnectPolicy, RootStore, SessionId,
    TlsConfig,
};
pub use mcp_transport_stdio::{
    EnvInherit, ProcessExited, ServerCommand, ShutdownTimeouts, StderrMode,
};
pub use mcp_types;

/// OAuth 2.1 for Streamable HTTP: configure it with
/// [`HttpConfig::with_oauth`] and pass the config to
/// [`ClientBuilder::http_config`].
pub mod oauth {
    pub use mcp_auth::*;
    pub use mcp_transport_http::oauth::*;
}

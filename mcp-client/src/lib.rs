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
//! spawned; the only other thread is the worker that runs the
//! [notification handler](throughput) behind its bounded queue.
//!
//! # Which Tokio runtime
//!
//! Both work; pick by what the host does besides talking to servers.
//!
//! * **Current-thread** (`#[tokio::main(flavor = "current_thread")]`) is
//!   the cheaper per call: the driver and the callers it wakes share one
//!   thread, so a reply reaches its caller without a wake-up across
//!   threads (no futex system call), and nothing is shared between cores.
//!   A CLI, an agent loop that awaits one call at a time, or a host that
//!   gives each connection its own thread should use it.
//! * **Multi-thread** (the default) costs a little more per call (its
//!   scheduler does more per wake-up, and a reply's caller may run on
//!   another worker, which must be woken: about 10% more CPU per call with
//!   32 calls in flight in the bench) and
//!   buys parallelism *between* connections and with the host's own work:
//!   a host with many servers (`mcp-host`), CPU-heavy handlers or
//!   notification processing, or an application already on the default
//!   runtime should stay on it.
//!
//! One connection is one driver task on either runtime, so more worker
//! threads do not make a single connection faster; `cargo xtask bench`
//! measures both side by side (the README has the figures).
//!
//! The build matters as much: a call crosses several crates (this one,
//! `mcp-core`, a transport, `mcp-types`, tokio), and a host built with
//! `lto = "fat"` and `codegen-units = 1` in its release profile spent
//! 11-19% less CPU per 2026-07-28 HTTP call in the bench than with cargo's
//! defaults (fewer instructions, and fewer distinct ones: less code a
//! call). Where every switch to the server empties the TLB (a CPU without
//! PCID, as `cargo xtask bench --table --cold-tlb` makes on any CPU), a
//! call pays for each page of code it runs, and there the same build took
//! a sequential stdio call from 1.9-2.0x the bench's floor to 1.7x.
//!
//! # Errors
//!
//! Every fallible method returns the opaque [`Error`]; ask it with
//! predicates ([`Error::is_timeout`], [`Error::is_cancelled`],
//! [`Error::remote_error`], [`Error::is_transport`], ...).
//!
//! # Deadlines
//!
//! One rule in both eras: a call's timeout
//! ([`ClientBuilder::request_timeout`], [`CallOptions::with_timeout`])
//! starts when its request is sent and covers the whole call, including
//! every 2026-07-28 multi round-trip round and the time the client's own
//! input handlers take. When it passes, the call fails
//! ([`Error::is_timeout`]), the server is told (`notifications/cancelled`
//! and, over HTTP, the request's response stream is closed, so a server
//! that keeps it open holds none of the transport's concurrent POSTs), a
//! late reply is ignored, and a 2026-07-28 input handler still running for
//! the call is cancelled (its future dropped). A call can opt out of
//! counting handler time with [`CallOptions::pause_timeout_for_input`].
//! Over HTTP, time a request waits behind the in-flight limit
//! (`HttpConfig::with_max_concurrent_posts`) does not count: the timeout
//! starts when the request leaves that queue.
//! [`CallOptions::with_max_total`] bounds the whole call from its start,
//! queueing, rounds and task polling included.
//!
//! Waits without a limit are so by choice: an acknowledged [`Subscription`]
//! has no deadline (it ends when dropped, when the server ends it or when
//! the transport closes; its acknowledgement is awaited within the
//! timeout), and [`TaskHandle::wait`] polls a task for as long as the
//! server says it is working (each poll has the timeout; bound the whole
//! wait with [`TaskHandle::wait_timeout`] or
//! [`CallOptions::with_max_total`]).
//!
//! # Sessions and reconnection
//!
//! When a 2025-11-25 HTTP server ends its session, the client starts
//! exactly one new session (`initialize`, `notifications/initialized`)
//! without the stale id. A server ends a session with `404` on a request
//! that carried the `Mcp-Session-Id`, or, as the TypeScript SDK v1 (and so
//! server-everything) does, with `400` and a JSON-RPC error whose message
//! names the session ("Bad Request: No valid session ID provided"): the
//! client treats both alike. A request that reached the ended session fails
//! with [`Error::is_session_recovered`] ("the server ended the MCP session
//! (HTTP 404); the request was not replayed") and is not replayed, since the
//! server may have acted on it. A request that had not been sent yet (it
//! waited for a place among the concurrent POSTs, or was made while the new
//! session was being set up) is not failed: it goes out in the new session,
//! after `notifications/initialized`, with a fresh id. Resource
//! subscriptions and the log level are sent again in the new session. A
//! 2026-07-28 connection has no session and nothing to reconnect: a
//! [`Subscription`] whose stream ends yields its end and then `None`.
//!
//! # Server facts
//!
//! [`Client::server_info`], [`Client::server_capabilities`] and
//! [`Client::instructions`] come from the handshake. With a warm
//! [`EraCache`] a 2026-07-28 connection is ready without the
//! `server/discover` round trip and sends that request in the background;
//! until it answers, [`Client::server_facts_known`] is `false`, the getters
//! return `None` meaning "not known yet", and the client makes no
//! capability checks of its own.
//!
//! # Features
//!
//! Pay only for what you use: every transport and every heavy part is a
//! Cargo feature.
//!
//! | Feature | Default | What it adds | What it pulls in |
//! | --- | --- | --- | --- |
//! | `stdio` | yes | `ClientBuilder::stdio`, `ServerCommand` and its settings: servers as child processes | tokio's `process`, rustix (7 crates) |
//! | `http` | yes | `ClientBuilder::http` / `http_config`, `HttpConfig`, [`auth`], [`legacy_sse`], the HTTP setters on [`Client`] | `mcp-transport-http`: hyper, hyper-util, h2, rustls with ring, webpki-roots, url (about 60 crates) |
//! | `oauth` | yes | [`oauth`], `HttpConfig::with_oauth`; implies `http` | `mcp-auth` (1 crate more than `http`) |
//! | `output-schema` | yes | [`CallOptions::validate_output`]: `structuredContent` checked against the tool's `outputSchema` | boon, regex, url (about 40 crates alone, about 15 next to `http`) |
//! | `strict-schema` | no | [`ClientBuilder::strict`] validates every result against the revision's schema, not only its envelope | boon as above, and about 450 KB of embedded `schema.json` |
//! | `skills` | no | the `skills` module (SEP-2640): skill registries, verified downloads | ring (SHA-256), base64, serde-saphyr (18 crates) |
//!
//! Always there: the engine (`mcp-core`), [`ClientBuilder::io`] over any
//! byte stream, custom [`Transport`]s, handlers, tasks, caching.
//!
//! The defaults are for the common host, one that connects to the
//! servers its user configures: local ones over stdio and remote ones over
//! Streamable HTTP, which authorize with OAuth 2.1 (the specification's
//! authorization; one crate over `http`), with tool output checked as the
//! specification advises (clients SHOULD validate `structuredContent`).
//! `strict-schema` is a tool for testing servers (strict mode is off by
//! default) and `skills` an extension; both are opt-in.
//!
//! The smallest host, a stdio client, takes `stdio` alone (about 50
//! crates, no TLS, no HTTP stack; `cargo xtask size` measures it):
//!
//! ```toml
//! [dependencies]
//! mcp-client = { version = "0.1", default-features = false, features = ["stdio"] }
//! ```
//!
//! A build without `http` still accepts [`ClientBuilder::http`]; its
//! `connect` fails with [`ErrorKind::FeatureDisabled`] naming the feature.
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
//!
//! # Tracing and OpenTelemetry
//!
//! Each call runs in one `DEBUG` span, `mcp.request` (target
//! `mcp_client::telemetry`), a child of the caller's span, named and
//! attributed after OpenTelemetry's
//! [semantic conventions for MCP](https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/):
//! `otel.name` (`tools/call get_weather`), `otel.kind = "client"`,
//! `mcp.method.name`, `mcp.protocol.version` (never `mcp.session.id`: a
//! session id lets whoever holds it use the session),
//! `jsonrpc.request.id`, `gen_ai.tool.name` and `gen_ai.operation.name`,
//! `gen_ai.prompt.name`, `mcp.resource.uri`, `network.transport`, and
//! `error.type` with an error status when the call fails (a tool's
//! `isError` is `tool_error`). Nothing is computed for a span no subscriber
//! wants.
//!
//! With the `opentelemetry` feature (off by default) every request carries
//! the W3C trace context of that span (through `tracing-opentelemetry`) in
//! `params._meta`: `traceparent`, `tracestate`, and `baggage` when the
//! context has any (SEP-414; the same unprefixed keys in 2025-11-25), on
//! every send of the call: retries, multi-round-trip rounds, pages, task
//! requests and its `notifications/cancelled`. A `traceparent` set with
//! [`CallOptions::with_trace_context`] or [`CallOptions::with_meta`] wins.
//! When the span is filtered out, the context is the caller's span's. The
//! handshake carries the context of the span `connect` runs in; the
//! requests the client makes on its own later (a replaced session's
//! `initialize`, session restore) carry none.

mod client;
mod driver;
mod era_cache;
mod error;
mod http_parts;
#[cfg(feature = "http")]
pub mod legacy_sse;
mod options;
mod serve;
#[cfg(feature = "skills")]
pub mod skills;
mod tasks;
mod telemetry;
mod transport;
mod validate;

pub use client::{llm_server, throughput};
pub use serve::handlers;
pub use validate::strict;

/// Coming from pmcp or FastestMCP: each client function of theirs mapped to
/// its counterpart here.
#[doc = include_str!("../docs/parity.md")]
pub mod parity {}

pub use client::builder::ClientBuilder;
pub use client::listen::{Subscription, SubscriptionEvent};
pub use client::request_handle::RequestHandle;
pub use client::{Client, RawOutcome};
pub use era_cache::{EraCache, MAX_ERA_CACHE_ENTRIES};
pub use error::{Error, ErrorKind};
pub use handlers::{
    FormElicitationHandler, HandlerError, HandlerResult, NotificationHandler, RootsHandler,
    SamplingHandler, UrlElicitation, UrlElicitationHandler,
};
pub use options::{CallOptions, Progress, ProgressCallback};
pub use serve::progress::{ProgressError, ProgressReporter};
pub use serve::tasks::{ServedTaskError, ServedTaskOptions};
pub use tasks::TaskHandle;
pub use tasks::inputs::TaskInputRequest;
pub use transport::{Transport, TransportFuture};

/// A boxed, sendable future: `futures`' `BoxFuture`, the one type every
/// crate of this SDK names for it (the return type of `auth::AuthProvider`
/// and OAuth handler methods; the same type as [`TransportFuture`]).
/// Declared once, in `futures-util`; in every feature set.
pub use futures::future::BoxFuture;

/// The typed errors inside [`ErrorKind`], so a caller can match them
/// without depending on `mcp-core`:
///
/// ```
/// use mcp_client::{ConnectError, Error, ErrorKind, RequestError};
///
/// fn why(e: &Error) -> &'static str {
///     match e.kind() {
///         ErrorKind::Connect { error: ConnectError::LegacyServer, .. } => "legacy server",
///         ErrorKind::Connect { error: ConnectError::Request(RequestError::Timeout(_)), .. } => {
///             "the handshake timed out"
///         }
///         ErrorKind::Request(RequestError::ResponseTooLarge { .. }) => "response too large",
///         _ => "something else",
///     }
/// }
/// ```
pub use mcp_core::{ConnectError, PeerMisbehaved, RequestError, UsageError};
pub use mcp_core::{EraOutcome, EraPreference};
pub use mcp_core::{TaskSnapshot, TaskStates};
/// The HTTP authorization hook ([`auth::AuthProvider`], [`auth::BearerToken`]),
/// for [`Client::set_auth_provider`] and `HttpConfig::with_auth`.
#[cfg(feature = "http")]
pub use mcp_transport_http::auth;
#[cfg(feature = "http")]
pub use mcp_transport_http::{
    ConfigError, HttpConfig, HttpError, Limits, ProxyConfig, ReconnectPolicy, RootStore, SessionId,
    TlsConfig,
};
pub use mcp_transport_stdio::ProcessExited;
#[cfg(feature = "stdio")]
pub use mcp_transport_stdio::{EnvInherit, ServerCommand, ShutdownTimeouts, StderrMode};
pub use mcp_types;
/// Who has to act on an error ([`Error::fault`]), in every feature set.
pub use mcp_types::fault::Fault;
pub use mcp_types::tasks::TaskStatus;

/// OAuth 2.1 for Streamable HTTP: configure it with
/// [`HttpConfig::with_oauth`] and pass the config to
/// [`ClientBuilder::http_config`].
#[cfg(feature = "oauth")]
pub mod oauth {
    pub use mcp_auth::*;
    pub use mcp_transport_http::oauth::*;
}

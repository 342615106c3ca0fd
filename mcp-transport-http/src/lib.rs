//! Streamable HTTP transport for Model Context Protocol clients.
//!
//! One [`HttpTransport`] talks to one MCP endpoint over its own pool of
//! connections (HTTP/1.1 keep-alive with `TCP_NODELAY`, spoken by the
//! transport itself, as many connections as requests were in flight at
//! once; HTTP/2 on hyper when ALPN picks it) with rustls, in both protocol
//! eras:
//!
//! * **2026-07-28 (modern)**: every message is a POST whose headers
//!   (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) come
//!   from the [`HttpRouting`](mcp_types::routing::HttpRouting) the core
//!   hands over; a request's progress and log notifications arrive on its
//!   own [`ResponseStream`]; cancelling or dropping the stream closes it,
//!   which the server treats as cancellation; `subscriptions/listen` is a
//!   long-lived stream closed by dropping it. A stream that carries
//!   nothing but the reply, and ends with it, is read by the POST itself
//!   and comes back as [`Reply::Message`], as a JSON body does.
//! * **2025-11-25 (legacy)**: the `Mcp-Session-Id` from the `initialize`
//!   response travels on every later request; the optional GET stream
//!   ([`HttpTransport::open_server_stream`]); broken streams resume with
//!   `Last-Event-ID`; a `404` on a request that carried the session id is
//!   [`HttpError::SessionExpired`]; [`HttpTransport::close`] DELETEs the
//!   session.
//!
//! The transport makes no protocol decisions: it renders what the core
//! decided and reports what the server did as typed values ([`Reply`],
//! [`HttpError`]), for example the JSON-RPC error in a `400` body that era
//! detection reads ([`HttpError::jsonrpc_message`]).
//!
//! Credentials come from an [`AuthProvider`](auth::AuthProvider)
//! ([`BearerToken`](auth::BearerToken) for static tokens); they never appear
//! in URLs, logs or `Debug` output. Redirects are never followed. The
//! provider and the headers sent on every request can change after build
//! ([`HttpTransport::set_auth`], [`HttpTransport::set_header`]), and one
//! request can carry its own `Authorization` ([`HttpTransport::send_with`]).
//!
//! Proxies: `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` are read
//! by default ([`ProxyConfig`]); a proxied connection is a `CONNECT` tunnel
//! (for `http://` endpoints too).
//!
//! OAuth 2.1 ([`oauth`], with the `oauth` feature): [`HttpConfig::with_oauth`] plugs an
//! [`mcp_auth::OAuthClient`] into the authorization hook, with every OAuth
//! request sent through the same HTTP stack as MCP traffic.
//!
//! The deprecated HTTP+SSE transport (2024-11-05) is [`legacy_sse`], for
//! the fallback the 2025-11-25 specification describes.
//!
//! Modules: [`sse`] is a pure event-stream parser; [`headers`] renders
//! routing; [`auth`] is the authorization hook; [`oauth`] its OAuth provider.

mod body;
mod cancel;
mod client;
mod config;
mod error;
mod field_value;
mod h1;
mod parts;
mod permits;
mod pool;
mod runtime;
mod session;
mod stream;
mod ticker;
mod transport;

pub mod auth;
pub mod headers;
pub mod legacy_sse;
#[cfg(feature = "oauth")]
pub mod oauth;
pub mod sse;

pub use config::{
    ClientCert, HttpConfig, Limits, ProxyConfig, ReconnectPolicy, RootStore, TlsConfig, redact_url,
};
pub use error::{ConfigError, Fault, HttpError};
pub use session::SessionId;
pub use stream::ResponseStream;
pub use transport::{HttpTransport, PostSlot, Reply};

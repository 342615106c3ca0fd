//! A demonstration MCP server that speaks both protocol eras.
//!
//! It is the peer of the client's end-to-end tests, examples and
//! benchmarks. It serves the 2025-11-25 revision ("legacy": the `initialize`
//! handshake, sessions, server-to-client requests, unsolicited
//! notifications, core tasks) and the 2026-07-28 revision ("modern":
//! stateless requests with per-request `_meta`, `server/discover`,
//! `resultType`, `input_required` multi-round-trip results,
//! `subscriptions/listen`, caching hints, the `io.modelcontextprotocol/tasks`
//! extension), over stdio and Streamable HTTP.
//!
//! # Starting it
//!
//! ```no_run
//! use demo_server::{DemoOptions, DemoServer, Eras};
//!
//! # async fn run() -> Result<(), demo_server::ServeError> {
//! let server = DemoServer::new(DemoOptions::default().with_eras(Eras::Both));
//! // Streamable HTTP on an ephemeral loopback port, endpoint `/mcp`:
//! let handle = server.serve_http("127.0.0.1:0".parse().expect("address")).await?;
//! println!("listening {}", handle.url());
//! handle.shutdown().await;
//! // Or one client over stdin/stdout (or any byte-stream pair, `serve_io`):
//! server.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The binary: `demo-server [--stdio | --http ADDR] [--era legacy|modern|both]
//! [--page-size N] [--no-get-stream] [--sse-close-after N] [--sse-retry-ms MS]`.
//! stdio is the default; with `--http 127.0.0.1:0` the first stdout line is
//! `listening http://127.0.0.1:PORT/mcp`. Diagnostics go to stderr only.
//!
//! # Era selection
//!
//! * A request whose `params._meta` carries
//!   `io.modelcontextprotocol/protocolVersion` is served statelessly as
//!   2026-07-28. An unknown or unsupported version gets `-32022` with
//!   `data.supported` and `data.requested` (HTTP 400); a missing
//!   `clientCapabilities` gets `-32602` (HTTP 400).
//! * `initialize` starts a legacy session (the stdio connection, or an HTTP
//!   `Mcp-Session-Id`); a legacy version is echoed, any other is answered
//!   with `2025-11-25`.
//! * With [`Eras::Legacy`], modern requests get what a 2025-11-25 server
//!   gives: on stdio `-32601` for `server/discover` and `-32600 Server not
//!   initialized` for other methods; on HTTP `400 Bad Request: Server not
//!   initialized` (code `-32000`). With [`Eras::Modern`], `initialize` gets
//!   `-32022` naming the supported versions.
//!
//! # HTTP
//!
//! Legacy: the session id is required after `initialize` (404 and code
//! `-32001` for an unknown one); GET opens the standalone stream (405 with
//! `--no-get-stream`, 409 when one is already open), `Last-Event-ID` resumes
//! a POST stream; DELETE ends the session; POSTed responses and
//! notifications get 202; POST streams carry event ids and `retry`, and a
//! dropped connection is not a cancellation. Modern: no sessions (the
//! header is ignored), GET and DELETE get 405; `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` (also the task id for `tasks/*`) and
//! `Mcp-Param-*` (from `x-mcp-header`, base64 sentinel decoded, integers
//! compared numerically) must match the body, else `-32020` with 400; an
//! unknown method gets 404 with `-32601`; closing a response stream cancels
//! the request. Every request is answered with JSON when nothing streams
//! before the result, else with SSE. A foreign `Origin` gets 403.
//!
//! See [`DemoServer`] for the catalogue of tools, resources and prompts.

mod callbacks;
mod catalog;
mod dispatch;
mod http;
mod http_validate;
mod interact;
mod legacy;
mod listen;
mod llm;
mod modern;
mod oauth;
mod oauth_http;
mod prompts;
mod resources;
mod resume;
mod server;
mod skills;
mod sse;
mod stdio;
mod support;
mod tasks;
mod tools;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use http::HttpHandle;
pub use oauth::OAuthOptions;

/// Which protocol eras the server accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Eras {
    /// Only 2025-11-25 and earlier: `initialize`, sessions.
    Legacy,
    /// Only 2026-07-28: stateless requests with `_meta`.
    Modern,
    /// Both, selected per request (the default).
    #[default]
    Both,
}

impl Eras {
    /// Whether the legacy era is served.
    pub fn legacy(self) -> bool {
        matches!(self, Eras::Legacy | Eras::Both)
    }

    /// Whether the modern era is served.
    pub fn modern(self) -> bool {
        matches!(self, Eras::Modern | Eras::Both)
    }
}

impl std::str::FromStr for Eras {
    type Err = ServeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "legacy" => Ok(Eras::Legacy),
            "modern" => Ok(Eras::Modern),
            "both" => Ok(Eras::Both),
            other => Err(ServeError::Config(format!(
                "unknown era {other:?}: expected legacy, modern or both"
            ))),
        }
    }
}

/// Settings of a [`DemoServer`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DemoOptions {
    /// Which eras are served.
    pub eras: Eras,
    /// Items per page of every list method (at least 1).
    pub page_size: usize,
    /// Whether a legacy HTTP session may open the standalone GET stream; when
    /// `false` the server answers GET with `405 Method Not Allowed`.
    pub get_stream: bool,
    /// Interval of SSE keep-alive comments on long-lived streams.
    pub keep_alive: Duration,
    /// `ttlMs` put on cacheable modern results.
    pub cache_ttl: Duration,
    /// The `retry` a legacy SSE stream announces in its priming event.
    pub sse_retry: Duration,
    /// When set, legacy POST SSE streams are cut (without their final
    /// response) after this many events, so clients must resume with
    /// `GET` + `Last-Event-ID`.
    pub sse_close_after: Option<u64>,
    /// When set, the HTTP transport runs its own OAuth authorization server
    /// and `/mcp` answers `401` until a valid bearer comes (stdio ignores
    /// it). See [`OAuthOptions`].
    pub oauth: Option<OAuthOptions>,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            eras: Eras::Both,
            page_size: 10,
            get_stream: true,
            keep_alive: Duration::from_secs(15),
            cache_ttl: Duration::from_secs(60),
            sse_retry: Duration::from_millis(1000),
            sse_close_after: None,
            oauth: None,
        }
    }
}

impl DemoOptions {
    /// Sets the served eras.
    #[must_use]
    pub fn with_eras(mut self, eras: Eras) -> Self {
        self.eras = eras;
        self
    }

    /// Sets the page size of list methods (values below 1 count as 1).
    #[must_use]
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// Enables or disables the legacy standalone GET stream.
    #[must_use]
    pub fn with_get_stream(mut self, enabled: bool) -> Self {
        self.get_stream = enabled;
        self
    }

    /// Sets the SSE keep-alive interval of long-lived streams.
    #[must_use]
    pub fn with_keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every;
        self
    }

    /// Sets the `retry` of legacy SSE streams.
    #[must_use]
    pub fn with_sse_retry(mut self, retry: Duration) -> Self {
        self.sse_retry = retry;
        self
    }

    /// Cuts legacy POST SSE streams after `events` events (see
    /// [`DemoOptions::sse_close_after`]); `None` never cuts.
    #[must_use]
    pub fn with_sse_close_after(mut self, events: Option<u64>) -> Self {
        self.sse_close_after = events;
        self
    }

    /// Sets the `ttlMs` of cacheable modern results.
    #[must_use]
    pub fn with_cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Protects the HTTP endpoint with OAuth (see [`DemoOptions::oauth`]).
    #[must_use]
    pub fn with_oauth(mut self, oauth: OAuthOptions) -> Self {
        self.oauth = Some(oauth);
        self
    }
}

/// Errors starting or running the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// An I/O error on the listening socket or the stdio streams.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A bad option or command-line argument.
    #[error("configuration error: {0}")]
    Config(String),
}

/// A demonstration MCP server.
///
/// # Tools
///
/// 25 tools, listed 10 per page by default ([`DemoOptions::page_size`]).
/// "Asks" means: a server-to-client request in 2025-11-25, an
/// `input_required` round with a sealed `requestState` in 2026-07-28
/// (`-32021` when the request did not declare the capability).
///
/// * `echo {text}`: the text back.
/// * `add {a, b}`: `structuredContent {sum}`, with an `outputSchema`.
/// * `slow_count {count=5, delay_ms=100}`: one `notifications/progress` per
///   step (when the request has a `progressToken`) and `debug`/`info` log
///   messages (legacy: per `logging/setLevel`, default `info`; modern: only
///   with `_meta` `io.modelcontextprotocol/logLevel`); cancellable.
/// * `ask_name`: asks a form elicitation, answers `Hello, NAME!`.
/// * `interview`: two elicitation rounds (name, then colour).
/// * `summarize {text}`: asks `sampling/createMessage` (`maxTokens` 100).
/// * `list_roots`: asks `roots/list`.
/// * `authorize {via_error}`: URL-mode elicitation; legacy adds
///   `elicitationId` and `notifications/elicitation/complete`, and with
///   `via_error` first fails with `-32042` (a retry succeeds).
/// * `long_task {steps=3, step_ms=100, confirm, fail}`: legacy
///   `execution.taskSupport: optional` (with `params.task`: `tasks/get`,
///   `tasks/result`, `tasks/list`, `tasks/cancel`,
///   `notifications/tasks/status`); modern: a `resultType: "task"` handle
///   when the request declares `io.modelcontextprotocol/tasks` (`tasks/get`
///   with inline result, `tasks/update`, `tasks/cancel`, `notifications/tasks`
///   on listen streams), else runs inline. `confirm` asks half way (through
///   `inputRequests` of `tasks/get` for modern tasks); `fail` ends in a
///   JSON-RPC error.
/// * `big {bytes}`: a text result of exactly that many bytes (≤ 64 MiB).
/// * `regional {region, priority, query}`: `region` and `priority` carry
///   `x-mcp-header` (`Mcp-Param-Region`, `Mcp-Param-Priority`).
/// * `trigger {event, uri, value}`: emits `tools_list_changed`,
///   `prompts_list_changed`, `resources_list_changed` or `resource_updated`
///   (an item URI also changes the item's value).
/// * `fail {message}`: `isError: true`.
/// * `callback_task {kind, task=true, ttl_ms, cancel, progress,
///   expect_progress}` (2025-11-25): asks the client for sampling or form
///   elicitation as a client-side task (needs the client's
///   `tasks.requests.*` capability), optionally cancels it, then reports
///   `tasks/result`, `tasks/get`, whether `tasks/list` lists it, the error
///   for an unknown id, and the `notifications/tasks/status` and
///   `notifications/progress` the client sent (`structuredContent`). With
///   `task: false` the request is plain (progress only).
/// * `filler_01` to `filler_12`.
///
/// # Resources, prompts, completion
///
/// Resources: `demo://readme` (markdown), `demo://config.json`,
/// `demo://binary` (a blob), `demo://secret` (reading asks for a
/// passphrase), `demo://item/1..3`, and the template `demo://item/{id}`
/// (any numeric id). Not found is `-32002` (legacy) or `-32602` (modern),
/// with `data.uri`. Legacy `resources/subscribe` yields
/// `notifications/resources/updated`; modern listeners name URIs in
/// `resourceSubscriptions`. Prompts: `greeting {name, style?}`,
/// `code_review {language, code}`, `plain` (embeds a resource). Completion:
/// prompt arguments `name`, `style`, `language` and the template variable
/// `id`. Modern cacheable results carry `ttlMs` ([`DemoOptions::cache_ttl`])
/// and `cacheScope: "public"`.
///
/// # A model for the client (the LLM-server pattern)
///
/// The server also serves `sampling/createMessage` sent by the client, in
/// both eras: a deterministic fake model (`demo-echo-model`) answers
/// `"Echo: <last user message>"`, cut to `maxTokens` words. Neither
/// revision lists this client-to-server request; it is the inverse of host
/// sampling, an extension the demo offers for clients to exercise.
///
/// Cloning is cheap; clones share the same state.
#[derive(Clone)]
pub struct DemoServer {
    inner: Arc<server::Server>,
}

impl std::fmt::Debug for DemoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoServer")
            .field("options", &self.inner.opts)
            .finish()
    }
}

impl DemoServer {
    /// A server with the given options.
    pub fn new(options: DemoOptions) -> DemoServer {
        DemoServer {
            inner: Arc::new(server::Server::new(options)),
        }
    }

    /// The options the server runs with.
    pub fn options(&self) -> &DemoOptions {
        &self.inner.opts
    }

    /// Serves one client on this process's stdin and stdout until stdin ends.
    ///
    /// # Errors
    /// An I/O error on stdin or stdout.
    pub async fn serve_stdio(&self) -> Result<(), ServeError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves one client over any byte stream pair with newline-delimited
    /// JSON-RPC framing (the stdio transport), until the reader ends.
    ///
    /// # Errors
    /// An I/O error on either stream.
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        stdio::serve(self.inner.clone(), reader, writer).await
    }

    /// Serves Streamable HTTP on `addr` (path `/mcp`) in the background.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<HttpHandle, ServeError> {
        http::serve(self.inner.clone(), addr).await
    }

    /// Requests currently being handled, open listen streams included.
    ///
    /// Tests use it, with [`DemoServer::cancelled_requests`], to observe that
    /// a client's cancellation reached the server.
    pub fn in_flight(&self) -> usize {
        self.inner
            .in_flight
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Requests that ended by cancellation (stdio `notifications/cancelled`,
    /// a closed 2026-07-28 HTTP response stream, a legacy HTTP
    /// `notifications/cancelled`) since the server started.
    pub fn cancelled_requests(&self) -> u64 {
        self.inner
            .cancelled
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many notifications named `method` (e.g.
    /// `notifications/roots/list_changed`) clients have sent.
    pub fn notifications_received(&self, method: &str) -> u64 {
        self.inner.notifications_received(method)
    }

    /// How many requests named `method` the server answered (with a
    /// result or an error; cancelled ones are in
    /// [`DemoServer::cancelled_requests`]), counted once the answer is
    /// decided, before it is sent. At most 256 distinct names are counted.
    pub fn requests_answered(&self, method: &str) -> u64 {
        self.inner.requests_answered(method)
    }

    /// Waits until `holds` is true of the server, checking it now and
    /// after every change of its counters ([`DemoServer::in_flight`],
    /// [`DemoServer::cancelled_requests`],
    /// [`DemoServer::notifications_received`],
    /// [`DemoServer::requests_answered`], [`DemoServer::tagged_posts`]):
    /// a test awaits what the server saw instead of polling for it. It has
    /// no bound of its own; wrap it in `tokio::time::timeout` as a guard
    /// against a hang.
    ///
    /// ```
    /// use std::time::Duration;
    /// use demo_server::{DemoOptions, DemoServer};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let demo = DemoServer::new(DemoOptions::default());
    /// let idle = demo.wait_until(|d| d.in_flight() == 0);
    /// tokio::time::timeout(Duration::from_secs(5), idle).await.expect("idle");
    /// # }
    /// ```
    pub async fn wait_until(&self, mut holds: impl FnMut(&DemoServer) -> bool) {
        let mut changed = self.inner.changed.subscribe();
        loop {
            changed.borrow_and_update();
            if holds(self) {
                return;
            }
            // The sender lives in `self.inner`: it never closes while we wait.
            if changed.changed().await.is_err() {
                return;
            }
        }
    }

    /// How many HTTP POSTs carried the header `X-Demo-Tag: tag`, a test aid:
    /// a client that puts a per-call header on every POST of a call (retries,
    /// multi round-trip rounds, pages, task requests) can be checked with
    /// it. Values over 64 bytes and more than 256 distinct values are not
    /// counted.
    pub fn tagged_posts(&self, tag: &str) -> u64 {
        self.inner.tagged_posts(tag)
    }

    /// Ends every legacy (2025-11-25) HTTP session at once, as a restarted
    /// server would: their GET streams close, their tasks are cancelled, and
    /// later requests carrying one of the old `Mcp-Session-Id`s get
    /// `404 Not Found`, so clients must start a new session. Returns how many
    /// sessions ended. Modern (2026-07-28) traffic has no sessions and is
    /// unaffected.
    pub fn expire_sessions(&self) -> usize {
        self.inner.close_sessions()
    }

    /// Ends every open subscription gracefully and stops background work.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }
}

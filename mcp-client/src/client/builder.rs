//! [`ClientBuilder`]: transport, identity, era, handlers and limits.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::{ClientFeatures, Config, Connection, EraPreference, InputMode, TransportKind};
#[cfg(feature = "http")]
use mcp_transport_http::{HttpConfig, HttpTransport};
#[cfg(feature = "stdio")]
use mcp_transport_stdio::{ServerCommand, StdioTransport};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::oneshot;

use crate::client::{Client, Shared};
use crate::driver;
use crate::era_cache::EraCache;
use crate::error::{Error, ErrorKind};
use crate::handlers::{
    FormElicitationHandler, Handlers, NotificationHandler, RootsHandler, SamplingHandler,
    UrlElicitationHandler,
};
use crate::transport::{Link, Transport};

#[allow(
    clippy::large_enum_variant,
    reason = "one per builder; boxing would only add noise"
)]
enum Target {
    None,
    #[cfg(feature = "stdio")]
    Stdio(ServerCommand),
    #[cfg(feature = "http")]
    Http(Result<HttpConfig, String>),
    /// Streamable HTTP asked of a build without it: refused at connect.
    #[cfg(not(feature = "http"))]
    Http,
    Io(mcp_transport_stdio::Sender, mcp_transport_stdio::Receiver),
    Custom(Box<dyn Transport>),
}

/// Builds and connects a [`Client`].
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_client::Error> {
/// use std::time::Duration;
/// use mcp_client::{Client, ServerCommand};
/// let client = Client::builder()
///     .stdio(ServerCommand::new("my-mcp-server").arg("--stdio"))
///     .client_info("my-host", "1.0")
///     .request_timeout(Some(Duration::from_secs(30)))
///     .connect()
///     .await?;
/// # let _ = client; Ok(()) }
/// ```
#[must_use = "a builder does nothing until `connect` is called"]
pub struct ClientBuilder {
    target: Target,
    config: Config,
    pub(crate) handlers: Handlers,
    era_cache: Option<EraCache>,
    server_key: Option<String>,
    get_stream: bool,
    /// Notification queue bound and debouncing (throughput.rs).
    pub(crate) throughput: crate::throughput::ThroughputConfig,
    /// Fall back to HTTP+SSE (legacy_sse.rs).
    #[cfg(feature = "http")]
    sse_fallback: bool,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder::new()
    }
}

impl ClientBuilder {
    /// A builder with defaults: era `Auto`, a 60 s request timeout, strict
    /// capabilities, no handlers.
    pub fn new() -> Self {
        ClientBuilder {
            target: Target::None,
            config: Config::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
                .with_features(ClientFeatures::default().with_tasks()),
            handlers: Handlers::default(),
            era_cache: None,
            server_key: None,
            get_stream: true,
            throughput: Default::default(),
            #[cfg(feature = "http")]
            sse_fallback: true,
        }
    }

    // ---- transport ----

    /// Runs the server as a child process and talks over its stdio.
    #[cfg(feature = "stdio")]
    pub fn stdio(mut self, command: ServerCommand) -> Self {
        self.target = Target::Stdio(command);
        self
    }

    /// Talks Streamable HTTP to this endpoint (`http://` or `https://`).
    ///
    /// Without the `http` feature the builder still takes the URL (a host
    /// that reads server addresses from a config file compiles either way)
    /// and `connect` fails with [`ErrorKind::FeatureDisabled`] naming the
    /// feature ([`Error::is_usage`](crate::Error::is_usage)).
    pub fn http(mut self, url: &str) -> Self {
        #[cfg(feature = "http")]
        {
            self.target = Target::Http(HttpConfig::new(url).map_err(|e| e.to_string()));
        }
        #[cfg(not(feature = "http"))]
        {
            let _ = url;
            self.target = Target::Http;
        }
        self
    }

    /// Talks Streamable HTTP with a full transport configuration (TLS,
    /// proxy, auth, limits).
    #[cfg(feature = "http")]
    pub fn http_config(mut self, config: HttpConfig) -> Self {
        self.target = Target::Http(Ok(config));
        self
    }

    /// Falls back to the deprecated HTTP+SSE transport (2024-11-05) when
    /// the Streamable HTTP `initialize` POST fails with `400`, `404` or
    /// `405` (on by default; see [`crate::legacy_sse`]). With it off, such
    /// a server fails `connect` with the POST's status. Only
    /// [`ClientBuilder::connect`] falls back, not
    /// [`ClientBuilder::connect_uninitialized`].
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::Client;
    /// let client = Client::builder()
    ///     .http("https://example.com/mcp")
    ///     .http_sse_fallback(false)
    ///     .connect()
    ///     .await?;
    /// # let _ = client; Ok(()) }
    /// ```
    #[cfg(feature = "http")]
    pub fn http_sse_fallback(mut self, on: bool) -> Self {
        self.sse_fallback = on;
        self
    }

    /// Talks newline-delimited JSON over any byte stream pair (a socket,
    /// pipes, an in-memory duplex).
    pub fn io<R, W>(mut self, reader: R, writer: W) -> Self
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (s, r) = mcp_transport_stdio::framed(reader, writer);
        self.target = Target::Io(s, r);
        self
    }

    /// Uses a transport of your own.
    pub fn transport(mut self, transport: impl Transport) -> Self {
        self.target = Target::Custom(Box::new(transport));
        self
    }

    // ---- identity and era ----

    /// The client's name and version (`clientInfo`).
    pub fn client_info(mut self, name: &str, version: &str) -> Self {
        self.config = self
            .config
            .with_client_info(mcp_types::common::Implementation::new(name, version));
        self
    }

    /// Which protocol versions to accept ([`EraPreference::Auto`] by default).
    pub fn era(mut self, era: EraPreference) -> Self {
        self.config = self.config.with_era(era);
        self
    }

    /// Shares an era cache: a server already seen starts with its known
    /// version (no probe), and new outcomes are recorded.
    pub fn era_cache(mut self, cache: EraCache) -> Self {
        self.era_cache = Some(cache);
        self
    }

    /// The key this server has in the era cache (default: the command line
    /// or the HTTP endpoint; custom transports have none).
    pub fn server_key(mut self, key: impl Into<String>) -> Self {
        self.server_key = Some(key.into());
        self
    }

    // ---- handlers ----

    /// Serves `sampling/createMessage` (advertises `sampling`).
    pub fn sampling(mut self, handler: impl SamplingHandler) -> Self {
        self.handlers.sampling = Some(Arc::new(handler));
        self
    }

    /// Serves form-mode elicitation (advertises `elicitation.form`).
    pub fn form_elicitation(mut self, handler: impl FormElicitationHandler) -> Self {
        self.handlers.form = Some(Arc::new(handler));
        self
    }

    /// Fills the fields a form handler omitted from their schema `default`
    /// before an accepted form is sent (SEP-1034; on by default). What the
    /// handler submitted always wins, a field without a default stays
    /// absent, declined and cancelled answers are untouched. Turn it off to
    /// send exactly what the handler returned.
    pub fn apply_elicitation_defaults(mut self, apply: bool) -> Self {
        self.handlers.form_defaults = apply;
        self
    }

    /// Serves URL-mode elicitation (advertises `elicitation.url`).
    pub fn url_elicitation(mut self, handler: impl UrlElicitationHandler) -> Self {
        self.handlers.url = Some(Arc::new(handler));
        self
    }

    /// Serves `roots/list` (advertises `roots`, with `listChanged` in
    /// 2025-11-25). A `Vec<Root>` is a list that
    /// [`Client::set_roots`](crate::Client::set_roots) can later replace;
    /// register one (even empty) to advertise roots if you mean to set them
    /// at runtime.
    pub fn roots(mut self, handler: impl RootsHandler) -> Self {
        let any: &dyn std::any::Any = &handler;
        self.handlers.roots_list = any
            .downcast_ref::<Vec<mcp_types::roots::Root>>()
            .map(|list| Arc::new(crate::client::reconfigure::normalize_roots(list.clone())));
        self.handlers.roots = Some(Arc::new(handler));
        self
    }

    /// Receives log messages, progress, resource updates, list changes and
    /// every other notification.
    pub fn notifications(mut self, handler: impl NotificationHandler) -> Self {
        self.handlers.notifications = Some(Arc::new(handler));
        self
    }

    // ---- limits and behaviour ----

    /// The default per-request timeout (`None` disables it; 60 s by default).
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config = self.config.with_request_timeout(timeout);
        self
    }

    /// Restarts a request's timeout whenever its progress arrives.
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.config = self.config.with_reset_on_progress(reset);
        self
    }

    /// How long a stdio era probe waits before falling back to `initialize`.
    /// Silence decides nothing when no legacy version is acceptable
    /// ([`EraPreference::ModernOnly`]): the probe then waits for its answer
    /// until the request timeout.
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.config = self.config.with_probe_timeout(timeout);
        self
    }

    /// The page cap of `list_all_*`.
    pub fn max_pages(mut self, max: u32) -> Self {
        self.config = self.config.with_max_pages(max);
        self
    }

    /// The round cap of multi round-trip requests (2026-07-28).
    pub fn max_rounds(mut self, max: u32) -> Self {
        self.config = self.config.with_max_rounds(max);
        self
    }

    /// The result cache's size (0 disables caching of 2026-07-28 results).
    pub fn cache_entries(mut self, entries: usize) -> Self {
        self.config = self.config.with_cache_entries(entries);
        self
    }

    /// Fail locally when the server did not advertise the capability a
    /// method needs (on by default).
    pub fn strict_capabilities(mut self, strict: bool) -> Self {
        self.config = self.config.with_strict_capabilities(strict);
        self
    }

    /// Strict mode (off by default): every response is checked as a
    /// complete JSON-RPC envelope and its result validated against the
    /// negotiated revision's schema; a violation fails the request with an
    /// error whose [`strict_violation`](crate::Error::strict_violation)
    /// names the method, the id and the failed paths. See
    /// [`crate::strict`].
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::{Client, ServerCommand};
    /// let client = Client::builder()
    ///     .stdio(ServerCommand::new("my-mcp-server"))
    ///     .strict(true)
    ///     .connect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn strict(mut self, strict: bool) -> Self {
        self.config = self.config.with_strict(strict);
        self
    }

    /// Return `input_required` results as values
    /// ([`RawOutcome::InputRequired`](crate::RawOutcome::InputRequired))
    /// instead of answering them through the handlers.
    pub fn manual_input(mut self) -> Self {
        self.config = self.config.with_input_mode(InputMode::Manual);
        self
    }

    /// Accept task results (2026-07-28 tasks extension; on by default).
    pub fn tasks(mut self, accept: bool) -> Self {
        let mut features = self.config.features.clone();
        features.tasks = accept;
        self.config = self.config.with_features(features);
        self
    }

    /// Open the optional 2025-11-25 HTTP GET stream (on by default).
    ///
    /// When on, `connect` returns once the server has answered the GET (or
    /// after two seconds at most), so a request the server sends right after
    /// the handshake finds the stream open: SDK servers drop server-initiated
    /// messages while no GET stream exists.
    pub fn get_stream(mut self, open: bool) -> Self {
        self.get_stream = open;
        self
    }

    /// Connects: starts the transport and the driver task, then runs the
    /// lifecycle (era probe and `initialize`, or `server/discover`).
    /// Must be called within a Tokio runtime.
    ///
    /// # Errors
    /// [`Error`] when the transport cannot start or the lifecycle fails
    /// (with the server's exit status and stderr tail for stdio servers).
    pub async fn connect(self) -> Result<Client, Error> {
        #[cfg(feature = "http")]
        let fallback = self.sse_fallback_plan();
        let (client, connected) = self.launch(true)?;
        let outcome = connected.await.map_err(|_| Error::closed())?;
        #[cfg(feature = "http")]
        let outcome = match (outcome, fallback) {
            (Err(e), Some((spare, config))) => {
                drop(client);
                return crate::legacy_sse::fall_back(spare, config, e).await;
            }
            (outcome, _) => outcome,
        };
        outcome.map(|()| client)
    }

    /// For the HTTP+SSE fallback: everything but the transport, the era
    /// limited to legacy versions, and the HTTP configuration; `None` when
    /// the fallback does not apply (off, not HTTP, no legacy version).
    #[cfg(feature = "http")]
    fn sse_fallback_plan(&self) -> Option<(ClientBuilder, HttpConfig)> {
        let Target::Http(Ok(http)) = &self.target else {
            return None;
        };
        let era = crate::legacy_sse::legacy_era(&self.config.era).filter(|_| self.sse_fallback)?;
        let spare = ClientBuilder {
            target: Target::None,
            config: self.config.clone().with_era(era),
            handlers: self.handlers.clone(),
            era_cache: self.era_cache.clone(),
            server_key: (self.server_key.clone()).or_else(|| Some(http.endpoint().to_string())),
            get_stream: self.get_stream,
            throughput: self.throughput.clone(),
            sse_fallback: false,
        };
        let http = match self.config.strict {
            true => http.clone().with_envelope_checks(true),
            false => http.clone(),
        };
        Some((spare, http))
    }

    /// Starts the transport and the driver; runs the lifecycle only when
    /// `initialize` (else `Client::initialize` does).
    pub(crate) fn launch(
        self,
        initialize: bool,
    ) -> Result<(Client, oneshot::Receiver<Result<(), Error>>), Error> {
        let ClientBuilder {
            target,
            mut config,
            mut handlers,
            era_cache,
            server_key,
            get_stream,
            throughput,
            #[cfg(feature = "http")]
                sse_fallback: _,
        } = self;
        handlers.freeze_advertised();
        let features = honest_features(config.features.clone(), &handlers);
        let (link, kind, default_key) = open(target, config.strict)?;
        let key = server_key.or(default_key);
        if let (Some(cache), Some(key), EraPreference::Auto) = (&era_cache, &key, &config.era)
            && let Some(version) = cache.get(key)
        {
            config = config.with_era(EraPreference::Known(version));
        }
        // The driver reports when each HTTP POST leaves the transport's
        // in-flight queue (`driver/http.rs`): deadlines start then.
        let reports_sends = kind == TransportKind::Http;
        config = config
            .with_transport(kind)
            .with_features(features)
            .with_send_reports(reports_sends)
            .with_server_stream(get_stream)
            .with_debounce(throughput.debounce.clone());
        if let Some(options) = &handlers.served_tasks {
            config = config.with_served_tasks(options.clone());
        }
        let mut conn = Connection::new(config);
        conn.set_handshake_trace(crate::telemetry::handshake_trace());
        let shared = Arc::new(Shared::default());
        shared.set_handlers(|h| *h = handlers);
        let (connect_tx, connect_rx) = oneshot::channel();
        let setup = driver::Setup {
            connect_reply: initialize.then_some(connect_tx),
            era_cache: era_cache.zip(key),
            throughput,
        };
        let tx = driver::start(conn, link, shared.clone(), setup)?;
        let client = Client::from_parts(tx, shared);
        Ok((client, connect_rx))
    }
}

fn honest_features(mut f: ClientFeatures, h: &Handlers) -> ClientFeatures {
    f.sampling = h.sampling.is_some();
    f.elicitation_form = h.form.is_some();
    f.elicitation_url = h.url.is_some();
    f.roots = h.roots.is_some();
    f.roots_list_changed = h.roots.is_some();
    f.task_sampling = h.advertised.task_sampling;
    f.task_elicitation = h.advertised.task_elicitation;
    f
}

/// Opens the transport; `strict` turns its envelope checks on.
fn open(target: Target, strict: bool) -> Result<(Link, TransportKind, Option<String>), Error> {
    Ok(match target {
        Target::None => {
            return Err(Error::new(ErrorKind::Transport(
                "no transport: call stdio, http, io or transport on the builder".into(),
            )));
        }
        #[cfg(feature = "stdio")]
        Target::Stdio(command) => {
            let key = format!("stdio:{command:?}");
            let (sender, mut receiver, process) = StdioTransport::spawn(command)?.into_parts();
            receiver.set_envelope_checks(strict);
            let link = Link::Stream {
                sender,
                receiver,
                process: Some(process),
            };
            (link, TransportKind::Stdio, Some(key))
        }
        #[cfg(not(feature = "http"))]
        Target::Http => {
            return Err(Error::new(ErrorKind::FeatureDisabled {
                feature: "http",
                what: "Streamable HTTP",
            }));
        }
        #[cfg(feature = "http")]
        Target::Http(config) => {
            let config = config.map_err(|e| Error::new(ErrorKind::Transport(e)))?;
            let key = config.endpoint().to_string();
            let config = if strict {
                config.with_envelope_checks(true)
            } else {
                config
            };
            let http = HttpTransport::new(config)?;
            (Link::Http(http), TransportKind::Http, Some(key))
        }
        Target::Io(sender, mut receiver) => {
            receiver.set_envelope_checks(strict);
            let link = Link::Stream {
                sender,
                receiver,
                #[cfg(feature = "stdio")]
                process: None,
            };
            (link, TransportKind::Stdio, None)
        }
        Target::Custom(t) => (Link::Custom(t), TransportKind::Stdio, None),
    })
}

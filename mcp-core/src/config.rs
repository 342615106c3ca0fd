//! Configuration of a connection and options of one request.

use std::time::Duration;

use mcp_types::common::Implementation;
use serde_json::{Map, Value, json};

use crate::era::EraPreference;
use crate::mrtr::{DEFAULT_MAX_ROUNDS, RetryExtras};
use crate::pagination::DEFAULT_MAX_PAGES;

/// The default per-request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a stdio probe (`server/discover`) waits before falling back.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The kind of transport the connection runs over; it decides how a
/// request is cancelled and how the era is detected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// Newline-delimited JSON over a child's stdin/stdout (or any byte stream).
    #[default]
    Stdio,
    /// Streamable HTTP.
    Http,
}

/// What to do with `input_required` results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputMode {
    /// Surface each input request as an event and resend when all are
    /// answered (the default).
    #[default]
    Auto,
    /// Hand the `InputRequiredResult` out as a value and end the call.
    Manual,
}

/// The client features the application serves. Capabilities are
/// advertised only for what is registered here (honest capabilities).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientFeatures {
    /// `sampling/createMessage` is served.
    pub sampling: bool,
    /// Sampling with `tools`/`toolChoice` is served.
    pub sampling_tools: bool,
    /// Form-mode elicitation is served.
    pub elicitation_form: bool,
    /// URL-mode elicitation is served.
    pub elicitation_url: bool,
    /// `roots/list` is served.
    pub roots: bool,
    /// The client sends `notifications/roots/list_changed` (2025-11-25).
    pub roots_list_changed: bool,
    /// The tasks extension (2026-07-28) is accepted on requests. In
    /// 2025-11-25 the client only requests tasks (`RequestOptions::with_task`),
    /// which needs no client capability, so nothing is advertised there.
    pub tasks: bool,
    /// Task-augmented `sampling/createMessage` is served (2025-11-25:
    /// advertises `tasks.requests.sampling.createMessage`, with
    /// `tasks.list` and `tasks.cancel`).
    pub task_sampling: bool,
    /// Task-augmented `elicitation/create` is served (2025-11-25:
    /// advertises `tasks.requests.elicitation.create`, with `tasks.list`
    /// and `tasks.cancel`).
    pub task_elicitation: bool,
}

impl ClientFeatures {
    /// Serves sampling, optionally with tools.
    #[must_use]
    pub fn with_sampling(mut self, tools: bool) -> Self {
        self.sampling = true;
        self.sampling_tools = tools;
        self
    }

    /// Serves elicitation in these modes.
    #[must_use]
    pub fn with_elicitation(mut self, form: bool, url: bool) -> Self {
        self.elicitation_form = form;
        self.elicitation_url = url;
        self
    }

    /// Serves roots, optionally announcing changes (2025-11-25).
    #[must_use]
    pub fn with_roots(mut self, list_changed: bool) -> Self {
        self.roots = true;
        self.roots_list_changed = list_changed;
        self
    }

    /// Accepts tasks (2026-07-28 extension).
    #[must_use]
    pub fn with_tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// Serves task-augmented sampling and/or elicitation (2025-11-25).
    #[must_use]
    pub fn with_task_requests(mut self, sampling: bool, elicitation: bool) -> Self {
        self.task_sampling = sampling;
        self.task_elicitation = elicitation;
        self
    }

    /// The `ClientCapabilities` object for an era.
    pub fn capabilities(&self, modern: bool, extensions: &Map<String, Value>) -> Value {
        let mut caps = Map::new();
        if self.sampling {
            let mut s = Map::new();
            if self.sampling_tools {
                s.insert("tools".into(), json!({}));
            }
            caps.insert("sampling".into(), Value::Object(s));
        }
        if self.elicitation_form || self.elicitation_url {
            let mut e = Map::new();
            if self.elicitation_form {
                e.insert("form".into(), json!({}));
            }
            if self.elicitation_url {
                e.insert("url".into(), json!({}));
            }
            caps.insert("elicitation".into(), Value::Object(e));
        }
        if self.roots {
            let roots = if modern || !self.roots_list_changed {
                json!({})
            } else {
                json!({ "listChanged": true })
            };
            caps.insert("roots".into(), roots);
        }
        if !modern && (self.task_sampling || self.task_elicitation) {
            let mut requests = Map::new();
            if self.task_sampling {
                requests.insert("sampling".into(), json!({ "createMessage": {} }));
            }
            if self.task_elicitation {
                requests.insert("elicitation".into(), json!({ "create": {} }));
            }
            caps.insert(
                "tasks".into(),
                json!({ "list": {}, "cancel": {}, "requests": requests }),
            );
        }
        if modern {
            let mut ext = extensions.clone();
            if self.tasks {
                ext.insert(mcp_types::meta::TASKS_EXTENSION.into(), json!({}));
            }
            if !ext.is_empty() {
                caps.insert("extensions".into(), Value::Object(ext));
            }
        }
        Value::Object(caps)
    }
}

/// The configuration of one connection.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// The client's identity (`clientInfo`).
    pub client_info: Implementation,
    /// Which versions to accept and how to pick the era.
    pub era: EraPreference,
    /// The transport kind.
    pub transport: TransportKind,
    /// The features the application serves.
    pub features: ClientFeatures,
    /// Extra extensions to declare (2026-07-28), id to settings.
    pub extensions: Map<String, Value>,
    /// Requests for capabilities the server did not advertise fail locally.
    pub strict_capabilities: bool,
    /// The default per-request timeout; `None` disables it.
    ///
    /// One rule in both eras: the deadline starts when the call's request is
    /// sent and covers the whole call, every 2026-07-28 multi round-trip
    /// round and the time the client's own input handlers take included
    /// (a 2025-11-25 server's requests arrive while the call's one request
    /// is in flight, so they count there too). Progress restarts it when
    /// [`Config::reset_timeout_on_progress`] is set; a call can opt out of
    /// counting input time with [`RequestOptions::pause_for_input`]. Each
    /// request of a task (`tasks/get`, `tasks/result`) has a deadline of its
    /// own.
    pub request_timeout: Option<Duration>,
    /// The maximum total time of a call, progress and rounds included.
    pub max_total: Option<Duration>,
    /// Restart the timeout when progress arrives.
    pub reset_timeout_on_progress: bool,
    /// How long a stdio probe waits before falling back to `initialize`.
    /// Unused when no legacy version is acceptable: the probe then waits for
    /// its answer until `request_timeout`.
    pub probe_timeout: Duration,
    /// The page cap of listings.
    pub max_pages: u32,
    /// The round cap of multi round-trip requests.
    pub max_rounds: u32,
    /// What to do with `input_required` results.
    pub input_mode: InputMode,
    /// The cache size cap (0 disables the cache).
    pub cache_entries: usize,
    /// `io.modelcontextprotocol/logLevel` put on every modern request that
    /// names none of its own (changed later by
    /// [`crate::Connection::set_log_level`]).
    pub log_level: Option<String>,
    /// The transport reports when each request actually leaves the client
    /// ([`crate::Connection::handle_request_sent`]): a request's deadline
    /// then starts when it is sent, not when it is queued (an HTTP
    /// transport's in-flight limit can hold requests back). Off by default:
    /// the deadline starts when the request is handed to the transport. The
    /// maximum total ([`Config::max_total`]) always counts from the call's
    /// start, queueing included.
    pub reports_sends: bool,
    /// Strict mode (off by default): a response whose id is the string
    /// spelling of the numeric id sent fails its request, and the facade
    /// checks every envelope and validates every result against the
    /// revision's schema (see [`crate::strict`]).
    pub strict: bool,
    /// Want the 2025-11-25 GET stream from the start: it opens whenever a
    /// session over Streamable HTTP becomes ready (on by default; see
    /// [`crate::connection::server_stream`]). Off, it opens only on
    /// `Connection::open_server_stream`.
    pub server_stream: bool,
    /// The core serves callback tasks (2025-11-25; see
    /// [`connection::served`](crate::connection::served)) within these limits, for the request types
    /// declared with [`ClientFeatures::with_task_requests`]. `None` (the
    /// default): task-augmented requests and `tasks/*` reach the driver as
    /// ordinary [`Event::ServerRequest`](crate::Event::ServerRequest)s.
    pub served_tasks: Option<crate::served_tasks::ServedTaskOptions>,
    /// Notifications held back for a window, latest per key wins (none by
    /// default; see [`Debounce`](crate::Debounce)).
    pub debounce: crate::Debounce,
}

impl Config {
    /// A configuration with the client's name and version and defaults.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Config {
            client_info: Implementation::new(name, version),
            era: EraPreference::Auto,
            transport: TransportKind::Stdio,
            features: ClientFeatures::default(),
            extensions: Map::new(),
            strict_capabilities: true,
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
            max_total: None,
            reset_timeout_on_progress: false,
            probe_timeout: DEFAULT_PROBE_TIMEOUT,
            max_pages: DEFAULT_MAX_PAGES,
            max_rounds: DEFAULT_MAX_ROUNDS,
            input_mode: InputMode::Auto,
            cache_entries: crate::cache::DEFAULT_MAX_ENTRIES,
            log_level: None,
            strict: false,
            reports_sends: false,
            server_stream: true,
            served_tasks: None,
            debounce: crate::Debounce::default(),
        }
    }

    /// Sets the whole `Implementation` (title, icons, ...).
    #[must_use]
    pub fn with_client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// Sets the era preference.
    #[must_use]
    pub fn with_era(mut self, era: EraPreference) -> Self {
        self.era = era;
        self
    }

    /// Sets the transport kind.
    #[must_use]
    pub fn with_transport(mut self, transport: TransportKind) -> Self {
        self.transport = transport;
        self
    }

    /// Sets the served features.
    #[must_use]
    pub fn with_features(mut self, features: ClientFeatures) -> Self {
        self.features = features;
        self
    }

    /// Declares an extension (2026-07-28).
    #[must_use]
    pub fn with_extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// Turns local capability gating on or off.
    #[must_use]
    pub fn with_strict_capabilities(mut self, strict: bool) -> Self {
        self.strict_capabilities = strict;
        self
    }

    /// Sets the default per-request timeout.
    #[must_use]
    pub fn with_request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Deadlines start when the transport reports the request sent (see
    /// [`Config::reports_sends`]).
    #[must_use]
    pub fn with_send_reports(mut self, reports: bool) -> Self {
        self.reports_sends = reports;
        self
    }

    /// Opens the 2025-11-25 GET stream when a session becomes ready, or not
    /// (see [`Config::server_stream`]).
    #[must_use]
    pub fn with_server_stream(mut self, open: bool) -> Self {
        self.server_stream = open;
        self
    }

    /// Lets the core serve callback tasks within these limits (see
    /// [`Config::served_tasks`]).
    #[must_use]
    pub fn with_served_tasks(mut self, options: crate::served_tasks::ServedTaskOptions) -> Self {
        self.served_tasks = Some(options);
        self
    }

    /// Debounces notifications (see [`Config::debounce`]).
    #[must_use]
    pub fn with_debounce(mut self, debounce: crate::Debounce) -> Self {
        self.debounce = debounce;
        self
    }

    /// Sets the maximum total time of a call.
    #[must_use]
    pub fn with_max_total(mut self, max: Option<Duration>) -> Self {
        self.max_total = max;
        self
    }

    /// Restarts the timeout on progress.
    #[must_use]
    pub fn with_reset_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = reset;
        self
    }

    /// Sets the stdio probe timeout.
    #[must_use]
    pub fn with_probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Sets the page cap.
    #[must_use]
    pub fn with_max_pages(mut self, max: u32) -> Self {
        self.max_pages = max;
        self
    }

    /// Sets the round cap.
    #[must_use]
    pub fn with_max_rounds(mut self, max: u32) -> Self {
        self.max_rounds = max;
        self
    }

    /// Sets the input mode.
    #[must_use]
    pub fn with_input_mode(mut self, mode: InputMode) -> Self {
        self.input_mode = mode;
        self
    }

    /// Sets the cache size cap.
    #[must_use]
    pub fn with_cache_entries(mut self, entries: usize) -> Self {
        self.cache_entries = entries;
        self
    }

    /// Turns strict mode on or off (see [`Config::strict`]).
    ///
    /// ```
    /// use mcp_core::Config;
    /// let config = Config::new("my-client", "1.0").with_strict(true);
    /// assert!(config.strict);
    /// assert!(!Config::new("my-client", "1.0").strict);
    /// ```
    #[must_use]
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Requests logs at this level on every modern request.
    #[must_use]
    pub fn with_log_level(mut self, level: impl Into<String>) -> Self {
        self.log_level = Some(level.into());
        self
    }
}

/// Options of one request.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Overrides the per-request timeout (`Some(None)` disables it).
    pub timeout: Option<Option<Duration>>,
    /// Overrides the maximum total time.
    pub max_total: Option<Duration>,
    /// Ask for progress: a progress token is attached and progress
    /// notifications arrive as `Event::Progress`.
    pub progress: bool,
    /// Extra `_meta` members (custom keys, `traceparent`, `tracestate`, `baggage`).
    pub meta: Map<String, Value>,
    /// A trace context to propagate: joins `_meta` when the request starts,
    /// never replacing a `traceparent` of the caller's (see
    /// [`crate::trace_context`]).
    pub trace: Option<crate::TraceContext>,
    /// 2025-11-25: augment the request as a task with this TTL (ms).
    pub task_ttl: Option<Option<u64>>,
    /// A poll interval the caller insists on for a task this call creates.
    pub poll_interval: Option<Duration>,
    /// Bypass the cache for this request.
    pub no_cache: bool,
    /// A manual multi round-trip retry: `inputResponses` and the verbatim
    /// `requestState` (see [`RetryExtras::from_input_required`]).
    pub retry: Option<RetryExtras>,
    /// 2026-07-28: stop the per-request deadline while the client answers an
    /// `input_required` round, and restart it in full when the round's
    /// answers are sent. Off by default: the deadline covers the whole call,
    /// time in the client's own input handlers included (see
    /// [`Config::request_timeout`]). The maximum total still applies.
    pub pause_for_input: bool,
}

impl RequestOptions {
    /// Sets the timeout (`None` disables it).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the maximum total time.
    #[must_use]
    pub fn with_max_total(mut self, max: Duration) -> Self {
        self.max_total = Some(max);
        self
    }

    /// Asks for progress notifications.
    #[must_use]
    pub fn with_progress(mut self) -> Self {
        self.progress = true;
        self
    }

    /// Adds a `_meta` member.
    #[must_use]
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.meta.insert(key.into(), value);
        self
    }

    /// Propagates a trace context in `_meta` (see [`crate::trace_context`]).
    #[must_use]
    pub fn with_trace_context(mut self, cx: crate::TraceContext) -> Self {
        self.trace = Some(cx);
        self
    }

    /// 2025-11-25: augments the request as a task.
    #[must_use]
    pub fn with_task(mut self, ttl_ms: Option<u64>) -> Self {
        self.task_ttl = Some(ttl_ms);
        self
    }

    /// Sets the caller's task poll interval.
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = Some(interval);
        self
    }

    /// Bypasses the cache.
    #[must_use]
    pub fn without_cache(mut self) -> Self {
        self.no_cache = true;
        self
    }

    /// 2026-07-28: the per-request deadline stops while the client answers
    /// input requests (see [`RequestOptions::pause_for_input`]).
    #[must_use]
    pub fn with_deadline_paused_for_input(mut self) -> Self {
        self.pause_for_input = true;
        self
    }

    /// Makes this request a manual retry after `input_required`.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryExtras) -> Self {
        self.retry = Some(retry);
        self
    }
}

//! [`CallOptions`]: per-request options (timeout, progress, `_meta`,
//! headers, cache bypass).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};
use mcp_core::RequestOptions;
use serde_json::Value;

use crate::error::{Error, ErrorKind};

/// One progress report of a call (`notifications/progress`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// Progress so far (increases with every report).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable message.
    pub message: Option<String>,
}

/// A progress callback: called on the client's driver task, before the
/// call's result is returned, so keep it short (send to a channel for heavy
/// work). When `notifications/progress` is debounced
/// ([`ClientBuilder::debounce_notifications`](crate::ClientBuilder::debounce_notifications))
/// it sees the latest progress of each window.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options of one request.
///
/// ```
/// use std::time::Duration;
/// use mcp_client::CallOptions;
/// let opts = CallOptions::new()
///     .with_timeout(Duration::from_secs(5))
///     .on_progress(|p| println!("{}/{:?}", p.progress, p.total))
///     .with_meta("com.example/trace", serde_json::json!("abc"))
///     .with_trace_context("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", None);
/// # let _ = opts;
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// `None` for the defaults: a call without options moves one pointer
    /// through the client, not some 400 bytes of options; the first option
    /// set allocates them.
    set: Option<Box<Set>>,
}

/// The options of a [`CallOptions`] that sets any.
#[derive(Clone, Default)]
pub(crate) struct Set {
    pub(crate) core: RequestOptions,
    pub(crate) progress: Option<ProgressCallback>,
    pub(crate) headers: HeaderMap,
    pub(crate) validate_output: bool,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let default = Set::default();
        let set = self.set.as_deref().unwrap_or(&default);
        f.debug_struct("CallOptions")
            .field("core", &set.core)
            .field("progress", &set.progress.is_some())
            .field("headers", &set.headers.keys().collect::<Vec<_>>())
            .field(
                "access_token",
                &set.headers
                    .contains_key(http::header::AUTHORIZATION)
                    .then_some("<redacted>"),
            )
            .field("validate_output", &set.validate_output)
            .finish()
    }
}

impl CallOptions {
    /// Default options: the client's timeout, no progress, no extras.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// The options, allocated when first set.
    pub(crate) fn set_mut(&mut self) -> &mut Set {
        self.set.get_or_insert_with(Box::default)
    }

    /// The core's options of the call; `None` when no option was set (the
    /// defaults).
    pub(crate) fn core(&self) -> Option<&RequestOptions> {
        self.set.as_deref().map(|s| &s.core)
    }

    /// Whether `tools/call` validates `structuredContent`.
    #[cfg(feature = "output-schema")]
    pub(crate) fn validates_output(&self) -> bool {
        self.set.as_deref().is_some_and(|s| s.validate_output)
    }

    /// Sets the core's options to `f` of them.
    fn map_core(&mut self, f: impl FnOnce(RequestOptions) -> RequestOptions) {
        let set = self.set_mut();
        set.core = f(std::mem::take(&mut set.core));
    }

    /// The options set, if any (`None`: all the defaults, which the
    /// caller makes where it needs them instead of moving a default `Set`).
    pub(crate) fn into_set(self) -> Option<Box<Set>> {
        self.set
    }

    /// Fails the request with a timeout error after `timeout` without a
    /// final response (overrides the client's default).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.map_core(|c| c.with_timeout(Some(timeout)));
        self
    }

    /// Disables the per-request timeout for this request.
    #[must_use]
    pub fn without_timeout(mut self) -> Self {
        self.map_core(|c| c.with_timeout(None));
        self
    }

    /// 2026-07-28: stops this call's timeout while the client's input
    /// handlers answer a multi round-trip round, and restarts it in full
    /// when their answers are sent. By default the timeout covers the whole
    /// call, handler time included, and a handler still running when it
    /// passes is cancelled (its future dropped). [`CallOptions::with_max_total`]
    /// still bounds a paused call. No effect in 2025-11-25, where the
    /// server's requests are not tied to one call.
    #[must_use]
    pub fn pause_timeout_for_input(mut self) -> Self {
        self.map_core(|c| c.with_deadline_paused_for_input());
        self
    }

    /// Caps the whole call (progress, input rounds and task polling
    /// included).
    #[must_use]
    pub fn with_max_total(mut self, max: Duration) -> Self {
        self.map_core(|c| c.with_max_total(max));
        self
    }

    /// Asks for progress and calls `callback` with every report.
    #[must_use]
    pub fn on_progress(mut self, callback: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.map_core(|c| c.with_progress());
        self.set_mut().progress = Some(Arc::new(callback));
        self
    }

    /// Adds a `_meta` member to the request.
    #[must_use]
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.map_core(|c| c.with_meta(key, value));
        self
    }

    /// Asks for server logs at `level` and above for this request only
    /// (2026-07-28 `io.modelcontextprotocol/logLevel`; in 2025-11-25 use
    /// [`Client::set_log_level`](crate::Client::set_log_level)).
    #[must_use]
    pub fn with_log_level(self, level: mcp_types::logging::LoggingLevel) -> Self {
        let value = serde_json::to_value(level).unwrap_or(Value::Null);
        self.with_meta(mcp_types::meta::keys::LOG_LEVEL, value)
    }

    /// Carries W3C trace context (`traceparent`, optional `tracestate`) in
    /// the request's `_meta`.
    #[must_use]
    pub fn with_trace_context(self, traceparent: &str, tracestate: Option<&str>) -> Self {
        let s = self.with_meta("traceparent", Value::from(traceparent));
        match tracestate {
            Some(state) => s.with_meta("tracestate", Value::from(state)),
            None => s,
        }
    }

    /// Adds an HTTP header to this request's POSTs (HTTP transports only;
    /// ignored on stdio). The transport's own headers take precedence. It
    /// travels on every POST of the call (retries, multi round-trip rounds,
    /// pages, task requests). An `Authorization` header here is the call's
    /// own credential, as with [`CallOptions::with_access_token`].
    ///
    /// # Errors
    /// When the name or value is not a valid HTTP header.
    pub fn with_header(mut self, name: &str, value: &str) -> Result<Self, Error> {
        let invalid = || {
            Error::new(ErrorKind::InvalidHeader {
                name: name.to_owned(),
            })
        };
        let name = HeaderName::try_from(name).map_err(|_| invalid())?;
        let value = HeaderValue::try_from(value).map_err(|_| invalid())?;
        self.set_mut().headers.insert(name, value);
        Ok(self)
    }

    /// Sends this call's POSTs with `Authorization: Bearer <token>` instead
    /// of the connection's credentials: the configured authorization
    /// provider (OAuth included) is not consulted for them, and a `401` or
    /// `403` fails the call without a retry. HTTP transports only (ignored
    /// on stdio). The token is kept out of logs and `Debug` output.
    ///
    /// ```
    /// use mcp_client::CallOptions;
    /// let opts = CallOptions::new().with_access_token("per-user-token")?;
    /// assert!(!format!("{opts:?}").contains("per-user-token"));
    /// # Ok::<(), mcp_client::Error>(())
    /// ```
    ///
    /// # Errors
    /// When the token cannot travel in a header (control characters).
    pub fn with_access_token(mut self, token: &str) -> Result<Self, Error> {
        let mut value = HeaderValue::try_from(format!("Bearer {token}")).map_err(|_| {
            Error::new(ErrorKind::InvalidHeader {
                name: "authorization".into(),
            })
        })?;
        value.set_sensitive(true);
        self.set_mut()
            .headers
            .insert(http::header::AUTHORIZATION, value);
        Ok(self)
    }

    /// `tools/call`: validates the result's `structuredContent` against the
    /// tool's `outputSchema` (JSON Schema, 2020-12 unless the schema names
    /// another draft) before returning it. The schema comes from
    /// `tools/list` (fetched once and kept until the server announces a
    /// changed tool list). A result that does not match, or that lacks
    /// `structuredContent` while the tool declares a schema, fails with
    /// [`Error::is_protocol_violation`]; a result with `isError: true` is
    /// returned unchecked. Schema references are resolved only within the
    /// schema: nothing is loaded from files or the network.
    ///
    /// Needs the `output-schema` feature (on by default).
    #[cfg(feature = "output-schema")]
    #[must_use]
    pub fn validate_output(mut self) -> Self {
        self.set_mut().validate_output = true;
        self
    }

    /// Bypasses the result cache (2026-07-28 `ttlMs`) for this request.
    #[must_use]
    pub fn without_cache(mut self) -> Self {
        self.map_core(|c| c.without_cache());
        self
    }

    /// Polls a task this call creates at this interval (never below the
    /// core's floor of 50 ms).
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.map_core(|c| c.with_poll_interval(interval));
        self
    }

    /// 2025-11-25: asks the server to run the request as a task with this
    /// time to live (ms); 2026-07-28 servers decide on their own.
    #[must_use]
    pub fn as_task(mut self, ttl_ms: Option<u64>) -> Self {
        self.map_core(|c| c.with_task(ttl_ms));
        self
    }
}

//! [`Client`]: the cheap, cloneable handle to one connection.

pub(crate) mod builder;
pub(crate) mod features;
pub(crate) mod listen;
pub mod llm_server;
mod prompt_args;
mod reconfigure;
pub(crate) mod request_handle;
mod server_exit;
pub(crate) mod session;
pub mod throughput;

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::task::Waker;

use mcp_core::{Connection, EraOutcome};
use mcp_types::capabilities::ServerCapabilities;
use mcp_types::common::Implementation;
use mcp_types::logging::LoggingLevel;
use mcp_types::methods::v2025_11_25;
use mcp_types::{Era, ProtocolVersion};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::client::builder::ClientBuilder;
use crate::client::request_handle::{Running, decoded};
use crate::driver::Outcome;
use crate::driver::{
    CallRef, CallSpec, Command, CommandTx, Gone, OutcomeRx, Reader, SpecKind, exchange,
};
use crate::error::Error;
use crate::handlers::Handlers;
use crate::options::CallOptions;

/// What the driver learned about the server, readable from any handle.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    facts: RwLock<Facts>,
    /// The handlers, replaceable at runtime (`Client::set_*_handler`).
    handlers: RwLock<Handlers>,
    /// How the stdio server process ended, once it did (server_exit.rs).
    pub(crate) exit: Mutex<Option<mcp_transport_stdio::ProcessExited>>,
    /// Notification queue counters (throughput.rs).
    pub(crate) notify_stats: crate::throughput::NotifyStats,
    /// Output schemas by tool name, from `tools/list`; `None` until first
    /// needed and after a tool list change.
    #[cfg(feature = "output-schema")]
    pub(crate) output_schemas: Mutex<Option<std::collections::HashMap<String, Option<Value>>>>,
}

#[derive(Clone, Debug, Default)]
struct Facts {
    version: Option<ProtocolVersion>,
    era: Option<Era>,
    outcome: Option<EraOutcome>,
    server_info: Option<Implementation>,
    capabilities: Option<ServerCapabilities>,
    instructions: Option<String>,
    /// The 2025-11-25 HTTP session, once the handshake adopted one.
    #[cfg(feature = "http")]
    session: Option<mcp_transport_http::SessionId>,
    closed: bool,
}

impl Shared {
    pub(crate) fn update(&self, conn: &Connection) {
        let mut f = self.facts.write().unwrap_or_else(PoisonError::into_inner);
        f.version = conn.protocol_version().cloned();
        f.era = conn.era();
        f.outcome = conn.era_outcome().cloned();
        f.server_info = conn.server_info().cloned();
        f.capabilities = conn.server_capabilities().cloned();
        f.instructions = conn.instructions().map(str::to_owned);
    }

    /// Records the HTTP session the handshake adopted (`None` elsewhere).
    #[cfg(feature = "http")]
    pub(crate) fn set_session(&self, session: Option<mcp_transport_http::SessionId>) {
        self.facts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .session = session;
    }

    pub(crate) fn set_closed(&self) {
        self.facts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .closed = true;
    }

    /// A snapshot of the handlers (cheap: a few `Arc`s). Taken, not
    /// borrowed, so a handler may replace handlers while it runs.
    pub(crate) fn handlers(&self) -> Handlers {
        self.handlers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Edits the handlers.
    pub(crate) fn set_handlers<R>(&self, f: impl FnOnce(&mut Handlers) -> R) -> R {
        f(&mut self
            .handlers
            .write()
            .unwrap_or_else(PoisonError::into_inner))
    }

    fn with<R>(&self, f: impl FnOnce(&Facts) -> R) -> R {
        f(&self.facts.read().unwrap_or_else(PoisonError::into_inner))
    }
}

pub(crate) struct Inner {
    pub(crate) commands: CommandTx,
    pub(crate) shared: Arc<Shared>,
}

/// A connected MCP client.
///
/// Cheap to clone: every clone talks to the same connection, driven by one
/// background task. Dropping every clone (and every stream or task handle
/// obtained from it) closes the connection; [`Client::close`] does it
/// explicitly and waits for the server to stop.
///
/// Dropping the future of a call before it finishes cancels the request
/// on the wire (`notifications/cancelled`, or closing its HTTP stream).
///
/// # Changing handlers at runtime
///
/// [`Client::set_sampling_handler`], [`Client::set_form_elicitation_handler`],
/// [`Client::set_url_elicitation_handler`], [`Client::set_notification_handler`]
/// and [`Client::set_roots`] replace what the builder registered, for every
/// clone. Capabilities were advertised at connect: installing a handler for
/// a capability that was not advertised then has no effect until a client
/// connects with it (the setters return whether the handler is live).
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_client::Error> {
/// use mcp_client::Client;
/// let client = Client::builder().http("http://127.0.0.1:8080/mcp").connect().await?;
/// for tool in client.list_all_tools().await? {
///     println!("{}", tool.name);
/// }
/// let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
/// println!("{:?}", result.content);
/// client.close().await;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (version, closed) = self.inner.shared.with(|f| (f.version.clone(), f.closed));
        f.debug_struct("Client")
            .field("version", &version)
            .field("closed", &closed)
            .finish_non_exhaustive()
    }
}

/// Sends `Cancel` when dropped unless disarmed: dropping a call's future
/// cancels the request.
pub(crate) struct CancelGuard {
    call: CallRef,
    commands: CommandTx,
    armed: bool,
}

impl CancelGuard {
    pub(crate) fn new(call: CallRef, commands: CommandTx) -> Self {
        CancelGuard {
            call,
            commands,
            armed: true,
        }
    }

    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }

    /// The call this guard cancels, for commands about it.
    pub(crate) fn call(&self) -> &CallRef {
        &self.call
    }

    /// The driver's command channel, for other commands about the call.
    pub(crate) fn commands(&self) -> &CommandTx {
        &self.commands
    }
}

impl std::fmt::Debug for CancelGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelGuard")
            .field("armed", &self.armed)
            .finish()
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if self.armed {
            self.commands.cancel(self.call.clone());
        }
    }
}

impl Client {
    /// A builder: choose the transport, handlers and settings, then
    /// [`connect`](ClientBuilder::connect).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    pub(crate) fn from_parts(commands: CommandTx, shared: Arc<Shared>) -> Self {
        Client {
            inner: Arc::new(Inner { commands, shared }),
        }
    }

    // ---- what the server said ----

    /// Whether the server's facts ([`Client::server_info`],
    /// [`Client::server_capabilities`], [`Client::instructions`]) are known.
    ///
    /// They are from the handshake, except on a connection whose
    /// 2026-07-28 era came from a warm [`EraCache`](crate::EraCache): it is
    /// ready without the `server/discover` round trip, and sends that
    /// request in the background right after connecting; the facts are
    /// known once it answers (normally one round trip later). Until then
    /// the getters return `None` meaning "not known yet", and the client
    /// makes no capability checks of its own: the server's answers decide.
    pub fn server_facts_known(&self) -> bool {
        self.inner.shared.with(|f| f.capabilities.is_some())
    }

    /// The server's `Implementation` (`serverInfo`); `None` when the server
    /// gave none or while its facts are not known
    /// ([`Client::server_facts_known`]).
    pub fn server_info(&self) -> Option<Implementation> {
        self.inner.shared.with(|f| f.server_info.clone())
    }

    /// The server's capabilities; `None` only while they are not known
    /// ([`Client::server_facts_known`]).
    pub fn server_capabilities(&self) -> Option<ServerCapabilities> {
        self.inner.shared.with(|f| f.capabilities.clone())
    }

    /// The server's instructions for the model; `None` when it gave none or
    /// while its facts are not known ([`Client::server_facts_known`]).
    pub fn instructions(&self) -> Option<String> {
        self.inner.shared.with(|f| f.instructions.clone())
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.inner.shared.with(|f| f.version.clone())
    }

    /// The negotiated era: [`Era::Legacy`] (2025-11-25 and older, sessions)
    /// or [`Era::Modern`] (2026-07-28, stateless).
    pub fn era(&self) -> Option<Era> {
        self.inner.shared.with(|f| f.era)
    }

    /// The 2025-11-25 HTTP session id (`Mcp-Session-Id`) of the current
    /// session; `None` over stdio, in the 2026-07-28 era (stateless) and when
    /// the server issued none. A recovered session has a new id. The id is a
    /// credential of sorts: its `Debug` output is redacted.
    ///
    /// ```no_run
    /// # async fn f(client: mcp_client::Client) {
    /// if let Some(id) = client.session_id() {
    ///     println!("session {}", id.as_str());
    /// }
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub fn session_id(&self) -> Option<mcp_transport_http::SessionId> {
        self.inner.shared.with(|f| f.session.clone())
    }

    /// How the era was decided (probe, fallback, cache ...).
    pub fn era_outcome(&self) -> Option<EraOutcome> {
        self.inner.shared.with(|f| f.outcome.clone())
    }

    /// Whether the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.shared.with(|f| f.closed) || self.inner.commands.is_closed()
    }

    // ---- the call machinery ----

    /// Starts a call now and returns the wait for its outcome; dropping
    /// the [`Running`] cancels.
    ///
    /// A call's spec travels to the driver in the call's one shared
    /// allocation, which also brings its outcome back
    /// (`driver/exchange.rs`). It is handed over here, not at the first
    /// poll, so no caller's future holds the spec: the futures stay small
    /// and the spec is moved fewer times (every caller awaits at once, so
    /// the call starts when it did before).
    pub(crate) fn run(&self, spec: CallSpec) -> Running<'_> {
        Running::sent(self, self.send_start(spec, None).map(|(rx, _)| rx))
    }

    /// [`Client::run`] for a call awaited at once whose spec `make` makes
    /// when the returned future is first polled: the call starts then, and
    /// its wait takes no lock in that poll (`exchange`).
    pub(crate) fn run_made<F>(&self, make: F) -> Running<'_, F>
    where
        F: FnOnce() -> Result<CallSpec, Error> + Unpin,
    {
        Running::unsent(self, make)
    }

    /// Sends the command that starts a call; where its outcome arrives
    /// (`waiting`: the caller's waker, when it starts the call from a
    /// poll, and then the caller may read its reply itself: the
    /// [`Reader`]), or a closed error when the driver is gone.
    pub(crate) fn send_start(
        &self,
        spec: CallSpec,
        waiting: Option<&Waker>,
    ) -> Result<(OutcomeRx, Option<Reader>), Error> {
        let (rx, sent) = self.start_spec(spec, waiting);
        match sent {
            Ok(reader) => Ok((rx, reader)),
            Err(Gone) => Err(Error::closed()),
        }
    }

    /// Hands a call to the driver; returns where its outcome arrives and
    /// the guard that cancels it when dropped.
    #[inline]
    pub(crate) fn start_call(&self, spec: CallSpec) -> Result<(OutcomeRx, CancelGuard), Error> {
        let (rx, _) = self.send_start(spec, None)?;
        let guard = CancelGuard::new(rx.call_ref(), self.inner.commands.clone());
        Ok((rx, guard))
    }

    /// Starts a call, with its client span made now, in the caller's
    /// context (`crate::telemetry`): where its outcome arrives (it resolves
    /// as closed when the driver is gone), and whether it was sent (with
    /// the caller's reader of its reply, `direct.rs`). `waiting` is the
    /// caller's waker when it starts the call from a poll (`exchange`).
    #[inline]
    pub(crate) fn start_spec(
        &self,
        mut spec: CallSpec,
        waiting: Option<&Waker>,
    ) -> (OutcomeRx, Result<Option<Reader>, Gone>) {
        let span = crate::telemetry::call_span(self, &mut spec);
        let (call, rx) = exchange(waiting);
        (rx, self.inner.commands.start(call, spec, span, waiting))
    }

    pub(crate) fn spec(
        method: impl Into<Cow<'static, str>>,
        params: Option<Value>,
        opts: CallOptions,
    ) -> CallSpec {
        CallSpec {
            method: method.into(),
            params: params.map(Box::new),
            opts,
            kind: SpecKind::Plain,
        }
    }

    /// Sends a request of any method and decodes its result as `T`.
    ///
    /// # Errors
    /// See [`Error`]; a result of the wrong shape is a protocol violation.
    pub async fn request_as<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Option<Value>,
        opts: CallOptions,
    ) -> Result<T, Error> {
        let running = self.run(Client::spec(method.to_owned(), params, opts));
        decoded(method, running.await)
    }

    /// Sends a request typed by a method marker of
    /// `mcp_client::mcp_types::methods`.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// use mcp_client::mcp_types::methods::v2026_07_28::ListTools;
    /// use mcp_client::mcp_types::common::PaginatedRequestParams;
    /// let page = client.request::<ListTools>(&PaginatedRequestParams::new(), Default::default()).await?;
    /// # let _ = page; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn request<M: mcp_types::RequestMethod>(
        &self,
        params: &M::Params,
        opts: CallOptions,
    ) -> Result<M::Result, Error> {
        let value = serde_json::to_value(params).map_err(mcp_core::UsageError::from)?;
        self.request_json::<M>(Some(value), opts).await
    }

    /// The typed request path with params already built as JSON (`None`
    /// sends none, as a list without a cursor does): the facade's typed
    /// methods name their method by its marker and get its result type.
    ///
    /// The call starts when this is called (the returned future only
    /// waits), so the future holds neither the params nor the options: a
    /// marker's spec borrows its method name, and the spec goes to the
    /// driver at once.
    pub(crate) fn request_json<M: mcp_types::RequestMethod>(
        &self,
        params: Option<Value>,
        opts: CallOptions,
    ) -> impl Future<Output = Result<M::Result, Error>> + use<'_, M> {
        let running = self.run(Client::spec(M::METHOD, params, opts));
        async move { decoded(M::METHOD, running.await) }
    }

    /// A request whose result is an acknowledgement (`EmptyResult`): its
    /// body is not read, so any JSON result is accepted, as a lenient
    /// client should.
    pub(crate) async fn request_ack<M>(&self, params: Option<Value>) -> Result<(), Error>
    where
        M: mcp_types::RequestMethod<Result = mcp_types::results::EmptyResult>,
    {
        let running = self.run(Client::spec(M::METHOD, params, CallOptions::new()));
        let _: Value = decoded(M::METHOD, running.await)?;
        Ok(())
    }

    /// Sends a request of any method and returns its raw outcome. With
    /// [`ClientBuilder::manual_input`] this is the manual variant of the
    /// multi round-trip loop: an `input_required` result comes back as
    /// [`RawOutcome::InputRequired`] instead of going to the handlers.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: CallOptions,
    ) -> Result<RawOutcome, Error> {
        match self
            .run(Client::spec(method.to_owned(), params, opts))
            .await?
        {
            Outcome::Done(c) => c
                .result
                .into_raw_value()
                .map(RawOutcome::Complete)
                .map_err(|e| Error::decode(method, e)),
            Outcome::InputRequired(r) => Ok(RawOutcome::InputRequired(r)),
            other => Err(unexpected(method, &other)),
        }
    }

    /// Sets the server's log level: `logging/setLevel` (2025-11-25), or
    /// the level put on every later request (2026-07-28).
    ///
    /// # Errors
    /// See [`Error`]; in the legacy era, [`Error::is_capability_not_offered`]
    /// when the server has no `logging` capability.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), Error> {
        if self.era() == Some(Era::Modern) {
            // The core puts it on every later request (the commands are
            // carried out in order); a closed client has none to carry it.
            let level = Command::SetLogLevel(level.as_str().to_owned());
            let _ = self.inner.commands.send(level);
            return Ok(());
        }
        let params = serde_json::json!({ "level": level });
        self.request_ack::<v2025_11_25::SetLevel>(Some(params))
            .await
    }

    /// `ping` (2025-11-25; 2026-07-28 servers answer it too where they keep
    /// it, otherwise [`Error::is_retired_method`]).
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn ping(&self) -> Result<(), Error> {
        self.request_ack::<v2025_11_25::Ping>(None).await
    }

    /// Sends `notifications/roots/list_changed` (2025-11-25): the roots the
    /// roots handler returns have changed.
    ///
    /// # Errors
    /// [`Error::is_closed`]; [`Error::is_retired_method`] in the modern era
    /// (roots travel in `input_required` results there; the core refuses
    /// the notification locally and names that replacement).
    pub async fn notify_roots_list_changed(&self) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        self.inner
            .commands
            .send(Command::Notify {
                method: <v2025_11_25::RootsListChanged as mcp_types::NotificationMethod>::METHOD,
                reply,
            })
            .map_err(|_| Error::closed())?;
        rx.await.map_err(|_| Error::closed())?
    }

    /// Closes the connection: pending calls fail as closed, a legacy HTTP
    /// session is deleted, a stdio server is stopped (stdin EOF, then
    /// SIGTERM, then SIGKILL). Returns when done; idempotent.
    pub async fn close(&self) {
        let (done, rx) = oneshot::channel();
        if self.inner.commands.send(Command::Close { done }).is_ok() {
            let _ = rx.await;
        }
        self.inner.shared.set_closed();
    }
}

/// The raw outcome of [`Client::send_request`].
#[derive(Debug)]
#[non_exhaustive]
pub enum RawOutcome {
    /// The final result, verbatim.
    Complete(Box<serde_json::value::RawValue>),
    /// 2026-07-28, manual input mode: the `InputRequiredResult`, verbatim.
    /// Answer its input requests yourself and resend the request with
    /// `inputResponses` and the echoed `requestState`.
    InputRequired(Box<serde_json::value::RawValue>),
}

pub(crate) fn unexpected(method: &str, outcome: &Outcome) -> Error {
    let outcome = match outcome {
        Outcome::InputRequired(_) => {
            return Error::new(crate::error::ErrorKind::InputUnanswered {
                method: method.to_owned(),
            });
        }
        Outcome::Done(_) => "a result",
        Outcome::List(_) => "a listing",
        Outcome::Acknowledged(_) => "a subscription acknowledgement",
    };
    Error::new(crate::error::ErrorKind::UnexpectedOutcome {
        method: method.to_owned(),
        outcome,
    })
}

//! [`Connection`]: the sans-I/O client, one per server.
//!
//! Its methods come in quinn's four groups:
//!
//! * **getters**: [`Connection::state`], [`Connection::era`],
//!   [`Connection::protocol_version`], [`Connection::server_info`], ...
//! * **inputs**: [`Connection::handle_message`],
//!   [`Connection::handle_timeout`], [`Connection::handle_request_sent`],
//!   [`Connection::handle_request_unsent`], [`Connection::handle_http_error`],
//!   [`Connection::handle_stream_closed`],
//!   [`Connection::handle_server_stream`],
//!   [`Connection::handle_transport_closed`];
//! * **commands**: [`Connection::connect`], [`Connection::send_request`],
//!   [`Connection::request`], [`Connection::list_all`],
//!   [`Connection::listen`], [`Connection::respond`],
//!   [`Connection::answer_input`], [`Connection::answer_task_input`] (and
//!   their typed forms [`Connection::respond_to`],
//!   [`Connection::answer_input_with`], [`Connection::answer_task_input_with`]),
//!   [`Connection::start_task`], [`Connection::wait_task`],
//!   [`Connection::watch_task`], [`Connection::unwatch_task`],
//!   [`Connection::open_server_stream`], [`Connection::close_server_stream`],
//!   [`Connection::finish_served_task`], [`Connection::set_wall_clock`],
//!   [`Connection::cancel`], [`Connection::close`];
//! * **outputs**: [`Connection::poll_transmit`], [`Connection::poll_event`],
//!   [`Connection::poll_timeout`].
//!
//! **Drain rule**: after every input or command, drain `poll_transmit`
//! and `poll_event` until they return `None`, then re-arm the single timer
//! from `poll_timeout`.

mod answers;
pub mod attach;
mod call;
mod deadlines;
mod debounce;
mod encode;
mod handshake;
mod incoming;
mod members;
mod quick;
pub mod restore;
mod results;
mod send;
pub mod served;
mod server_requests;
pub mod server_stream;
mod strict;
mod task_drive;
pub mod task_wait;

pub use debounce::Debounce;
pub use restore::RestoreFailure;
pub use server_stream::{ServerStreamChange, ServerStreamOutcome, ServerStreamState};
pub use strict::ResponseTarget;

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use mcp_types::capabilities::ServerCapabilities;
use mcp_types::common::Implementation;
use mcp_types::{Era, ProtocolVersion, RequestId, RequestMethod};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::IdTable;
use crate::cache::Cache;
use crate::config::{Config, RequestOptions};
use crate::correlation::Correlation;
use crate::era::EraOutcome;
use crate::error::UsageError;
use crate::event::{Event, Transmit};
use crate::headers::HeaderBindings;
use crate::lifecycle::State;
use crate::pagination::Paginator;
use crate::params::{Params, ToolCall};
use crate::timers::{Timer, TimerTable};

use call::{Call, CallKind, TaskWatch};

/// Why the transport closed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseReason {
    /// End of stream (stdout EOF, connection closed by the peer).
    Eof,
    /// An I/O error, described.
    Error(String),
}

/// What the server told the client about itself.
#[derive(Debug, Default)]
struct ServerFacts {
    info: Option<Implementation>,
    capabilities: Option<ServerCapabilities>,
    /// The capabilities as received, for path checks (`resources.subscribe`).
    capabilities_raw: Option<crate::lifecycle::RawCapabilities>,
    instructions: Option<String>,
    discover: Option<Box<RawValue>>,
}

/// The role of one wire request within its call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The call's own request (or one of its retries or pages).
    Main,
    /// `tasks/get` for the call's task.
    TaskGet,
    /// 2025-11-25 `tasks/result` for the call's task.
    TaskResult,
    /// `tasks/update` or `tasks/cancel`: an acknowledgement only.
    TaskAck,
}

#[derive(Debug)]
struct Wire {
    call: i64,
    role: Role,
}

/// The sans-I/O MCP client engine for one server.
///
/// See the [crate docs](crate) for the run loop and the drain rule.
#[derive(Debug)]
pub struct Connection {
    config: Config,
    /// `config.client_info`, serialized once.
    client_info: Value,
    /// The 2026-07-28 `clientCapabilities`, built once.
    modern_capabilities: Value,
    /// No members: the `_meta` members of a request that has none of its
    /// own (the quick path's, quick.rs), made once.
    no_members: Map<String, Value>,
    /// The `_meta` of a 2026-07-28 request that adds no members of its own,
    /// rendered once per negotiated version (send.rs).
    plain_meta: Option<(ProtocolVersion, Box<RawValue>)>,
    /// Buffers of sent requests handed back by the driver, reused by the
    /// next encodes (encode.rs).
    spare_buffers: Vec<Vec<u8>>,
    state: State,
    era: Option<Era>,
    version: Option<ProtocolVersion>,
    outcome: Option<EraOutcome>,
    pending_decision: Option<crate::era::EraDecision>,
    server: ServerFacts,
    wires: Correlation<Wire>,
    /// Boxed: a call is large, and moving it in and out of the table on
    /// every request cost more than the allocation.
    calls: IdTable<Box<Call>>,
    /// The call on the quick path, if any: sent, and not recorded in
    /// `calls`, `wires` or `deadlines` until something but its reply comes
    /// (quick.rs). Every public method that may read or change a call
    /// begins with `self.promote_quick()`, a new one too; `handle_message`
    /// and `start_call` handle it themselves.
    quick: Option<quick::Quick>,
    /// Tests: the quick path off, to compare the two (quick.rs).
    #[cfg(test)]
    no_quick: bool,
    server_requests: server_requests::LiveServerRequests,
    tools: HashMap<String, HeaderBindings>,
    /// The `Mcp-Name` values of recent requests, shared by the next ones
    /// that name the same (headers.rs).
    names: crate::headers::RecentNames,
    cache: Cache,
    principal: String,
    timers: TimerTable,
    /// The calls' request deadlines, in order (`deadlines.rs`).
    deadlines: deadlines::Deadlines,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    parked: Vec<i64>,
    /// A fresh `initialize` replaces an expired 2025-11-25 session; calls
    /// started meanwhile wait in `parked`.
    recovering: bool,
    /// The background `server/discover` of a connection that skipped the
    /// probe (a cached era): its result fills in the server's facts.
    facts_call: Option<i64>,
    /// The 2025-11-25 GET stream (server_stream.rs).
    stream: server_stream::ServerStream,
    /// What the 2025-11-25 session holds, for a recovered one (restore.rs).
    session_state: restore::SessionState,
    /// Callback tasks served to the server (served.rs).
    served: crate::served_tasks::Store,
    /// Notifications held back for their debounce window (debounce.rs).
    debouncer: debounce::Debouncer,
    /// The trace context of the handshake's requests, until ready
    /// (handshake.rs).
    handshake_trace: Option<crate::TraceContext>,
}

impl Connection {
    /// A connection in state [`State::Idle`]; call [`Connection::connect`].
    pub fn new(config: Config) -> Self {
        let cache = Cache::new(config.cache_entries);
        let client_info = serde_json::to_value(&config.client_info).unwrap_or_default();
        let modern_capabilities = config.features.capabilities(true, &config.extensions);
        let config_stream = config.server_stream;
        Connection {
            config,
            client_info,
            modern_capabilities,
            no_members: Map::new(),
            plain_meta: None,
            spare_buffers: Vec::new(),
            state: State::Idle,
            era: None,
            version: None,
            outcome: None,
            pending_decision: None,
            server: ServerFacts::default(),
            wires: Correlation::default(),
            calls: IdTable::default(),
            quick: None,
            #[cfg(test)]
            no_quick: false,
            server_requests: server_requests::LiveServerRequests::default(),
            tools: HashMap::new(),
            names: crate::headers::RecentNames::default(),
            cache,
            principal: String::new(),
            timers: TimerTable::default(),
            deadlines: deadlines::Deadlines::default(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            parked: Vec::new(),
            recovering: false,
            facts_call: None,
            stream: server_stream::ServerStream::new(config_stream),
            session_state: restore::SessionState::default(),
            served: crate::served_tasks::Store::default(),
            debouncer: debounce::Debouncer::default(),
            handshake_trace: None,
        }
    }

    // ---- getters ----

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where the lifecycle is.
    pub fn state(&self) -> State {
        self.state
    }

    /// Whether a fresh `initialize` is replacing an expired 2025-11-25
    /// session (see [`Connection::handle_session_expired`]).
    pub fn is_recovering_session(&self) -> bool {
        self.recovering
    }

    /// The negotiated era, once decided.
    pub fn era(&self) -> Option<Era> {
        self.era
    }

    /// The negotiated protocol version, once decided.
    pub fn protocol_version(&self) -> Option<&ProtocolVersion> {
        self.version.as_ref()
    }

    /// The era decision, for the facade to cache per server (the
    /// next connection can skip the probe).
    pub fn era_outcome(&self) -> Option<&EraOutcome> {
        self.outcome.as_ref()
    }

    /// Whether the server's facts (identity, capabilities, instructions)
    /// are known. They are once `initialize` or `server/discover` answered;
    /// a connection whose era came from a cache
    /// ([`crate::EraPreference::Known`]) is ready before that, and learns
    /// them from a `server/discover` sent in the background
    /// ([`crate::Event::ServerFactsKnown`]). Until then the getters below
    /// return `None` for "unknown", not "none", and capability checks
    /// (strict capabilities) are not made: the server's answers decide.
    pub fn server_facts_known(&self) -> bool {
        self.server.capabilities.is_some()
    }

    /// The server's identity (`serverInfo`; for display only, never for
    /// decisions); `None`
    /// while unknown (see [`Connection::server_facts_known`]).
    pub fn server_info(&self) -> Option<&Implementation> {
        self.server.info.as_ref()
    }

    /// The server's capabilities (from `initialize` or `server/discover`).
    pub fn server_capabilities(&self) -> Option<&ServerCapabilities> {
        self.server.capabilities.as_ref()
    }

    /// The server's instructions.
    pub fn instructions(&self) -> Option<&str> {
        self.server.instructions.as_deref()
    }

    /// The last `DiscoverResult`, verbatim (2026-07-28).
    pub fn discover_result(&self) -> Option<&RawValue> {
        self.server.discover.as_deref()
    }

    /// Wire requests awaiting a response.
    pub fn in_flight(&self) -> usize {
        self.wires.len() + usize::from(self.quick.is_some())
    }

    /// Calls in progress (a call may span several wire requests).
    pub fn calls_in_progress(&self) -> usize {
        self.calls.len() + usize::from(self.quick.is_some())
    }

    /// The validated `x-mcp-header` bindings of a tool, once listed.
    pub fn tool_headers(&self, tool: &str) -> Option<&HeaderBindings> {
        self.tools.get(tool)
    }

    /// Number of cached results.
    pub fn cache_len(&self) -> usize {
        self.cache.len()
    }

    // ---- outputs ----

    /// The next thing for the transport to send.
    #[must_use]
    #[inline]
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event for the application.
    #[must_use]
    #[inline]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When to call [`Connection::handle_timeout`] next, and why.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<(Instant, Timer)> {
        self.next_deadline()
    }

    /// When to call [`Connection::handle_timeout`] next: the instant of
    /// [`Connection::poll_timeout`] without its reason, which a driver that
    /// only arms a wake-up does not need (nothing is made or copied for it).
    #[must_use]
    #[inline]
    pub fn next_timeout(&self) -> Option<Instant> {
        self.next_deadline_at()
    }

    // ---- commands ----

    /// Sets the principal key that partitions `private` cache entries
    /// (one per authorization context, e.g. a hash of the access token).
    pub fn set_principal(&mut self, principal: impl Into<String>) {
        self.promote_quick();
        self.principal = principal.into();
    }

    /// Sends a request of any method; `params` must be an object or absent.
    /// Returns the call's id; the outcome arrives as `Event::Response` or
    /// `Event::RequestFailed` (or task / input events).
    ///
    /// # Errors
    /// A [`UsageError`] when the connection is not ready, the method does not
    /// exist in the negotiated era, the server did not advertise it (strict
    /// mode) or the params are not an object. Nothing is sent then.
    pub fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        let params = into_object(params)?;
        self.start_call(now, method, params.into(), opts, CallKind::User)
    }

    /// Sends a typed request; decode the result with
    /// [`Completed::decode_as::<M>`](crate::Completed::decode_as).
    ///
    /// # Errors
    /// As [`Connection::send_request`], plus params that do not serialize.
    pub fn request<M: RequestMethod>(
        &mut self,
        now: Instant,
        params: &M::Params,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        let value = serde_json::to_value(params)?;
        self.send_request(now, M::METHOD, Some(value), opts)
    }

    /// Calls a tool (`tools/call {name, arguments}`).
    ///
    /// # Errors
    /// As [`Connection::send_request`].
    pub fn call_tool(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        let call = ToolCall::new(name, &arguments)?;
        self.call_tool_owned(now, call, opts)
    }

    /// [`Connection::call_tool`] with the call already made: its arguments
    /// serialized from a borrow of the caller's value, nothing cloned
    /// ([`ToolCall`]). The params are sent as `call_tool` sends them,
    /// without a map being built for them.
    ///
    /// # Errors
    /// As [`Connection::send_request`].
    #[inline]
    pub fn call_tool_owned(
        &mut self,
        now: Instant,
        call: ToolCall,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        let params = Params::Tool(call);
        self.start_call(now, "tools/call", params, opts, CallKind::User)
    }

    /// Lists every page of a paginated method (`tools/list`,
    /// `prompts/list`, `resources/list`, `resources/templates/list`,
    /// `tasks/list`); the items arrive in one `Event::ListComplete`.
    ///
    /// # Errors
    /// As [`Connection::send_request`].
    pub fn list_all(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        let params = into_object(params)?;
        let kind = CallKind::list(Paginator::new(self.config.max_pages), None);
        self.start_call(now, method, params.into(), opts, kind)
    }

    /// Opens a 2026-07-28 subscription (`subscriptions/listen`) with this
    /// filter (`{"toolsListChanged": true, ...}`).
    ///
    /// # Errors
    /// As [`Connection::send_request`]; `WrongEra` on a legacy connection
    /// (use `resources/subscribe` there).
    pub fn listen(
        &mut self,
        now: Instant,
        filter: Value,
        opts: RequestOptions,
    ) -> Result<RequestId, UsageError> {
        let mut params = Map::new();
        params.insert("notifications".into(), filter);
        self.start_call(
            now,
            "subscriptions/listen",
            params.into(),
            opts,
            CallKind::Listen { acked: false },
        )
    }

    /// Answers one input request of a call (2026-07-28 multi round-trip).
    /// When every input of the round is answered the request is resent.
    /// With a typed answer: [`Connection::answer_input_with`].
    ///
    /// # Errors
    /// [`UsageError::UnknownCall`] or [`UsageError::UnknownInput`].
    pub fn answer_input(
        &mut self,
        now: Instant,
        call: &RequestId,
        key: &str,
        response: Value,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let unknown = || UsageError::UnknownInput {
            call: call.clone(),
            key: key.to_owned(),
        };
        let k = self.call_key(call)?;
        let c = self.calls.get_mut(k).ok_or_else(unknown)?;
        let round = c.input.as_mut().ok_or_else(unknown)?;
        if !round.answer(key, response) {
            return Err(unknown());
        }
        if round.is_complete() {
            if let Some(round) = c.input.take() {
                c.set_extras(round.into_retry());
            }
            self.send_main(now, k);
        }
        Ok(())
    }

    /// Answers a server-to-client request (2025-11-25). With the typed
    /// result of the method: [`Connection::respond_to`].
    ///
    /// # Errors
    /// [`UsageError::UnknownServerRequest`] when no such request awaits an
    /// answer (already answered, cancelled, or never received).
    pub fn respond(
        &mut self,
        now: Instant,
        id: &RequestId,
        result: Result<Value, mcp_types::jsonrpc::ErrorObject>,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let _ = now;
        if !self.server_requests.remove(id) {
            return Err(UsageError::UnknownServerRequest(id.clone()));
        }
        self.send_response(id.clone(), result)
    }

    /// Sends a client notification, e.g. `notifications/roots/list_changed`
    /// (2025-11-25, when roots change and `roots.listChanged` was declared).
    /// Cancellation goes through [`Connection::cancel`] instead.
    ///
    /// # Errors
    /// [`UsageError::NotReady`] before the lifecycle is ready;
    /// [`UsageError::RetiredMethod`] for a notification 2026-07-28 removed;
    /// [`UsageError::ParamsNotObject`].
    pub fn notify(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let _ = now;
        match self.state {
            State::Ready => {}
            State::Closed => return Err(UsageError::Closed),
            _ => return Err(UsageError::NotReady),
        }
        if self.era == Some(Era::Modern)
            && let Some(replacement) = crate::lifecycle::modern::retired(method)
        {
            return Err(UsageError::RetiredMethod {
                method: method.to_owned(),
                replacement,
            });
        }
        let params = into_object(params)?;
        self.send_notification(
            method,
            (!params.is_empty()).then_some(Value::Object(params)),
        );
        Ok(())
    }

    /// Cancels a call: the request fails with `RequestError::Cancelled`, the
    /// server is told (`notifications/cancelled`, a closed stream, or
    /// `tasks/cancel` for a task) and a late reply is absorbed.
    ///
    /// # Errors
    /// [`UsageError::UnknownCall`]; [`UsageError::CannotCancelInitialize`].
    pub fn cancel(&mut self, now: Instant, call: &RequestId) -> Result<(), UsageError> {
        self.promote_quick();
        let k = self.call_key(call)?;
        self.cancel_call(now, k, "cancelled by the client")
    }

    /// Closes the connection: every call fails with `RequestError::Closed`
    /// and `Event::Closed` follows. The transport then closes (stdin EOF,
    /// or HTTP DELETE of a legacy session).
    pub fn close(&mut self, now: Instant) {
        self.promote_quick();
        let _ = now;
        self.shut_down(|| crate::error::RequestError::Closed);
    }

    fn call_key(&self, call: &RequestId) -> Result<i64, UsageError> {
        call.as_number()
            .filter(|k| self.calls.contains_key(*k))
            .ok_or_else(|| UsageError::UnknownCall(call.clone()))
    }
}

fn into_object(params: Option<Value>) -> Result<Map<String, Value>, UsageError> {
    match params {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(UsageError::ParamsNotObject),
    }
}

/// The params of a `tools/call`: `{"name": name, "arguments": arguments}`,
/// built by hand (`json!` would copy the arguments, which can move).
///
/// ```
/// let p = mcp_core::call_tool_params("add", serde_json::json!({"a": 1}));
/// assert_eq!(serde_json::Value::Object(p), serde_json::json!({"name": "add", "arguments": {"a": 1}}));
/// ```
pub fn call_tool_params(name: &str, arguments: Value) -> Map<String, Value> {
    let mut params = Map::with_capacity(2);
    params.insert("name".to_owned(), Value::String(name.to_owned()));
    params.insert("arguments".to_owned(), arguments);
    params
}

//! Outgoing traffic: starting calls, sending them (encoding is in
//! encode.rs), cancellation on the wire, deadlines, and ending calls.

use std::time::Instant;

use mcp_types::jsonrpc::{ErrorObject, ErrorResponse, Message, Notification, Response};
use mcp_types::methods::CallTool;
use mcp_types::methods::facts::{KnownMethod, MethodFacts};
use mcp_types::routing::HttpRouting;
use mcp_types::{Era, RequestId};
use serde_json::{Map, Value, json};

use super::call::KeptOptions;
use super::deadlines::{request_deadline, total_deadline};
use super::encode::{OutMeta, OutParams, OutRequest};
use super::members::{add_task_member, scan_members};
use super::{Call, CallKind, Connection, Role, Wire};
use crate::config::TransportKind;
use crate::error::{RequestError, UsageError};
use crate::event::{Event, SubscriptionEnd, Transmit};
use crate::lifecycle::{State, modern};
use crate::mrtr::{RetryExtras, RoundCounter};
use crate::params::Params;
use crate::timers::Timer;
use crate::trace_context::trace_members;

impl Connection {
    pub(super) fn start_call(
        &mut self,
        now: Instant,
        method: &str,
        mut params: Params,
        mut opts: crate::config::RequestOptions,
        kind: CallKind,
    ) -> Result<RequestId, UsageError> {
        // A quick call is registered before another starts (quick.rs).
        self.promote_quick();
        let handshake = matches!(kind, CallKind::Probe | CallKind::Initialize);
        // While a fresh `initialize` replaces an expired session, calls wait
        // for the new session instead of failing.
        let park = !handshake && self.recovering && self.state == State::Initializing;
        match self.state {
            State::Closed => return Err(UsageError::Closed),
            State::Ready => {}
            _ if handshake || park => {}
            _ => return Err(UsageError::NotReady),
        }
        // Almost no call carries extras: none is made (nor dropped) for it.
        let mut extras = opts.retry.take();
        // One scan of the few keys costs less than hashed lookups, and
        // almost no request carries any of these members (a tool call's
        // two members are neither).
        let mut task_augmented = false;
        if let Params::Map(members) = &mut params {
            task_augmented = scan_members(members, &mut opts, &mut extras)?;
        }
        if let Some(cx) = opts.trace.take() {
            std::hint::cold_path();
            cx.merge_into(&mut opts.meta);
        }
        // A tool call by name knows its row (only `call_tool_owned` makes
        // one); any other method is looked up by name.
        let facts = match params {
            Params::Tool { .. } => Some(<CallTool as KnownMethod>::FACTS),
            Params::Map(_) => mcp_types::methods::facts::lookup(method),
        };
        if !handshake {
            self.check_method(method, facts, &mut params, &opts, &mut task_augmented)?;
        }
        if extras.is_none() && !task_augmented && self.takes_quick(method, &params, &kind, &opts) {
            return Ok(self.start_quick(now, params));
        }
        let key = self.wires.reserve();
        let mut call = self.new_call(now, method, facts, params, &mut opts, kind);
        if let Some(extras) = extras {
            call.set_extras(extras);
        }
        call.task_augmented = task_augmented;
        self.calls.insert(key, call);
        if park {
            self.parked.push(key);
        } else {
            self.send_main(now, key);
        }
        Ok(RequestId::Number(key))
    }

    /// A call that has sent nothing yet; its total deadline starts `now`.
    /// It keeps what it reads of `opts` later ([`KeptOptions`]: the
    /// options are taken apart, not kept whole: they are some 300 bytes).
    pub(super) fn new_call(
        &self,
        now: Instant,
        method: &str,
        facts: Option<&'static MethodFacts>,
        params: Params,
        opts: &mut crate::config::RequestOptions,
        kind: CallKind,
    ) -> Box<Call> {
        // The box is allocated first and the call written into it: made
        // on the stack, the call (some 380 bytes) would be copied into it.
        let room = Box::<Call>::new_uninit();
        // A known method's name is the table's static text: no copy.
        let method = match facts {
            Some(f) if f.name == method => std::borrow::Cow::Borrowed(f.name),
            _ => std::borrow::Cow::Owned(method.to_owned()),
        };
        Box::write(
            room,
            Call {
                method,
                facts,
                params,
                task_augmented: false,
                opts: KeptOptions::from_options(opts),
                kind,
                wire: None,
                started: now,
                total_deadline: total_deadline(&self.config, now, opts.max_total),
                deadline: None,
                unsent: None,
                rounds: RoundCounter::new(self.config.max_rounds),
                input: None,
                extras: None,
                version_retried: false,
                header_retried: false,
                task: None,
                cached: false,
                sends: 0,
                armed: None,
            },
        )
    }

    /// Refuses a method the negotiated era does not have or the server did
    /// not advertise (strict capabilities); a 2025-11-25 call with a task
    /// TTL gets its `task` member here.
    fn check_method(
        &mut self,
        method: &str,
        facts: Option<&'static MethodFacts>,
        params: &mut Params,
        opts: &crate::config::RequestOptions,
        task_augmented: &mut bool,
    ) -> Result<(), UsageError> {
        let era = self.era.unwrap_or(Era::Legacy);
        let required = match era {
            Era::Modern => {
                if let Some(replacement) = facts.and_then(|f| f.modern_replacement) {
                    std::hint::cold_path();
                    return Err(UsageError::RetiredMethod {
                        method: method.to_owned(),
                        replacement,
                    });
                }
                facts.and_then(|f| f.server_capability(Era::Modern, false))
            }
            Era::Legacy => {
                if facts.is_some_and(|f| f.only_in(Era::Modern)) {
                    std::hint::cold_path();
                    return Err(UsageError::WrongEra {
                        method: method.to_owned(),
                        era,
                    });
                }
                if let Some(ttl) = opts.task_ttl {
                    add_task_member(params, ttl)?;
                    *task_augmented = true;
                }
                facts.and_then(|f| f.server_capability(Era::Legacy, *task_augmented))
            }
        };
        if let (true, Some(capability), Some(caps)) = (
            self.config.strict_capabilities,
            required,
            self.server.capabilities_raw.as_mut(),
        ) && !caps.has(capability)
        {
            std::hint::cold_path();
            return Err(UsageError::CapabilityNotAdvertised {
                method: method.to_owned(),
                capability,
            });
        }
        Ok(())
    }

    /// Sends (or resends, with a fresh id) the main request of a call,
    /// serving it from the cache when possible.
    pub(super) fn send_main(&mut self, now: Instant, key: i64) {
        // Only 2026-07-28 caches: no look at the cache before that.
        let cached = match self.era {
            Some(Era::Modern) => self.cache_hit(now, key),
            _ => None,
        };
        if let Some(raw) = cached {
            if let Some(c) = self.calls.get_mut(key) {
                c.cached = true;
            }
            self.on_main_result(now, key, raw);
            return;
        }
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let id = if c.sends == 0 {
            key
        } else {
            std::hint::cold_path();
            self.wires.reserve()
        };
        c.sends += 1;
        c.cached = false;
        self.wires.insert_reserved(
            id,
            Wire {
                call: key,
                role: Role::Main,
            },
        );
        self.render_plain_meta();
        let buffer = self.encode_buffer();
        match self.encode_call(id, key, buffer) {
            Ok((bytes, routing)) => {
                self.transmits.push_back(Transmit::Message {
                    bytes,
                    routing,
                    call: Some(RequestId::Number(key)),
                });
                self.mark_sent(now, key, id);
            }
            Err(e) => {
                std::hint::cold_path();
                self.wires.abandon(id);
                self.fail_call(key, RequestError::Build(e));
            }
        }
    }

    /// The cached result that answers call `key`'s request, if any (asked
    /// at 2026-07-28 only, the one revision that caches). Out of line: at
    /// 2025-11-25 it is never asked, and a call that may not be cached is
    /// told no.
    #[inline(never)]
    fn cache_hit(&self, now: Instant, key: i64) -> Option<mcp_types::raw::RawJson> {
        let c = self.calls.get(key)?;
        let usable =
            !c.opts.no_cache && !c.extras().is_retry() && c.facts.is_some_and(|f| f.cacheable);
        if !usable {
            return None;
        }
        self.cache
            .lookup(now, &c.method, &c.params, &self.principal)
            .cloned()
    }

    /// Sends a task-side request (`tasks/get`, `tasks/result`, `tasks/update`,
    /// `tasks/cancel`) for a call.
    pub(super) fn send_task_request(
        &mut self,
        now: Instant,
        key: i64,
        method: &'static str,
        mut params: Map<String, Value>,
        role: Role,
    ) {
        let Some(c) = self.calls.get(key) else {
            return;
        };
        let Some(task) = &c.task else {
            return;
        };
        params.insert("taskId".into(), json!(task.snapshot.task_id));
        let trace = trace_members(&c.opts.meta);
        let id = self.wires.insert(Wire { call: key, role });
        let mut bytes = self.encode_buffer();
        let modern = self.era == Some(Era::Modern);
        let meta = modern::RequestMeta {
            user: &trace,
            progress_token: None,
            modern: self
                .version
                .as_ref()
                .filter(|_| modern)
                .map(|v| self.modern_meta(v, None)),
        };
        let meta = (!meta.is_empty()).then_some(OutMeta::Parts(meta));
        // `tasks/update` carries its answers in `inputResponses`, which
        // `OutParams` writes from the extras only.
        let mut extras = RetryExtras::default();
        if let Some(Value::Object(r)) = params.remove("inputResponses") {
            extras.input_responses = Some(r);
        }
        let params = Params::Map(params);
        let out = OutRequest {
            id,
            method,
            params: Some(OutParams {
                base: &params,
                extras: &extras,
                meta,
            }),
        };
        if out.write(&mut bytes).is_err() {
            self.wires.abandon(id);
            return;
        }
        let mut routing = self.base_routing().with_request_id(RequestId::Number(id));
        if modern {
            routing = routing
                .with_method(method)
                .with_name(crate::headers::encode_header_value(
                    params.get("taskId").and_then(Value::as_str).unwrap_or(""),
                ));
        }
        self.transmits.push_back(Transmit::Message {
            bytes,
            routing,
            call: Some(RequestId::Number(key)),
        });
        if role != Role::TaskAck {
            if let Some(c) = self.calls.get_mut(key) {
                c.wire = Some(id);
            }
            self.arm_when_sent(now, key, true);
        }
    }

    /// Arms the deadline of a request just handed to the transport: now, or
    /// when the transport reports it sent (`Config::reports_sends`), so that
    /// time queued in the transport does not count. Until then only the
    /// maximum total applies. A resend that keeps the call's running
    /// deadline arms it now.
    /// Call `key`'s request went out as wire id `id`: the call's wire is
    /// that, and its deadline is armed (anew when none was running or the
    /// call pauses for input, see [`Connection::arm_when_sent`]).
    pub(super) fn mark_sent(&mut self, now: Instant, key: i64, id: i64) {
        let restart = match self.calls.get_mut(key) {
            Some(c) => {
                c.wire = Some(id);
                c.deadline.is_none() || c.opts.pause_for_input
            }
            None => false,
        };
        self.arm_when_sent(now, key, restart);
    }

    fn arm_when_sent(&mut self, now: Instant, key: i64, restart: bool) {
        let defer = restart && self.config.reports_sends;
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        if !defer {
            c.unsent = None;
            return self.arm_request_timer(now, key, restart);
        }
        c.unsent = Some(restart);
        match c.total_deadline {
            Some(at) => self.arm_deadline(key, at),
            None => self.disarm_deadline(key),
        }
    }

    /// The routing of a message at the negotiated version (none before).
    pub(super) fn base_routing(&self) -> HttpRouting {
        self.version
            .clone()
            .map(HttpRouting::new)
            .unwrap_or_default()
    }

    /// Sends a notification.
    pub(super) fn send_notification(&mut self, method: &str, params: Option<Value>) {
        let params = params.and_then(|p| serde_json::value::to_raw_value(&p).ok());
        let msg = Message::Notification(Notification {
            method: method.to_owned(),
            params,
        });
        let Ok(bytes) = msg.to_vec() else {
            return;
        };
        let mut routing = self.base_routing();
        if self.era == Some(Era::Modern) {
            routing = routing.with_method(method.to_owned());
        }
        self.transmits.push_back(Transmit::Message {
            bytes,
            routing,
            call: None,
        });
    }

    pub(super) fn send_response(
        &mut self,
        id: RequestId,
        result: Result<Value, ErrorObject>,
    ) -> Result<(), UsageError> {
        let msg = match result {
            Ok(v) => Message::Response(Response {
                id,
                result: serde_json::value::to_raw_value(&v)?.into(),
            }),
            Err(error) => Message::Error(ErrorResponse {
                id: Some(id),
                error,
            }),
        };
        let bytes = msg.to_vec()?;
        let routing = self.base_routing();
        self.transmits.push_back(Transmit::Message {
            bytes,
            routing,
            call: None,
        });
        Ok(())
    }

    /// Tells the server a wire request is abandoned: `notifications/cancelled`
    /// (2025-11-25, and stdio in 2026-07-28) and, over HTTP, a closed
    /// response stream.
    ///
    /// In 2026-07-28 closing the stream is the cancellation. In 2025-11-25
    /// the notification is, and the client stops reading the request's stream
    /// as well: its reply would be ignored anyway, and a server that keeps a
    /// cancelled request's stream open (the TypeScript SDK v1 keeps it until
    /// the session ends) would otherwise hold one of the transport's
    /// concurrent-request slots for the rest of the session.
    ///
    /// The notification carries the call's trace context in `_meta`, if it
    /// has one: it belongs to the call's trace.
    pub(super) fn cancel_on_wire(&mut self, wire: i64, reason: &str) {
        let Some(abandoned) = self.wires.abandon(wire) else {
            return;
        };
        let http = self.config.transport == TransportKind::Http;
        if self.era != Some(Era::Modern) || !http {
            let mut params = json!({ "requestId": wire, "reason": reason });
            let trace = self
                .calls
                .get(abandoned.call)
                .map(|c| trace_members(&c.opts.meta));
            if let (Some(trace), Value::Object(p)) = (trace, &mut params)
                && !trace.is_empty()
            {
                p.insert("_meta".into(), Value::Object(trace));
            }
            self.send_notification("notifications/cancelled", Some(params));
        }
        if http {
            self.transmits.push_back(Transmit::CloseStream {
                request_id: RequestId::Number(wire),
            });
        }
    }

    pub(super) fn cancel_call(
        &mut self,
        now: Instant,
        key: i64,
        reason: &str,
    ) -> Result<(), UsageError> {
        let Some(c) = self.calls.get(key) else {
            return Err(UsageError::UnknownCall(RequestId::Number(key)));
        };
        if matches!(c.kind, CallKind::Initialize) {
            return Err(UsageError::CannotCancelInitialize);
        }
        let wire = c.wire;
        if c.task.is_some() {
            if let Some(w) = wire {
                self.wires.abandon(w);
            }
            // Tasks are cancelled with tasks/cancel, never notifications/cancelled
            // (the task outlives its request); a 2025-11-25 server must have
            // declared tasks.cancel.
            let allowed = self.era == Some(Era::Modern)
                || self
                    .server
                    .capabilities_raw
                    .as_mut()
                    .is_some_and(|caps| caps.has("tasks.cancel"));
            if allowed {
                self.send_task_request(now, key, "tasks/cancel", Map::new(), Role::TaskAck);
            }
        } else if let Some(w) = wire {
            self.cancel_on_wire(w, reason);
        }
        if let Some(c) = self.calls.get_mut(key) {
            c.wire = None;
        }
        if matches!(
            self.calls.get(key).map(|c| &c.kind),
            Some(CallKind::Listen { .. })
        ) {
            self.end_subscription(key, SubscriptionEnd::Cancelled);
        } else {
            self.fail_call(key, RequestError::Cancelled);
        }
        Ok(())
    }

    /// Arms the call's request deadline: the per-request timeout, capped by
    /// the maximum total; none for an acknowledged subscription. With `restart` the timeout
    /// starts now (a first send, a task request, progress that resets it);
    /// without, the call's running deadline is armed again (a resend within
    /// the call, such as a multi round-trip round).
    pub(super) fn arm_request_timer(&mut self, now: Instant, key: i64, restart: bool) {
        // The record is looked up once, read and its deadline set in place.
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let at = match c.deadline {
            Some(running) if !restart => Some(running),
            _ => {
                // A subscription's acknowledgement is awaited within the
                // request deadline; once acknowledged, the stream has none by
                // design (it ends when the caller drops it, the server ends it
                // or the transport closes).
                if matches!(c.kind, CallKind::Listen { acked: true }) {
                    return;
                }
                // Silence decides "legacy" only when a legacy version is
                // acceptable; otherwise the probe waits for its answer like
                // any request.
                if matches!(c.kind, CallKind::Probe)
                    && self.config.transport == TransportKind::Stdio
                    && super::handshake::accepts_legacy(&self.config)
                {
                    std::hint::cold_path();
                    self.timers
                        .set(Timer::Probe, now + self.config.probe_timeout);
                    return;
                }
                c.deadline = request_deadline(&self.config, now, c.opts.timeout, c.total_deadline);
                c.deadline
            }
        };
        let before = std::mem::replace(&mut c.armed, at);
        self.deadline_changed(key, before, at);
    }

    /// Removes a call and its timers, abandoning its in-flight request.
    pub(super) fn remove_call(&mut self, key: i64) -> Option<Box<Call>> {
        let c = self.calls.remove(key)?;
        // Its held progress goes out before its final event.
        self.flush_progress_of(key);
        if let Some(w) = c.wire {
            self.wires.abandon(w);
        }
        self.forget_deadline(key, c.armed);
        // Only a call with a task polls (its task is never taken away).
        if c.task.is_some() {
            self.timers.cancel(&Timer::TaskPoll(RequestId::Number(key)));
        }
        if matches!(c.kind, CallKind::Probe) {
            self.timers.cancel(&Timer::Probe);
        }
        Some(c)
    }

    /// Ends a call with an error event of the kind that fits it.
    #[inline(never)]
    pub(super) fn fail_call(&mut self, key: i64, error: RequestError) {
        // A task's state this end implies is reported first (task_wait.rs).
        self.conclude_task(key, Err(&error));
        let Some(c) = self.remove_call(key) else {
            return;
        };
        let id = RequestId::Number(key);
        // A listing that refreshes another call's tool list fails that call.
        if let CallKind::List(listing) = &c.kind
            && let Some(original) = listing.refresh_for
        {
            return self.fail_call(original, error);
        }
        match c.kind {
            CallKind::Listen { .. } => self.events.push_back(Event::SubscriptionEnded {
                id,
                reason: SubscriptionEnd::Failed(error),
            }),
            CallKind::Probe | CallKind::Initialize => {
                self.connect_failed(crate::error::ConnectError::Request(error));
            }
            CallKind::Restore => self.events.push_back(Event::SessionRestoreFailed {
                method: c.method,
                error: super::RestoreFailure::Failed(error),
            }),
            _ => self.events.push_back(Event::RequestFailed {
                id,
                method: c.method,
                error,
            }),
        }
    }

    #[inline(never)]
    pub(super) fn end_subscription(&mut self, key: i64, reason: SubscriptionEnd) {
        if self.remove_call(key).is_some() {
            self.events.push_back(Event::SubscriptionEnded {
                id: RequestId::Number(key),
                reason,
            });
        }
    }

    /// Fails everything and closes.
    pub(super) fn shut_down(&mut self, error: impl Fn() -> RequestError) {
        if self.state == State::Closed {
            return;
        }
        let mut keys: Vec<i64> = self.calls.keys().collect();
        keys.sort_unstable();
        self.state = State::Closed;
        for k in keys {
            self.fail_call(k, error());
        }
        self.wires.drain();
        self.server_requests.clear();
        self.parked.clear();
        self.recovering = false;
        self.timers = crate::timers::TimerTable::default();
        self.deadlines = super::deadlines::Deadlines::default();
        self.stream.close_quietly();
        self.forget_served_tasks();
        self.flush_all_notifications();
        self.events.push_back(Event::Closed);
    }
}

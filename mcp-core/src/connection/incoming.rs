//! Inputs: messages from the server, timeouts, HTTP facts and transport
//! closure.

use std::time::Instant;

use mcp_types::incoming::{NotificationKind, ServerNotification, ServerRequest};
use mcp_types::jsonrpc::{ErrorObject, Message, Notification, Request};
use mcp_types::{Era, RequestId};
use serde_json::value::RawValue;

use super::{CallKind, CloseReason, Connection, Role};
use crate::correlation::Lookup;
use crate::era::{HttpProbeAnswer, classify_http_answer};
use crate::error::{PeerMisbehaved, RequestError};
use crate::event::{Event, SubscriptionEnd};
use crate::lifecycle::{State, legacy};
use crate::timers::Timer;
use crate::wire;
use mcp_types::meta::ProgressToken;
use mcp_types::notifications::{CancelledNotificationParams, ProgressNotificationParams};

impl Connection {
    /// Feeds one message from the server (parsed once by the transport).
    /// A response's handling is inline; every other kind's, and the strict
    /// checks, are out of line (`#[inline(never)]`): this stays a few lines
    /// of code on the path of every call.
    pub fn handle_message(&mut self, now: Instant, message: Message) {
        if self.state == State::Closed {
            return;
        }
        // The quick call's reply ends it here; anything else registers it
        // first (quick.rs).
        let Some(message) = self.quick_response(message) else {
            return;
        };
        if self.config.strict
            && (self.strict_id_check(now, &message) || self.strict_params_check(&message))
        {
            return;
        }
        match message {
            Message::Request(r) => self.on_server_request(now, r),
            Message::Notification(n) => self.on_notification(now, n),
            Message::Response(r) => match self.take_wire(&r.id) {
                Some((_, call, Role::Main)) => self.on_main_result(now, call, r.result),
                Some((_, call, Role::TaskGet)) => {
                    self.on_task_observed(now, call, r.result.as_bytes());
                }
                Some((_, call, Role::TaskResult)) => self.on_task_result(call, r.result),
                Some((_, _, Role::TaskAck)) | None => {}
            },
            Message::Error(e) => match e.id {
                None => {
                    std::hint::cold_path();
                    self.events.push_back(Event::ProtocolViolation(
                        PeerMisbehaved::ErrorWithoutId(e.error),
                    ));
                }
                Some(id) => self.on_error(now, &id, e.error),
            },
        }
    }

    #[inline(never)]
    fn on_error(&mut self, now: Instant, id: &RequestId, error: ErrorObject) {
        match self.take_wire(id) {
            Some((_, call, Role::Main)) => self.on_main_error(now, call, error),
            Some((_, call, Role::TaskGet | Role::TaskResult)) => {
                self.fail_call(call, RequestError::Remote(error));
            }
            Some((_, _, Role::TaskAck)) | None => {}
        }
    }

    /// Matches a response id; reports unknown and duplicate ids.
    #[inline]
    pub(super) fn take_wire(&mut self, id: &RequestId) -> Option<(i64, i64, Role)> {
        match self.wires.take(id) {
            Lookup::Found(wire, w) => {
                if let Some(c) = self.calls.get_mut(w.call)
                    && c.wire == Some(wire)
                {
                    c.wire = None;
                    let armed = c.armed.take();
                    self.forget_deadline(w.call, armed);
                }
                Some((wire, w.call, w.role))
            }
            Lookup::Late => None,
            Lookup::Duplicate => {
                self.unmatched_response(id, true);
                None
            }
            Lookup::Unknown => {
                self.unmatched_response(id, false);
                None
            }
        }
    }

    /// Reports a response whose id matches no request in flight (`true`:
    /// one answered already). Out of line: a well-behaved server sends none.
    #[cold]
    #[inline(never)]
    fn unmatched_response(&mut self, id: &RequestId, duplicate: bool) {
        let violation = match duplicate {
            true => PeerMisbehaved::DuplicateResponse(id.clone()),
            false => PeerMisbehaved::UnknownResponseId(id.clone()),
        };
        self.events.push_back(Event::ProtocolViolation(violation));
    }

    #[inline(never)]
    fn on_server_request(&mut self, now: Instant, r: Request) {
        if self.era == Some(Era::Modern) {
            self.events.push_back(Event::ProtocolViolation(
                PeerMisbehaved::UnexpectedRequest { method: r.method },
            ));
            return;
        }
        let id = r.id;
        let request = ServerRequest::classify(r.method, r.params);
        if let Err(e) = legacy::admit_server_request(&request, &self.config.features) {
            let _ = self.send_response(id, Err(e));
            return;
        }
        // The core answers `ping` itself: the driver never sees it.
        if let ServerRequest::Ping(_) = request {
            let _ = self.send_response(id, Ok(serde_json::json!({})));
            return;
        }
        let Err(request) = self.serve_as_task(now, &id, request) else {
            return;
        };
        // A live id is never replaced, and the live set is capped.
        if let Err(refusal) = self.server_requests.admit(&id) {
            let error = refusal.into_error(&id);
            let _ = self.send_response(id, Err(error));
            return;
        }
        self.events.push_back(Event::ServerRequest { id, request });
    }

    #[inline(never)]
    fn on_notification(&mut self, now: Instant, n: Notification) {
        let n = ServerNotification::classify(n);
        if let Some(key) = self.subscription_of(n.raw()) {
            return self.on_subscription_notification(now, key, n);
        }
        match n {
            ServerNotification::Progress(p) => self.on_progress(now, p.raw()),
            ServerNotification::Cancelled(p) => self.on_cancelled(p.raw()),
            ServerNotification::LegacyTaskStatus(_) | ServerNotification::TaskStatus(_) => {
                self.on_task_notification(now, n.raw());
                self.notification_event(now, n);
            }
            n => {
                self.cache.on_notification(&n);
                self.notification_event(now, n);
            }
        }
    }

    /// The listen call a notification belongs to (its
    /// `_meta` names the listen call).
    fn subscription_of(&self, params: Option<&RawValue>) -> Option<i64> {
        let has_listen = self
            .calls
            .values()
            .any(|c| matches!(c.kind, CallKind::Listen { .. }));
        if !has_listen {
            return None;
        }
        let holder: wire::NotificationMetaHolder = wire::parse(params).ok()?;
        let id = holder.meta?.subscription_id?;
        let key = id.as_number()?;
        matches!(self.calls.get(key)?.kind, CallKind::Listen { .. }).then_some(key)
    }

    fn on_subscription_notification(&mut self, now: Instant, key: i64, n: ServerNotification) {
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let CallKind::Listen { acked } = &mut c.kind else {
            return;
        };
        let id = RequestId::Number(key);
        if !*acked {
            if let ServerNotification::SubscriptionsAcknowledged(p) = n {
                *acked = true;
                let armed = c.armed.take();
                self.forget_deadline(key, armed);
                self.events.push_back(Event::SubscriptionAcknowledged {
                    id,
                    params: p.into_raw(),
                });
            } else {
                let wire = c.wire;
                let violation = PeerMisbehaved::NotificationBeforeAck {
                    id,
                    method: n.method().to_owned(),
                };
                if let Some(w) = wire {
                    self.cancel_on_wire(w, "notification before acknowledgement");
                }
                self.end_subscription(key, SubscriptionEnd::Failed(RequestError::Peer(violation)));
            }
            return;
        }
        match &n {
            ServerNotification::Cancelled(_) => {
                return self.end_subscription(key, SubscriptionEnd::ServerCancelled);
            }
            ServerNotification::TaskStatus(_) => self.on_task_notification(now, n.raw()),
            _ => self.cache.on_notification(&n),
        }
        self.events.push_back(Event::SubscriptionNotification {
            id,
            notification: n,
        });
    }

    fn on_progress(&mut self, now: Instant, params: Option<&RawValue>) {
        let Ok(p) = wire::parse::<ProgressNotificationParams>(params) else {
            self.events.push_back(Event::ProtocolViolation(
                PeerMisbehaved::MalformedNotification {
                    method: NotificationKind::Progress.method().into(),
                    reason: "missing progressToken or progress".into(),
                },
            ));
            return;
        };
        // Progress for unknown or finished tokens is dropped.
        let key = match &p.progress_token {
            ProgressToken::Number(n) => Some(*n),
            ProgressToken::String(s) => RequestId::String(s.clone()).as_number(),
        };
        let Some(key) = key else {
            return;
        };
        let Some(c) = self.calls.get(key) else {
            return;
        };
        if !c.opts.progress {
            return;
        }
        let in_flight = c.wire.is_some();
        if self.config.reset_timeout_on_progress && in_flight {
            self.arm_request_timer(now, key, true);
        }
        let event = Event::Progress {
            id: RequestId::Number(key),
            progress: p.progress,
            total: p.total,
            message: p.message,
        };
        self.progress_event(now, event);
    }

    fn on_cancelled(&mut self, params: Option<&RawValue>) {
        let Ok(p) = wire::parse::<CancelledNotificationParams>(params) else {
            return;
        };
        let Some(id) = p.request_id else {
            return;
        };
        if self.server_requests.remove(&id) {
            self.events.push_back(Event::ServerRequestCancelled {
                id,
                reason: p.reason,
            });
            return;
        }
        // A server may end a subscription with notifications/cancelled.
        if let Some(key) = id.as_number()
            && matches!(
                self.calls.get(key).map(|c| &c.kind),
                Some(CallKind::Listen { .. })
            )
        {
            self.end_subscription(key, SubscriptionEnd::ServerCancelled);
        }
    }

    /// Call when the transport's timer (from `poll_timeout`) fires.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.promote_quick();
        // Both lists are in order; merged, a request deadline goes first of
        // those due at the same instant (`deadlines.rs`).
        let mut requests = self.expired_deadlines(now).into_iter().peekable();
        let mut others = self.timers.expired_at(now).into_iter().peekable();
        loop {
            let request_first = match (requests.peek(), others.peek()) {
                (Some((at, _)), Some((t_at, _))) => at <= t_at,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let timer = if request_first {
                requests
                    .next()
                    .map(|(_, key)| Timer::Request(RequestId::Number(key)))
            } else {
                others.next().map(|(_, t)| t)
            };
            let Some(timer) = timer else { break };
            match timer {
                Timer::Request(id) => {
                    if let Some(key) = id.as_number() {
                        self.on_call_timeout(now, key);
                    }
                }
                Timer::Probe => self.on_probe_silence(now),
                Timer::TaskPoll(id) => {
                    if let Some(key) = id.as_number() {
                        self.send_task_request(
                            now,
                            key,
                            "tasks/get",
                            serde_json::Map::new(),
                            Role::TaskGet,
                        );
                    }
                }
                Timer::CacheExpiry => {
                    self.cache.purge(now);
                    self.arm_cache_timer();
                }
                Timer::ServerStreamRetry => self.on_stream_retry(now),
                Timer::ServerStreamWait => self.settle_stream(),
                Timer::ServedTaskExpiry => self.on_served_expiry(now),
                Timer::NotificationFlush => self.flush_notifications(now),
            }
        }
    }

    fn on_call_timeout(&mut self, now: Instant, key: i64) {
        let Some(c) = self.calls.get(key) else {
            return;
        };
        let elapsed = now.saturating_duration_since(c.started);
        let wire = c.wire;
        match c.kind {
            CallKind::Probe => self.probe_undecided(key, RequestError::Timeout(elapsed)),
            // initialize is never cancelled (the protocol forbids it).
            CallKind::Initialize => self.fail_call(key, RequestError::Timeout(elapsed)),
            _ => {
                if let Some(w) = wire {
                    self.cancel_on_wire(w, "timed out");
                }
                self.fail_call(key, RequestError::Timeout(elapsed));
            }
        }
    }

    /// HTTP: a request's response carried a non-success status. Pass the
    /// JSON-RPC error of the body when there was one (with or without an
    /// id); `request_id` is the id of the POSTed request, or `None` for a
    /// POSTed notification or response.
    ///
    /// 401 and 403 fail the request and never cause an era downgrade; a 400
    /// (or 404/405) answering the era probe decides the era from its body.
    /// A `404` is only a status here: whether it ended a 2025-11-25 session
    /// depends on whether the request carried the session id, which the
    /// transport knows; it reports that case with
    /// [`Connection::handle_session_expired`] instead (a 404 before any
    /// session is not an expired session).
    pub fn handle_http_error(
        &mut self,
        now: Instant,
        request_id: Option<&RequestId>,
        status: u16,
        error: Option<ErrorObject>,
    ) {
        self.promote_quick();
        if self.is_stale_session_answer(status, error.as_ref()) {
            return self.handle_session_expired(now, request_id, false);
        }
        let Some(id) = request_id else {
            self.events.push_back(Event::PostRejected { status, error });
            return;
        };
        let Some(wire) = self.wires.resolve(id) else {
            return;
        };
        let Some(key) = self.wires.get(wire).map(|w| w.call) else {
            return;
        };
        let is_probe = matches!(self.calls.get(key).map(|c| &c.kind), Some(CallKind::Probe));
        if matches!(status, 401 | 403) {
            let _ = self.take_wire(id);
            if is_probe {
                return self.probe_undecided(key, RequestError::Unauthorized(status));
            }
            return self.fail_call(key, RequestError::Unauthorized(status));
        }
        if is_probe && !matches!(status, 400 | 404 | 405) {
            // A server or gateway failure says nothing about the era.
            let _ = self.take_wire(id);
            return self.probe_undecided(key, RequestError::HttpStatus(status));
        }
        if is_probe {
            let answer = match status {
                400 => HttpProbeAnswer::BadRequest(error.as_ref()),
                s => HttpProbeAnswer::OtherStatus(s),
            };
            if let Some(verdict) = classify_http_answer(&answer) {
                let _ = self.take_wire(id);
                let retried = self.calls.get(key).is_some_and(|c| c.version_retried);
                return self.decide_after_probe(
                    now,
                    key,
                    verdict,
                    retried,
                    crate::era::EraDecision::FallbackOnError,
                );
            }
        }
        if let Some(e) = error {
            return self.on_error(now, id, e);
        }
        let _ = self.take_wire(id);
        if is_probe {
            return self.probe_undecided(key, RequestError::HttpStatus(status));
        }
        self.fail_call(key, RequestError::HttpStatus(status));
    }

    /// Whether an HTTP error answers a stale 2025-11-25 session the way
    /// some servers do instead of `404`: a `400` whose JSON-RPC error names
    /// the session (the TypeScript SDK v1, and so server-everything, answers
    /// "Bad Request: No valid session ID provided"). The client then treats
    /// it as an ended session: the request fails as not replayed and one
    /// fresh `initialize` starts a new session. A `400` that does not name
    /// the session stays an ordinary failure of its request.
    fn is_stale_session_answer(&self, status: u16, error: Option<&ErrorObject>) -> bool {
        status == 400
            && self.era == Some(Era::Legacy)
            && self.state == State::Ready
            && self.is_http()
            && error.is_some_and(|e| e.message.to_ascii_lowercase().contains("session"))
    }

    /// HTTP, 2025-11-25: a request that carried the `Mcp-Session-Id` got
    /// `404`, so the server ended the session it carried (the transport has
    /// already forgotten that id). The request fails with
    /// [`RequestError::SessionExpired`] and is not replayed.
    ///
    /// `newer_session_live` says whether the transport already holds a newer
    /// session id: then the `404` is a late answer from a session that was
    /// replaced, and nothing else happens. Otherwise, unless a recovery is
    /// already under way, [`Event::SessionExpired`] follows and exactly one
    /// fresh `initialize` (then `notifications/initialized`) starts a new
    /// session. Calls started meanwhile wait for it and go out in the new
    /// session; `Event::Connected` reports it ready again. `request_id` is
    /// the id of the POSTed request, or `None` for a POSTed notification or
    /// response.
    pub fn handle_session_expired(
        &mut self,
        now: Instant,
        request_id: Option<&RequestId>,
        newer_session_live: bool,
    ) {
        self.promote_quick();
        if let Some(id) = request_id
            && let Some((_, key, _)) = self.take_wire(id)
        {
            self.fail_call(key, RequestError::SessionExpired);
        }
        if !newer_session_live {
            self.recover_session(now);
        }
    }

    /// The transport sent this request (it left the client's queue). With
    /// [`Config::reports_sends`](crate::Config::reports_sends) the request's
    /// deadline starts now; otherwise this does nothing.
    pub fn handle_request_sent(&mut self, now: Instant, request_id: &RequestId) {
        self.promote_quick();
        let Some(wire) = self.wires.resolve(request_id) else {
            return;
        };
        let Some(key) = self.wires.get(wire).map(|w| w.call) else {
            return;
        };
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        if c.wire != Some(wire) {
            return;
        }
        if let Some(restart) = c.unsent.take() {
            self.arm_request_timer(now, key, restart);
        }
    }

    /// HTTP, 2025-11-25: the transport did not send this request, because
    /// another request's `404` had ended its session and no new session was
    /// open yet. The request never reached the server, so it does not fail:
    /// its call waits for the new session (a recovery starts here if none is
    /// under way) and goes out in it with a fresh id, its deadline starting
    /// then. Task-side requests (`tasks/get`, ...) fail as
    /// [`RequestError::SessionExpired`] instead: their task belonged to the
    /// old session.
    pub fn handle_request_unsent(&mut self, now: Instant, request_id: &RequestId) {
        self.promote_quick();
        let Some(wire) = self.wires.resolve(request_id) else {
            return;
        };
        let Some((key, role)) = self.wires.get(wire).map(|w| (w.call, w.role)) else {
            return;
        };
        self.wires.abandon(wire);
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let current = c.wire == Some(wire);
        if current {
            c.wire = None;
        }
        let resend = current
            && role == Role::Main
            && matches!(c.kind, CallKind::User | CallKind::List { .. });
        if !resend {
            if current {
                self.fail_call(key, RequestError::SessionExpired);
            }
            self.recover_session(now);
            return;
        }
        c.deadline = None;
        c.unsent = None;
        self.disarm_deadline(key);
        self.recover_session(now);
        if self.recovering {
            self.parked.push(key);
        } else {
            self.send_main(now, key);
        }
    }

    /// HTTP: the server answered the POST of this request with `202
    /// Accepted` and no body. That is a protocol violation, not a lost
    /// stream: the request fails at once with
    /// [`PeerMisbehaved::AcceptedWithoutBody`] and the connection goes on.
    /// An id not in flight (late or unknown) is ignored.
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::{Config, Connection};
    /// use mcp_types::RequestId;
    ///
    /// fn on_empty_202(conn: &mut Connection, now: Instant) {
    ///     // Nothing is in flight: nothing happens.
    ///     conn.handle_accepted_without_body(now, &RequestId::Number(7));
    ///     assert!(conn.poll_event().is_none());
    /// }
    /// # let _ = (on_empty_202, Connection::new(Config::new("my-client", "1.0")));
    /// ```
    pub fn handle_accepted_without_body(&mut self, now: Instant, request_id: &RequestId) {
        self.promote_quick();
        let _ = now;
        // An id not in flight is ignored, not reported as unknown.
        if self.wires.resolve(request_id).is_none() {
            return;
        }
        let Some((_, key, _)) = self.take_wire(request_id) else {
            return;
        };
        let violation = PeerMisbehaved::AcceptedWithoutBody(request_id.clone());
        self.fail_call(key, RequestError::Peer(violation));
    }

    /// The transport discarded the response to this request because it was
    /// over its size limit (`size` bytes, `limit` the limit): the request
    /// fails at once with [`RequestError::ResponseTooLarge`] instead of
    /// waiting for its deadline, and the connection goes on. An id not in
    /// flight (late or unknown) is ignored.
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::{Config, Connection};
    /// use mcp_types::RequestId;
    ///
    /// fn on_oversized(conn: &mut Connection, now: Instant) {
    ///     // Nothing is in flight: nothing happens.
    ///     conn.handle_response_too_large(now, &RequestId::Number(3), 1 << 20, 1 << 16);
    ///     assert!(conn.poll_event().is_none());
    /// }
    /// # let _ = (on_oversized, Connection::new(Config::new("my-client", "1.0")));
    /// ```
    pub fn handle_response_too_large(
        &mut self,
        now: Instant,
        request_id: &RequestId,
        size: u64,
        limit: u64,
    ) {
        self.promote_quick();
        let _ = now;
        // An id not in flight is ignored, not reported as unknown.
        if self.wires.resolve(request_id).is_none() {
            return;
        }
        if let Some((_, key, _)) = self.take_wire(request_id) {
            self.fail_call(key, RequestError::ResponseTooLarge { size, limit });
        }
    }

    /// HTTP: the response stream of one request ended without its response.
    /// The request is lost (it is not retried: a stream that ends without
    /// the response is a lost request); a subscription ends.
    pub fn handle_stream_closed(&mut self, now: Instant, request_id: &RequestId) {
        self.promote_quick();
        let _ = now;
        let Some(wire) = self.wires.resolve(request_id) else {
            return;
        };
        let Some(key) = self.wires.get(wire).map(|w| w.call) else {
            return;
        };
        self.wires.abandon(wire);
        if let Some(c) = self.calls.get_mut(key)
            && c.wire == Some(wire)
        {
            c.wire = None;
        }
        self.fail_call(key, RequestError::TransportClosed);
    }

    /// The transport closed (stdio EOF, process exit, connection lost):
    /// every call fails and the connection closes.
    pub fn handle_transport_closed(&mut self, now: Instant, reason: CloseReason) {
        self.promote_quick();
        let _ = (now, reason);
        self.shut_down(|| RequestError::TransportClosed);
    }
}

//! The quick path: a plain `tools/call` over a byte stream, the only
//! request in flight, is sent and answered without its call record.
//!
//! Most calls a host makes are of this kind, and for them the record, its
//! wire entry and its queued deadline are bookkeeping that nothing reads
//! before the reply: a call record allocated, looked up on every step and
//! freed, an entry in the correlation table, a deadline queued and
//! forgotten. Such a call is kept instead as a [`Quick`] (its id, start,
//! deadline and params) and its request is encoded as the full path
//! encodes it, so what goes out is the same bytes and routing.
//!
//! Its response, the next message with its id, becomes the same
//! `Event::Response` the full path makes of it (its id remembered as
//! answered, so a second one is reported as a duplicate); at 2026-07-28
//! only a complete result does (`resultType`), and any other goes the full
//! path's way, the call registered first. Anything else that reaches the
//! connection first (any other message or input, any command, a timer,
//! another call's start) registers the quick call in full before it is
//! handled ([`Connection::promote_quick`]): as if started by the full path
//! at the same instant and sent, its deadline counted from its start. So
//! every outcome other than the plain reply is the full path's own.
//! Meanwhile the getters count it as the full path's call
//! ([`Connection::in_flight`], [`Connection::calls_in_progress`],
//! [`Connection::response_target`]) and [`Connection::poll_timeout`] names
//! its deadline.
//!
//! The equivalence is tested by running the same inputs through a
//! connection with the quick path and one without
//! (`tests::quick_and_full_paths_agree`).

use std::borrow::Cow;
use std::time::Instant;

use mcp_types::methods::CallTool;
use mcp_types::methods::facts::{KnownMethod, MethodFacts};
use mcp_types::{Era, Message, RequestId};

use super::call::CallKind;
use super::deadlines::{request_deadline, total_deadline};
use super::encode::{OutParams, OutRequest};
use super::{Connection, Role, Wire};
use crate::config::{RequestOptions, TransportKind};
use crate::event::{Completed, Event, Transmit};
use crate::lifecycle::State;
use crate::lifecycle::modern::{self, ResultKind};
use crate::params::Params;
use crate::wire::ResultHead;

/// A call on the quick path: what the full path's record of it would
/// hold that is not the same for every such call.
#[derive(Debug)]
pub(super) struct Quick {
    /// Its id, the request's on the wire too.
    id: i64,
    /// When it started: its deadlines count from here.
    started: Instant,
    /// Its request deadline (the request timeout's and the maximum total's
    /// earlier), as the full path would arm it.
    deadline: Option<Instant>,
    /// Its params: a tool call by name and arguments.
    params: Params,
}

/// The method table's row for `tools/call`.
fn facts() -> &'static MethodFacts {
    <CallTool as KnownMethod>::FACTS
}

impl Connection {
    /// Whether a call to start now takes the quick path: a `tools/call` by
    /// name with no options over a byte stream, on a ready connection with
    /// nothing else in flight (`start_call` registered any quick call
    /// first), none of whose settings (strict checking, send reports) reads
    /// a call's record on the way.
    pub(super) fn takes_quick(
        &self,
        method: &str,
        params: &Params,
        kind: &CallKind,
        o: &RequestOptions,
    ) -> bool {
        #[cfg(test)]
        if self.no_quick {
            return false;
        }
        matches!(params, Params::Tool(_))
            && method == facts().name
            && matches!(kind, CallKind::User)
            && self.state == State::Ready
            && self.era.is_some()
            && !self.recovering
            && self.wires.is_empty()
            && self.calls.is_empty()
            && self.config.transport == TransportKind::Stdio
            && !self.config.strict
            && !self.config.reports_sends
            && plain_options(o)
    }

    /// Starts a call on the quick path (see [`Connection::takes_quick`]):
    /// its request queued as the full path queues it, nothing recorded but
    /// the [`Quick`].
    pub(super) fn start_quick(&mut self, now: Instant, params: Params) -> RequestId {
        debug_assert!(self.quick.is_none(), "a quick call is registered first");
        // As `send_main` encodes (`encode_call`): the plain `_meta` rendered
        // for the version first, then the request's `_meta` chosen from it.
        let id = self.wires.reserve();
        self.render_plain_meta();
        let mut bytes = self.encode_buffer();
        let meta = self.out_meta(self.era == Some(Era::Modern), &self.no_members, None);
        let out = OutRequest {
            id,
            method: facts().name,
            params: Some(OutParams {
                base: &params,
                extras: &super::call::NO_EXTRAS,
                meta,
            }),
        };
        if let Err(e) = out.write(&mut bytes) {
            // The full path fails the call then, registered and with its
            // wire entry abandoned: the same happens here.
            std::hint::cold_path();
            self.register_quick(self.quick_record(id, now, params));
            self.wires.abandon(id);
            self.fail_call(id, crate::error::RequestError::Build(e));
            return RequestId::Number(id);
        }
        let mut routing = self.base_routing();
        routing.request_id = Some(RequestId::Number(id));
        self.transmits.push_back(Transmit::Message {
            bytes,
            routing,
            call: Some(RequestId::Number(id)),
        });
        self.quick = Some(self.quick_record(id, now, params));
        RequestId::Number(id)
    }

    /// The quick record of call `id`, started `now` with `params`.
    #[inline]
    fn quick_record(&self, id: i64, now: Instant, params: Params) -> Quick {
        // As `new_call` and `arm_request_timer` set them for a call with no
        // options.
        let total = total_deadline(&self.config, now, None);
        Quick {
            id,
            started: now,
            deadline: request_deadline(&self.config, now, None, total),
            params,
        }
    }

    /// `message` is the quick call's response: its result is the call's
    /// `Event::Response`, as the full path makes it. Any other message is
    /// handed back, the quick call (if any) registered in full first.
    #[inline]
    pub(super) fn quick_response(&mut self, message: Message) -> Option<Message> {
        let Some(q) = &self.quick else {
            return Some(message);
        };
        match message {
            Message::Response(r)
                if r.id == RequestId::Number(q.id) && self.quick_completes(&r.result) =>
            {
                let id = q.id;
                self.quick = None;
                self.wires.note_answered(id);
                self.events.push_back(Event::Response(Completed {
                    id: r.id,
                    method: Cow::Borrowed(facts().name),
                    result: r.result,
                    cached: false,
                }));
                None
            }
            other => {
                self.promote_quick();
                Some(other)
            }
        }
    }

    /// Whether `result` completes the quick call as the full path would
    /// complete it: always at 2025-11-25; at 2026-07-28 a complete result
    /// (`resultType` absent or `complete`) of a method the cache does not
    /// keep. Any other (input required, a task, a head that does not read)
    /// is the full path's to handle.
    fn quick_completes(&self, result: &mcp_types::raw::RawJson) -> bool {
        if self.era != Some(Era::Modern) {
            return true;
        }
        let Ok(head) = ResultHead::of(result) else {
            return false;
        };
        let kind = modern::classify_result(
            facts().name,
            head.result_type.as_deref(),
            self.config.features.tasks,
        );
        matches!(kind, Ok(ResultKind::Complete)) && !self.caches(Some(facts()))
    }

    /// Registers the quick call, if any, as the full path would have when
    /// it started and sent it: its record, its wire entry and its deadline,
    /// counted from its start. Called before anything else reaches the
    /// connection.
    #[inline]
    pub(super) fn promote_quick(&mut self) {
        if self.quick.is_some() {
            self.promote_quick_now();
        }
    }

    /// [`Connection::promote_quick`]'s work, out of line: a sequential
    /// caller's calls never need it.
    #[cold]
    #[inline(never)]
    fn promote_quick_now(&mut self) {
        let Some(q) = self.quick.take() else {
            return;
        };
        let (id, started) = (q.id, q.started);
        self.register_quick(q);
        self.mark_sent(started, id, id);
    }

    /// The record and wire entry the full path makes for call `q` before
    /// it encodes its request (`start_call`, `send_main`).
    fn register_quick(&mut self, q: Quick) {
        let mut opts = RequestOptions::default();
        let mut call = self.new_call(
            q.started,
            facts().name,
            Some(facts()),
            q.params,
            &mut opts,
            CallKind::User,
        );
        call.sends = 1;
        self.calls.insert(q.id, call);
        self.wires.insert_reserved(
            q.id,
            Wire {
                call: q.id,
                role: Role::Main,
            },
        );
    }

    /// The quick call's request deadline, with its call's number.
    pub(super) fn quick_deadline(&self) -> Option<(Instant, i64)> {
        let q = self.quick.as_ref()?;
        Some((q.deadline?, q.id))
    }

    /// Whether `id` is the quick call's: the target of its response.
    pub(super) fn is_quick(&self, id: &RequestId) -> bool {
        self.quick
            .as_ref()
            .is_some_and(|q| *id == RequestId::Number(q.id))
    }
}

/// Options that ask nothing of the call: none set, or only what a call
/// without options is given.
fn plain_options(o: &RequestOptions) -> bool {
    o.timeout.is_none()
        && o.max_total.is_none()
        && !o.progress
        && o.meta.is_empty()
        && o.trace.is_none()
        && o.task_ttl.is_none()
        && o.poll_interval.is_none()
        && !o.no_cache
        && o.retry.is_none()
        && !o.pause_for_input
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use mcp_types::jsonrpc::EnvelopeViolation;
    use mcp_types::{Message, RequestId};
    use proptest::prelude::*;
    use serde_json::json;

    use crate::test_clock::origin;
    use crate::{CloseReason, Config, Connection, EraPreference, RequestOptions, State, Transmit};

    /// A stdio connection, ready, at 2026-07-28 (`modern`) or 2025-11-25;
    /// `quick`: whether it may take the quick path.
    fn ready(now: Instant, quick: bool, modern: bool) -> Connection {
        let era = match modern {
            true => EraPreference::ModernOnly,
            false => EraPreference::LegacyOnly,
        };
        let config = Config::new("t", "1")
            .with_era(era)
            .with_request_timeout(Some(Duration::from_millis(500)));
        let mut conn = Connection::new(config);
        conn.no_quick = !quick;
        conn.connect(now).unwrap();
        let Some(Transmit::Message { bytes, .. }) = conn.poll_transmit() else {
            panic!("the handshake's request")
        };
        let id = serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()["id"].clone();
        let result = match modern {
            true => json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
            }),
            false => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "s", "version": "1"},
            }),
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        conn.handle_message(now, message(&reply));
        while conn.poll_transmit().is_some() {}
        while conn.poll_event().is_some() {}
        assert_eq!(conn.state(), State::Ready);
        conn
    }

    fn message(value: &serde_json::Value) -> Message {
        Message::from_slice(value.to_string().as_bytes()).unwrap()
    }

    /// What a driver does to a connection, and what the server sends it.
    #[derive(Clone, Debug)]
    enum Op {
        /// `tools/call` with no options: the quick path's.
        Call,
        /// `tools/call` with a timeout of its own (never quick).
        CallTimed(u16),
        /// `tools/list`, another method.
        List,
        /// The result of the `n`-th request sent so far (answered or not).
        Reply(u8),
        /// A result of another kind to the `n`-th request: 0 an explicit
        /// `complete`, 1 `input_required`, 2 a task, 3 not an object.
        OddReply(u8, u8),
        /// An error response to the `n`-th request.
        ErrorReply(u8),
        /// A response to an id never sent.
        Unknown,
        /// A logging notification.
        Notify,
        /// A `ping` request from the server.
        Ping(u8),
        /// The clock moves on; the timer fires if due.
        Advance(u16),
        /// The `n`-th call started is cancelled.
        Cancel(u8),
        /// A broken line that names the `n`-th request's id.
        Broken(u8),
        Close,
        TransportClosed,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => Just(Op::Call),
            1 => (1u16..800).prop_map(Op::CallTimed),
            1 => Just(Op::List),
            6 => any::<u8>().prop_map(Op::Reply),
            2 => (any::<u8>(), 0u8..4).prop_map(|(n, k)| Op::OddReply(n, k)),
            1 => any::<u8>().prop_map(Op::ErrorReply),
            1 => Just(Op::Unknown),
            1 => Just(Op::Notify),
            1 => any::<u8>().prop_map(Op::Ping),
            2 => (0u16..700).prop_map(Op::Advance),
            1 => any::<u8>().prop_map(Op::Cancel),
            1 => any::<u8>().prop_map(Op::Broken),
            1 => Just(Op::Close),
            1 => Just(Op::TransportClosed),
        ]
    }

    /// A connection run by a driver: the clock, the ids of the requests
    /// it sent and of the calls it started, and everything it saw.
    struct Run {
        conn: Connection,
        now: Instant,
        sent: Vec<serde_json::Value>,
        calls: Vec<RequestId>,
        log: Vec<String>,
    }

    impl Run {
        fn new(quick: bool, now: Instant, modern: bool) -> Run {
            Run {
                conn: ready(now, quick, modern),
                now,
                sent: Vec::new(),
                calls: Vec::new(),
                log: Vec::new(),
            }
        }

        fn nth<T: Clone>(list: &[T], n: u8) -> Option<T> {
            (!list.is_empty()).then(|| list[usize::from(n) % list.len()].clone())
        }

        fn apply(&mut self, op: &Op) {
            let now = self.now;
            let started = match op {
                Op::Call => Some(self.conn.call_tool(
                    now,
                    "echo",
                    json!({"text": "hi"}),
                    RequestOptions::default(),
                )),
                Op::CallTimed(ms) => Some(
                    self.conn.call_tool(
                        now,
                        "echo",
                        json!({"text": "hi"}),
                        RequestOptions::default()
                            .with_timeout(Some(Duration::from_millis(u64::from(*ms)))),
                    ),
                ),
                Op::List => {
                    Some(
                        self.conn
                            .send_request(now, "tools/list", None, RequestOptions::default()),
                    )
                }
                Op::Reply(n) => {
                    if let Some(id) = Self::nth(&self.sent, *n) {
                        let content = json!([{"type": "text", "text": "hi"}]);
                        let reply =
                            json!({"jsonrpc": "2.0", "id": id, "result": {"content": content}});
                        self.conn.handle_message(now, message(&reply));
                    }
                    None
                }
                Op::OddReply(n, kind) => {
                    if let Some(id) = Self::nth(&self.sent, *n) {
                        let result = match kind {
                            0 => json!({"resultType": "complete", "content": []}),
                            1 => json!({
                                "resultType": "input_required",
                                "inputRequests": {"a": {"method": "roots/list"}},
                                "requestState": "s",
                            }),
                            2 => json!({"resultType": "task", "task": {"taskId": "t1"}}),
                            _ => json!(5),
                        };
                        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
                        self.conn.handle_message(now, message(&reply));
                    }
                    None
                }
                Op::ErrorReply(n) => {
                    if let Some(id) = Self::nth(&self.sent, *n) {
                        let error = json!({"code": -32000, "message": "no"});
                        self.conn.handle_message(
                            now,
                            message(&json!({"jsonrpc": "2.0", "id": id, "error": error})),
                        );
                    }
                    None
                }
                Op::Unknown => {
                    let reply = json!({"jsonrpc": "2.0", "id": 9999, "result": {}});
                    self.conn.handle_message(now, message(&reply));
                    None
                }
                Op::Notify => {
                    let params = json!({"level": "info", "data": "x"});
                    let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": params});
                    self.conn.handle_message(now, message(&note));
                    None
                }
                Op::Ping(n) => {
                    let ping = json!({"jsonrpc": "2.0", "id": format!("p{n}"), "method": "ping"});
                    self.conn.handle_message(now, message(&ping));
                    None
                }
                Op::Advance(ms) => {
                    self.now += Duration::from_millis(u64::from(*ms));
                    if self
                        .conn
                        .poll_timeout()
                        .is_some_and(|(at, _)| at <= self.now)
                    {
                        self.conn.handle_timeout(self.now);
                    }
                    None
                }
                Op::Cancel(n) => {
                    if let Some(id) = Self::nth(&self.calls, *n) {
                        let cancelled = self.conn.cancel(now, &id);
                        self.log.push(format!("cancel {cancelled:?}"));
                    }
                    None
                }
                Op::Broken(n) => {
                    if let Some(id) = Self::nth(&self.sent, *n) {
                        let id: RequestId = serde_json::from_value(id).unwrap();
                        let violations = vec![EnvelopeViolation::MissingVersion];
                        self.conn
                            .handle_envelope_violation(now, Some(&id), violations);
                    }
                    None
                }
                Op::Close => {
                    self.conn.close(now);
                    None
                }
                Op::TransportClosed => {
                    self.conn.handle_transport_closed(now, CloseReason::Eof);
                    None
                }
            };
            if let Some(started) = started {
                self.log.push(format!("started {started:?}"));
                if let Ok(id) = started {
                    self.calls.push(id);
                }
            }
            self.drain();
        }

        /// The drain rule, everything it gives logged, then what the
        /// connection says of itself.
        fn drain(&mut self) {
            while let Some(t) = self.conn.poll_transmit() {
                if let Some(bytes) = t.bytes() {
                    let sent: serde_json::Value = serde_json::from_slice(bytes).unwrap();
                    if sent.get("method").is_some() && sent.get("id").is_some() {
                        self.sent.push(sent["id"].clone());
                    }
                }
                self.log.push(format!("{t:?}"));
            }
            while let Some(e) = self.conn.poll_event() {
                self.log.push(format!("{e:?}"));
            }
            let c = &self.conn;
            self.log.push(format!(
                "{:?} {:?} in flight {} calls {}",
                c.state(),
                c.poll_timeout(),
                c.in_flight(),
                c.calls_in_progress()
            ));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The quick path changes nothing anyone can see: the same inputs
        /// give the same transmits, events, timeouts and counts with it and
        /// without it, whatever comes between a quick call's start and its
        /// reply.
        #[test]
        fn quick_and_full_paths_agree(
            modern in any::<bool>(),
            ops in prop::collection::vec(op(), 1..40),
        ) {
            let now = origin();
            let mut quick = Run::new(true, now, modern);
            let mut full = Run::new(false, now, modern);
            for (i, op) in ops.iter().enumerate() {
                quick.apply(op);
                full.apply(op);
                prop_assert_eq!(&quick.log, &full.log, "after op {} ({:?})", i, op);
            }
        }
    }

    /// A plain call is quick at either revision: nothing is recorded for
    /// it until its reply, which ends it with its result.
    #[test]
    fn a_plain_call_is_quick_and_its_reply_ends_it() {
        for modern in [false, true] {
            let mut run = Run::new(true, origin(), modern);
            run.apply(&Op::Call);
            assert!(run.conn.quick.is_some(), "modern: {modern}");
            assert_eq!(run.conn.calls.len(), 0);
            assert_eq!(run.conn.in_flight(), 1);
            run.apply(&Op::Reply(0));
            assert!(run.conn.quick.is_none());
            assert_eq!(run.conn.in_flight(), 0);
            assert!(
                run.log.iter().any(|l| l.starts_with("Response(")),
                "{:#?}",
                run.log
            );
        }
    }

    /// Anything but its reply registers a quick call in full first, and so
    /// does a 2026-07-28 reply that is not a complete result.
    #[test]
    fn anything_but_its_reply_registers_a_quick_call() {
        let others = [Op::Notify, Op::Ping(1), Op::Call, Op::List, Op::Unknown];
        for (modern, op) in others
            .into_iter()
            .map(|op| (false, op))
            .chain([(true, Op::OddReply(0, 1)), (true, Op::OddReply(0, 3))])
        {
            let mut run = Run::new(true, origin(), modern);
            run.apply(&Op::Call);
            run.apply(&op);
            assert!(run.conn.quick.is_none(), "{op:?}");
            assert!(
                !run.log.iter().any(|l| l.starts_with("Response(")),
                "{op:?}"
            );
        }
    }
}

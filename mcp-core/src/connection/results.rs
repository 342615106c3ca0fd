//! Results and errors of a call's main request: `resultType` dispatch,
//! completion, pagination, multi round-trip rounds, version and header
//! retries.

use std::time::Instant;

use mcp_types::incoming::ServerRequest;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::methods::facts::MethodFacts;
use mcp_types::raw::RawJson;
use mcp_types::{Era, ErrorCode, RequestId};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Call, CallKind, Connection, TaskWatch};
use crate::config::{InputMode, RequestOptions};
use crate::error::{PeerMisbehaved, RequestError};
use crate::event::{Completed, Event, SubscriptionEnd};
use crate::headers::HeaderBindings;
use crate::lifecycle::modern::{self, ResultKind};
use crate::mrtr::InputRound;
use crate::pagination::{PageStep, Paginator, items_key};
use crate::params::Params;
use crate::tasks::TaskSnapshot;
use crate::timers::Timer;
use crate::wire::ResultHead;

fn invalid(method: &str, reason: impl ToString) -> RequestError {
    RequestError::Peer(PeerMisbehaved::InvalidResult {
        method: method.to_owned(),
        reason: reason.to_string(),
    })
}

impl Connection {
    /// A result for one of our calls. It arrives unparsed ([`RawJson`]): the
    /// common case (a complete result handed to the caller) only peeks at
    /// its head and leaves the one full parse to the caller's decode; every
    /// other path parses it here first. The other paths' handlers are out
    /// of line (`#[inline(never)]`, the handshake's `#[cold]`).
    pub(super) fn on_main_result(&mut self, now: Instant, key: i64, result: RawJson) {
        let Some(c) = self.calls.get(key) else {
            return;
        };
        if self.facts_call == Some(key) {
            std::hint::cold_path();
            if let Some(raw) = self.checked(key, result) {
                self.on_facts(now, key, raw);
            }
            return;
        }
        match c.kind {
            CallKind::Probe | CallKind::Initialize => {
                std::hint::cold_path();
                let probe = matches!(c.kind, CallKind::Probe);
                let Some(raw) = self.checked(key, result) else {
                    return;
                };
                return if probe {
                    self.on_discover(now, key, raw)
                } else {
                    self.on_initialize(now, key, &raw)
                };
            }
            CallKind::Listen { .. } => {
                std::hint::cold_path();
                return self.end_subscription(key, SubscriptionEnd::Completed);
            }
            _ => {}
        }
        let raw = result;
        let task_augmented = c.task_augmented;
        let is_list = matches!(c.kind, CallKind::List { .. });
        if self.era == Some(Era::Modern) {
            // The head stays where it was read (not paired with its kind,
            // which would copy both).
            let head = match ResultHead::of(&raw) {
                Ok(head) => head,
                Err(e) => return self.fail_invalid(key, e),
            };
            let kind = modern::classify_result(
                &c.method,
                head.result_type.as_deref(),
                self.config.features.tasks,
            );
            match kind {
                Ok(ResultKind::Complete) => self.on_complete(now, key, raw, &head),
                Ok(ResultKind::InputRequired) => {
                    std::hint::cold_path();
                    if let Some(raw) = self.checked(key, raw) {
                        self.on_input_required(now, key, raw);
                    }
                }
                Ok(ResultKind::Task) => {
                    std::hint::cold_path();
                    match TaskSnapshot::from_flat(raw.as_bytes()) {
                        Ok(t) => self.on_task_created(now, key, t, false),
                        Err(e) => self.fail_invalid(key, e),
                    }
                }
                Err(p) => self.fail_call(key, RequestError::Peer(p)),
            }
        } else if task_augmented {
            std::hint::cold_path();
            match TaskSnapshot::from_legacy_create(raw.as_bytes()) {
                Ok(t) => self.on_task_created(now, key, t, true),
                Err(e) => self.fail_invalid(key, e),
            }
        } else if is_list {
            match ResultHead::of(&raw) {
                Ok(head) => self.on_complete(now, key, raw, &head),
                Err(e) => self.fail_invalid(key, e),
            }
        } else {
            self.on_complete(now, key, raw, &crate::wire::EMPTY_HEAD);
        }
    }

    /// Fails a call whose result does not have the expected shape (the
    /// method is copied only here, on the error path).
    #[cold]
    fn fail_invalid(&mut self, key: i64, reason: impl ToString) {
        let method = self
            .calls
            .get(key)
            .map(|c| c.method.clone())
            .unwrap_or_default();
        self.fail_call(key, invalid(&method, reason));
    }

    /// Parses a result that a path of the core reads in full; an invalid
    /// one fails the call.
    #[inline(never)]
    fn checked(&mut self, key: i64, result: RawJson) -> Option<Box<RawValue>> {
        match result.into_raw_value() {
            Ok(raw) => Some(raw),
            Err(e) => {
                self.fail_invalid(key, e);
                None
            }
        }
    }

    /// Whether a result of the method of these facts is cached: at
    /// 2026-07-28, with a cache, for a method the table marks cacheable.
    pub(super) fn caches(&self, facts: Option<&'static MethodFacts>) -> bool {
        self.era == Some(Era::Modern)
            && self.config.cache_entries > 0
            && facts.is_some_and(|f| f.cacheable)
    }

    fn on_complete(&mut self, now: Instant, key: i64, raw: RawJson, head: &ResultHead) {
        let Some(c) = self.calls.get(key) else {
            return;
        };
        let is_list = matches!(c.kind, CallKind::List { .. });
        let cacheable = !c.cached && !c.extras().is_retry() && self.caches(c.facts);
        let tools = c.method == "tools/list" && !c.cached;
        // Lists, tools/list filtering and the cache read the result in full.
        if is_list || cacheable || tools {
            let wants = ReadInFull {
                is_list,
                cacheable,
                tools,
            };
            return self.on_complete_in_full(now, key, raw, head, wants);
        }
        self.deliver(key, raw);
    }

    /// [`Connection::on_complete`] of a result read in full: checked, a
    /// `tools/list` filtered, cached, a page of a list followed. Out of
    /// line: a plain result's path stays a few instructions.
    #[inline(never)]
    fn on_complete_in_full(
        &mut self,
        now: Instant,
        key: i64,
        raw: RawJson,
        head: &ResultHead,
        wants: ReadInFull,
    ) {
        let Some(checked) = self.checked(key, raw) else {
            return;
        };
        let checked = if wants.tools {
            match self.filter_tools(&checked) {
                Ok(Some(filtered)) => filtered,
                Ok(None) => checked,
                Err(e) => return self.fail_invalid(key, e),
            }
        } else {
            checked
        };
        let raw = RawJson::from(checked);
        let Some(c) = self.calls.get(key) else {
            return;
        };
        if wants.cacheable {
            self.cache.insert(
                now,
                &c.method,
                &c.params,
                &self.principal,
                head.ttl_ms,
                crate::cache::CacheScope::effective(head.cache_scope.as_deref()),
                raw.clone(),
            );
            self.arm_cache_timer();
        }
        if wants.is_list {
            return self.on_page(now, key, raw.as_bytes(), head.next_cursor.as_deref());
        }
        self.deliver(key, raw);
    }

    /// The call `key` ends with `raw`, its result: its response event.
    fn deliver(&mut self, key: i64, raw: RawJson) {
        let Some(c) = self.remove_call(key) else {
            return;
        };
        if matches!(c.kind, CallKind::Restore) {
            return;
        }
        self.remember_session_state(&c);
        let Call {
            method,
            cached,
            params,
            kind,
            task,
            ..
        } = *c;
        self.events.push_back(Event::Response(Completed {
            id: RequestId::Number(key),
            method,
            result: raw,
            cached,
        }));
        drop_plain_parts(params, kind, task);
    }

    fn on_page(&mut self, now: Instant, key: i64, raw: &[u8], next: Option<&str>) {
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let method = c.method.clone();
        let Some(items_name) = items_key(&method) else {
            return self.fail_call(key, invalid(&method, "not a paginated method"));
        };
        let items: Vec<Box<RawValue>> = match page_items(raw, items_name) {
            Ok(i) => i,
            Err(e) => return self.fail_call(key, invalid(&method, e)),
        };
        let CallKind::List(listing) = &mut c.kind else {
            return;
        };
        listing.items.extend(items);
        let refresh_for = listing.refresh_for;
        match listing.pager.on_page(next) {
            Ok(PageStep::Fetch(cursor)) => {
                // A list's params are a map already: this cannot fail.
                match c.params.as_map() {
                    Ok(params) => params.insert("cursor".into(), Value::String(cursor)),
                    Err(e) => return self.fail_call(key, RequestError::Build(e)),
                };
                self.send_main(now, key);
            }
            Ok(PageStep::Done) => {
                let Some(c) = self.remove_call(key) else {
                    return;
                };
                let CallKind::List(listing) = c.kind else {
                    return;
                };
                let super::call::Listing { pager, items, .. } = *listing;
                match refresh_for {
                    Some(original) => self.send_main(now, original),
                    None => self.events.push_back(Event::ListComplete {
                        id: RequestId::Number(key),
                        method,
                        items,
                        pages: pager.pages(),
                    }),
                }
            }
            Err(e) => self.fail_call(key, RequestError::Pagination(e)),
        }
    }

    /// Records `x-mcp-header` bindings of listed tools and, on HTTP, drops
    /// tools whose annotations are invalid. Returns a rewritten
    /// result only when a tool was dropped.
    fn filter_tools(&mut self, raw: &RawValue) -> Result<Option<Box<RawValue>>, serde_json::Error> {
        #[derive(Deserialize)]
        struct ToolHead {
            name: String,
            #[serde(default, rename = "inputSchema")]
            input_schema: Value,
        }
        #[derive(Deserialize)]
        struct Tools<'a> {
            #[serde(borrow)]
            tools: Vec<&'a RawValue>,
        }
        let list: Tools<'_> = serde_json::from_str(raw.get())?;
        let mut dropped = false;
        let mut kept = Vec::with_capacity(list.tools.len());
        for t in list.tools {
            let head: ToolHead = serde_json::from_str(t.get())?;
            match HeaderBindings::from_tool(&head.input_schema) {
                Ok(b) => {
                    self.tools.insert(head.name, b);
                    kept.push(t);
                }
                Err(reason) if self.is_http() => {
                    dropped = true;
                    self.tools.remove(&head.name);
                    self.events.push_back(Event::ToolDropped {
                        name: head.name,
                        reason,
                    });
                }
                Err(_) => kept.push(t),
            }
        }
        if !dropped {
            return Ok(None);
        }
        let mut obj: Map<String, Value> = serde_json::from_str(raw.get())?;
        obj.insert("tools".into(), serde_json::to_value(&kept)?);
        Ok(Some(serde_json::value::to_raw_value(&obj)?))
    }

    #[inline(never)]
    fn on_input_required(&mut self, now: Instant, key: i64, raw: Box<RawValue>) {
        let mode = self.config.input_mode;
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        let method = c.method.clone();
        if !c.rounds.next_round() {
            let rounds = c.rounds.rounds().saturating_sub(1);
            return self.fail_call(key, RequestError::RoundLimit { rounds, last: raw });
        }
        if mode == InputMode::Manual {
            self.remove_call(key);
            self.events.push_back(Event::InputRequired {
                id: RequestId::Number(key),
                method,
                result: raw,
            });
            return;
        }
        let (round, requests) = match InputRound::open(&raw) {
            Ok(r) => r,
            Err(e) => return self.fail_call(key, invalid(&method, e)),
        };
        c.extras = None;
        if requests.is_empty() {
            c.set_extras(round.into_retry());
            return self.send_main(now, key);
        }
        c.input = Some(Box::new(round));
        // The client's handlers answer within the call's deadline, as a
        // 2025-11-25 call's do; a call that opted out pauses its per-request
        // deadline (the total deadline, if any, still applies).
        let at = if c.opts.pause_for_input {
            c.total_deadline
        } else {
            c.deadline
        };
        match at {
            Some(at) => self.arm_deadline(key, at),
            None => self.disarm_deadline(key),
        }
        for r in requests {
            self.events.push_back(Event::InputRequested {
                id: RequestId::Number(key),
                key: r.key,
                request: ServerRequest::classify(r.method, r.params),
            });
        }
    }

    pub(super) fn on_main_error(&mut self, now: Instant, key: i64, error: ErrorObject) {
        let Some(c) = self.calls.get_mut(key) else {
            return;
        };
        match c.kind {
            CallKind::Probe => return self.on_probe_error(now, key, &error),
            CallKind::Initialize => return self.on_initialize_error(now, key, error),
            _ => {}
        }
        let modern = self.era == Some(Era::Modern);
        if modern && error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION && !c.version_retried {
            c.version_retried = true;
            let supported = crate::era::supported_versions(&error);
            let prefs = self.config.era.versions();
            match crate::era::best_mutual(&prefs, &supported) {
                Some(v) if v.era() == Some(Era::Modern) && Some(&v) != self.version.as_ref() => {
                    self.version = Some(v);
                    return self.send_main(now, key);
                }
                Some(v) if v.era() == Some(Era::Legacy) => {
                    self.parked.push(key);
                    let _ = self.start_initialize(now, v, crate::era::EraDecision::ModernError);
                    return;
                }
                _ => {}
            }
        }
        if modern
            && error.code == ErrorCode::HEADER_MISMATCH
            && c.method == "tools/call"
            && !c.header_retried
        {
            c.header_retried = true;
            let armed = c.armed.take();
            let mut opts = RequestOptions::default().without_cache();
            opts.meta = crate::trace_context::trace_members(&c.opts.meta);
            self.forget_deadline(key, armed);
            let kind = CallKind::list(Paginator::new(self.config.max_pages), Some(key));
            if self
                .start_call(now, "tools/list", Params::default(), opts, kind)
                .is_ok()
            {
                return;
            }
        }
        let Some(c) = self.calls.get(key) else {
            return;
        };
        if matches!(c.kind, CallKind::List { .. })
            && error.code == ErrorCode::INVALID_PARAMS
            && c.params.contains_key("cursor")
        {
            // A once-valid cursor failed: the cached pages may be stale; drop
            // them all.
            let method = c.method.clone();
            self.cache.invalidate_methods(&[&*method]);
        }
        self.fail_call(key, RequestError::Remote(error));
    }

    pub(super) fn arm_cache_timer(&mut self) {
        match self.cache.next_expiry() {
            Some(at) => self.timers.set(Timer::CacheExpiry, at),
            None => self.timers.cancel(&Timer::CacheExpiry),
        }
    }
}

fn page_items(raw: &[u8], key: &str) -> Result<Vec<Box<RawValue>>, serde_json::Error> {
    let mut obj: std::collections::HashMap<String, Box<RawValue>> = mcp_types::raw::parse(raw)?;
    match obj.remove(key) {
        Some(arr) => serde_json::from_str(arr.get()),
        None => Ok(Vec::new()),
    }
}

/// Why a result is read in full before its call ends
/// ([`Connection::on_complete`]).
struct ReadInFull {
    /// A page of a list the core follows.
    is_list: bool,
    /// A result the response cache keeps.
    cacheable: bool,
    /// A `tools/list` result the tool filter reads.
    tools: bool,
}

/// Drops a finished call's params, kind and task field by field: moved out
/// of their variants, what is left of each is dropped where it is (a
/// `CallKind::User`, a `None` task: nothing), not by a call to the type's
/// drop glue, which is out of line and would be a page of code of its own
/// on every call.
#[inline]
fn drop_plain_parts(params: Params, kind: CallKind, task: Option<Box<TaskWatch>>) {
    match params {
        Params::Tool(call) => drop(call),
        Params::Map(members) => drop(members),
    }
    if let CallKind::List(listing) = kind {
        drop(listing);
    }
    if let Some(task) = task {
        drop(task);
    }
}

//! The record the connection keeps for each call ([`Call`]) and its parts.
//!
//! Every request allocates one and moves it into the call table, so it is
//! kept small: what few calls have (a listing's pages, a task, a
//! multi-round-trip retry's answers, an input round) is boxed, and of the
//! caller's [`RequestOptions`] only what is read after the start is kept
//! ([`KeptOptions`]).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::config::RequestOptions;
use crate::mrtr::{InputRound, RetryExtras, RoundCounter};
use crate::pagination::Paginator;
use crate::params::Params;
use crate::tasks::TaskSnapshot;

/// What a call is for, beyond its request.
#[derive(Debug)]
pub(super) enum CallKind {
    User,
    /// Every page of a listing; boxed, like the call's other rare parts.
    List(Box<Listing>),
    Probe,
    Initialize,
    Listen {
        acked: bool,
    },
    /// A task the client did not start, watched by id (attach.rs).
    Watch,
    /// State put back into a recovered session (restore.rs): no event
    /// unless it fails.
    Restore,
}

impl CallKind {
    /// A listing's kind, with nothing gathered yet.
    pub(super) fn list(pager: Paginator, refresh_for: Option<i64>) -> CallKind {
        CallKind::List(Box::new(Listing {
            pager,
            items: Vec::new(),
            refresh_for,
        }))
    }
}

/// A listing in progress: its pager and the items of the pages so far.
#[derive(Debug)]
pub(super) struct Listing {
    pub(super) pager: Paginator,
    pub(super) items: Vec<Box<RawValue>>,
    /// The listing refreshes a cached one (results.rs).
    pub(super) refresh_for: Option<i64>,
}

/// A call's task (task_drive.rs, task_wait.rs).
#[derive(Debug)]
pub(super) struct TaskWatch {
    /// The task as last polled: it drives the poll schedule.
    pub(super) snapshot: TaskSnapshot,
    /// What was reported of it: polls and pushes merged, terminal kept.
    pub(super) record: crate::tasks::TaskRecord,
    pub(super) surfaced: HashSet<String>,
    pub(super) legacy: bool,
    /// The handle's wait in progress (`Connection::wait_task`).
    pub(super) wait: Option<crate::tasks::TaskWait>,
    /// A poll cap stopped polling; the next wait resumes it.
    pub(super) capped: bool,
}

/// What a call keeps of its [`RequestOptions`]: the members read after
/// it started. The others are used up at the start (`max_total` becomes
/// the total deadline, `trace` is merged into `meta`, `retry` becomes the
/// call's extras, `task_ttl` its `task` member).
#[derive(Debug)]
pub(super) struct KeptOptions {
    pub(super) timeout: Option<Option<Duration>>,
    pub(super) poll_interval: Option<Duration>,
    pub(super) meta: Map<String, Value>,
    pub(super) progress: bool,
    pub(super) no_cache: bool,
    pub(super) pause_for_input: bool,
}

impl KeptOptions {
    /// What a call keeps of its options, taken from them where they are
    /// (the options, some 300 bytes, are not moved into the call's making;
    /// their `_meta` map is taken, leaving an empty one, which allocates
    /// nothing).
    #[inline]
    pub(super) fn from_options(o: &mut RequestOptions) -> Self {
        KeptOptions {
            timeout: o.timeout,
            poll_interval: o.poll_interval,
            meta: std::mem::take(&mut o.meta),
            progress: o.progress,
            no_cache: o.no_cache,
            pause_for_input: o.pause_for_input,
        }
    }
}

/// No retry's extras: what a call without any reads.
pub(super) static NO_EXTRAS: RetryExtras = RetryExtras {
    input_responses: None,
    request_state: None,
};

/// One call: its request, its options and where it stands.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) method: crate::event::MethodName,
    /// The method's row of the method table, looked up once per call.
    pub(super) facts: Option<&'static mcp_types::methods::facts::MethodFacts>,
    pub(super) params: Params,
    /// `params` has a `task` member (2025-11-25 task augmentation); its
    /// members other than `cursor` do not change once the call started.
    pub(super) task_augmented: bool,
    pub(super) opts: KeptOptions,
    pub(super) kind: CallKind,
    pub(super) wire: Option<i64>,
    pub(super) started: Instant,
    pub(super) total_deadline: Option<Instant>,
    /// The running per-request deadline of the call's main request: set
    /// when it is first sent and kept across multi round-trip rounds (see
    /// `Config::request_timeout`).
    pub(super) deadline: Option<Instant>,
    /// The current request waits for the transport to report it sent
    /// (`Config::reports_sends`); its deadline is armed then, restarting it
    /// when this says so.
    pub(super) unsent: Option<bool>,
    pub(super) rounds: RoundCounter,
    /// Boxed, like `task`: rare.
    pub(super) input: Option<Box<InputRound>>,
    /// A multi round-trip retry's answers and state; boxed: rare.
    pub(super) extras: Option<Box<RetryExtras>>,
    pub(super) version_retried: bool,
    pub(super) header_retried: bool,
    /// Boxed: few calls have one.
    pub(super) task: Option<Box<TaskWatch>>,
    pub(super) cached: bool,
    pub(super) sends: u32,
    /// The request deadline armed for this call, if any (`deadlines.rs`:
    /// the queue there only orders these).
    pub(super) armed: Option<Instant>,
}

impl Call {
    /// The call's retry extras ([`NO_EXTRAS`] when it has none).
    pub(super) fn extras(&self) -> &RetryExtras {
        self.extras.as_deref().unwrap_or(&NO_EXTRAS)
    }

    /// Sets the extras the next send carries; none are kept when they are
    /// empty.
    pub(super) fn set_extras(&mut self, extras: RetryExtras) {
        self.extras = extras.is_retry().then(|| Box::new(extras));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request allocates a call record: a regression here is paid on
    /// every call (it was 736 bytes before its rare parts were boxed).
    #[test]
    fn a_call_record_stays_small() {
        let size = std::mem::size_of::<Call>();
        assert!(size <= 400, "a call record is {size} bytes");
    }
}

//! Callback tasks the client serves (2025-11-25): a server may ask for
//! `sampling/createMessage` or `elicitation/create` as a task
//! (`params.task`). The client answers at once with a `CreateTaskResult`,
//! runs its handler in the background, and answers `tasks/get`,
//! `tasks/list`, `tasks/result` (held until the task ends) and
//! `tasks/cancel` for those tasks, sending `notifications/tasks/status`
//! when a task ends. This module holds the limits, the errors and the
//! store; `Connection` applies them (see its served-task methods).
//!
//! Time comes in as `now`; the wall-clock timestamps the wire needs
//! (`createdAt`, `lastUpdatedAt`) come from an anchor the driver gives
//! once ([`crate::Connection::set_wall_clock`]) plus `now` minus the
//! anchor's instant, never from a clock read.
//!
//! Task ids are a per-connection counter followed by 128 bits of a keyed
//! hash (SipHash, keyed from the standard library's per-process random
//! keys) of that counter: unique, and not predictable from the ids a
//! server has seen. The requested TTL is honoured up to a cap, results are
//! kept until the TTL expires, and the number of live tasks is capped.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant, SystemTime};

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::tasks::TaskStatus;
use mcp_types::tasks::legacy::{ListTasksResult, Task};
use mcp_types::{ErrorCode, RequestId};
use serde_json::Value;

/// Tasks listed per `tasks/list` page.
const PAGE_SIZE: usize = 50;

/// The most `tasks/result` requests held for one task.
const MAX_WAITERS: usize = 16;

/// Limits of the callback tasks the client serves.
///
/// ```
/// use std::time::Duration;
/// use mcp_core::ServedTaskOptions;
/// let o = ServedTaskOptions::new().with_max_tasks(8).with_max_ttl(Duration::from_secs(60));
/// assert_eq!(o.max_tasks(), 8);
/// assert_eq!(o.granted_ttl(Some(1_000)), Duration::from_secs(1));
/// assert_eq!(o.granted_ttl(Some(600_000)), Duration::from_secs(60));
/// assert_eq!(o.granted_ttl(None), Duration::from_secs(60), "default 5 min, capped");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServedTaskOptions {
    max_tasks: usize,
    max_ttl: Duration,
    default_ttl: Duration,
    poll_interval: Option<Duration>,
}

impl Default for ServedTaskOptions {
    fn default() -> Self {
        ServedTaskOptions {
            max_tasks: 32,
            max_ttl: Duration::from_secs(3600),
            default_ttl: Duration::from_secs(300),
            poll_interval: Some(Duration::from_millis(500)),
        }
    }
}

impl ServedTaskOptions {
    /// The defaults: 32 live tasks, TTL capped at one hour, five minutes
    /// when the server asks for none, a suggested poll interval of 500 ms.
    pub fn new() -> Self {
        ServedTaskOptions::default()
    }

    /// The most tasks alive at once (at least one); a task-augmented
    /// request over the cap is refused with a JSON-RPC error.
    #[must_use]
    pub fn with_max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max.max(1);
        self
    }

    /// The longest TTL granted, whatever the server asks for.
    #[must_use]
    pub fn with_max_ttl(mut self, ttl: Duration) -> Self {
        self.max_ttl = ttl;
        self
    }

    /// The TTL when the server asks for none (capped by the maximum).
    #[must_use]
    pub fn with_default_ttl(mut self, ttl: Duration) -> Self {
        self.default_ttl = ttl;
        self
    }

    /// The poll interval suggested to the server (`None`: no suggestion).
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Option<Duration>) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The most tasks alive at once.
    pub fn max_tasks(&self) -> usize {
        self.max_tasks
    }

    /// The poll interval suggested to the server.
    pub fn poll_interval(&self) -> Option<Duration> {
        self.poll_interval
    }

    /// The TTL granted for a request asking for `requested` milliseconds.
    pub fn granted_ttl(&self, requested: Option<u64>) -> Duration {
        requested
            .map_or(self.default_ttl, Duration::from_millis)
            .min(self.max_ttl)
    }
}

/// Why a task request was refused; each maps to the JSON-RPC error the
/// server receives.
///
/// ```
/// use mcp_core::ServedTaskError;
/// let e = ServedTaskError::UnknownTask("ct1-00".into());
/// assert_eq!(e.to_error_object().code, mcp_types::ErrorCode::INVALID_PARAMS);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServedTaskError {
    /// No such task (never created, or expired): `-32602`.
    #[error("unknown or expired task {0:?}")]
    UnknownTask(String),
    /// The task is terminal and cannot be cancelled: `-32602`.
    #[error("task {0:?} is already terminal")]
    AlreadyTerminal(String),
    /// The request's params are malformed (no `taskId`, say): `-32602`.
    #[error("malformed task request params: {0}")]
    MalformedParams(String),
    /// The `tasks/list` cursor is not one the client issued: `-32602`.
    #[error("invalid tasks/list cursor")]
    InvalidCursor,
    /// Too many tasks are alive: `-32603`.
    #[error("too many tasks alive at once (at most {0})")]
    TooManyTasks(usize),
    /// Too many `tasks/result` requests wait on one task: `-32603`.
    #[error("too many tasks/result requests wait on task {0:?}")]
    TooManyWaiters(String),
}

impl ServedTaskError {
    /// The JSON-RPC error object sent to the server.
    pub fn to_error_object(&self) -> ErrorObject {
        let code = match self {
            ServedTaskError::TooManyTasks(_) | ServedTaskError::TooManyWaiters(_) => {
                ErrorCode::INTERNAL_ERROR
            }
            _ => ErrorCode::INVALID_PARAMS,
        };
        ErrorObject::new(code, self.to_string())
    }
}

/// A handler's answer: the result, or the error to send.
pub type Served = Result<Value, ErrorObject>;

struct Entry {
    seq: u64,
    task: Task,
    expires: Instant,
    outcome: Option<Served>,
    waiters: Vec<RequestId>,
}

/// What ending a task releases: its final state, the held `tasks/result`
/// requests, and the answer they get.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) task: Task,
    pub(crate) waiters: Vec<RequestId>,
    pub(crate) answer: Served,
}

/// The tasks one connection serves.
pub(crate) struct Store {
    next_seq: u64,
    keys: std::collections::hash_map::RandomState,
    tasks: HashMap<String, Entry>,
    /// An instant and the wall time it stood for.
    wall: Option<(Instant, SystemTime)>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("tasks", &self.tasks.len())
            .finish_non_exhaustive()
    }
}

impl Default for Store {
    fn default() -> Self {
        Store {
            next_seq: 1,
            keys: std::collections::hash_map::RandomState::new(),
            tasks: HashMap::new(),
            wall: None,
        }
    }
}

impl Store {
    /// Anchors the wall clock: `at` stood for `wall`.
    pub(crate) fn set_wall_clock(&mut self, at: Instant, wall: SystemTime) {
        self.wall = Some((at, wall));
    }

    fn timestamp(&self, now: Instant) -> String {
        let wall = match self.wall {
            Some((at, wall)) if now >= at => wall + (now - at),
            Some((at, wall)) => wall.checked_sub(at - now).unwrap_or(wall),
            None => SystemTime::UNIX_EPOCH,
        };
        let millis = wall
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        mcp_types::tasks::timestamp(millis)
    }

    fn fresh_id(&self, seq: u64) -> String {
        let half = |domain: u8| {
            let mut h = self.keys.build_hasher();
            h.write_u8(domain);
            h.write_u64(seq);
            h.finish()
        };
        format!("ct{seq}-{:016x}{:016x}", half(1), half(2))
    }

    /// Creates a `working` task; `Err` when the store is full.
    pub(crate) fn create(
        &mut self,
        now: Instant,
        options: &ServedTaskOptions,
        requested_ttl: Option<u64>,
    ) -> Result<Task, ServedTaskError> {
        if self.tasks.len() >= options.max_tasks() {
            return Err(ServedTaskError::TooManyTasks(options.max_tasks()));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let id = self.fresh_id(seq);
        let ttl = options.granted_ttl(requested_ttl);
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let mut task = Task::new(
            id.clone(),
            TaskStatus::Working,
            self.timestamp(now),
            Some(millis),
        );
        task.poll_interval = options
            .poll_interval()
            .map(|p| u64::try_from(p.as_millis()).unwrap_or(u64::MAX));
        let entry = Entry {
            seq,
            task: task.clone(),
            expires: now.checked_add(ttl).unwrap_or(now),
            outcome: None,
            waiters: Vec::new(),
        };
        self.tasks.insert(id, entry);
        Ok(task)
    }

    fn entry(&self, id: &str) -> Result<&Entry, ServedTaskError> {
        self.tasks
            .get(id)
            .ok_or_else(|| ServedTaskError::UnknownTask(id.to_owned()))
    }

    /// `tasks/get`.
    pub(crate) fn get(&self, id: &str) -> Result<Task, ServedTaskError> {
        self.entry(id).map(|e| e.task.clone())
    }

    /// `tasks/list`: pages in creation order; the cursor is the sequence
    /// number of the last task of the previous page.
    pub(crate) fn list(&self, cursor: Option<&str>) -> Result<ListTasksResult, ServedTaskError> {
        let after = match cursor {
            Some(c) => c
                .parse::<u64>()
                .map_err(|_| ServedTaskError::InvalidCursor)?,
            None => 0,
        };
        if after >= self.next_seq {
            return Err(ServedTaskError::InvalidCursor);
        }
        let mut entries: Vec<&Entry> = self.tasks.values().filter(|e| e.seq > after).collect();
        entries.sort_by_key(|e| e.seq);
        let more = entries.len() > PAGE_SIZE;
        entries.truncate(PAGE_SIZE);
        let mut page = ListTasksResult::new(entries.iter().map(|e| e.task.clone()).collect());
        if more && let Some(last) = entries.last() {
            page.next_cursor = Some(last.seq.to_string());
        }
        Ok(page)
    }

    /// `tasks/result`: the answer when terminal, else `None` and the
    /// request is held until the task ends.
    pub(crate) fn wait(
        &mut self,
        id: &str,
        request: RequestId,
    ) -> Result<Option<Served>, ServedTaskError> {
        let e = self
            .tasks
            .get_mut(id)
            .ok_or_else(|| ServedTaskError::UnknownTask(id.to_owned()))?;
        match &e.outcome {
            Some(answer) => Ok(Some(answer.clone())),
            None if e.waiters.len() >= MAX_WAITERS => {
                Err(ServedTaskError::TooManyWaiters(id.to_owned()))
            }
            None => {
                e.waiters.push(request);
                Ok(None)
            }
        }
    }

    /// The handler finished; `None` when the task had ended already.
    pub(crate) fn finish(&mut self, now: Instant, id: &str, served: Served) -> Option<Ended> {
        let status = if served.is_ok() {
            TaskStatus::Completed
        } else {
            TaskStatus::Failed
        };
        self.end(now, id, status, None, served)
    }

    /// `tasks/cancel`: marks the task cancelled.
    pub(crate) fn cancel(&mut self, now: Instant, id: &str) -> Result<Ended, ServedTaskError> {
        let e = self.entry(id)?;
        if e.task.status.is_terminal() {
            return Err(ServedTaskError::AlreadyTerminal(id.to_owned()));
        }
        let answer = Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("task {id} was cancelled"),
        ));
        let message = Some("cancelled by the requestor".to_owned());
        self.end(now, id, TaskStatus::Cancelled, message, answer)
            .ok_or_else(|| ServedTaskError::UnknownTask(id.to_owned()))
    }

    fn end(
        &mut self,
        now: Instant,
        id: &str,
        status: TaskStatus,
        message: Option<String>,
        answer: Served,
    ) -> Option<Ended> {
        let stamp = self.timestamp(now);
        let e = self.tasks.get_mut(id)?;
        if e.task.status.is_terminal() {
            return None;
        }
        e.task.status = status;
        e.task.status_message = message;
        e.task.last_updated_at = stamp;
        e.outcome = Some(answer.clone());
        Some(Ended {
            task: e.task.clone(),
            waiters: std::mem::take(&mut e.waiters),
            answer,
        })
    }

    /// Drops every task whose TTL ran out at `now`: `(task id, whether its
    /// handler was still running, its held tasks/result requests)`.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<(String, bool, Vec<RequestId>)> {
        let mut due: Vec<(u64, String)> = self
            .tasks
            .iter()
            .filter(|(_, e)| e.expires <= now)
            .map(|(id, e)| (e.seq, id.clone()))
            .collect();
        due.sort_unstable();
        due.into_iter()
            .filter_map(|(_, id)| {
                let e = self.tasks.remove(&id)?;
                Some((id, e.outcome.is_none(), e.waiters))
            })
            .collect()
    }

    /// The earliest expiry.
    pub(crate) fn next_expiry(&self) -> Option<Instant> {
        self.tasks.values().map(|e| e.expires).min()
    }

    /// Drops every task (the session ended); returns the ids of those
    /// whose handler was still running.
    pub(crate) fn clear(&mut self) -> Vec<String> {
        let mut running: Vec<(u64, String)> = self
            .tasks
            .drain()
            .filter(|(_, e)| e.outcome.is_none())
            .map(|(id, e)| (e.seq, id))
            .collect();
        running.sort_unstable();
        running.into_iter().map(|(_, id)| id).collect()
    }
}

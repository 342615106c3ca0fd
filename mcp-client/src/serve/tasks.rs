//! Client-owned callback tasks (2025-11-25): a server may ask for
//! `sampling/createMessage` or `elicitation/create` as a task (`params.task`).
//! The client then answers at once with a `CreateTaskResult`, runs the
//! handler in the background, and serves `tasks/get`, `tasks/list`,
//! `tasks/result` (held open until the task is terminal) and `tasks/cancel`
//! for those tasks on the same connection, sending
//! `notifications/tasks/status` when a task changes state.
//!
//! Off by default: [`ClientBuilder::serve_tasks`](crate::ClientBuilder::serve_tasks)
//! turns it on, and the client then advertises
//! `tasks.requests.sampling.createMessage` and/or
//! `tasks.requests.elicitation.create` (with `tasks.list` and
//! `tasks.cancel`) only for the handlers installed at connect.
//!
//! Task ids are a per-connection counter followed by 128 bits from the
//! system CSPRNG (`ring::rand::SystemRandom`), so they are unique and
//! unguessable. The requested TTL is honoured up to a cap, results are kept
//! until the TTL expires, and the number of tasks alive at once is capped.

use std::time::{Duration, SystemTime};

use mcp_types::ErrorCode;
use mcp_types::jsonrpc::ErrorObject;

use crate::client::builder::ClientBuilder;

/// Limits of the callback tasks the client serves.
///
/// ```
/// use std::time::Duration;
/// use mcp_client::ServedTaskOptions;
/// let options = ServedTaskOptions::new()
///     .with_max_tasks(8)
///     .with_max_ttl(Duration::from_secs(600));
/// assert_eq!(options.max_tasks(), 8);
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
    /// The defaults: 32 tasks at once, TTL capped at one hour, five minutes
    /// when the server asks for none (or for an unlimited one), a suggested
    /// poll interval of 500 ms.
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
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_client::ServedTaskOptions;
    /// let o = ServedTaskOptions::new().with_max_ttl(Duration::from_secs(60));
    /// assert_eq!(o.granted_ttl(Some(1_000)), Duration::from_secs(1));
    /// assert_eq!(o.granted_ttl(Some(600_000)), Duration::from_secs(60));
    /// assert_eq!(o.granted_ttl(None), Duration::from_secs(60), "default 5 min, capped");
    /// ```
    pub fn granted_ttl(&self, requested: Option<u64>) -> Duration {
        requested
            .map_or(self.default_ttl, Duration::from_millis)
            .min(self.max_ttl)
    }
}

impl ClientBuilder {
    /// Serves task-augmented `sampling/createMessage` and
    /// `elicitation/create` (2025-11-25) within `options`' limits, and
    /// advertises it for the handlers installed at connect.
    ///
    /// ```
    /// use mcp_client::{Client, HandlerError, ServedTaskOptions};
    /// use mcp_client::mcp_types::content::ContentBlock;
    /// use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
    /// let builder = Client::builder()
    ///     .sampling(|_p: CreateMessageRequestParams| async move {
    ///         Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("hi"), "model"))
    ///     })
    ///     .serve_tasks(ServedTaskOptions::new().with_max_tasks(4));
    /// # let _ = builder;
    /// ```
    pub fn serve_tasks(mut self, options: ServedTaskOptions) -> Self {
        self.handlers.served_tasks = Some(options);
        self
    }
}

/// Why a task request was refused; each maps to the JSON-RPC error the
/// server receives.
///
/// ```
/// use mcp_client::ServedTaskError;
/// let e = ServedTaskError::UnknownTask("ct1-00".into());
/// assert_eq!(e.to_error_object().code, mcp_client::mcp_types::ErrorCode::INVALID_PARAMS);
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
    /// The system random source failed: `-32603`.
    #[error("could not draw a task id")]
    NoRandomness,
}

impl ServedTaskError {
    /// The JSON-RPC error object sent to the server.
    ///
    /// ```
    /// use mcp_client::ServedTaskError;
    /// let e = ServedTaskError::TooManyTasks(4).to_error_object();
    /// assert_eq!(e.code, mcp_client::mcp_types::ErrorCode::INTERNAL_ERROR);
    /// ```
    pub fn to_error_object(&self) -> ErrorObject {
        let code = match self {
            ServedTaskError::UnknownTask(_)
            | ServedTaskError::MalformedParams(_)
            | ServedTaskError::AlreadyTerminal(_)
            | ServedTaskError::InvalidCursor => ErrorCode::INVALID_PARAMS,
            ServedTaskError::TooManyTasks(_) | ServedTaskError::NoRandomness => {
                ErrorCode::INTERNAL_ERROR
            }
        };
        ErrorObject::new(code, self.to_string())
    }
}

/// An ISO 8601 UTC timestamp with milliseconds
/// ([`mcp_types::tasks::timestamp`]).
pub(crate) fn iso8601(at: SystemTime) -> String {
    let millis = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    mcp_types::tasks::timestamp(millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_iso8601() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_764_028_800_123);
        assert_eq!(iso8601(at), "2025-11-25T00:00:00.123Z");
        assert_eq!(iso8601(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(iso8601(leap), "2000-02-29T00:00:00.000Z");
    }
}

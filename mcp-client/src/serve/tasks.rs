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
//! The core keeps the tasks and answers the `tasks/*` requests
//! (`mcp_core::connection::served`: task ids, TTL, the live cap, held
//! `tasks/result` requests); the connection's driver runs each task's
//! handler. The requested TTL is honoured up to a cap, results are kept
//! until the TTL expires, and the number of tasks alive at once is capped.

pub use mcp_core::{ServedTaskError, ServedTaskOptions};

use crate::client::builder::ClientBuilder;

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

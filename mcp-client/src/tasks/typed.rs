//! Typed task calls and the poll cap: [`Client::call_tool_as_task_typed`],
//! [`TaskHandle::wait_typed`], [`Client::call_tool_and_poll`] and
//! [`TaskHandle::wait_with_poll_cap`].

use mcp_core::{TaskWait, TaskWaitEnd};
use mcp_types::tools::CallToolResult;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::Client;
use crate::client::features::structured;
use crate::error::{Error, ErrorKind};
use crate::options::CallOptions;
use crate::tasks::{Step, TaskHandle};

impl Client {
    /// [`Client::call_tool_as_task`] with arguments serialized from a
    /// struct; decode the outcome with [`TaskHandle::wait_typed`].
    ///
    /// ```no_run
    /// #[derive(serde::Serialize)]
    /// struct Args { steps: u32 }
    /// #[derive(serde::Deserialize)]
    /// struct Done { steps: u32 }
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let mut task = client
    ///     .call_tool_as_task_typed("long_task", &Args { steps: 2 }, Default::default())
    ///     .await?;
    /// let done: Done = task.wait_typed().await?;
    /// assert_eq!(done.steps, 2);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A usage error when the arguments do not serialize to JSON; else as
    /// [`Client::call_tool_as_task`].
    pub async fn call_tool_as_task_typed<A: Serialize>(
        &self,
        name: &str,
        arguments: &A,
        opts: CallOptions,
    ) -> Result<TaskHandle, Error> {
        let args = serde_json::to_value(arguments).map_err(mcp_core::UsageError::from)?;
        self.call_tool_as_task(name, args, opts).await
    }

    /// Runs a tool as a task and polls it at most `max_polls` times
    /// (`tasks/get`; the interval is the server's, or set one with
    /// [`Client::call_tool_as_task`] and [`TaskHandle::wait_with_poll_cap`]).
    /// When the cap is reached and the task is still open, the task is
    /// cancelled and the call fails with [`ErrorKind::TaskPollCap`]. Input
    /// requests no handler serves are refused.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// match client.call_tool_and_poll("long_task", serde_json::json!({"steps": 2}), 20).await {
    ///     Ok(result) => println!("{:?}", result.content),
    ///     Err(e) if matches!(e.kind(), mcp_client::ErrorKind::TaskPollCap { .. }) => {
    ///         println!("gave up: {e}")
    ///     }
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::TaskPollCap`]; else as [`TaskHandle::wait`].
    pub async fn call_tool_and_poll(
        &self,
        name: &str,
        arguments: Value,
        max_polls: u32,
    ) -> Result<CallToolResult, Error> {
        let mut task = self
            .call_tool_as_task(name, arguments, CallOptions::new())
            .await?;
        // Dropping the handle on error cancels the task.
        task.wait_with_poll_cap(max_polls).await
    }
}

impl TaskHandle {
    /// Waits for the result and decodes its `structuredContent` into `R`.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let mut task = client
    ///     .call_tool_as_task("long_task", serde_json::json!({"steps": 2}), Default::default())
    ///     .await?;
    /// let out: serde_json::Value = task.wait_typed().await?;
    /// println!("{out}");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`TaskHandle::wait`]; [`Error::is_tool_error`] when the result
    /// has `isError: true`; [`ErrorKind::StructuredContent`] when
    /// `structuredContent` is absent or of another shape.
    pub async fn wait_typed<R: DeserializeOwned>(&mut self) -> Result<R, Error> {
        let result = self.wait().await?;
        structured(&self.tool, result)
    }

    /// Waits for the result, allowing at most `max_polls` `tasks/get`
    /// polls in all (counting those already sent). When the cap is reached
    /// and the task is still open, returns [`ErrorKind::TaskPollCap`] and
    /// leaves the task running, unpolled: wait again (polling resumes), or
    /// cancel it. The core counts the polls and stops at the cap.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let opts = mcp_client::CallOptions::new()
    ///     .with_poll_interval(std::time::Duration::from_millis(200));
    /// let mut task = client
    ///     .call_tool_as_task("long_task", serde_json::json!({"steps": 2}), opts)
    ///     .await?;
    /// let result = task.wait_with_poll_cap(50).await?;
    /// # let _ = result; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::TaskPollCap`]; else as [`TaskHandle::wait`].
    pub async fn wait_with_poll_cap(&mut self, max_polls: u32) -> Result<CallToolResult, Error> {
        self.inputs_first.set(false);
        self.begin_wait(TaskWait::outcome().with_max_polls(max_polls));
        loop {
            if let Some(r) = self.cached() {
                return r;
            }
            self.release_held();
            if self.is_finished() {
                return Err(Error::closed());
            }
            match self.step().await {
                Step::WaitOver(Some(TaskWaitEnd::PollCapReached { max_polls, .. })) => {
                    return Err(ErrorKind::TaskPollCap { max_polls }.into());
                }
                // Served by the registered handlers on the next turn.
                Step::Input(item) => self.held.push_back(item),
                Step::Status | Step::WaitOver(_) | Step::Done => {}
            }
        }
    }
}

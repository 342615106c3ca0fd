//! [`TaskHandle`]: a tool call that runs as a task (the 2025-11-25 core
//! tasks and the 2026-07-28 tasks extension).
//!
//! The core decides everything about the task: it polls it (`tasks/get`,
//! at the caller's interval, else the server's, never below 50 ms, within
//! the call's budget), fetches the outcome, keeps the record of its status
//! (pushes and polls merged, the terminal state kept, the state the call's
//! end implies), and answers the handle's waits (`Connection::wait_task`:
//! chosen states, the poll cap). The handle asks, then awaits the driver's
//! answer, the status the driver publishes, the task's input requests and
//! the call's outcome. The terminal state and the final result are cached,
//! so a second [`TaskHandle::wait`] or [`TaskHandle::result`] sends nothing.
//!
//! Waiting for chosen states, answering input with a closure and the
//! status callback live in `wait.rs`; typed results and the poll cap in
//! `typed.rs`; handles for a task named by id or by related-task metadata
//! in `attach.rs`.

mod attach;
pub(crate) mod inputs;
mod typed;
mod wait;

use std::collections::VecDeque;
use std::time::Duration;

use mcp_core::{RequestError, TaskSnapshot, TaskWait, TaskWaitEnd};
use mcp_types::RequestMethod;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::methods::{CallTool, ext_tasks, v2025_11_25};
use mcp_types::tasks::TaskIdParams;
use mcp_types::tasks::legacy::ListTasksResult;
use mcp_types::tools::CallToolResult;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot, watch};

use crate::client::{CancelGuard, Client, unexpected};
use crate::driver::Outcome;
use crate::driver::{CallRef, CallSpec, Command, OutcomeRx, SpecKind};
use crate::error::{Error, ErrorKind};
use crate::options::CallOptions;
use crate::tasks::inputs::{InputItem, InputsFirst, StatusObserver, TaskEnds, TaskSink};

/// A tool call running as a task.
///
/// Dropping the handle before the task ends cancels it (`tasks/cancel`);
/// a handle from [`Client::attach_task`] only stops watching.
///
/// ```no_run
/// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
/// let mut task = client
///     .call_tool_as_task("long_task", serde_json::json!({"steps": 3}), Default::default())
///     .await?;
/// println!("task {:?} is {:?}", task.task_id(), task.status().map(|s| s.status));
/// let result = task.wait().await?;
/// // Cached: no request is sent.
/// assert_eq!(task.result().await?.content, result.content);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct TaskHandle {
    pub(crate) client: Client,
    /// The tool (for typed results' errors).
    pub(crate) tool: String,
    pub(crate) source: Source,
    pub(crate) status: watch::Receiver<Option<TaskSnapshot>>,
    status_open: bool,
    inputs: mpsc::Receiver<InputItem>,
    /// Whether the handle answers input before the registered handlers.
    pub(crate) inputs_first: InputsFirst,
    /// Input requests kept for a later answer (see `wait.rs`).
    pub(crate) held: VecDeque<InputItem>,
    /// The status this handle last took from the driver.
    pub(crate) latest: Option<TaskSnapshot>,
    /// The driver's answer to the wait in progress (`Connection::wait_task`).
    wait: Option<oneshot::Receiver<TaskWaitEnd>>,
    finished: Option<Finished>,
    /// Where the status callback is installed for the driver to call.
    pub(crate) observer: StatusObserver,
}

/// The call behind the handle: the one that created the task, or the
/// core's watch of a task named by id (`attach.rs`).
#[derive(Debug)]
pub(crate) enum Source {
    /// A call in the driver.
    Call {
        outcome: Option<OutcomeRx>,
        /// Dropping it cancels the call (for a watch: stops watching).
        guard: CancelGuard,
        /// The task's id, for a task this client did not start.
        attached: Option<String>,
    },
}

impl Source {
    async fn outcome(&mut self) -> Result<CallToolResult, Error> {
        match self {
            Source::Call {
                outcome: Some(rx), ..
            } => decode_outcome(rx.await),
            _ => std::future::pending().await,
        }
    }

    fn has_outcome(&self) -> bool {
        let Source::Call { outcome, .. } = self;
        outcome.is_some()
    }

    fn done(&mut self) {
        let Source::Call { outcome, guard, .. } = self;
        *outcome = None;
        guard.disarm();
    }

    /// The call, for commands about it.
    fn call(&self) -> CallRef {
        let Source::Call { guard, .. } = self;
        guard.call().clone()
    }
}

/// The cached end of the task.
#[derive(Debug)]
enum Finished {
    Ok(CallToolResult),
    Err(Replay),
}

/// An error that can be given again to a later wait.
#[derive(Clone, Debug)]
enum Replay {
    Cancelled,
    Remote(ErrorObject),
    Timeout(Duration),
    Handler { method: String, error: ErrorObject },
    Unanswered { method: String },
    Gone,
}

impl Replay {
    fn of(e: &Error) -> Replay {
        match e.kind() {
            ErrorKind::Request(RequestError::Cancelled | RequestError::TaskCancelled) => {
                Replay::Cancelled
            }
            ErrorKind::Request(RequestError::Remote(o)) => Replay::Remote(o.clone()),
            ErrorKind::Request(RequestError::Timeout(d)) => Replay::Timeout(*d),
            ErrorKind::Handler { method, error } => Replay::Handler {
                method: method.clone(),
                error: error.clone(),
            },
            ErrorKind::InputUnanswered { method } => Replay::Unanswered {
                method: method.clone(),
            },
            _ => Replay::Gone,
        }
    }

    fn error(&self) -> Error {
        match self.clone() {
            Replay::Cancelled => RequestError::TaskCancelled.into(),
            Replay::Remote(o) => RequestError::Remote(o).into(),
            Replay::Timeout(d) => RequestError::Timeout(d).into(),
            Replay::Handler { method, error } => ErrorKind::Handler { method, error }.into(),
            Replay::Unanswered { method } => ErrorKind::InputUnanswered { method }.into(),
            Replay::Gone => Error::new(ErrorKind::NotInProgress(
                "the task's call already failed; the first wait returned its error",
            )),
        }
    }
}

/// One thing that happened to the task.
pub(crate) enum Step {
    Status,
    Input(InputItem),
    /// The core's answer to the wait in progress; `None` when it has none
    /// (the call ended first, or has no task).
    WaitOver(Option<TaskWaitEnd>),
    Done,
}

impl Client {
    /// Starts `spec` and wraps it in a [`TaskHandle`] named `name` (the
    /// tool, or `task ID` for an attached task) that reads the task's
    /// status from `ends`.
    pub(crate) fn start_task_handle(
        &self,
        spec: CallSpec,
        name: &str,
        ends: TaskEnds,
        attached: Option<String>,
    ) -> Result<TaskHandle, Error> {
        let (outcome, guard) = self.start_call(spec)?;
        let source = Source::Call {
            outcome: Some(outcome),
            guard,
            attached,
        };
        Ok(TaskHandle::new(self.clone(), name, source, ends))
    }

    /// Calls a tool as a task: in 2025-11-25 the request is task-augmented
    /// (`params.task`); in 2026-07-28 the server decides (the core chooses,
    /// `Connection::start_task`). Returns once the server created the task
    /// (or already answered).
    ///
    /// The poll interval of [`CallOptions::with_poll_interval`] overrides
    /// the server's `pollInterval` (never below 50 ms); the call's timeout
    /// bounds the whole task.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        opts: CallOptions,
    ) -> Result<TaskHandle, Error> {
        let (sink, ends) = TaskSink::new();
        let spec = CallSpec {
            method: CallTool::METHOD.into(),
            params: Some(Box::new(Value::Object(mcp_core::call_tool_params(
                name, arguments,
            )))),
            opts,
            kind: SpecKind::Task(sink),
        };
        let mut handle = self.start_task_handle(spec, name, ends, None)?;
        // Until the task exists (or the call ended at once).
        while handle.status.borrow().is_none() && handle.finished.is_none() {
            if let Step::Input(item) = handle.step().await {
                handle.held.push_back(item);
            }
        }
        if let Some(Finished::Err(e)) = &handle.finished {
            return Err(e.error());
        }
        Ok(handle)
    }

    /// `tasks/list` (2025-11-25): one page of the tasks the server keeps
    /// for this session.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<ListTasksResult, Error> {
        let params = cursor.map(|c| json!({ "cursor": c }));
        self.request_json::<v2025_11_25::ListTasks>(params, CallOptions::new())
            .await
    }
}

fn decode_outcome(
    r: Result<Result<Outcome, Error>, crate::driver::exchange::Closed>,
) -> Result<CallToolResult, Error> {
    match r.map_err(|_| Error::closed())?? {
        Outcome::Done(c) => c.decode().map_err(|e| Error::decode("tools/call", e)),
        other => Err(unexpected("tools/call", &other)),
    }
}

impl TaskHandle {
    pub(crate) fn new(client: Client, tool: &str, source: Source, ends: TaskEnds) -> Self {
        TaskHandle {
            client,
            tool: tool.to_owned(),
            source,
            status: ends.status,
            status_open: true,
            inputs: ends.inputs,
            inputs_first: ends.first,
            held: VecDeque::new(),
            latest: None,
            wait: None,
            finished: None,
            observer: ends.observer,
        }
    }

    /// Takes the latest status the driver published (the core's record of
    /// the task).
    pub(crate) fn absorb(&mut self) {
        if let Some(s) = self.status.borrow_and_update().clone() {
            self.latest = Some(s);
        }
    }

    /// Asks the core to wait for the task as `wait` says (replacing the
    /// handle's previous wait); its answer comes as [`Step::WaitOver`].
    /// Nothing to ask once the call is over.
    pub(crate) fn begin_wait(&mut self, wait: TaskWait) {
        self.wait = None;
        if self.is_finished() {
            return;
        }
        let (reply, rx) = oneshot::channel();
        let call = self.source.call();
        let command = Command::TaskWait { call, wait, reply };
        if self.client.inner.commands.send(command).is_ok() {
            self.wait = Some(rx);
        }
    }

    /// Waits for the next thing to happen: a status, an input request no
    /// handler serves, the answer to the wait in progress, or the end of
    /// the call (then cached, error or not). Returns `Step::Done` at once
    /// when the end is already cached.
    pub(crate) async fn step(&mut self) -> Step {
        enum Woke {
            Status(bool),
            Input(InputItem),
            Wait(Option<TaskWaitEnd>),
            Outcome(Result<CallToolResult, Error>),
        }
        if self.finished.is_some() {
            return Step::Done;
        }
        let open = self.status_open;
        let waiting = self.wait.is_some();
        let TaskHandle {
            status,
            inputs,
            wait,
            source,
            ..
        } = self;
        let answer = async {
            match wait.as_mut() {
                Some(rx) => rx.await.ok(),
                None => std::future::pending().await,
            }
        };
        // The core answers a wait before the call's end reaches the handle.
        let woke = tokio::select! {
            biased;
            changed = status.changed(), if open => Woke::Status(changed.is_ok()),
            Some(item) = inputs.recv() => Woke::Input(item),
            end = answer, if waiting => Woke::Wait(end),
            r = source.outcome() => Woke::Outcome(r),
        };
        match woke {
            Woke::Status(still_open) => {
                self.status_open = still_open;
                self.absorb();
                Step::Status
            }
            Woke::Input(item) => Step::Input(item),
            Woke::Wait(end) => {
                self.wait = None;
                self.absorb();
                Step::WaitOver(end)
            }
            Woke::Outcome(r) => {
                self.settle(r);
                Step::Done
            }
        }
    }

    /// Caches the call's end. The state it implies was concluded by the
    /// core and published before it (`Event::TaskStatus`).
    fn settle(&mut self, r: Result<CallToolResult, Error>) {
        self.source.done();
        self.wait = None;
        self.absorb();
        self.finished = Some(match r {
            Ok(v) => Finished::Ok(v),
            Err(e) => Finished::Err(Replay::of(&e)),
        });
    }

    /// The error the call ended with when the client gave it (an input
    /// nobody answered, a handler's error), not the server or the core:
    /// it answers a wait, whatever state the task was left in.
    pub(crate) fn own_end(&self) -> Option<Error> {
        match self.finished.as_ref()? {
            Finished::Err(r @ (Replay::Handler { .. } | Replay::Unanswered { .. })) => {
                Some(r.error())
            }
            _ => None,
        }
    }

    /// The cached final result, once the call ended.
    pub(crate) fn cached(&self) -> Option<Result<CallToolResult, Error>> {
        match self.finished.as_ref()? {
            Finished::Ok(v) => Some(Ok(v.clone())),
            Finished::Err(e) => Some(Err(e.error())),
        }
    }

    /// Hands the input requests kept for a closure to the registered
    /// handlers (run inside the driver); those no handler serves are
    /// refused.
    pub(crate) fn release_held(&mut self) {
        if self.held.is_empty() {
            return;
        }
        let items = self.held.drain(..).collect();
        if let Err(Command::ServeHeld(items)) =
            self.client.inner.commands.send(Command::ServeHeld(items))
        {
            for item in items {
                item.refuse();
            }
        }
    }

    /// Whether the call behind the task is over (its outcome is cached).
    pub(crate) fn is_finished(&self) -> bool {
        self.finished.is_some() || !self.source.has_outcome()
    }

    /// The task's id (`None` when the server answered without a task).
    pub fn task_id(&self) -> Option<String> {
        match &self.source {
            Source::Call {
                attached: Some(task_id),
                ..
            } => Some(task_id.clone()),
            Source::Call { .. } => self.status().map(|s| s.task_id),
        }
    }

    /// The last observed status: from polls and pushed statuses
    /// (2025-11-25 `notifications/tasks/status`, 2026-07-28
    /// `notifications/tasks`); once terminal, it stays.
    pub fn status(&self) -> Option<TaskSnapshot> {
        self.status.borrow().clone().or_else(|| self.latest.clone())
    }

    /// Waits for the next status change (a different status or status
    /// message); `None` once the task is over and every change was
    /// returned. Input requests no handler serves that arrive meanwhile
    /// are kept for [`TaskHandle::wait_for_task_with_inputs`].
    pub async fn changed(&mut self) -> Option<TaskSnapshot> {
        // Polling goes on (a poll cap reached earlier no longer applies).
        self.begin_wait(TaskWait::outcome());
        loop {
            let before = self.latest.clone();
            let step = self.step().await;
            if let Some(after) = &self.latest {
                let moved = before.as_ref().is_none_or(|b| !b.same_state(after));
                if moved {
                    return Some(after.clone());
                }
            }
            match step {
                Step::Input(item) => self.held.push_back(item),
                Step::Status | Step::WaitOver(_) => {}
                Step::Done => return None,
            }
        }
    }

    /// Fetches the task's status now (`tasks/get`), decoded.
    ///
    /// # Errors
    /// See [`Error`]; a usage error when there is no task.
    pub async fn get(&self) -> Result<TaskSnapshot, Error> {
        let done = self.fetch().await?;
        TaskSnapshot::from_flat(done.result.as_bytes())
            .map_err(|e| Error::decode(ext_tasks::GetTask::METHOD, e))
    }

    /// Fetches the full `tasks/get` result (2026-07-28: a `DetailedTask`
    /// with the outcome or the input requests; 2025-11-25: a `Task`).
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn get_detailed(&self) -> Result<Value, Error> {
        let done = self.fetch().await?;
        done.decode()
            .map_err(|e| Error::decode(ext_tasks::GetTask::METHOD, e))
    }

    /// One `tasks/get` of the task, its result kept as received. The
    /// 2025-11-25 tasks and the 2026-07-28 extension name the same method
    /// with the same params (`v2025_11_25::GetTask`, `ext_tasks::GetTask`),
    /// so one request serves both eras.
    async fn fetch(&self) -> Result<mcp_core::Completed, Error> {
        type GetTask = ext_tasks::GetTask;
        let id = self.task_id().ok_or_else(no_task)?;
        let params =
            serde_json::to_value(TaskIdParams::new(id)).map_err(mcp_core::UsageError::from)?;
        let spec = Client::spec(GetTask::METHOD, Some(params), CallOptions::new());
        match self.client.run(spec).await? {
            Outcome::Done(done) => Ok(done),
            other => Err(unexpected(GetTask::METHOD, &other)),
        }
    }

    /// Answers input requests of the task (2026-07-28 `tasks/update`),
    /// keyed as the server keyed them. Registered handlers answer
    /// automatically; this is for answers the application gives itself.
    ///
    /// # Errors
    /// See [`Error`]; a usage error in the legacy era.
    pub async fn update(&self, responses: Map<String, Value>) -> Result<(), Error> {
        let call = self.source.call();
        let (reply, rx) = oneshot::channel();
        self.client
            .inner
            .commands
            .send(Command::TaskInput {
                call,
                responses,
                reply,
            })
            .map_err(|_| Error::closed())?;
        rx.await.map_err(|_| Error::closed())?
    }

    /// Cancels the task (`tasks/cancel`) and waits for the call to end.
    ///
    /// # Errors
    /// The call's error ([`Error::is_cancelled`]), or another one if the
    /// task ended first.
    pub async fn cancel(mut self) -> Result<CallToolResult, Error> {
        if !self.is_finished() {
            // A watched task is cancelled on the wire too (dropping its
            // handle only stops watching).
            let call = self.source.call();
            let command = match &self.source {
                Source::Call { attached: None, .. } => Command::Cancel { call },
                Source::Call { .. } => Command::CancelTask { call },
            };
            let _ = self.client.inner.commands.send(command);
        }
        self.wait().await
    }

    /// Waits for the task's result. The registered handlers answer the
    /// task's input requests (also those an earlier
    /// [`TaskHandle::wait_for`] kept); requests no handler serves are
    /// refused (use [`TaskHandle::wait_for_task_with_inputs`] to answer
    /// them). The result (or the task's failure) is cached: a second call
    /// sends nothing.
    ///
    /// The wait has no overall limit of its own, by design: it lasts as long
    /// as the server reports the task working (each poll request has the
    /// request timeout). Bound it with [`TaskHandle::wait_timeout`] or the
    /// call's [`CallOptions::with_max_total`](crate::CallOptions::with_max_total).
    ///
    /// # Errors
    /// See [`Error`]; [`Error::is_cancelled`] when the task was cancelled.
    pub async fn wait(&mut self) -> Result<CallToolResult, Error> {
        self.inputs_first.set(false);
        // Polling goes on (a poll cap reached earlier no longer applies).
        self.begin_wait(TaskWait::outcome());
        loop {
            if let Some(r) = self.cached() {
                return r;
            }
            self.release_held();
            if !self.source.has_outcome() {
                return Err(Error::closed());
            }
            // An input forwarded to the handle (it was sent while a closure
            // was expected) goes to the registered handlers on the next turn.
            if let Step::Input(item) = self.step().await {
                self.held.push_back(item);
            }
        }
    }

    /// Waits at most `budget`; on expiry the task keeps running and the
    /// handle can wait again.
    ///
    /// # Errors
    /// [`Error::is_timeout`] when the budget ran out; else as [`TaskHandle::wait`].
    pub async fn wait_timeout(&mut self, budget: Duration) -> Result<CallToolResult, Error> {
        match tokio::time::timeout(budget, self.wait()).await {
            Ok(r) => r,
            Err(_) => Err(RequestError::Timeout(budget).into()),
        }
    }

    /// The task's result: the same as [`TaskHandle::wait`] (cached once
    /// seen).
    ///
    /// # Errors
    /// As [`TaskHandle::wait`].
    pub async fn result(&mut self) -> Result<CallToolResult, Error> {
        self.wait().await
    }
}

pub(crate) fn no_task() -> Error {
    Error::new(ErrorKind::NotInProgress(
        "the server answered without creating a task",
    ))
}

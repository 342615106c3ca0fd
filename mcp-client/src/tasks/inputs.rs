//! Where a task's status and its unserved input requests go.
//!
//! The driver keeps one [`TaskSink`] per call that runs as a task. Status
//! snapshots go to a watch the [`TaskHandle`](crate::TaskHandle) reads.
//! An input request of the task that no registered handler serves (a
//! 2026-07-28 `inputRequests` entry, or a 2025-11-25 server request whose
//! `_meta` names the task in `io.modelcontextprotocol/related-task`) is
//! handed to the handle, which answers it with the caller's closure
//! ([`TaskHandle::wait_for_task_with_inputs`](crate::TaskHandle::wait_for_task_with_inputs))
//! or refuses it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_core::TaskSnapshot;
use mcp_types::incoming::{ServerRequest, ServerRequestKind};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use crate::handlers::{BoxFuture, HandlerError, Served};

/// The most unanswered input requests one task may queue for its handle;
/// beyond that they are refused.
const MAX_QUEUED_INPUTS: usize = 32;

/// The largest input request params accepted for a handle, in bytes.
const MAX_INPUT_BYTES: usize = 1 << 20;

/// An input request of a task that no registered handler serves.
///
/// ```
/// use mcp_client::TaskInputRequest;
/// fn describe(r: &TaskInputRequest) -> String {
///     format!("{} {}", r.method, r.params)
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskInputRequest {
    /// The request method (`elicitation/create`, `sampling/createMessage`,
    /// `roots/list`).
    pub method: String,
    /// Its params (`null` when absent).
    pub params: Value,
}

/// One forwarded input request and where its answer goes.
#[derive(Debug)]
pub(crate) struct InputItem {
    pub(crate) request: TaskInputRequest,
    /// The request's kind, classified when it arrived.
    pub(crate) kind: Option<ServerRequestKind>,
    pub(crate) reply: oneshot::Sender<Served>,
}

impl InputItem {
    /// Answers the request; an answer is checked first, as a registered
    /// handler's would be (an invalid one goes out as `-32603`).
    pub(crate) fn answer(self, answer: Result<Value, HandlerError>) {
        let served = match answer {
            Ok(value) => crate::handlers::check_forwarded(self.kind, &self.request.params, value),
            Err(e) => Err(e.into_error_object()),
        };
        let _ = self.reply.send(served);
    }

    /// Answers with what a registered handler gave.
    pub(crate) fn reply(self, served: Served) {
        let _ = self.reply.send(served);
    }

    /// Refuses the request: nobody answers it.
    pub(crate) fn refuse(self) {
        let method = self.request.method.clone();
        self.answer(Err(HandlerError::not_supported(&method)));
    }
}

/// The driver's end of a task call.
pub(crate) struct TaskSink {
    status: watch::Sender<Option<TaskSnapshot>>,
    inputs: mpsc::Sender<InputItem>,
    first: InputsFirst,
    observer: StatusObserver,
}

/// The status callback a handle installed
/// ([`TaskHandle::on_status_change`](crate::TaskHandle::on_status_change)):
/// called with every status the sink publishes, where it is published (in
/// the driver, or the attached task's poller), so no task of its own runs
/// it.
#[derive(Clone, Default)]
pub(crate) struct StatusObserver(Arc<Mutex<Option<StatusCallback>>>);

/// A status callback as installed.
pub(crate) type StatusCallback = Box<dyn FnMut(TaskSnapshot) + Send>;

impl StatusObserver {
    /// Installs `callback` (`None`: none), replacing the previous one.
    pub(crate) fn set(&self, callback: Option<StatusCallback>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = callback;
    }

    fn call(&self, snapshot: &TaskSnapshot) {
        if let Some(callback) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            callback(snapshot.clone());
        }
    }
}

impl std::fmt::Debug for StatusObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusObserver").finish_non_exhaustive()
    }
}

/// Whether the handle answers the task's input before the registered
/// handlers (set while it waits with a closure or for `input_required`).
#[derive(Clone, Debug, Default)]
pub(crate) struct InputsFirst(Arc<AtomicBool>);

impl InputsFirst {
    pub(crate) fn set(&self, on: bool) {
        self.0.store(on, Ordering::Relaxed);
    }

    fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The handle's end of a task call.
pub(crate) struct TaskEnds {
    pub(crate) status: watch::Receiver<Option<TaskSnapshot>>,
    pub(crate) inputs: mpsc::Receiver<InputItem>,
    pub(crate) first: InputsFirst,
    pub(crate) observer: StatusObserver,
}

impl TaskSink {
    /// A sink and the handle's receivers.
    pub(crate) fn new() -> (TaskSink, TaskEnds) {
        let (status, status_rx) = watch::channel(None);
        let (inputs, inputs_rx) = mpsc::channel(MAX_QUEUED_INPUTS);
        let first = InputsFirst::default();
        let observer = StatusObserver::default();
        let ends = TaskEnds {
            status: status_rx,
            inputs: inputs_rx,
            first: first.clone(),
            observer: observer.clone(),
        };
        (
            TaskSink {
                status,
                inputs,
                first,
                observer,
            },
            ends,
        )
    }

    /// Publishes the task's latest status to the handle and to its status
    /// callback, if one is installed.
    pub(crate) fn publish(&self, snapshot: TaskSnapshot) {
        self.status.send_replace(Some(snapshot.clone()));
        self.observer.call(&snapshot);
    }

    /// Forwards to the handle when it asked to answer before the handlers.
    pub(crate) fn forward_first(
        &self,
        request: &ServerRequest,
    ) -> Option<BoxFuture<'static, Served>> {
        if self.first.get() {
            self.forward(request)
        } else {
            None
        }
    }

    /// Whether this sink's task is `task_id`.
    pub(crate) fn watches(&self, task_id: &str) -> bool {
        self.status
            .borrow()
            .as_ref()
            .is_some_and(|s| s.task_id == task_id)
    }

    /// Hands an input request to the handle; the future resolves with its
    /// answer. `None` when the handle is gone or its queue is full.
    pub(crate) fn forward(&self, request: &ServerRequest) -> Option<BoxFuture<'static, Served>> {
        let params = match request.raw() {
            Some(p) if p.get().len() > MAX_INPUT_BYTES => return None,
            Some(p) => serde_json::from_str(p.get()).ok()?,
            None => Value::Null,
        };
        let (reply, answer) = oneshot::channel();
        let kind = request.kind();
        let request = TaskInputRequest {
            method: request.method().to_owned(),
            params,
        };
        let item = InputItem {
            request,
            kind,
            reply,
        };
        self.inputs.try_send(item).ok()?;
        Some(Box::pin(async move {
            answer.await.unwrap_or_else(|_| {
                Err(HandlerError::internal("the task handle is gone").into_error_object())
            })
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn raw(v: &Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(v).unwrap()
    }

    fn request(method: &str, params: Option<&RawValue>) -> ServerRequest {
        ServerRequest::classify(method.into(), params.map(ToOwned::to_owned))
    }

    #[tokio::test]
    async fn forwards_only_when_asked_and_within_bounds() {
        let (sink, mut ends) = TaskSink::new();
        let p = raw(&serde_json::json!({"message": "ok?",
            "requestedSchema": {"type": "object", "properties": {}}}));
        let elicit = request("elicitation/create", Some(&p));
        assert!(sink.forward_first(&elicit).is_none());
        ends.first.set(true);
        let answer = sink.forward_first(&elicit).expect("forwarded");
        let item = ends.inputs.recv().await.expect("item");
        assert_eq!(item.request.params["message"], "ok?");
        item.answer(Ok(serde_json::json!({"action": "decline"})));
        assert_eq!(
            answer.await.unwrap(),
            serde_json::json!({"action": "decline"})
        );
        // Oversized params and a full queue are refused, not buffered.
        let big = raw(&Value::String("x".repeat(MAX_INPUT_BYTES)));
        let sampling = request("sampling/createMessage", Some(&big));
        assert!(sink.forward(&sampling).is_none());
        let roots = request("roots/list", None);
        let mut queued: Vec<_> = (0..MAX_QUEUED_INPUTS)
            .map(|_| sink.forward(&roots).expect("room"))
            .collect();
        assert!(sink.forward(&roots).is_none());
        // An item the handle drops is answered with an error.
        let first = queued.remove(0);
        drop(ends.inputs.recv().await.expect("item"));
        assert!(first.await.is_err());
    }
}

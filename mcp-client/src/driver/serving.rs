//! Serving what the server asks of the client: its requests (2025-11-25)
//! and the input requests of a call (2026-07-28 multi round-trip, task
//! input). Each goes to the handle that asked to answer first, else the
//! registered handler, else the task's handle; the handler's future runs
//! in the driver's own set ([`Driver::serve`]), never on a task of its own,
//! and its answer goes back to the core ([`Driver::on_served`]).

use std::time::Instant;

use futures::future::{AbortHandle, Abortable, Aborted};
use mcp_types::RequestId;
use mcp_types::incoming::ServerRequest;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::Value;

use super::Driver;
use super::callback_tasks::LocalWake;
use super::calls::{Pending, Sink};
use crate::error::{Error, ErrorKind};
use crate::handlers::{BoxFuture, HandlerError, Served};
use crate::tasks::inputs::{InputItem, TaskSink};

/// Whom a handler's answer goes to.
pub(super) enum Target {
    ServerRequest(RequestId),
    Input {
        call: RequestId,
        key: String,
        method: String,
    },
    TaskInput {
        call: RequestId,
        key: String,
        method: String,
    },
    /// Served callback tasks and outgoing progress (`callback_tasks.rs`).
    Local(LocalWake),
    /// A task's input request its handle kept, then handed to the
    /// registered handlers: the answer goes back to the handle's request.
    Held(InputItem),
    /// A server request's handler stopped because the server cancelled the
    /// request: nothing is answered (the cancellation page: "not send a
    /// response for the cancelled request").
    Abandoned,
}

impl Driver {
    /// A request from the server (callback tasks and `tasks/*` are the
    /// core's): served by the handle of the task it names, else by its
    /// handler; "method not found" when nobody serves it.
    #[inline(never)]
    pub(super) fn serve_server_request(
        &mut self,
        now: Instant,
        id: RequestId,
        request: &ServerRequest,
    ) {
        let meta = crate::serve::progress::meta_of(request.raw());
        let sink = (meta.related_task.as_deref()).and_then(|t| self.task_sink(None, Some(t)));
        let first = sink.and_then(|s| s.forward_first(request));
        let serve = match first {
            Some(fut) => Some(fut),
            None => {
                let serve = self.shared.handlers().serve(request);
                serve.or_else(|| sink?.forward(request))
            }
        };
        match serve {
            Some(fut) => {
                let fut = self.with_progress(meta.progress_token, fut);
                self.serve(Target::ServerRequest(id), fut);
            }
            None => {
                let e = HandlerError::not_supported(request.method()).into_error_object();
                let _ = self.conn.respond(now, &id, Err(e));
            }
        }
    }

    #[inline(never)]
    pub(super) fn serve_input(
        &mut self,
        now: Instant,
        call: RequestId,
        target: Target,
        request: &ServerRequest,
    ) {
        let sink = self.task_sink(Some(&call), None);
        let serve = sink
            .and_then(|s| s.forward_first(request))
            .or_else(|| self.shared.handlers().serve(request))
            .or_else(|| sink?.forward(request));
        match serve {
            Some(fut) => self.serve(target, fut),
            None => {
                if let Some(p) = self.pending.get_mut(&call) {
                    p.rare_mut().override_error = Some(Error::new(ErrorKind::InputUnanswered {
                        method: request.method().to_owned(),
                    }));
                }
                let _ = self.stop_call(now, &call);
            }
        }
    }

    /// The task sink of call `call`, or of the call watching `task_id`.
    fn task_sink(&self, call: Option<&RequestId>, task_id: Option<&str>) -> Option<&TaskSink> {
        fn sink(p: &Pending) -> Option<&TaskSink> {
            match &p.sink {
                Sink::Task(s) => Some(s),
                _ => None,
            }
        }
        match (call, task_id) {
            (Some(call), _) => self.pending.get(call).and_then(sink),
            (None, Some(task)) => self
                .pending
                .values()
                .filter_map(sink)
                .find(|s| s.watches(task)),
            (None, None) => None,
        }
    }

    /// Serves the input requests a task's handle kept, with the registered
    /// handlers; those no handler serves are refused.
    pub(super) fn serve_held(&mut self, items: Vec<InputItem>) {
        let handlers = self.shared.handlers();
        for item in items {
            let params = serde_json::value::to_raw_value(&item.request.params).ok();
            let params = params.filter(|p| p.get() != "null");
            let request = ServerRequest::classify(item.request.method.clone(), params);
            match handlers.serve(&request) {
                Some(fut) => self.serve(Target::Held(item), fut),
                None => item.refuse(),
            }
        }
    }

    /// Runs a handler inside the driver. A server request's handler stops
    /// when the server cancels the request ([`Driver::abandon`]); an input
    /// handler stops when its call ends (`calls.rs`).
    pub(super) fn serve(&mut self, target: Target, fut: BoxFuture<'static, Served>) {
        let (abort, registration) = AbortHandle::new_pair();
        match &target {
            Target::ServerRequest(id) => {
                self.serving.insert(id.clone(), abort);
            }
            Target::Input { call, .. } | Target::TaskInput { call, .. }
                if self.pending.contains_key(call) =>
            {
                if let Some(p) = self.pending.get_mut(call) {
                    p.rare_mut().inputs.push(abort);
                }
            }
            _ => {
                self.handler_io
                    .push(Box::pin(async move { (target, fut.await) }));
                return;
            }
        }
        let fut = Abortable::new(fut, registration);
        self.handler_io.push(Box::pin(async move {
            match fut.await {
                Ok(served) => (target, served),
                Err(Aborted) => (Target::Abandoned, Ok(Value::Null)),
            }
        }));
    }

    /// The server cancelled a request it sent: its handler stops (its future
    /// is dropped) and no answer goes out.
    #[inline(never)]
    pub(super) fn abandon(&mut self, id: &RequestId) {
        if let Some(abort) = self.serving.remove(id) {
            abort.abort();
        }
    }

    /// A handler finished: hand its answer to the core.
    #[inline(never)]
    pub(super) fn on_served(&mut self, now: Instant, target: Target, served: Served) {
        // Progress a handler reported goes out before its answer.
        self.flush_progress(now);
        let r = match target {
            Target::ServerRequest(id) => {
                self.serving.remove(&id);
                self.conn.respond(now, &id, served)
            }
            Target::Abandoned => Ok(()),
            Target::Held(item) => {
                item.reply(served);
                Ok(())
            }
            Target::Local(wake) => {
                self.on_local(now, wake, served);
                Ok(())
            }
            Target::Input { call, key, method } => match served {
                Ok(value) => self.conn.answer_input(now, &call, &key, value),
                Err(e) => self.refuse_input(now, &call, &method, e),
            },
            Target::TaskInput { call, key, method } => match served {
                Ok(value) => self.conn.answer_task_input_with(now, &call, &key, &value),
                Err(e) => self.refuse_input(now, &call, &method, e),
            },
        };
        if let Err(e) = r {
            tracing::debug!(error = %e, "a handler answered a request that is gone");
        }
    }

    /// A handler failed on a 2026-07-28 input request: input responses
    /// have no error channel, so the call ends with the handler's error.
    fn refuse_input(
        &mut self,
        now: Instant,
        call: &RequestId,
        method: &str,
        e: ErrorObject,
    ) -> Result<(), mcp_core::UsageError> {
        if let Some(p) = self.pending.get_mut(call) {
            p.rare_mut().override_error = Some(Error::new(ErrorKind::Handler {
                method: method.to_owned(),
                error: e,
            }));
        }
        self.stop_call(now, call)
    }
}

//! Routing the core's events to waiting callers, streams and handlers.

use std::time::Instant;

use mcp_core::event::SubscriptionEnd;
use mcp_core::{Completed, Event, RequestError};
use mcp_types::RequestId;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use crate::client::listen::ListenItem;
use crate::driver::{Driver, Target};
use crate::error::{Error, ErrorKind};
use crate::handlers::{HandlerError, Served};
use crate::options::{Progress, ProgressCallback};

/// How a call ended (or, for a subscription, was acknowledged).
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A final result.
    Done(Completed),
    /// Every page of a listing.
    List(Vec<Box<RawValue>>),
    /// Manual input mode: the `InputRequiredResult`, verbatim.
    InputRequired(Box<RawValue>),
    /// A subscription was acknowledged.
    Acknowledged(Option<Box<RawValue>>),
}

/// Where a call's intermediate results go.
pub(crate) enum Sink {
    Plain,
    Listen(mpsc::UnboundedSender<ListenItem>),
    Task(crate::tasks::inputs::TaskSink),
}

/// A call the driver tracks for its caller.
pub(crate) struct Pending {
    token: u64,
    reply: Option<oneshot::Sender<Result<Outcome, Error>>>,
    progress: Option<ProgressCallback>,
    pub(crate) headers: http::HeaderMap,
    sink: Sink,
    /// Replaces the core's `Cancelled` (an input no handler could answer).
    override_error: Option<Error>,
    /// The HTTP failure that ended this call, attached to its error.
    pub(crate) cause: Option<mcp_transport_http::HttpError>,
    pub(crate) cancelled_by_drop: bool,
    /// Stops the input handlers still answering this call's rounds: they
    /// are cancelled (their futures dropped) when the call ends.
    pub(crate) inputs: Vec<futures::future::AbortHandle>,
    span: tracing::Span,
}

impl Pending {
    pub(crate) fn new(
        token: u64,
        method: &str,
        reply: oneshot::Sender<Result<Outcome, Error>>,
        progress: Option<ProgressCallback>,
        headers: http::HeaderMap,
        sink: Sink,
    ) -> Self {
        let span = tracing::debug_span!("mcp.request", method = %method, token);
        Pending {
            token,
            reply: Some(reply),
            progress,
            headers,
            sink,
            override_error: None,
            cause: None,
            cancelled_by_drop: false,
            inputs: Vec::new(),
            span,
        }
    }

    fn reply(&mut self, r: Result<Outcome, Error>) {
        if let Some(tx) = self.reply.take() {
            let _ = tx.send(r);
        }
    }
}

impl Driver {
    /// Sends a recovered 2025-11-25 session what the old one had:
    /// `resources/subscribe` per subscribed URI and `logging/setLevel`.
    /// Their answers go to no caller; a failure is logged (`warn`).
    fn restore_session(&mut self) {
        let restore = self.shared.restore(|r| r.clone());
        let now = crate::driver::clock();
        let level = restore
            .log_level
            .map(|level| ("logging/setLevel", serde_json::json!({ "level": level })));
        let subscriptions = restore
            .subscriptions
            .into_iter()
            .map(|uri| ("resources/subscribe", serde_json::json!({ "uri": uri })));
        for (method, params) in level.into_iter().chain(subscriptions) {
            let opts = mcp_core::RequestOptions::default();
            if let Err(e) = self.conn.send_request(now, method, Some(params), opts) {
                tracing::warn!(method, error = %e, "could not restore session state");
            }
        }
    }

    fn finish(&mut self, id: &RequestId, r: Result<Outcome, Error>) {
        if let Some(mut p) = self.pending.remove(id) {
            self.tokens.remove(&p.token);
            // A handler that outlives its call (a deadline, a cancellation)
            // is cancelled: nobody can use its answer.
            for input in p.inputs.drain(..) {
                input.abort();
            }
            let _enter = p.span.clone().entered();
            match &r {
                Ok(_) => tracing::debug!("request completed"),
                Err(e) => tracing::debug!(error = %e, "request failed"),
            }
            let r = match (r, p.override_error.take()) {
                (Err(_), Some(e)) => Err(e),
                (Err(e), None) => Err(self.with_server_exit(e.with_cause(p.cause.take()))),
                (r, _) => r,
            };
            match (&p.sink, p.reply.is_some()) {
                (Sink::Listen(tx), false) => {
                    let _ = tx.send(match r {
                        Err(e) => ListenItem::Failed(e),
                        Ok(_) => ListenItem::Ended,
                    });
                }
                _ => p.reply(r),
            }
        } else if let Err(e) = r {
            // A call the driver started itself (session restore).
            tracing::warn!(%id, error = %e, "an internal request failed");
        }
    }

    pub(crate) fn on_event(&mut self, e: Event) {
        match e {
            Event::Connected { version, era } => {
                tracing::debug!(%version, ?era, "connected");
                // An HTTP failure the handshake survived (a notification's
                // POST, say) is no cause of anything later.
                self.last_http_error = None;
                self.shared.update(&self.conn);
                self.shared.set_session(match &self.link {
                    Some(crate::transport::Link::Http(h)) => h.session_id(),
                    _ => None,
                });
                let legacy = era == mcp_types::Era::Legacy;
                // A 2025-11-25 server may send its first request on the GET
                // stream right after the handshake, and a stream that is not
                // open yet loses it (the SDK servers drop such messages). So
                // `connect` returns once the GET has an answer (or after
                // `GET_STREAM_WAIT`), not before.
                let stream_opened = legacy && self.open_server_stream();
                if self.connect_reply.is_some() {
                    if stream_opened {
                        self.wait_for_server_stream();
                    } else {
                        self.release_connect();
                    }
                } else if legacy {
                    // A recovered 2025-11-25 session: the server forgot the
                    // old session's subscriptions and log level.
                    self.restore_session();
                }
            }
            Event::EraDecided(outcome) => {
                if let Some((cache, key)) = &self.era_cache {
                    cache.insert(key.clone(), outcome.version.clone());
                }
            }
            Event::ConnectFailed(error) => {
                let context = self.last_transport_error.take();
                let cause = self.last_http_error.take();
                if let Some(tx) = self.connect_reply.take() {
                    let kind = ErrorKind::Connect { error, context };
                    let _ = tx.send(Err(Error::new(kind).with_cause(cause)));
                }
            }
            Event::Response(c) => {
                let id = c.id.clone();
                self.finish(&id, Ok(Outcome::Done(c)));
            }
            Event::RequestFailed { id, error, .. } => self.finish(&id, Err(error.into())),
            Event::ListComplete { id, items, .. } => self.finish(&id, Ok(Outcome::List(items))),
            Event::InputRequired { id, result, .. } => {
                self.finish(&id, Ok(Outcome::InputRequired(result)));
            }
            Event::Progress {
                id,
                progress,
                total,
                message,
            } => {
                let p = Progress {
                    progress,
                    total,
                    message,
                };
                // The call's callback, or the handler's queue (throughput.rs).
                let callback = self.pending.get(&id).and_then(|c| c.progress.clone());
                self.deliver_progress(id, p, callback);
            }
            Event::InputRequested { id, request } => {
                let target = Target::Input {
                    call: id.clone(),
                    key: request.key.clone(),
                    method: request.method.clone(),
                };
                self.serve_input(id, target, &request.method, request.params.as_deref());
            }
            Event::TaskInputRequested { id, request } => {
                let target = Target::TaskInput {
                    call: id.clone(),
                    key: request.key.clone(),
                    method: request.method.clone(),
                };
                self.serve_input(id, target, &request.method, request.params.as_deref());
            }
            Event::TaskCreated { id, task } | Event::TaskStatus { id, task } => {
                if let Some(Pending {
                    sink: Sink::Task(tx),
                    ..
                }) = self.pending.get(&id)
                {
                    tx.status.send_replace(Some(task));
                }
            }
            Event::ServerRequest { id, method, params } => {
                // Task-augmented callbacks and `tasks/*` (served_serve.rs).
                if self.serve_as_task(&id, &method, params.as_deref()) {
                    return;
                }
                let task = crate::tasks::inputs::related_task_of(params.as_deref());
                let sink = task.and_then(|t| self.task_sink(None, Some(&t)));
                let first = sink.and_then(|s| s.forward_first(&method, params.as_deref()));
                let serve = match first {
                    Some(fut) => Some(fut),
                    None => {
                        let serve = self.shared.handlers().serve(&method, params.as_deref());
                        serve.or_else(|| sink?.forward(&method, params.as_deref()))
                    }
                };
                match serve {
                    Some(fut) => {
                        let fut = self.with_progress(params.as_deref(), fut);
                        self.serve(Target::ServerRequest(id), fut);
                    }
                    None => {
                        let e = HandlerError::not_supported(&method).into_error_object();
                        let _ = self.conn.respond(crate::driver::clock(), &id, Err(e));
                    }
                }
            }
            Event::ServerRequestCancelled { id, .. } => {
                tracing::debug!(%id, "the server cancelled its request");
                self.abandon(&id);
            }
            Event::Notification { method, params } => self.on_notification(&method, params),
            Event::SubscriptionAcknowledged { id, params } => {
                if let Some(p) = self.pending.get_mut(&id) {
                    p.reply(Ok(Outcome::Acknowledged(params)));
                }
            }
            Event::SubscriptionNotification { id, method, params } => {
                #[cfg(feature = "output-schema")]
                if method == "notifications/tools/list_changed" {
                    self.shared.forget_output_schemas();
                }
                if let Some(Pending {
                    sink: Sink::Listen(tx),
                    ..
                }) = self.pending.get(&id)
                {
                    let _ = tx.send(ListenItem::Notification { method, params });
                }
            }
            Event::SubscriptionEnded { id, reason } => match reason {
                SubscriptionEnd::Failed(e) => self.finish(&id, Err(e.into())),
                _ => self.finish(&id, Ok(Outcome::Acknowledged(None))),
            },
            Event::ToolDropped { name, reason } => {
                tracing::warn!(tool = %name, %reason, "tool dropped: invalid x-mcp-header");
            }
            Event::ProtocolViolation(p) => {
                tracing::warn!(violation = %p, "server broke the protocol")
            }
            Event::PostRejected { status, .. } => tracing::warn!(status, "server rejected a POST"),
            Event::ServerFactsKnown => self.shared.update(&self.conn),
            Event::SessionExpired => {
                tracing::warn!("the legacy HTTP session expired");
                // Served callback tasks belonged to the old session.
                self.served.forget_tasks();
            }
            Event::Closed => {
                self.closed = true;
                self.shared.set_closed();
                let ids: Vec<RequestId> = self.pending.keys().cloned().collect();
                for id in ids {
                    self.finish(&id, Err(RequestError::Closed.into()));
                }
                if let Some(tx) = self.connect_reply.take() {
                    let context = self.last_transport_error.take();
                    let cause = self.last_http_error.take();
                    let kind = match context {
                        Some(c) => ErrorKind::Transport(c),
                        None => ErrorKind::Closed,
                    };
                    let _ = tx.send(Err(Error::new(kind).with_cause(cause)));
                }
            }
            other => tracing::debug!(event = ?other, "unhandled event"),
        }
    }

    fn serve_input(
        &mut self,
        call: RequestId,
        target: Target,
        method: &str,
        params: Option<&RawValue>,
    ) {
        let sink = self.task_sink(Some(&call), None);
        let serve = sink
            .and_then(|s| s.forward_first(method, params))
            .or_else(|| self.shared.handlers().serve(method, params))
            .or_else(|| sink?.forward(method, params));
        match serve {
            Some(fut) => self.serve(target, fut),
            None => {
                if let Some(p) = self.pending.get_mut(&call) {
                    p.override_error = Some(Error::new(ErrorKind::InputUnanswered {
                        method: method.to_owned(),
                    }));
                }
                let _ = self.conn.cancel(crate::driver::clock(), &call);
            }
        }
    }

    /// The task sink of call `call`, or of the call watching `task_id`.
    fn task_sink(
        &self,
        call: Option<&RequestId>,
        task_id: Option<&str>,
    ) -> Option<&crate::tasks::inputs::TaskSink> {
        fn sink(p: &Pending) -> Option<&crate::tasks::inputs::TaskSink> {
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

    /// A handler finished: hand its answer to the core.
    pub(crate) fn on_served(&mut self, now: Instant, target: Target, served: Served) {
        // Progress a handler reported goes out before its answer.
        self.flush_progress(now);
        let r = match target {
            Target::ServerRequest(id) => {
                self.serving.remove(&id);
                self.conn.respond(now, &id, served)
            }
            Target::Abandoned => Ok(()),
            Target::Local(wake) => {
                self.on_local(now, wake, served);
                Ok(())
            }
            Target::Input { call, key, method } => match served {
                Ok(value) => self.conn.answer_input(now, &call, &key, value),
                Err(e) => self.refuse_input(now, &call, &method, e),
            },
            Target::TaskInput { call, key, method } => match served {
                Ok(value) => {
                    let mut map = serde_json::Map::new();
                    map.insert(key, value);
                    self.conn.answer_task_input(now, &call, map)
                }
                Err(e) => self.refuse_input(now, &call, &method, e),
            },
        };
        if let Err(e) = r {
            tracing::debug!(error = %e, "a handler answered a request that is gone");
        }
    }

    fn on_notification(&mut self, method: &str, params: Option<Box<RawValue>>) {
        #[cfg(feature = "output-schema")]
        if method == "notifications/tools/list_changed" {
            self.shared.forget_output_schemas();
        }
        // The handler runs off the driver, behind a bounded queue
        // (throughput.rs).
        self.deliver_notification(method, params);
    }
}

impl Driver {
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
            p.override_error = Some(Error::new(ErrorKind::Handler {
                method: method.to_owned(),
                error: e,
            }));
        }
        self.conn.cancel(now, call)
    }
}

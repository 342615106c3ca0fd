//! The calls the driver tracks for their callers: how a call ended
//! ([`Outcome`]), where its intermediate results go ([`Sink`]), and
//! [`Driver::finish`], which hands a call its end.

use std::time::Instant;

use mcp_core::{Completed, RequestError, UsageError};
use mcp_types::RequestId;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use super::Driver;
use super::exchange::CallTx;
use crate::client::listen::ListenItem;
use crate::error::Error;
use crate::options::ProgressCallback;
use crate::tasks::inputs::TaskSink;

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
pub(super) enum Sink {
    Plain,
    Listen(mpsc::UnboundedSender<ListenItem>),
    Task(TaskSink),
}

/// A call the driver tracks for its caller.
pub(super) struct Pending {
    pub(super) reply: Option<CallTx>,
    pub(super) progress: Option<ProgressCallback>,
    /// The call's extra HTTP headers (unused without the `http` feature).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) headers: http::HeaderMap,
    pub(super) sink: Sink,
    /// Replaces the core's `Cancelled` (an input no handler could answer).
    pub(super) override_error: Option<Error>,
    /// The HTTP failure that ended this call, attached to its error.
    pub(super) cause: Option<crate::http_parts::HttpError>,
    /// Its handle cancelled it (dropped, or cancelled it by hand): the
    /// handle's later commands find it no longer in flight.
    pub(super) cancelled: bool,
    /// The core's watch of a task this client did not start: stopping it
    /// stops watching, it does not cancel the task.
    pub(super) watch: bool,
    /// Where the core's answer to the handle's task wait goes
    /// (`task_waits.rs`); dropped with the call.
    pub(super) task_wait: Option<oneshot::Sender<mcp_core::TaskWaitEnd>>,
    /// Stops the input handlers still answering this call's rounds: they
    /// are cancelled (their futures dropped) when the call ends.
    pub(super) inputs: Vec<futures::future::AbortHandle>,
    pub(super) span: tracing::Span,
}

impl Pending {
    pub(super) fn new(
        span: tracing::Span,
        reply: CallTx,
        progress: Option<ProgressCallback>,
        headers: http::HeaderMap,
        sink: Sink,
    ) -> Self {
        Pending {
            reply: Some(reply),
            progress,
            headers,
            sink,
            override_error: None,
            cause: None,
            cancelled: false,
            watch: false,
            task_wait: None,
            inputs: Vec::new(),
            span,
        }
    }

    pub(super) fn reply(&mut self, r: Result<Outcome, Error>) {
        if let Some(tx) = self.reply.take() {
            tx.send(r);
        }
    }
}

impl Driver {
    pub(super) fn finish(&mut self, id: &RequestId, r: Result<Outcome, Error>) {
        if let Some(mut p) = self.pending.remove(id) {
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
            crate::telemetry::record_end(&p.span, &r);
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
            // Not a call of a handle (none is started by the driver itself).
            tracing::warn!(%id, error = %e, "an internal request failed");
        }
    }

    /// Stops a call early: a watch of a task the client did not start
    /// stops watching (the task runs on) and ends at once; any other call
    /// is cancelled on the wire (the core ends it).
    pub(super) fn stop_call(&mut self, now: Instant, id: &RequestId) -> Result<(), UsageError> {
        if self.pending.get(id).is_some_and(|p| p.watch) {
            self.conn.unwatch_task(now, id)?;
            self.finish(id, Err(RequestError::Cancelled.into()));
            return Ok(());
        }
        self.conn.cancel(now, id)
    }
}

//! The calls the driver tracks for their callers: how a call ended
//! ([`Outcome`]), where its intermediate results go ([`Sink`]), and
//! [`Driver::finish`], which hands a call its end.

use std::time::Instant;

use futures::future::AbortHandle;
use mcp_core::{Completed, IdTable, RequestError, UsageError};
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
    /// Boxed: few calls are tasks.
    Task(Box<TaskSink>),
}

/// A call the driver tracks for its caller. Every call has one, moved into
/// and out of the driver's table, so what few calls use is boxed
/// ([`Rare`]).
pub(super) struct Pending {
    pub(super) reply: Option<CallTx>,
    pub(super) progress: Option<ProgressCallback>,
    pub(super) sink: Sink,
    /// Its handle cancelled it (dropped, or cancelled it by hand): the
    /// handle's later commands find it no longer in flight.
    pub(super) cancelled: bool,
    /// The core's watch of a task this client did not start: stopping it
    /// stops watching, it does not cancel the task.
    pub(super) watch: bool,
    pub(super) span: tracing::Span,
    rare: Option<Box<Rare>>,
}

/// The parts of a [`Pending`] few calls have.
#[derive(Default)]
pub(super) struct Rare {
    /// The call's extra HTTP headers (unused without the `http` feature).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(super) headers: http::HeaderMap,
    /// Replaces the core's `Cancelled` (an input no handler could answer).
    pub(super) override_error: Option<Error>,
    /// The HTTP failure that ended this call, attached to its error.
    pub(super) cause: Option<crate::http_parts::HttpError>,
    /// Where the core's answer to the handle's task wait goes
    /// (`task_waits.rs`); dropped with the call.
    pub(super) task_wait: Option<oneshot::Sender<mcp_core::TaskWaitEnd>>,
    /// Stops the input handlers still answering this call's rounds: they
    /// are cancelled (their futures dropped) when the call ends.
    pub(super) inputs: Vec<AbortHandle>,
}

impl Pending {
    pub(super) fn new(
        span: tracing::Span,
        reply: CallTx,
        progress: Option<ProgressCallback>,
        headers: Option<http::HeaderMap>,
        sink: Sink,
    ) -> Self {
        Pending {
            reply: Some(reply),
            progress,
            sink,
            cancelled: false,
            watch: false,
            span,
            rare: headers.filter(|h| !h.is_empty()).map(|headers| {
                Box::new(Rare {
                    headers,
                    ..Rare::default()
                })
            }),
        }
    }

    /// The rare parts, to read (`None` when the call has none).
    pub(super) fn rare(&self) -> Option<&Rare> {
        self.rare.as_deref()
    }

    /// The rare parts, to change (made on first use).
    pub(super) fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// The handle's task wait, taken out.
    pub(super) fn take_task_wait(&mut self) -> Option<oneshot::Sender<mcp_core::TaskWaitEnd>> {
        self.rare.as_mut()?.task_wait.take()
    }

    /// Whether the driver ends this call with an error of its own.
    pub(super) fn overridden(&self) -> bool {
        self.rare().is_some_and(|r| r.override_error.is_some())
    }

    pub(super) fn reply(&mut self, r: Result<Outcome, Error>) {
        if let Some(tx) = self.reply.take() {
            tx.send(r);
        }
    }
}

/// The driver's calls by id. The core numbers every call
/// (`RequestId::Number`), so they are kept in its [`IdTable`], found by
/// position instead of by hash; an id is read as the core reads a call's
/// id (`RequestId::as_number`).
#[derive(Default)]
pub(super) struct PendingCalls(IdTable<Pending>);

impl PendingCalls {
    /// Records a started call under the number the core gave it.
    #[inline]
    pub(super) fn insert(&mut self, key: i64, call: Pending) {
        self.0.insert(key, call);
    }

    /// The call of `id`.
    pub(super) fn get(&self, id: &RequestId) -> Option<&Pending> {
        self.0.get(id.as_number()?)
    }

    /// The call of `id`, to change.
    pub(super) fn get_mut(&mut self, id: &RequestId) -> Option<&mut Pending> {
        self.0.get_mut(id.as_number()?)
    }

    /// The allocation's address of the call numbered `key`, while its
    /// caller waits for its outcome (`CallTx::addr`; `direct.rs`).
    #[cfg(feature = "http")]
    pub(super) fn addr_of(&self, key: i64) -> Option<usize> {
        self.0.get(key)?.reply.as_ref().map(CallTx::addr)
    }

    /// Whether `id` is a call in flight.
    pub(super) fn contains_key(&self, id: &RequestId) -> bool {
        self.get(id).is_some()
    }

    /// Removes and returns the call of `id`.
    pub(super) fn remove(&mut self, id: &RequestId) -> Option<Pending> {
        self.0.remove(id.as_number()?)
    }

    /// Every call's id.
    pub(super) fn ids(&self) -> Vec<RequestId> {
        self.0.keys().map(RequestId::Number).collect()
    }

    /// Every call.
    pub(super) fn values(&self) -> impl Iterator<Item = &Pending> {
        self.0.values()
    }

    /// Every call, to change (the HTTP failures' causes are attached so).
    #[cfg(feature = "http")]
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut Pending> {
        self.0.values_mut()
    }
}

impl Driver {
    pub(super) fn finish(&mut self, id: &RequestId, r: Result<Outcome, Error>) {
        let Some(mut p) = self.pending.remove(id) else {
            return not_a_call(id, r);
        };
        // A handler that outlives its call (a deadline, a cancellation)
        // is cancelled: nobody can use its answer. Most calls have no
        // rare parts: nothing is made for them here.
        let r = match (r, p.rare.take()) {
            (Ok(outcome), None) => Ok(outcome),
            (r, rare) => {
                std::hint::cold_path();
                self.ended_otherwise(r, rare)
            }
        };
        // Nothing to trace unless some subscriber takes debug records
        // (the span and both events are debug's).
        if tracing::level_enabled!(tracing::Level::DEBUG) {
            trace_end(&p.span, &r);
        }
        match (&p.sink, p.reply.is_some()) {
            (Sink::Listen(tx), false) => {
                std::hint::cold_path();
                let _ = tx.send(match r {
                    Err(e) => ListenItem::Failed(e),
                    Ok(_) => ListenItem::Ended,
                });
            }
            _ => {
                match p.reply.take() {
                    // The caller reading its own reply now (`direct.rs`)
                    // takes its outcome from here, not from its slot.
                    // (An address is never 0, what `reader_call` is when
                    // no caller reads.)
                    Some(tx) if tx.addr() == self.reader_call => {
                        tx.hand_over();
                        self.read_outcome = Some(r);
                    }
                    Some(tx) => tx.send(r),
                    None => {}
                }
                self.delivered += 1;
            }
        }
    }

    /// The outcome of a call that failed or has rare parts (its handlers
    /// cancelled; the error it was set to end with, the cause and the
    /// server's exit added to its error). Out of line: the common end of a
    /// call (an answer, no rare parts) stays a few instructions.
    #[inline(never)]
    fn ended_otherwise(
        &self,
        r: Result<Outcome, Error>,
        rare: Option<Box<Rare>>,
    ) -> Result<Outcome, Error> {
        let (override_error, cause) = match rare {
            Some(rare) => {
                rare.inputs.iter().for_each(AbortHandle::abort);
                (rare.override_error, rare.cause)
            }
            None => (None, None),
        };
        match (r, override_error) {
            (Err(_), Some(e)) => Err(e),
            (Err(e), None) => Err(self.with_server_exit(e.with_cause(cause))),
            (r, _) => r,
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

/// The end of a request the driver did not track as a call (none is
/// started by the driver itself): a failure is logged.
#[inline(never)]
fn not_a_call(id: &RequestId, r: Result<Outcome, Error>) {
    if let Err(e) = r {
        tracing::warn!(%id, error = %e, "an internal request failed");
    }
}

/// A call's end in its span: the debug event within it and the span's
/// fields. Out of line, and called only when debug records are on: the
/// code that formats stays out of the way of every call.
#[inline(never)]
fn trace_end(span: &tracing::Span, r: &Result<Outcome, Error>) {
    let _enter = span.enter();
    match r {
        Ok(_) => tracing::debug!("request completed"),
        Err(e) => tracing::debug!(error = %e, "request failed"),
    }
    crate::telemetry::record_end(span, r);
}

#[cfg(test)]
mod tests {
    /// Every call's record is moved into and out of the driver's table: a
    /// regression here is paid on every call (it was 336 bytes before its
    /// rare parts were boxed).
    #[test]
    fn a_pending_call_stays_small() {
        let size = std::mem::size_of::<super::Pending>();
        assert!(size <= 128, "a pending call is {size} bytes");
    }
}

//! Routing the core's events: [`Driver::on_event`] sends each family to its
//! own function (the lifecycle, a call's results, tasks, what the server
//! sends on its own, subscriptions).

use std::time::Instant;

use mcp_core::SubscriptionEnd;
use mcp_core::{ConnectError, Event, RequestError};
use mcp_types::incoming::ServerNotification;

use super::Driver;
use super::calls::{Outcome, Pending, Sink};
use super::serving::Target;
use crate::client::listen::ListenItem;
use crate::error::{Error, ErrorKind};
use crate::options::Progress;

impl Driver {
    /// Routes one event of the core: a call's end here, where every call
    /// passes; every other event out of line (`on_other_event`), so that
    /// this stays a few lines of code.
    pub(super) fn on_event(&mut self, now: Instant, e: Event) {
        match e {
            Event::Response(c) => {
                let id = c.id.clone();
                self.finish(&id, Ok(Outcome::Done(c)));
            }
            Event::RequestFailed { id, error, .. } => {
                std::hint::cold_path();
                self.finish(&id, Err(error.into()));
            }
            other => self.on_other_event(now, other),
        }
    }

    /// Routes an event other than a call's end.
    #[inline(never)]
    fn on_other_event(&mut self, now: Instant, e: Event) {
        match e {
            Event::Connected { version, era } => self.connected(&version, era),
            Event::EraDecided(outcome) => {
                if let Some((cache, key)) = &self.era_cache {
                    cache.insert(key.clone(), outcome.version.clone());
                }
            }
            Event::ConnectFailed(error) => self.connect_failed(error),
            Event::ServerFactsKnown => self.shared.update(&self.conn),
            Event::SessionExpired => tracing::warn!("the legacy HTTP session expired"),
            Event::ServedTaskStarted { task_id, request } => {
                self.start_served_task(now, task_id, &request);
            }
            Event::ServedTaskStopped { task_id } => self.stop_served_task(&task_id),
            Event::Closed => self.closed(),
            Event::ServerStream(change) => self.server_stream_changed(change),
            // The GET stream opened with the session has answered (or the
            // wait for it is over): `connect` may return.
            Event::ServerStreamSettled => self.release_connect(),
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
                // The call's callback, or the handler's queue.
                let callback = self.pending.get(&id).and_then(|c| c.progress.clone());
                self.deliver_progress(id, p, callback);
            }
            Event::InputRequested { id, key, request } => {
                let target = Target::Input {
                    call: id.clone(),
                    key,
                    method: request.method().to_owned(),
                };
                self.serve_input(now, id, target, &request);
            }
            Event::TaskInputRequested { id, key, request } => {
                let target = Target::TaskInput {
                    call: id.clone(),
                    key,
                    method: request.method().to_owned(),
                };
                self.serve_input(now, id, target, &request);
            }
            Event::TaskCreated { id, task } | Event::TaskStatus { id, task } => {
                if let Some(Pending {
                    sink: Sink::Task(tx),
                    ..
                }) = self.pending.get(&id)
                {
                    tx.publish(task);
                }
            }
            Event::TaskWaitOver { id, end } => self.task_wait_over(&id, end),
            Event::ServerRequest { id, request } => self.serve_server_request(now, id, &request),
            Event::ServerRequestCancelled { id, .. } => {
                tracing::debug!(%id, "the server cancelled its request");
                self.abandon(&id);
            }
            Event::Notification(n) => self.on_notification(n),
            other => self.on_subscription_or_report(other),
        }
    }

    /// The handshake is done (or a 2025-11-25 session was recovered).
    #[cold]
    fn connected(&mut self, version: &mcp_types::ProtocolVersion, era: mcp_types::Era) {
        tracing::debug!(%version, ?era, "connected");
        // An HTTP failure the handshake survived (a notification's POST,
        // say) is no cause of anything later.
        self.last_http_error = None;
        self.shared.update(&self.conn);
        #[cfg(feature = "http")]
        self.shared.set_session(match &self.link {
            Some(crate::transport::Link::Http(h)) => h.session_id(),
            _ => None,
        });
        // A 2025-11-25 server may send its first request on the GET stream
        // right after the handshake, and a stream that is not open yet
        // loses it (the SDK servers drop such messages). So `connect`
        // returns once the core says the GET opened with the session has
        // answered (`ServerStreamSettled`), or at once when it opened none.
        if self.conn.server_stream_state() == mcp_core::ServerStreamState::Closed {
            self.release_connect();
        }
    }

    #[cold]
    fn connect_failed(&mut self, error: ConnectError) {
        let context = self.last_transport_error.take();
        let cause = self.last_http_error.take();
        if let Some(tx) = self.connect_reply.take() {
            let kind = ErrorKind::Connect { error, context };
            let _ = tx.send(Err(Error::new(kind).with_cause(cause)));
        }
    }

    /// The connection is over: every call fails, and so does a `connect`
    /// still waiting.
    #[cold]
    fn closed(&mut self) {
        self.closed = true;
        self.shared.set_closed();
        let ids = self.pending.ids();
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

    #[inline(never)]
    fn on_notification(&mut self, n: ServerNotification) {
        self.list_changed(&n);
        // The handler runs off the driver, behind a bounded queue.
        self.deliver_notification(n);
    }

    /// What the client learned from a server list is forgotten when the
    /// list changes (the tools' output schemas).
    fn list_changed(&self, n: &ServerNotification) {
        #[cfg(feature = "output-schema")]
        if let ServerNotification::ToolListChanged(_) = n {
            self.shared.forget_output_schemas();
        }
        #[cfg(not(feature = "output-schema"))]
        let _ = n;
    }

    /// 2026-07-28 subscriptions, and what the core only reports.
    #[inline(never)]
    fn on_subscription_or_report(&mut self, e: Event) {
        match e {
            Event::SubscriptionAcknowledged { id, params } => {
                if let Some(p) = self.pending.get_mut(&id) {
                    p.reply(Ok(Outcome::Acknowledged(params)));
                }
            }
            Event::SubscriptionNotification { id, notification } => {
                self.list_changed(&notification);
                if let Some(Pending {
                    sink: Sink::Listen(tx),
                    ..
                }) = self.pending.get(&id)
                {
                    let n = notification.into_notification();
                    let (method, params) = (n.method, n.params);
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
            // The core put the old session's state back into a recovered
            // 2025-11-25 session; one piece of it failed.
            Event::SessionRestoreFailed { method, error } => {
                tracing::warn!(method = &*method, %error, "could not restore session state");
            }
            other => tracing::debug!(event = ?other, "unhandled event"),
        }
    }
}

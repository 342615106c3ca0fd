//! Debouncing server notifications before they become events: for the
//! methods of [`Config::debounce`](crate::Config::debounce), the first
//! notification of a key ([`crate::coalesce::key`]; for progress, the
//! call) waits for the window, and later ones of the same key replace it
//! meanwhile (latest wins, at the first one's place in the order).
//!
//! # For the driver
//!
//! Nothing to wire beyond the usual drain: held notifications come out
//! as [`Event::Notification`] /
//! [`Event::Progress`] when
//! [`Timer::NotificationFlush`] fires, and
//! all at once before [`Event::Closed`]. A queue
//! that feeds slow handlers needs no clock of its own.

use std::time::Instant;

use mcp_types::jsonrpc::Notification;

use super::Connection;
use crate::event::Event;
use crate::timers::Timer;

/// The most notifications held at once; past it the oldest goes out early.
const MAX_HELD: usize = 1024;

#[derive(Debug)]
struct Held {
    method: String,
    key: String,
    due: Instant,
    event: Event,
}

/// The notifications held back, in arrival order.
#[derive(Debug, Default)]
pub(super) struct Debouncer {
    held: Vec<Held>,
}

impl Connection {
    /// Emits the event of a notification not tied to a call, or holds it
    /// back (see the module docs).
    pub(super) fn notification_event(&mut self, now: Instant, n: Notification) {
        if !self.config.debounce.applies(&n.method) {
            return self.events.push_back(Event::Notification {
                method: n.method,
                params: n.params,
            });
        }
        let key = crate::coalesce::key(&n.method, n.params.as_deref());
        let method = n.method.clone();
        let event = Event::Notification {
            method: n.method,
            params: n.params,
        };
        self.hold(now, method, key, event);
    }

    /// Emits an `Event::Progress`, or holds it back (keyed by its call).
    pub(super) fn progress_event(&mut self, now: Instant, event: Event) {
        const PROGRESS: &str = "notifications/progress";
        match &event {
            Event::Progress { id, .. } if self.config.debounce.applies(PROGRESS) => {
                let key = id.to_string();
                self.hold(now, PROGRESS.to_owned(), key, event);
            }
            _ => self.events.push_back(event),
        }
    }

    fn hold(&mut self, now: Instant, method: String, key: String, event: Event) {
        let held = &mut self.debouncer.held;
        if let Some(h) = held.iter_mut().find(|h| h.method == method && h.key == key) {
            h.event = event;
            return;
        }
        if held.len() >= MAX_HELD {
            let oldest = held.remove(0);
            self.events.push_back(oldest.event);
        }
        let due = now.checked_add(self.config.debounce.window).unwrap_or(now);
        self.debouncer.held.push(Held {
            method,
            key,
            due,
            event,
        });
        self.arm_flush();
    }

    /// `Timer::NotificationFlush`: emits what is due, in arrival order.
    pub(super) fn flush_notifications(&mut self, now: Instant) {
        let (due, kept): (Vec<Held>, Vec<Held>) = std::mem::take(&mut self.debouncer.held)
            .into_iter()
            .partition(|h| h.due <= now);
        self.debouncer.held = kept;
        self.events.extend(due.into_iter().map(|h| h.event));
        self.arm_flush();
    }

    /// Emits everything held (the connection is closing).
    pub(super) fn flush_all_notifications(&mut self) {
        let held = std::mem::take(&mut self.debouncer.held);
        self.events.extend(held.into_iter().map(|h| h.event));
    }

    fn arm_flush(&mut self) {
        match self.debouncer.held.iter().map(|h| h.due).min() {
            Some(at) => self.timers.set(Timer::NotificationFlush, at),
            None => self.timers.cancel(&Timer::NotificationFlush),
        }
    }
}

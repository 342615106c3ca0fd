//! Debouncing server notifications before they become events (see
//! [`Debounce`] for what a driver sees): the first notification of a key
//! (the private `coalesce::key`; for progress, the call) waits for the
//! window, and later ones of the same key replace it meanwhile (latest
//! wins, at the first one's place in the order), counted in
//! [`Connection::coalesced_notifications`].

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use mcp_types::RequestId;
use mcp_types::incoming::{NotificationKind, ServerNotification};

use super::Connection;
use crate::event::Event;
use crate::timers::Timer;

/// The most notifications held at once; past it the oldest goes out early.
const MAX_HELD: usize = 1024;

/// The progress notification's method.
fn progress() -> &'static str {
    NotificationKind::Progress.method()
}

/// Server notifications the core holds back for a window, keeping only the
/// latest per key ([`Config::debounce`](crate::Config::debounce); none by
/// default).
///
/// The key, within a method: the `logger` of `notifications/message`, the
/// `uri` of `notifications/resources/updated`, the `taskId` of
/// `notifications/tasks/status`, the call of `notifications/progress`, the
/// method alone for anything else.
///
/// # For the driver
///
/// Nothing to wire beyond the usual drain: held notifications come out as
/// [`Event::Notification`] / [`Event::Progress`] when
/// [`Timer::NotificationFlush`] fires; a call's held progress comes out
/// just before the call's final event (its result or failure), and
/// everything held comes out before [`Event::Closed`]. A zero `window`
/// holds a notification only until the driver's next timer turn: it
/// merges the ones that arrived in the same burst of input. How many were
/// merged: [`Connection::coalesced_notifications`]. A queue that feeds
/// slow handlers needs no clock of its own.
///
/// ```
/// use std::time::Duration;
/// use mcp_core::Debounce;
/// let d = Debounce::new(["notifications/progress"], Duration::from_millis(100));
/// assert!(d.applies("notifications/progress"));
/// assert!(!d.applies("notifications/message"));
/// assert!(!Debounce::default().applies("notifications/progress"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Debounce {
    /// The methods held back.
    pub methods: BTreeSet<String>,
    /// How long the first of a key waits; later ones of the key replace it
    /// meanwhile.
    pub window: Duration,
}

impl Debounce {
    /// Debounces `methods` with `window`.
    pub fn new<I, S>(methods: I, window: Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Debounce {
            methods: methods.into_iter().map(Into::into).collect(),
            window,
        }
    }

    /// Whether notifications of `method` are held back.
    pub fn applies(&self, method: &str) -> bool {
        self.methods.contains(method)
    }
}

#[derive(Debug)]
struct Held {
    method: String,
    key: String,
    due: Instant,
    event: Event,
}

/// The notifications held back, in arrival order, and how many merged.
#[derive(Debug, Default)]
pub(super) struct Debouncer {
    held: Vec<Held>,
    merged: u64,
}

impl Connection {
    /// How many server notifications a newer one with the same key replaced
    /// while they were held (see [`Debounce`]), since the connection began.
    pub fn coalesced_notifications(&self) -> u64 {
        self.debouncer.merged
    }

    /// Whether a newer server notification of `method` supersedes an older
    /// one, so that a bounded queue of notifications may drop it first:
    /// progress, a log message, a list change, a resource update, a task
    /// status, and any debounced method.
    ///
    /// ```
    /// use mcp_core::{Config, Connection, Debounce};
    /// let config = Config::new("example", "1.0")
    ///     .with_debounce(Debounce::new(["custom/ticks"], Default::default()));
    /// let conn = Connection::new(config);
    /// assert!(conn.is_supersedable("notifications/progress"));
    /// assert!(conn.is_supersedable("custom/ticks"));
    /// assert!(!conn.is_supersedable("notifications/cancelled"));
    /// ```
    pub fn is_supersedable(&self, method: &str) -> bool {
        NotificationKind::of(method).is_some_and(crate::coalesce::is_coalescable)
            || self.config.debounce.applies(method)
    }

    /// Emits the event of a notification not tied to a call, or holds it
    /// back (see [`Debounce`]).
    pub(super) fn notification_event(&mut self, now: Instant, n: ServerNotification) {
        if !self.config.debounce.applies(n.method()) {
            return self.events.push_back(Event::Notification(n));
        }
        let key = crate::coalesce::key(&n);
        let method = n.method().to_owned();
        self.hold(now, method, key, Event::Notification(n));
    }

    /// Emits an `Event::Progress`, or holds it back (keyed by its call).
    pub(super) fn progress_event(&mut self, now: Instant, event: Event) {
        match &event {
            Event::Progress { id, .. } if self.config.debounce.applies(progress()) => {
                let key = id.to_string();
                self.hold(now, progress().to_owned(), key, event);
            }
            _ => self.events.push_back(event),
        }
    }

    fn hold(&mut self, now: Instant, method: String, key: String, event: Event) {
        let held = &mut self.debouncer.held;
        if let Some(h) = held.iter_mut().find(|h| h.method == method && h.key == key) {
            h.event = event;
            self.debouncer.merged += 1;
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
        self.flush_where(|h| h.due <= now);
    }

    /// Emits the held progress of a call that is ending, before its final
    /// event.
    #[inline]
    pub(super) fn flush_progress_of(&mut self, call: i64) {
        if !self.debouncer.held.is_empty() {
            self.flush_held_progress_of(call);
        }
    }

    /// [`Connection::flush_progress_of`] when anything is held (only with
    /// a debounce configured: out of line, off every call's end).
    #[cold]
    #[inline(never)]
    fn flush_held_progress_of(&mut self, call: i64) {
        let key = RequestId::Number(call).to_string();
        self.flush_where(|h| h.method == progress() && h.key == key);
    }

    /// Emits everything held (the connection is closing).
    pub(super) fn flush_all_notifications(&mut self) {
        self.flush_where(|_| true);
    }

    fn flush_where(&mut self, out: impl Fn(&Held) -> bool) {
        let (due, kept): (Vec<Held>, Vec<Held>) = std::mem::take(&mut self.debouncer.held)
            .into_iter()
            .partition(|h| out(h));
        self.debouncer.held = kept;
        self.events.extend(due.into_iter().map(|h| h.event));
        self.arm_flush();
    }

    fn arm_flush(&mut self) {
        match self.debouncer.held.iter().map(|h| h.due).min() {
            Some(at) => self.timers.set(Timer::NotificationFlush, at),
            None => self.timers.cancel(&Timer::NotificationFlush),
        }
    }
}

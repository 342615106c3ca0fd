//! The state a [`ScriptedTransport`](crate::ScriptedTransport) and its
//! [`Peer`](crate::Peer) share: the frames sent, the rules that answer
//! them, the deliveries scheduled on tokio's clock, and the transcript.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::delivery::{Delivery, Payload};
use crate::frame::Frame;

/// A rule's answer: the deliveries for one matching frame.
pub(crate) type Responder = Box<dyn FnMut(&Frame) -> Vec<Delivery> + Send>;

/// Which frames a rule answers.
pub(crate) enum Matcher {
    /// Requests (or notifications) with this method.
    Method(String),
    /// The request with this id.
    Id(Value),
}

/// One scripted answer.
pub(crate) struct Rule {
    pub(crate) matcher: Matcher,
    pub(crate) once: bool,
    pub(crate) respond: Responder,
}

impl Rule {
    fn matches(&self, frame: &Frame) -> bool {
        match &self.matcher {
            Matcher::Method(m) => frame.method() == Some(m.as_str()),
            Matcher::Id(id) => frame.is_request() && frame.id() == Some(id),
        }
    }
}

/// Everything behind the lock.
pub(crate) struct State {
    pub(crate) origin: Instant,
    pub(crate) sent: Vec<Frame>,
    pub(crate) rules: Vec<Rule>,
    /// Scheduled deliveries by (due, order scheduled).
    pub(crate) inbox: BTreeMap<(Instant, u64), Payload>,
    pub(crate) scheduled: u64,
    /// The connection ended (a `Close` was delivered).
    pub(crate) ended: bool,
    /// The client called `close`, or dropped the transport.
    pub(crate) client_closed: bool,
    /// Sends fail with `BrokenPipe` from now on.
    pub(crate) refuse_sends: bool,
    pub(crate) transcript: Vec<String>,
}

/// The shared half: state plus the two watches its waiters use.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Bumped on every frame sent and on close: the peer waits on it.
    pub(crate) sent_signal: watch::Sender<u64>,
    /// Bumped whenever the inbox changes: the transport's `recv` waits on it.
    pub(crate) inbox_signal: watch::Sender<u64>,
}

impl Shared {
    pub(crate) fn new() -> Shared {
        Shared {
            state: Mutex::new(State {
                origin: Instant::now(),
                sent: Vec::new(),
                rules: Vec::new(),
                inbox: BTreeMap::new(),
                scheduled: 0,
                ended: false,
                client_closed: false,
                refuse_sends: false,
                transcript: Vec::new(),
            }),
            sent_signal: watch::Sender::new(0),
            inbox_signal: watch::Sender::new(0),
        }
    }

    /// The state; a test that panicked while holding it poisons nothing
    /// that matters here, so the poison is ignored.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Schedules deliveries, each `after` its delay from now.
    pub(crate) fn schedule(&self, deliveries: impl IntoIterator<Item = Delivery>) {
        let mut state = self.lock();
        let now = Instant::now();
        for d in deliveries {
            state.scheduled += 1;
            let key = (now + d.after, state.scheduled);
            state.inbox.insert(key, d.payload);
        }
        drop(state);
        self.inbox_signal.send_modify(|n| *n += 1);
    }

    /// Records a frame the client sent and runs the first rule that
    /// matches it (one-shot rules first).
    pub(crate) fn on_sent(&self, bytes: Vec<u8>) -> std::io::Result<()> {
        let mut state = self.lock();
        if state.refuse_sends || state.client_closed {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        let frame = Frame::new(state.origin.elapsed(), bytes);
        let line = format!("{} C->S {}", stamp(frame.at), frame.text());
        state.transcript.push(line);
        let deliveries = answer(&mut state.rules, &frame);
        state.sent.push(frame);
        drop(state);
        self.sent_signal.send_modify(|n| *n += 1);
        if !deliveries.is_empty() {
            self.schedule(deliveries);
        }
        Ok(())
    }

    /// Marks the client's side closed (`close`, or the transport dropped).
    pub(crate) fn on_client_close(&self, how: &str) {
        let mut state = self.lock();
        if !state.client_closed {
            state.client_closed = true;
            let line = format!("{} C-x {how}", stamp(state.origin.elapsed()));
            state.transcript.push(line);
        }
        drop(state);
        self.sent_signal.send_modify(|n| *n += 1);
    }
}

/// Runs the first matching rule: one-shot rules win over standing ones.
fn answer(rules: &mut Vec<Rule>, frame: &Frame) -> Vec<Delivery> {
    let found = rules
        .iter()
        .position(|r| r.once && r.matches(frame))
        .or_else(|| rules.iter().position(|r| r.matches(frame)));
    let Some(i) = found else {
        return Vec::new();
    };
    let deliveries = (rules[i].respond)(frame);
    if rules[i].once {
        rules.remove(i);
    }
    deliveries
}

/// A transcript timestamp: virtual milliseconds since the start.
pub(crate) fn stamp(at: Duration) -> String {
    format!("{:>7}ms", at.as_millis())
}

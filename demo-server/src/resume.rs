//! Legacy (2025-11-25) SSE resumability for POST response streams.
//!
//! Every event of a legacy POST stream is logged under `<stream>-<n>`. A
//! client that loses the stream (or that the server cut short on purpose,
//! see [`crate::DemoOptions::sse_close_after`]) resumes with a GET carrying
//! `Last-Event-ID`; the server replays the events after that id and then
//! follows the stream until its final response. A dropped connection is not
//! a cancellation: the request keeps running and its events keep being
//! logged.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::sync::{Notify, mpsc};

use crate::dispatch::Frame;
use crate::server::lock;
use crate::sse::event;

/// Events kept per stream.
const MAX_EVENTS: usize = 4096;
/// Streams kept per session.
const MAX_STREAMS: usize = 64;

/// The logged events of one stream.
pub(crate) struct StreamLog {
    events: Mutex<VecDeque<(u64, Bytes)>>,
    done: AtomicBool,
    changed: Notify,
}

impl StreamLog {
    fn new() -> StreamLog {
        StreamLog {
            events: Mutex::new(VecDeque::new()),
            done: AtomicBool::new(false),
            changed: Notify::new(),
        }
    }

    fn push(&self, n: u64, bytes: Bytes) {
        let mut events = lock(&self.events);
        events.push_back((n, bytes));
        if events.len() > MAX_EVENTS {
            events.pop_front();
        }
        drop(events);
        self.changed.notify_waiters();
    }

    fn finish(&self) {
        self.done.store(true, Ordering::Release);
        self.changed.notify_waiters();
    }

    fn since(&self, after: u64) -> Vec<(u64, Bytes)> {
        lock(&self.events)
            .iter()
            .filter(|(n, _)| *n > after)
            .cloned()
            .collect()
    }
}

/// The stream logs of one session, oldest first.
#[derive(Default)]
pub(crate) struct Logs {
    streams: Mutex<VecDeque<(String, Arc<StreamLog>)>>,
}

impl Logs {
    /// Starts logging stream `id`.
    pub(crate) fn open(&self, id: &str) -> Arc<StreamLog> {
        let log = Arc::new(StreamLog::new());
        let mut streams = lock(&self.streams);
        streams.push_back((id.to_owned(), Arc::clone(&log)));
        if streams.len() > MAX_STREAMS {
            streams.pop_front();
        }
        log
    }

    /// The log of stream `id`.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<StreamLog>> {
        lock(&self.streams)
            .iter()
            .find(|(s, _)| s == id)
            .map(|(_, l)| Arc::clone(l))
    }
}

/// Parses `Last-Event-ID` (`<stream>-<n>`).
pub(crate) fn parse_event_id(id: &str) -> Option<(&str, u64)> {
    let (stream, n) = id.rsplit_once('-')?;
    Some((stream, n.parse().ok()?))
}

/// Pumps a legacy POST stream: a priming event, then each frame as a
/// logged event until the final response. When the client goes away, or
/// after `close_after` events, the HTTP stream ends but logging continues.
pub(crate) async fn pump_logged(
    first: Frame,
    mut frames: mpsc::UnboundedReceiver<Frame>,
    out: mpsc::UnboundedSender<Bytes>,
    stream: String,
    log: Arc<StreamLog>,
    retry_ms: u64,
    close_after: Option<u64>,
) {
    let priming = format!("id: {stream}-0\nretry: {retry_ms}\ndata: \n\n");
    let mut out = out.send(Bytes::from(priming)).is_ok().then_some(out);
    let mut next = Some(first);
    let mut n = 0;
    loop {
        let frame = match next.take() {
            Some(f) => f,
            None => match frames.recv().await {
                Some(f) => f,
                None => break,
            },
        };
        let (msg, last) = match frame {
            Frame::Notice(m) => (m, false),
            Frame::Final(m, _) => (m, true),
        };
        n += 1;
        let bytes = event(Some(format!("{stream}-{n}")), &msg);
        log.push(n, bytes.clone());
        if let Some(o) = &out
            && o.send(bytes).is_err()
        {
            out = None;
        }
        if close_after.is_some_and(|limit| n >= limit) {
            out = None;
        }
        if last {
            break;
        }
    }
    log.finish();
}

/// Replays the events after `after`, then follows the log until it ends.
pub(crate) async fn replay(log: Arc<StreamLog>, mut after: u64, out: mpsc::UnboundedSender<Bytes>) {
    loop {
        let notified = log.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        for (n, bytes) in log.since(after) {
            if out.send(bytes).is_err() {
                return;
            }
            after = n;
        }
        if log.done.load(Ordering::Acquire) && log.since(after).is_empty() {
            return;
        }
        tokio::select! {
            () = notified => {}
            () = out.closed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_parse() {
        assert_eq!(parse_event_id("pabc-12"), Some(("pabc", 12)));
        assert_eq!(parse_event_id("a-b-3"), Some(("a-b", 3)));
        assert_eq!(parse_event_id("nope"), None);
        assert_eq!(parse_event_id("x-y"), None);
    }

    #[test]
    fn logs_are_bounded() {
        let logs = Logs::default();
        for i in 0..=MAX_STREAMS {
            logs.open(&format!("s{i}"));
        }
        assert!(logs.get("s0").is_none());
        assert!(logs.get(&format!("s{MAX_STREAMS}")).is_some());
        let log = logs.open("x");
        for n in 1..=(MAX_EVENTS as u64 + 1) {
            log.push(n, Bytes::new());
        }
        assert_eq!(log.since(0).len(), MAX_EVENTS);
    }
}

//! The server's stderr: split into lines, kept in a bounded ring of the
//! last lines, forwarded to a user callback and to `tracing`.
//!
//! stderr is drained all the time (by the process supervisor), so a chatty
//! server never blocks on a full pipe. Every line is cut to a maximum
//! length, so a server cannot make the client hold unbounded data.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

/// A callback that receives each stderr line of the server (without its
/// newline, decoded lossily as UTF-8).
pub(crate) type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// The longest stderr line kept, in bytes; the rest of a longer line is
/// dropped and the kept part ends with `…`.
pub const MAX_STDERR_LINE: usize = 4096;

/// Splits stderr bytes into lines, truncating long ones. Pure.
#[derive(Debug, Default)]
pub(crate) struct StderrLines {
    current: Vec<u8>,
    truncated: bool,
}

impl StderrLines {
    /// Feeds a chunk; calls `emit` for every completed line.
    pub(crate) fn push(&mut self, mut chunk: &[u8], emit: &mut impl FnMut(String)) {
        while let Some(i) = memchr::memchr(b'\n', chunk) {
            self.append(&chunk[..i]);
            emit(self.take());
            chunk = &chunk[i + 1..];
        }
        self.append(chunk);
    }

    /// At end of stream: emits a last line without newline, if any.
    pub(crate) fn finish(&mut self, emit: &mut impl FnMut(String)) {
        if !self.current.is_empty() || self.truncated {
            emit(self.take());
        }
    }

    fn append(&mut self, bytes: &[u8]) {
        let room = MAX_STDERR_LINE - self.current.len();
        if bytes.len() > room {
            self.truncated = true;
        }
        self.current
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn take(&mut self) -> String {
        let bytes = std::mem::take(&mut self.current);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
        let mut line = String::from_utf8_lossy(bytes).into_owned();
        if std::mem::take(&mut self.truncated) {
            line.push('…');
        }
        line
    }
}

/// Where stderr lines go: the ring of last lines, the callback, `tracing`.
#[derive(Clone)]
pub(crate) struct StderrSink {
    ring: Arc<Mutex<VecDeque<String>>>,
    capacity: usize,
    callback: Option<StderrCallback>,
    pid: Option<u32>,
}

impl StderrSink {
    pub(crate) fn new(capacity: usize, callback: Option<StderrCallback>, pid: Option<u32>) -> Self {
        StderrSink {
            ring: Arc::new(Mutex::new(VecDeque::with_capacity(capacity.min(1024)))),
            capacity,
            callback,
            pid,
        }
    }

    /// Records one line.
    pub(crate) fn line(&self, line: String) {
        tracing::debug!(
            target: "mcp_transport_stdio::stderr",
            pid = self.pid,
            line = %line,
            "server stderr"
        );
        if let Some(callback) = &self.callback {
            // A panicking callback must not stop the draining of stderr.
            if catch_unwind(AssertUnwindSafe(|| callback(&line))).is_err() {
                tracing::warn!("the stderr callback panicked");
            }
        }
        if self.capacity == 0 {
            return;
        }
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        if ring.len() == self.capacity {
            ring.pop_front();
        }
        ring.push_back(line);
    }

    /// A copy of the last lines, oldest first.
    pub(crate) fn tail(&self) -> Vec<String> {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        ring.iter().cloned().collect()
    }
}

impl fmt::Debug for StderrSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StderrSink")
            .field("capacity", &self.capacity)
            .field("callback", &self.callback.is_some())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        let mut out = Vec::new();
        let mut lines = StderrLines::default();
        for c in chunks {
            lines.push(c, &mut |l| out.push(l));
        }
        lines.finish(&mut |l| out.push(l));
        out
    }

    #[test]
    fn splits_across_chunks_and_keeps_utf8() {
        let text = "héllo\r\nwörld\nlast".as_bytes();
        let one = split(&[text]);
        assert_eq!(one, ["héllo", "wörld", "last"]);
        for cut in 0..text.len() {
            assert_eq!(split(&[&text[..cut], &text[cut..]]), one);
        }
    }

    #[test]
    fn long_lines_are_cut() {
        let long = vec![b'a'; MAX_STDERR_LINE * 3];
        let out = split(&[&long, b"\nok\n"]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].len(), MAX_STDERR_LINE + '…'.len_utf8());
        assert_eq!(out[1], "ok");
    }

    #[test]
    fn ring_keeps_the_last_lines_and_survives_a_panicking_callback() {
        let sink = StderrSink::new(2, Some(Arc::new(|_| panic!("boom"))), None);
        for l in ["a", "b", "c"] {
            sink.line(l.into());
        }
        assert_eq!(sink.tail(), ["b", "c"]);
    }
}

//! The floor's calls in flight over a pipe, shared by the blocking loop
//! (`stdio.rs`) and the one on tokio (`stdio_tokio.rs`): requests written
//! from the template until the window is full, each reply checked and its
//! call's latency recorded.

use std::time::{Duration, Instant};

use crate::measure::fail;
use crate::reply::{Template, check};

/// `calls` calls with ids from `first`, up to `window` in flight.
pub struct Window {
    first: u64,
    calls: usize,
    window: usize,
    sent_at: Vec<Instant>,
    latencies: Vec<Duration>,
}

impl Window {
    /// No call sent yet.
    pub fn new(first: u64, calls: usize, window: usize) -> Window {
        Window {
            first,
            calls,
            window,
            sent_at: Vec::with_capacity(calls),
            latencies: Vec::with_capacity(calls),
        }
    }

    /// Appends requests to `out` until the window is full or every call
    /// is sent.
    pub fn fill(&mut self, t: &Template, out: &mut Vec<u8>) {
        while self.sent_at.len() - self.latencies.len() < self.window
            && self.sent_at.len() < self.calls
        {
            t.write(self.first + self.sent_at.len() as u64, out);
            self.sent_at.push(Instant::now());
        }
    }

    /// Whether every call has its reply.
    pub fn done(&self) -> bool {
        self.latencies.len() == self.calls
    }

    /// Checks `reply` (its text `expected` bytes long) and records its
    /// call's latency.
    pub fn complete(&mut self, reply: &[u8], expected: usize) {
        let id = check(reply, expected).unwrap_or_else(|e| fail(&e));
        let at: &Instant = usize::try_from(id.wrapping_sub(self.first))
            .ok()
            .and_then(|i| self.sent_at.get(i))
            .unwrap_or_else(|| fail(&format!("reply to an unknown id {id}")));
        self.latencies.push(at.elapsed());
    }

    /// Each call's latency.
    pub fn latencies(self) -> Vec<Duration> {
        self.latencies
    }
}

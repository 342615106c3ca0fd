//! The stdio floor on tokio (`--runtime tokio`): the blocking floor's
//! loop (`stdio.rs`: the same template, buffers, framing and window) as
//! one future on a current-thread runtime, over tokio's child pipes. Not
//! the floor the targets are judged by: it shows what the runtime alone
//! (its reactor, its wake-ups, nonblocking pipes) adds to a call, so the
//! SDK's figure can be read as the runtime's part and its own.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};

use crate::measure::{self, Args, Meter, fail};
use crate::reply::Template;
use crate::start;
use crate::window::Window;

/// The pipes to the server and their buffers.
type Pipes = crate::lines::Pipes<ChildStdin, ChildStdout>;

impl Pipes {
    /// The next complete line's range in `lines.buf`, flushing pending
    /// requests first when it has to wait for one.
    async fn next_line(&mut self) -> std::ops::Range<usize> {
        loop {
            if let Some(line) = self.lines.next() {
                return line;
            }
            if !self.out.is_empty() {
                if let Err(e) = self.stdin.write_all(&self.out).await {
                    fail(&format!("write: {e}"));
                }
                self.out.clear();
            }
            match self.stdout.read(self.lines.space()).await {
                Ok(0) => fail("the server closed its stdout"),
                Ok(n) => self.lines.filled(n),
                Err(e) => fail(&format!("read: {e}")),
            }
        }
    }

    /// Makes `calls` calls with up to `window` in flight, ids from
    /// `first`; returns each call's latency.
    async fn calls(
        &mut self,
        t: &Template,
        first: u64,
        args: &Args,
        calls: usize,
    ) -> Vec<Duration> {
        let mut w = Window::new(first, calls, args.workers);
        while !w.done() {
            w.fill(t, &mut self.out);
            let line = self.next_line().await;
            w.complete(&self.lines.buf[line], args.expected_len());
        }
        w.latencies()
    }
}

/// Runs the stdio floor on a current-thread tokio runtime.
pub fn run(args: &Args) {
    let (mut child, stdin, stdout) = crate::spawn::spawn(args);
    args.runtime().block_on(async {
        let (Ok(stdin), Ok(stdout)) = (ChildStdin::from_std(stdin), ChildStdout::from_std(stdout))
        else {
            fail("the pipes on tokio")
        };
        let mut pipes = Pipes::new(stdin, stdout);
        if start::queue_initialize(args, &mut pipes.out) {
            let line = pipes.next_line().await;
            start::initialized(&pipes.lines.buf[line], &mut pipes.out);
        }
        let t = Template::new(args, true);
        let mut next = 2;
        pipes.calls(&t, next, args, args.warm()).await;
        next += args.warm() as u64;
        for _ in 0..args.reps {
            let meter = Meter::start();
            let lat = pipes.calls(&t, next, args, args.calls).await;
            meter.finish(lat.len(), lat);
            next += args.calls as u64;
        }
        measure::print_rss();
    });
    let _ = child.wait();
}

//! The strict stdio floor: one thread, blocking pipes, requests written
//! from a byte template into one buffer that is flushed only when no
//! complete reply is left to read, replies framed and parsed in place in
//! the read buffer (no line copied out of it); the server's stdout pipe
//! grown to 1 MiB, so a large reply crosses it in one piece.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::Duration;

use crate::measure::{self, Args, Meter, fail};
use crate::reply::Template;
use crate::start;
use crate::window::Window;

/// The pipes to the server and their buffers.
type Pipes = crate::lines::Pipes<ChildStdin, ChildStdout>;

impl Pipes {
    /// The next complete line's range in `lines.buf`, flushing pending
    /// requests first when it has to wait for one.
    fn next_line(&mut self) -> Result<std::ops::Range<usize>, String> {
        loop {
            if let Some(line) = self.lines.next() {
                return Ok(line);
            }
            if !self.out.is_empty() {
                self.stdin
                    .write_all(&self.out)
                    .map_err(|e| format!("write: {e}"))?;
                self.out.clear();
            }
            let n = self
                .stdout
                .read(self.lines.space())
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("the server closed its stdout".into());
            }
            self.lines.filled(n);
        }
    }

    /// Makes `calls` calls with up to `args.workers` in flight, ids from
    /// `first`; returns each call's latency.
    fn calls(&mut self, t: &Template, first: u64, args: &Args, calls: usize) -> Vec<Duration> {
        let mut w = Window::new(first, calls, args.workers);
        while !w.done() {
            w.fill(t, &mut self.out);
            let line = self.next_line().unwrap_or_else(|e| fail(&e));
            w.complete(&self.lines.buf[line], args.expected_len());
        }
        w.latencies()
    }
}

/// Spawns the server and, at 2025-11-25, does the `initialize` handshake.
fn connect(args: &Args) -> (Child, Pipes) {
    let (child, stdin, stdout) = crate::spawn::spawn(args);
    let mut pipes = Pipes::new(stdin, stdout);
    if start::queue_initialize(args, &mut pipes.out) {
        let line = pipes.next_line().unwrap_or_else(|e| fail(&e));
        start::initialized(&pipes.lines.buf[line], &mut pipes.out);
    }
    (child, pipes)
}

/// Runs the stdio floor.
pub fn run(args: &Args) {
    let (mut child, mut pipes) = connect(args);
    let t = Template::new(args, true);
    let mut next = 2;
    pipes.calls(&t, next, args, args.warm());
    next += args.warm() as u64;
    for _ in 0..args.reps {
        let meter = Meter::start();
        let lat = pipes.calls(&t, next, args, args.calls);
        meter.finish(lat.len(), lat);
        next += args.calls as u64;
    }
    measure::print_rss();
    drop(pipes);
    let _ = child.wait();
}

//! The strict stdio floor: one thread, blocking pipes, requests written
//! from a byte template into one buffer that is flushed only when no
//! complete reply is left to read, replies framed and parsed in place in
//! the read buffer (no line copied out of it); the server's stdout pipe
//! grown to 1 MiB, so a large reply crosses it in one piece.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::Duration;

use crate::lines::Lines;
use crate::measure::{self, Args, Meter, fail};
use crate::reply::Template;
use crate::start;
use crate::window::Window;

/// The pipes to one server process and the two buffers.
struct Pipes {
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Requests not yet written to the pipe.
    out: Vec<u8>,
    lines: Lines,
}

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

    /// Makes `calls` calls with up to `window` in flight, ids from
    /// `first`; returns each call's latency.
    fn calls(
        &mut self,
        t: &Template,
        first: u64,
        calls: usize,
        window: usize,
        expected: usize,
    ) -> Vec<Duration> {
        let mut w = Window::new(first, calls, window);
        while !w.done() {
            w.fill(t, &mut self.out);
            let line = self.next_line().unwrap_or_else(|e| fail(&e));
            w.complete(&self.lines.buf[line], expected);
        }
        w.latencies()
    }
}

/// Spawns the server and, at 2025-11-25, does the `initialize` handshake.
fn connect(args: &Args) -> (Child, Pipes) {
    let mut child = start::server_command(args)
        .spawn()
        .unwrap_or_else(|e| fail(&format!("spawn the server: {e}")));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        fail("no pipes")
    };
    start::grow_pipe(&stdout);
    let mut pipes = Pipes {
        stdin,
        stdout,
        out: Vec::with_capacity(64 * 1024),
        lines: Lines::new(),
    };
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
    pipes.calls(&t, next, args.warm(), args.workers, args.expected_len());
    next += args.warm() as u64;
    for _ in 0..args.reps {
        let meter = Meter::start();
        let lat = pipes.calls(&t, next, args.calls, args.workers, args.expected_len());
        meter.finish(lat.len(), lat);
        next += args.calls as u64;
    }
    measure::print_rss();
    drop(pipes);
    let _ = child.wait();
}

//! The strict stdio floor: one thread, blocking pipes, requests written
//! from a byte template into one buffer that is flushed only when no
//! complete reply is left to read, replies framed and parsed in place in
//! the read buffer (no line copied out of it); the server's stdout pipe
//! grown to 1 MiB, so a large reply crosses it in one piece.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::measure::{self, Args, Meter, fail};
use crate::reply::{Template, check};

/// The pipes to one server process and the two buffers.
struct Pipes {
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Requests not yet written to the pipe.
    out: Vec<u8>,
    /// Read buffer (its whole length is usable); `start..end` is unread,
    /// `start..scan` holds no newline.
    buf: Vec<u8>,
    start: usize,
    scan: usize,
    end: usize,
}

impl Pipes {
    /// The next complete line's range in `buf`, flushing pending requests
    /// first when it has to wait for one.
    fn next_line(&mut self) -> Result<std::ops::Range<usize>, String> {
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[self.scan..self.end]) {
                let line = self.start..self.scan + pos;
                self.start = self.scan + pos + 1;
                self.scan = self.start;
                return Ok(line);
            }
            self.scan = self.end;
            if !self.out.is_empty() {
                self.stdin
                    .write_all(&self.out)
                    .map_err(|e| format!("write: {e}"))?;
                self.out.clear();
            }
            if self.start == self.end {
                (self.start, self.scan, self.end) = (0, 0, 0);
            } else if self.end == self.buf.len() {
                if self.start > 0 {
                    self.buf.copy_within(self.start..self.end, 0);
                    (self.scan, self.end) = (self.end - self.start, self.end - self.start);
                    self.start = 0;
                } else {
                    self.buf.resize(self.buf.len() * 2, 0);
                }
            }
            let n = self
                .stdout
                .read(&mut self.buf[self.end..])
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("the server closed its stdout".into());
            }
            self.end += n;
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
        let mut sent_at = Vec::with_capacity(calls);
        let mut latencies = Vec::with_capacity(calls);
        let mut in_flight = 0;
        while latencies.len() < calls {
            while in_flight < window && sent_at.len() < calls {
                t.write(first + sent_at.len() as u64, &mut self.out);
                sent_at.push(Instant::now());
                in_flight += 1;
            }
            let line = self.next_line().unwrap_or_else(|e| fail(&e));
            let id = check(&self.buf[line], expected).unwrap_or_else(|e| fail(&e));
            let at: &Instant = usize::try_from(id.wrapping_sub(first))
                .ok()
                .and_then(|i| sent_at.get(i))
                .unwrap_or_else(|| fail(&format!("reply to an unknown id {id}")));
            latencies.push(at.elapsed());
            in_flight -= 1;
        }
        latencies
    }
}

/// Spawns the server and, at 2025-11-25, does the `initialize` handshake.
fn connect(args: &Args) -> (Child, Pipes) {
    let mut child = Command::new(&args.server[0])
        .args(&args.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("spawn the server: {e}")));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        fail("no pipes")
    };
    // The SDK grows the pipe once a reply outgrows it (1 MiB); the floor
    // starts with it grown, so a large reply crosses in one piece here too.
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(&stdout, 1024 * 1024);
    let mut pipes = Pipes {
        stdin,
        stdout,
        out: Vec::with_capacity(64 * 1024),
        buf: vec![0; 64 * 1024],
        start: 0,
        scan: 0,
        end: 0,
    };
    if args.era != "modern" {
        pipes.out.extend_from_slice(crate::INITIALIZE.as_bytes());
        pipes.out.push(b'\n');
        let line = pipes.next_line().unwrap_or_else(|e| fail(&e));
        if !pipes.buf[line].windows(8).any(|w| w == b"\"result\"") {
            fail("initialize failed");
        }
        pipes.out.extend_from_slice(crate::INITIALIZED.as_bytes());
        pipes.out.push(b'\n');
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

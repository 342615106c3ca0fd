//! The floor's pipes and buffers, shared by the blocking loop (`stdio.rs`)
//! and the one on tokio (`stdio_tokio.rs`), each with its own pipe types:
//! requests gathered in one write buffer; newline-delimited replies framed
//! in place in the read buffer (no line copied out of it), which is
//! compacted or grown only when a partial line reaches its end.

use std::ops::Range;

/// The pipes to one server process and the two buffers.
pub struct Pipes<W, R> {
    pub stdin: W,
    pub stdout: R,
    /// Requests not yet written to the pipe.
    pub out: Vec<u8>,
    pub lines: Lines,
}

impl<W, R> Pipes<W, R> {
    /// The pipes, both buffers empty.
    pub fn new(stdin: W, stdout: R) -> Self {
        Pipes {
            stdin,
            stdout,
            out: Vec::with_capacity(64 * 1024),
            lines: Lines::new(),
        }
    }
}

/// Read buffer; `start..end` is unread, `start..scan` holds no newline.
pub struct Lines {
    pub buf: Vec<u8>,
    start: usize,
    scan: usize,
    end: usize,
}

impl Lines {
    /// An empty buffer of 64 KiB (it grows for a longer line).
    pub fn new() -> Lines {
        Lines {
            buf: vec![0; 64 * 1024],
            start: 0,
            scan: 0,
            end: 0,
        }
    }

    /// The next complete line's range in `buf`, if one has been read.
    pub fn next(&mut self) -> Option<Range<usize>> {
        let Some(pos) = memchr::memchr(b'\n', &self.buf[self.scan..self.end]) else {
            self.scan = self.end;
            return None;
        };
        let line = self.start..self.scan + pos;
        self.start = self.scan + pos + 1;
        self.scan = self.start;
        Some(line)
    }

    /// Where the next read goes: the buffer's free end, made room for by
    /// moving a partial line to the front or growing the buffer.
    pub fn space(&mut self) -> &mut [u8] {
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
        &mut self.buf[self.end..]
    }

    /// Records `n` bytes read into [`Lines::space`].
    pub fn filled(&mut self, n: usize) {
        self.end += n;
    }
}

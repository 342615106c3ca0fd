//! A bounded splitter of a byte stream into `\n`-terminated lines.
//!
//! Pure and synchronous: the caller reads bytes into [`LineSplitter::read_buf`],
//! reports how many with [`LineSplitter::commit`], then takes frames with
//! [`LineSplitter::next_frame`] until it returns `None`. Lines are found by
//! byte, so a UTF-8 character split across two reads is reassembled
//! untouched. A line is handed out as a slice of the internal buffer, so it
//! can be parsed where it lies, without a copy.
//!
//! Memory is bounded: the buffer never holds more than the maximum line
//! length plus one read. A line longer than the maximum is dropped as it
//! arrives, up to its newline, and reported once as [`Frame::Oversized`] with
//! its full length; the lines after it are unaffected. A buffer grown for
//! big lines is kept while big lines keep coming (no re-growing, zeroing and
//! page-faulting it for each one) and given back to the allocator once a
//! small line shows it is no longer needed.

/// The smallest free space offered to a read.
const MIN_READ: usize = 64 * 1024;

/// Above this size, an emptied buffer is given back to the allocator once
/// the last line was small (below a quarter of this).
const SHRINK_ABOVE: usize = 1024 * 1024;

/// How many of the first bytes of a discarded line are kept.
pub const KEPT_HEAD: usize = 256;

/// How many of the last bytes of a discarded line are kept.
pub const KEPT_TAIL: usize = 64;

/// One unit of output of the splitter.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line, without its `\n` and without a `\r` just before it.
    Line(&'a [u8]),
    /// A line longer than the maximum, which was discarded.
    Oversized {
        /// Length of the discarded line in bytes, without its `\n`.
        len: u64,
        /// Its first bytes (at most [`KEPT_HEAD`]), for diagnostics.
        head: &'a [u8],
        /// Its last bytes (at most [`KEPT_TAIL`]), for diagnostics.
        tail: &'a [u8],
    },
}

/// A bounded, chunking-independent line splitter.
///
/// ```
/// use mcp_transport_stdio::line_splitter::{Frame, LineSplitter};
///
/// let mut s = LineSplitter::new(8);
/// for chunk in [&b"{}\nthis line is t"[..], b"oo long\n{\"a\":1"] {
///     s.read_buf()[..chunk.len()].copy_from_slice(chunk);
///     s.commit(chunk.len());
/// }
/// assert_eq!(s.next_frame(), Some(Frame::Line(b"{}")));
/// assert!(matches!(
///     s.next_frame(),
///     Some(Frame::Oversized { len: 21, head: b"this line is too long", .. })
/// ));
/// assert_eq!(s.next_frame(), None);
/// assert_eq!(s.finish(), Some(Frame::Line(b"{\"a\":1")));
/// ```
#[derive(Debug)]
pub struct LineSplitter {
    /// Initialized storage; `buf[start..end]` is pending data.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// `buf[start..scanned]` is known to contain no `\n`.
    scanned: usize,
    max_line: usize,
    /// Bytes of an oversized line dropped so far, while looking for its end.
    discarding: Option<u64>,
    /// The first and the last bytes of the line being discarded.
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Whether the last line taken out was big: a big buffer is kept for the
    /// next one.
    last_big: bool,
}

impl LineSplitter {
    /// A splitter that accepts lines of at most `max_line` bytes (not
    /// counting the `\n`). A `max_line` of zero accepts only empty lines.
    pub fn new(max_line: usize) -> Self {
        LineSplitter {
            buf: Vec::new(),
            start: 0,
            end: 0,
            scanned: 0,
            max_line,
            discarding: None,
            head: Vec::new(),
            tail: Vec::new(),
            last_big: false,
        }
    }

    /// The maximum line length this splitter accepts.
    pub fn max_line(&self) -> usize {
        self.max_line
    }

    /// Free space to read into; never empty. Fill a prefix of it and call
    /// [`commit`](Self::commit) with the number of bytes written.
    ///
    /// Call [`next_frame`](Self::next_frame) until it returns `None` before
    /// asking for more space: the memory bound assumes complete lines were
    /// taken out.
    pub fn read_buf(&mut self) -> &mut [u8] {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            if self.buf.len() > SHRINK_ABOVE && !self.last_big {
                self.buf = Vec::new();
            }
        }
        if self.buf.len() - self.end < MIN_READ && self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < MIN_READ {
            // Pending data is at most `max_line` bytes (more would have been
            // switched to discarding), so this bounds the buffer.
            let cap = self.max_line.saturating_add(MIN_READ);
            let doubled = self.buf.len().saturating_mul(2).min(cap);
            let wanted = doubled.max(self.end + MIN_READ);
            self.buf.resize(wanted, 0);
        }
        &mut self.buf[self.end..]
    }

    /// Marks `n` bytes at the start of the last [`read_buf`](Self::read_buf)
    /// as filled. Values beyond the space offered are clamped.
    pub fn commit(&mut self, n: usize) {
        self.end = (self.end + n).min(self.buf.len());
    }

    /// The next complete frame, or `None` when more input is needed.
    pub fn next_frame(&mut self) -> Option<Frame<'_>> {
        if let Some(dropped) = self.discarding {
            let pending = &self.buf[self.start..self.end];
            return match memchr::memchr(b'\n', pending) {
                Some(i) => {
                    keep_tail(&mut self.tail, &pending[..i]);
                    self.discarding = None;
                    self.start += i + 1;
                    self.scanned = self.start;
                    Some(Frame::Oversized {
                        len: dropped + i as u64,
                        head: &self.head,
                        tail: &self.tail,
                    })
                }
                None => {
                    keep_tail(&mut self.tail, pending);
                    self.discarding = Some(dropped + pending.len() as u64);
                    self.start = self.end;
                    self.scanned = self.end;
                    None
                }
            };
        }
        match memchr::memchr(b'\n', &self.buf[self.scanned..self.end]) {
            Some(i) => {
                let line_start = self.start;
                let line_end = self.scanned + i;
                self.start = line_end + 1;
                self.scanned = self.start;
                let len = line_end - line_start;
                self.last_big = len >= SHRINK_ABOVE / 4;
                if len > self.max_line {
                    return Some(oversized(&self.buf[line_start..line_end]));
                }
                Some(Frame::Line(trim_cr(&self.buf[line_start..line_end])))
            }
            None => {
                self.scanned = self.end;
                let pending = self.end - self.start;
                if pending > self.max_line {
                    let line = &self.buf[self.start..self.end];
                    self.head.clear();
                    self.head
                        .extend_from_slice(&line[..line.len().min(KEPT_HEAD)]);
                    self.tail.clear();
                    keep_tail(&mut self.tail, line);
                    self.discarding = Some(pending as u64);
                    self.start = self.end;
                }
                None
            }
        }
    }

    /// At end of input: the last line if it had no `\n`, or the report of an
    /// oversized line cut off by the end. Resets the splitter.
    ///
    /// Call it after [`next_frame`](Self::next_frame) returned `None`.
    pub fn finish(&mut self) -> Option<Frame<'_>> {
        let discarding = self.discarding.take();
        let (start, end) = (self.start, self.end);
        self.start = 0;
        self.end = 0;
        self.scanned = 0;
        if let Some(dropped) = discarding {
            keep_tail(&mut self.tail, &self.buf[start..end]);
            return Some(Frame::Oversized {
                len: dropped + (end - start) as u64,
                head: &self.head,
                tail: &self.tail,
            });
        }
        if start == end {
            return None;
        }
        if end - start > self.max_line {
            return Some(oversized(&self.buf[start..end]));
        }
        Some(Frame::Line(trim_cr(&self.buf[start..end])))
    }

    /// Bytes currently held for an incomplete line.
    pub fn pending(&self) -> usize {
        self.end - self.start
    }
}

/// The report of a whole line held in the buffer.
fn oversized(line: &[u8]) -> Frame<'_> {
    Frame::Oversized {
        len: line.len() as u64,
        head: &line[..line.len().min(KEPT_HEAD)],
        tail: &line[line.len().saturating_sub(KEPT_TAIL)..],
    }
}

/// Appends `more` to the kept tail, keeping its last [`KEPT_TAIL`] bytes.
fn keep_tail(tail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= KEPT_TAIL {
        tail.clear();
        tail.extend_from_slice(&more[more.len() - KEPT_TAIL..]);
        return;
    }
    tail.extend_from_slice(more);
    if tail.len() > KEPT_TAIL {
        tail.drain(..tail.len() - KEPT_TAIL);
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(s: &mut LineSplitter, mut data: &[u8], out: &mut Vec<String>) {
        while !data.is_empty() {
            let buf = s.read_buf();
            let n = buf.len().min(data.len());
            buf[..n].copy_from_slice(&data[..n]);
            s.commit(n);
            data = &data[n..];
            while let Some(f) = s.next_frame() {
                out.push(render(f));
            }
        }
    }

    fn render(f: Frame<'_>) -> String {
        match f {
            Frame::Line(l) => String::from_utf8_lossy(l).into_owned(),
            Frame::Oversized { len, head, tail } => format!(
                "<oversized {len} {}..{}>",
                String::from_utf8_lossy(&head[..head.len().min(2)]),
                String::from_utf8_lossy(&tail[tail.len().saturating_sub(2)..])
            ),
        }
    }

    #[test]
    fn splits_strips_cr_and_keeps_empty_lines() {
        let mut s = LineSplitter::new(100);
        let mut out = Vec::new();
        feed(&mut s, b"a\r\n\nb\n", &mut out);
        assert_eq!(out, ["a", "", "b"]);
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn limit_is_inclusive() {
        let mut s = LineSplitter::new(3);
        let mut out = Vec::new();
        feed(&mut s, b"abc\nabcd\nx\n", &mut out);
        assert_eq!(out, ["abc", "<oversized 4 ab..cd>", "x"]);
    }

    #[test]
    fn oversized_line_spanning_many_reads_is_reported_once() {
        let mut s = LineSplitter::new(10);
        let mut out = Vec::new();
        let mut big = vec![b'x'; 3 * MIN_READ + 5];
        big[0] = b'{';
        feed(&mut s, b"ok\n", &mut out);
        feed(&mut s, &big, &mut out);
        assert!(s.buf.len() <= 10 + 2 * MIN_READ, "buffer stays bounded");
        feed(&mut s, b"}\nnext\n", &mut out);
        assert_eq!(
            out,
            [
                "ok",
                &format!("<oversized {} {{x..x}}>", big.len() + 1),
                "next"
            ]
        );
    }

    #[test]
    fn oversized_tail_at_eof_is_reported() {
        let mut s = LineSplitter::new(2);
        let mut out = Vec::new();
        feed(&mut s, b"abcdef", &mut out);
        assert!(out.is_empty());
        assert_eq!(
            s.finish(),
            Some(Frame::Oversized {
                len: 6,
                head: b"abcdef",
                tail: b"abcdef"
            })
        );
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn big_buffer_is_kept_for_big_lines_and_released_after_a_small_one() {
        let mut s = LineSplitter::new(usize::MAX);
        let mut out = Vec::new();
        let mut big = vec![b'y'; 4 * SHRINK_ABOVE];
        big.push(b'\n');
        feed(&mut s, &big, &mut out);
        assert_eq!(out.len(), 1);
        let _ = s.read_buf();
        let grown = s.buf.len();
        assert!(grown > 4 * SHRINK_ABOVE, "kept for the next big line");
        feed(&mut s, &big, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(s.buf.len(), grown, "reused, not grown again");
        feed(&mut s, b"{}\n", &mut out);
        assert_eq!(out.len(), 3);
        let _ = s.read_buf();
        assert!(s.buf.len() <= SHRINK_ABOVE, "released after a small line");
    }
}

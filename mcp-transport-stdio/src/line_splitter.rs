//! A bounded splitter of a byte stream into `\n`-terminated lines.
//!
//! Pure and synchronous: the caller appends bytes to the buffer that
//! [`LineSplitter::read_space`] gives (tokio's `AsyncReadExt::read_buf`
//! reads into it without zeroing it first) or copies them in with
//! [`LineSplitter::fill`], then takes frames with
//! [`LineSplitter::next_frame`] until it returns `None`. Lines are found by
//! byte, so a UTF-8 character split across two reads is reassembled
//! untouched.
//!
//! A line is handed out as a [`Bytes`] view of the read buffer, not a copy,
//! so a large message can be parsed, and its result decoded, straight from
//! the bytes it arrived in.
//!
//! Memory is bounded: the buffer never holds more than the maximum line
//! length plus one read. A line longer than the maximum is dropped as it
//! arrives, up to its newline, and reported once as [`Frame::Oversized`] with
//! its full length; the lines after it are unaffected.
//!
//! The buffer's rule, so that a stream of large lines costs no large
//! allocation per line (no re-growing, no fresh memory to fault in) and a
//! spike of huge ones does not pin memory for good:
//!
//! * It keeps its capacity across lines. When it is empty as a read starts
//!   and no line handed out still uses it, the read starts again at its
//!   beginning, without a copy.
//! * While a line handed out is still in use, reads go on in the free space
//!   after it; when that runs out, the pending bytes move to a new buffer of
//!   the same size (the old one is freed with the last line that uses it).
//! * It doubles, up to the maximum line length plus one read, when the
//!   pending line does not fit.
//! * It is given back to the allocator when it is over 1 MiB, empty, and
//!   the last line was small (under 256 KiB).

use bytes::buf::{BufMut, Limit};
use bytes::{Buf, Bytes, BytesMut};

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
    /// A complete line, without its `\n` and without a `\r` just before it:
    /// a view of the read buffer (see the [module](self) docs for how long
    /// it keeps the buffer).
    Line(Bytes),
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
///     assert_eq!(s.fill(chunk), chunk.len());
/// }
/// assert!(matches!(s.next_frame(), Some(Frame::Line(l)) if l == &b"{}"[..]));
/// assert!(matches!(
///     s.next_frame(),
///     Some(Frame::Oversized { len: 21, head: b"this line is too long", .. })
/// ));
/// assert_eq!(s.next_frame(), None);
/// assert!(matches!(s.finish(), Some(Frame::Line(l)) if l == &b"{\"a\":1"[..]));
/// ```
#[derive(Debug)]
pub struct LineSplitter {
    /// The pending data; what came before it was handed out or dropped.
    buf: BytesMut,
    /// The capacity of the allocation `buf` is a view of.
    alloc: usize,
    /// `buf[..scanned]` is known to contain no `\n`.
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
            buf: BytesMut::new(),
            alloc: 0,
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

    /// The free space to read into, never empty: append to it (tokio's
    /// `AsyncReadExt::read_buf` does, without zeroing it first); it takes
    /// no more than it has room for.
    ///
    /// Call [`next_frame`](Self::next_frame) until it returns `None` before
    /// asking for more space: the memory bound assumes complete lines were
    /// taken out.
    pub fn read_space(&mut self) -> Limit<&mut BytesMut> {
        self.make_room();
        let free = self.buf.capacity() - self.buf.len();
        (&mut self.buf).limit(free)
    }

    /// Copies as much of `data` as there is room for (never nothing when
    /// `data` is not empty) and returns how many bytes that was. The
    /// synchronous form of [`read_space`](Self::read_space).
    pub fn fill(&mut self, data: &[u8]) -> usize {
        let mut space = self.read_space();
        let n = data.len().min(space.remaining_mut());
        space.put_slice(&data[..n]);
        n
    }

    /// Makes at least [`MIN_READ`] bytes of free space, by the rule in the
    /// module docs.
    fn make_room(&mut self) {
        if self.buf.is_empty() {
            self.scanned = 0;
            if self.alloc > SHRINK_ABOVE && !self.last_big {
                self.buf = BytesMut::new();
                self.alloc = 0;
            } else if self.buf.capacity() < self.alloc {
                // Back to the start when no line handed out uses the buffer
                // any more (nothing to copy); otherwise read on after them.
                let _ = self.buf.try_reclaim(self.alloc);
            }
        }
        let pending = self.buf.len();
        if self.buf.capacity() - pending >= MIN_READ {
            return;
        }
        let wanted = pending.saturating_add(MIN_READ);
        // Moves the pending bytes to the start, when no line uses the
        // buffer and they do not overlap their new place.
        if wanted <= self.alloc && self.buf.try_reclaim(self.alloc - pending) {
            return;
        }
        let size = if wanted <= self.alloc {
            self.alloc
        } else {
            // Pending data is at most `max_line` bytes (more would have
            // been switched to discarding), so this bounds the buffer.
            let limit = self.max_line.saturating_add(MIN_READ);
            self.alloc.saturating_mul(2).min(limit).max(wanted)
        };
        let mut fresh = BytesMut::with_capacity(size);
        fresh.extend_from_slice(&self.buf);
        self.buf = fresh;
        self.alloc = size;
    }

    /// The capacity of the read buffer. A line handed out keeps the whole
    /// buffer allocated while it lives, so a caller that keeps lines (or
    /// parts of them) copies those that are small next to this.
    pub fn buffer_capacity(&self) -> usize {
        self.alloc
    }

    /// The next complete frame, or `None` when more input is needed.
    pub fn next_frame(&mut self) -> Option<Frame<'_>> {
        if let Some(dropped) = self.discarding {
            return match memchr::memchr(b'\n', &self.buf) {
                Some(i) => {
                    keep_tail(&mut self.tail, &self.buf[..i]);
                    self.buf.advance(i + 1);
                    self.discarding = None;
                    Some(Frame::Oversized {
                        len: dropped + i as u64,
                        head: &self.head,
                        tail: &self.tail,
                    })
                }
                None => {
                    keep_tail(&mut self.tail, &self.buf);
                    self.discarding = Some(dropped + self.buf.len() as u64);
                    self.buf.clear();
                    None
                }
            };
        }
        let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
            self.scanned = self.buf.len();
            if self.buf.len() > self.max_line {
                self.discarding = Some(self.buf.len() as u64);
                self.drop_pending(self.buf.len());
                self.scanned = 0;
            }
            return None;
        };
        let len = self.scanned + i;
        self.scanned = 0;
        self.last_big = len >= SHRINK_ABOVE / 4;
        if len > self.max_line {
            self.drop_pending(len);
            self.buf.advance(1);
            return Some(self.kept_oversized(len));
        }
        let line = self.buf.split_to(len + 1).freeze();
        Some(Frame::Line(line_of(line, len)))
    }

    /// The next line when it is complete and shorter than `below` bytes,
    /// lent in place to `read` (without its `\n` and a `\r` just before
    /// it) and then consumed: for a line that is parsed at once and not
    /// kept, no view of the buffer is made and dropped. `None`, with
    /// nothing consumed, when no such line is buffered: take
    /// [`next_frame`](Self::next_frame) then.
    ///
    /// ```
    /// use mcp_transport_stdio::line_splitter::{Frame, LineSplitter};
    ///
    /// let mut s = LineSplitter::new(100);
    /// s.fill(b"{}\r\n[1,2,3]\n");
    /// assert_eq!(s.next_small_line(4, |l| l.to_vec()), Some(b"{}".to_vec()));
    /// assert_eq!(s.next_small_line(4, |l| l.len()), None, "too long");
    /// assert!(matches!(s.next_frame(), Some(Frame::Line(l)) if l == &b"[1,2,3]"[..]));
    /// ```
    pub fn next_small_line<T>(&mut self, below: usize, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        if self.discarding.is_some() {
            return None;
        }
        let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
            self.scanned = self.buf.len();
            return None;
        };
        let len = self.scanned + i;
        if len >= below || len > self.max_line {
            // No newline before it: `next_frame` finds it at once.
            self.scanned = len;
            return None;
        }
        self.scanned = 0;
        self.last_big = len >= SHRINK_ABOVE / 4;
        let out = read(&self.buf[..without_cr(&self.buf[..len])]);
        self.buf.advance(len + 1);
        Some(out)
    }

    /// At end of input: the last line if it had no `\n`, or the report of an
    /// oversized line cut off by the end. Resets the splitter.
    ///
    /// Call it after [`next_frame`](Self::next_frame) returned `None`.
    pub fn finish(&mut self) -> Option<Frame<'_>> {
        self.scanned = 0;
        let len = self.buf.len();
        if let Some(dropped) = self.discarding.take() {
            keep_tail(&mut self.tail, &self.buf);
            self.buf.clear();
            return Some(Frame::Oversized {
                len: dropped + len as u64,
                head: &self.head,
                tail: &self.tail,
            });
        }
        if len == 0 {
            return None;
        }
        if len > self.max_line {
            self.drop_pending(len);
            return Some(self.kept_oversized(len));
        }
        Some(Frame::Line(line_of(self.buf.split().freeze(), len)))
    }

    /// Bytes currently held for an incomplete line.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The addresses of the read buffer's allocation (tests).
    #[cfg(test)]
    pub(crate) fn allocation(&self) -> std::ops::Range<usize> {
        // The view of pending data always ends where the allocation ends.
        let end = self.buf.as_ptr() as usize + self.buf.capacity();
        end - self.alloc..end
    }

    /// Keeps the first and last bytes of the first `len` pending bytes and
    /// drops them.
    fn drop_pending(&mut self, len: usize) {
        let line = &self.buf[..len];
        self.head.clear();
        self.head.extend_from_slice(&line[..len.min(KEPT_HEAD)]);
        self.tail.clear();
        self.tail
            .extend_from_slice(&line[len.saturating_sub(KEPT_TAIL)..]);
        self.buf.advance(len);
    }

    /// The report of a line dropped whole by [`drop_pending`](Self::drop_pending).
    fn kept_oversized(&self, len: usize) -> Frame<'_> {
        Frame::Oversized {
            len: len as u64,
            head: &self.head,
            tail: &self.tail,
        }
    }
}

/// The first `len` bytes of `line`, without a `\r` at their end.
fn line_of(mut line: Bytes, len: usize) -> Bytes {
    line.truncate(without_cr(&line[..len]));
    line
}

/// The length of a line's content: without a `\r` just before its `\n`.
fn without_cr(line: &[u8]) -> usize {
    line.len() - usize::from(line.ends_with(b"\r"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(s: &mut LineSplitter, mut data: &[u8], out: &mut Vec<String>) {
        while !data.is_empty() {
            let n = s.fill(data);
            data = &data[n..];
            while let Some(f) = s.next_frame() {
                out.push(render(f));
            }
        }
    }

    fn render(f: Frame<'_>) -> String {
        match f {
            Frame::Line(l) => String::from_utf8_lossy(&l).into_owned(),
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
        assert!(s.alloc <= 10 + 2 * MIN_READ, "buffer stays bounded");
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
        let _ = s.read_space();
        let grown = s.alloc;
        assert!(grown > 4 * SHRINK_ABOVE, "kept for the next big line");
        feed(&mut s, &big, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(s.alloc, grown, "reused, not grown again");
        feed(&mut s, b"{}\n", &mut out);
        assert_eq!(out.len(), 3);
        let _ = s.read_space();
        assert!(s.alloc <= SHRINK_ABOVE, "released after a small line");
    }

    /// Takes the next line, which must be there.
    fn line(s: &mut LineSplitter) -> Bytes {
        match s.next_frame() {
            Some(Frame::Line(l)) => l,
            other => panic!("expected a line, got {other:?}"),
        }
    }

    #[test]
    fn a_big_line_is_read_where_the_last_one_was_once_that_one_is_dropped() {
        let mut s = LineSplitter::new(usize::MAX);
        let mut big = vec![b'z'; 300 * 1024];
        big.push(b'\n');
        let mut rest = &big[..];
        while !rest.is_empty() {
            rest = &rest[s.fill(rest)..];
        }
        let first = line(&mut s);
        let (at, alloc) = (first.as_ptr(), s.alloc);
        drop(first);
        let mut rest = &big[..];
        while !rest.is_empty() {
            rest = &rest[s.fill(rest)..];
        }
        let second = line(&mut s);
        assert_eq!(second.as_ptr(), at, "same memory, from its start");
        assert_eq!(s.alloc, alloc, "no new buffer");
        assert_eq!(second.len(), 300 * 1024);
    }

    #[test]
    fn lines_still_in_use_are_left_untouched_by_later_reads() {
        let mut s = LineSplitter::new(usize::MAX);
        let mut out = Vec::new();
        let mut held = Vec::new();
        for round in 0..40u8 {
            let mut l = vec![b'a' + round % 26; 10_000 + usize::from(round) * 997];
            l.push(b'\n');
            let mut rest = &l[..];
            while !rest.is_empty() {
                rest = &rest[s.fill(rest)..];
                while let Some(f) = s.next_frame() {
                    match f {
                        Frame::Line(b) => held.push(b),
                        other => out.push(render(other)),
                    }
                }
            }
        }
        assert!(out.is_empty());
        for (round, b) in held.iter().enumerate() {
            assert_eq!(b.len(), 10_000 + round * 997);
            assert!(
                b.iter().all(|c| *c == b'a' + (round % 26) as u8),
                "line {round}"
            );
        }
        assert!(s.alloc <= 4 * MIN_READ, "the buffer stays at its size");
    }
}

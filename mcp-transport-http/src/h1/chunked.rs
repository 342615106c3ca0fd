//! The chunked transfer coding (RFC 9112 section 7.1), decoded in place:
//! each piece of chunk data is left in the connection's read buffer, to
//! be read there or split off as a view of it, never copied. Size lines
//! and trailers are bounded; extensions and trailer fields are read past
//! and dropped.

use bytes::{Buf, BytesMut};

use super::wire::WireError;

/// The longest chunk-size line (with its extensions) or trailer line.
const MAX_LINE: usize = 4 * 1024;

/// The most trailer bytes read after the last chunk.
const MAX_TRAILERS: usize = 16 * 1024;

/// Where the decoder is in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a chunk-size line.
    Size,
    /// Inside a chunk's data, this many bytes left.
    Data(u64),
    /// After a chunk's data, before its line end.
    DataEnd,
    /// After the last chunk, this many trailer bytes read.
    Trailers(usize),
    /// The body has ended.
    Done,
}

/// What [`Chunked::next_piece`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Chunk data: the buffer's first `len` bytes, then `then` bytes of
    /// line end to skip. Both are the caller's to consume.
    Data {
        /// The data's length.
        len: usize,
        /// The line end after it, when it is there already.
        then: usize,
    },
    /// More bytes must be read first.
    NeedMore,
    /// The body's end (the last chunk and its trailers).
    End,
}

/// The decoder of one chunked body.
#[derive(Debug)]
pub(crate) struct Chunked {
    state: State,
}

impl Chunked {
    /// A decoder at the start of a body.
    pub(crate) fn new() -> Self {
        Chunked { state: State::Size }
    }

    /// Decodes from the front of `buf` up to the next piece of chunk data,
    /// which it leaves there: its bytes are read in place, then consumed
    /// ([`Piece::Data`]). The decoder is past them already.
    pub(crate) fn next_piece(&mut self, buf: &mut BytesMut) -> Result<Piece, WireError> {
        loop {
            match self.state {
                State::Size => {
                    let size = match plain_size(buf) {
                        Some((size, len)) => {
                            buf.advance(len);
                            size
                        }
                        None => match take_line(buf, chunk_size)? {
                            Some(size) => size,
                            None => return Ok(Piece::NeedMore),
                        },
                    };
                    self.state = if size == 0 {
                        State::Trailers(0)
                    } else {
                        State::Data(size)
                    };
                }
                State::Data(left) => {
                    if buf.is_empty() {
                        return Ok(Piece::NeedMore);
                    }
                    let len = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
                    let rest = left - len as u64;
                    let mut then = 0;
                    self.state = match rest {
                        // The data's line end, when it is there already.
                        0 if buf[len..].starts_with(b"\r\n") => {
                            then = 2;
                            State::Size
                        }
                        0 => State::DataEnd,
                        _ => State::Data(rest),
                    };
                    return Ok(Piece::Data { len, then });
                }
                State::DataEnd => {
                    let ended = |line: &[u8]| match line.is_empty() {
                        true => Ok(()),
                        false => Err(WireError::Chunk("data longer than its chunk size")),
                    };
                    if take_line(buf, ended)?.is_none() {
                        return Ok(Piece::NeedMore);
                    }
                    self.state = State::Size;
                }
                State::Trailers(read) => {
                    let Some(len) = take_line(buf, |line| Ok(line.len()))? else {
                        return Ok(Piece::NeedMore);
                    };
                    let read = read + len + 2;
                    if read > MAX_TRAILERS {
                        return Err(WireError::Chunk("trailers too large"));
                    }
                    self.state = if len == 0 {
                        State::Done
                    } else {
                        State::Trailers(read)
                    };
                }
                State::Done => return Ok(Piece::End),
            }
        }
    }
}

impl Chunked {
    /// Whether the body ends within `buf` with no more data: what is left
    /// of it there is the last chunk and no trailers (`0\r\n\r\n`, after
    /// the line end of the chunk just read), so the steps to its end read
    /// nothing more from the connection. Other spellings of the end
    /// (extensions, trailers, bare line feeds) say `false`: the end comes
    /// all the same, only not known in advance.
    pub(crate) fn ends_within(&self, buf: &[u8]) -> bool {
        const LAST: &[u8] = b"0\r\n\r\n";
        match self.state {
            State::Done => true,
            State::Size => buf.starts_with(LAST),
            State::DataEnd => buf
                .strip_prefix(b"\r\n")
                .is_some_and(|rest| rest.starts_with(LAST)),
            State::Data(_) | State::Trailers(_) => false,
        }
    }
}

/// Takes one line off the front of `buf` and gives what `read` makes of
/// it (the line without its `\r\n`, or a bare `\n`), or `None` when it
/// has not all arrived. The line is read in place, not split off.
fn take_line<T>(
    buf: &mut BytesMut,
    read: impl FnOnce(&[u8]) -> Result<T, WireError>,
) -> Result<Option<T>, WireError> {
    let Some(end) = buf.iter().take(MAX_LINE + 1).position(|b| *b == b'\n') else {
        if buf.len() > MAX_LINE {
            return Err(WireError::Chunk("line too long"));
        }
        return Ok(None);
    };
    let line = &buf[..end];
    let value = read(line.strip_suffix(b"\r").unwrap_or(line))?;
    buf.advance(end + 1);
    Ok(Some(value))
}

/// A chunk-size line in its plainest spelling, hexadecimal digits and
/// `\r\n` (no extension, no space), read without a search for its end:
/// its size and its length. `None` for any other line (or one not all
/// there yet), which [`chunk_size`] reads; at most 15 digits either way.
fn plain_size(buf: &[u8]) -> Option<(u64, usize)> {
    let mut size = 0u64;
    for (at, &byte) in buf.iter().enumerate().take(16) {
        if byte == b'\r' {
            return (at > 0 && buf.get(at + 1) == Some(&b'\n')).then_some((size, at + 2));
        }
        size = size << 4 | u64::from(hex_digit(byte)?);
    }
    None
}

/// The value of one hexadecimal digit, either case.
fn hex_digit(byte: u8) -> Option<u32> {
    char::from(byte).to_digit(16)
}

/// The hexadecimal size at the start of a chunk-size line (extensions
/// after `;` are ignored).
fn chunk_size(line: &[u8]) -> Result<u64, WireError> {
    let digits = line
        .split(|b| *b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    if digits.is_empty() || digits.len() > 15 {
        return Err(WireError::Chunk("invalid chunk size"));
    }
    digits.iter().try_fold(0u64, |n, d| {
        let v = hex_digit(*d).ok_or(WireError::Chunk("invalid chunk size"))?;
        Ok(n << 4 | u64::from(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use proptest::prelude::*;

    /// A step of the decoder with its data split off the buffer, as the
    /// body's frames take it.
    #[derive(Debug, PartialEq, Eq)]
    enum Step {
        Data(Bytes),
        NeedMore,
        End,
    }

    impl Chunked {
        fn step(&mut self, buf: &mut BytesMut) -> Result<Step, WireError> {
            Ok(match self.next_piece(buf)? {
                Piece::Data { len, then } => {
                    let data = buf.split_to(len).freeze();
                    buf.advance(then);
                    Step::Data(data)
                }
                Piece::NeedMore => Step::NeedMore,
                Piece::End => Step::End,
            })
        }
    }

    /// Decodes `wire` arriving in pieces of `piece` bytes.
    fn decode(wire: &[u8], piece: usize) -> Result<Vec<u8>, WireError> {
        let mut decoder = Chunked::new();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        let mut chunks = wire.chunks(piece.max(1));
        loop {
            match decoder.step(&mut buf)? {
                Step::Data(d) => out.extend_from_slice(&d),
                Step::End => return Ok(out),
                Step::NeedMore => match chunks.next() {
                    Some(c) => buf.extend_from_slice(c),
                    None => return Err(WireError::Closed),
                },
            }
        }
    }

    #[test]
    fn decodes_chunks_extensions_and_trailers() {
        let wire = b"5;name=v\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nx-t: 1\r\n\r\n";
        for piece in [1, 2, 3, 7, wire.len()] {
            assert_eq!(decode(wire, piece).expect("decodes"), b"hello 0123456789");
        }
        assert_eq!(decode(b"3\nabc\n0\n\n", 1).expect("bare LF"), b"abc");
    }

    #[test]
    fn stops_at_the_end_and_leaves_what_follows() {
        let mut buf = BytesMut::from(&b"2\r\nok\r\n0\r\n\r\nHTTP/1.1"[..]);
        let mut d = Chunked::new();
        assert_eq!(
            d.step(&mut buf).expect("data"),
            Step::Data(Bytes::from_static(b"ok"))
        );
        assert_eq!(d.step(&mut buf).expect("end"), Step::End);
        assert_eq!(&buf[..], b"HTTP/1.1");
    }

    #[test]
    fn an_end_already_buffered_is_known_after_the_last_data() {
        let mut buf = BytesMut::from(&b"2\r\nok\r\n0\r\n\r\n"[..]);
        let mut d = Chunked::new();
        assert!(!d.ends_within(&buf));
        assert!(matches!(d.step(&mut buf), Ok(Step::Data(_))));
        assert!(d.ends_within(&buf));
        assert_eq!(d.step(&mut buf).expect("end"), Step::End);
        assert!(d.ends_within(&buf));
        // Not yet all there, more data, or trailers: not known.
        for rest in [
            &b"\r\n0\r\n"[..],
            b"\r\n1\r\nx\r\n0\r\n\r\n",
            b"\r\n0\r\nx: y\r\n\r\n",
        ] {
            let mut buf = BytesMut::from(&b"2\r\nok"[..]);
            buf.extend_from_slice(rest);
            let mut d = Chunked::new();
            assert!(matches!(d.step(&mut buf), Ok(Step::Data(_))));
            assert!(!d.ends_within(&buf), "{rest:?}");
        }
    }

    #[test]
    fn broken_framing_is_an_error_not_a_hang() {
        for bad in [
            &b"zz\r\n"[..],
            b"\r\n",
            b"1234567890abcdef0\r\n",
            b"2\r\nabc\r\n",
        ] {
            assert!(
                matches!(decode(bad, 1), Err(WireError::Chunk(_))),
                "{bad:?}"
            );
        }
        let long = vec![b'1'; MAX_LINE + 2];
        assert!(matches!(
            decode(&long, 64),
            Err(WireError::Chunk("line too long"))
        ));
        let mut trailers = b"0\r\n".to_vec();
        for _ in 0..(MAX_TRAILERS / 8) {
            trailers.extend_from_slice(b"a: bcd\r\n");
        }
        trailers.extend_from_slice(b"x: y\r\n\r\n");
        assert!(matches!(
            decode(&trailers, 512),
            Err(WireError::Chunk("trailers too large"))
        ));
        assert!(matches!(decode(b"5\r\nhel", 2), Err(WireError::Closed)));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_end_in_data_an_end_or_a_typed_error(
            wire in proptest::collection::vec(any::<u8>(), 0..600),
            piece in 1usize..64,
        ) {
            // Never a panic or a loop: the decode finishes, one way or another.
            let _ = decode(&wire, piece);
        }

        #[test]
        fn a_plain_size_line_reads_as_any_size_line_does(
            line in proptest::collection::vec(
                proptest::sample::select(b"0123456789abcdefABCDEFxz; \r\n".to_vec()),
                0..20,
            ),
        ) {
            if let Some((size, len)) = plain_size(&line) {
                let mut buf = BytesMut::from(&line[..]);
                prop_assert_eq!(take_line(&mut buf, chunk_size).ok(), Some(Some(size)));
                prop_assert_eq!(buf.len(), line.len() - len);
            }
        }

        #[test]
        fn any_chunking_of_any_body_decodes_to_it(
            body in proptest::collection::vec(any::<u8>(), 0..2000),
            sizes in proptest::collection::vec(1usize..300, 1..20),
            piece in 1usize..64,
        ) {
            let mut wire = Vec::new();
            let mut rest = &body[..];
            for size in sizes.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (chunk, tail) = rest.split_at((*size).min(rest.len()));
                // Upper and lower case hex, as servers write both.
                let size = match chunk.len() % 2 {
                    0 => format!("{:x}\r\n", chunk.len()),
                    _ => format!("{:X}\r\n", chunk.len()),
                };
                wire.extend_from_slice(size.as_bytes());
                wire.extend_from_slice(chunk);
                wire.extend_from_slice(b"\r\n");
                rest = tail;
            }
            wire.extend_from_slice(b"0\r\n\r\n");
            prop_assert_eq!(decode(&wire, piece).expect("decodes"), body);
        }
    }
}

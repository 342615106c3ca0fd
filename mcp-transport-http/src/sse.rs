//! A pure, incremental Server-Sent Events parser.
//!
//! It follows the WHATWG event-stream interpretation: `LF`, `CRLF` and a lone
//! `CR` all end a line, and a line boundary may fall anywhere across chunks,
//! including between the `CR` and the `LF` of one `CRLF`. Lines starting with
//! `:` are comments (keep-alives). `data:` lines accumulate, joined by `LF`;
//! `id:` sets the last event id (ignored when it contains a NUL); `retry:`
//! sets the reconnection delay when it is all ASCII digits; a blank line
//! dispatches the event. A leading byte order mark is ignored.
//!
//! The parser is bounded: the bytes of one event's lines (terminators
//! excluded), including a partial line still waiting for its end, may not
//! exceed a cap. Past it the parser fails with [`SseError::EventTooLarge`]
//! and stays failed. The outcome never depends on how the input is chunked.
//!
//! ```
//! use mcp_transport_http::sse::SseParser;
//! let mut parser = SseParser::new(1024);
//! let mut events = Vec::new();
//! parser.feed(b"id: 7\r\ndata: {\"a\":\r", &mut events).unwrap();
//! parser.feed(b"\ndata: 1}\r\n\r\n", &mut events).unwrap();
//! assert_eq!(events.len(), 1);
//! assert_eq!(events[0].data, b"{\"a\":\n1}");
//! assert_eq!(parser.last_event_id(), Some("7"));
//! ```

use std::time::Duration;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseEvent {
    /// The `event:` type, when one was given (`None` means `message`).
    pub event: Option<String>,
    /// The event data: the `data:` lines joined by `LF`.
    pub data: Vec<u8>,
    /// The last event id in force when this event was dispatched.
    pub id: Option<String>,
}

impl SseEvent {
    /// Whether this is a plain `message` event (no type, or `message`).
    pub fn is_message(&self) -> bool {
        self.event.as_deref().is_none_or(|t| t == "message")
    }
}

/// A fault in the event stream (the server's fault).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// One event grew past the configured cap.
    #[error("server-sent event larger than the {limit}-byte limit")]
    EventTooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The incremental parser. Feed it chunks as they arrive.
#[derive(Debug)]
pub struct SseParser {
    limit: usize,
    /// The current, unfinished line.
    line: Vec<u8>,
    /// The previous chunk ended with `CR`: skip one leading `LF`.
    skip_lf: bool,
    /// No line has been completed yet (BOM handling).
    at_start: bool,
    /// Bytes of the completed lines of the current event.
    event_bytes: usize,
    data: Vec<u8>,
    has_data: bool,
    event_type: Option<String>,
    last_id: LastId,
    retry: Option<Duration>,
    failed: Option<SseError>,
    /// Whether each event carries the last event id (a copy per event).
    event_ids: bool,
}

impl SseParser {
    /// A parser whose events may not exceed `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            limit: max_event_bytes,
            line: Vec::new(),
            skip_lf: false,
            at_start: true,
            event_bytes: 0,
            data: Vec::new(),
            has_data: false,
            event_type: None,
            last_id: LastId::default(),
            retry: None,
            failed: None,
            event_ids: true,
        }
    }

    /// A parser whose events carry no id (`SseEvent::id` is `None`), for a
    /// reader that only needs [`SseParser::last_event_id`]: it saves a copy
    /// of the id per event.
    pub(crate) fn without_event_ids(mut self) -> Self {
        self.event_ids = false;
        self
    }

    /// The last event id seen (`id:` field), if any.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.get()
    }

    /// The last reconnection delay the server asked for (`retry:`), if any.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Feeds one chunk, appending every event it completes to `out`.
    ///
    /// # Errors
    /// [`SseError::EventTooLarge`] when an event exceeds the cap; the parser
    /// then stays failed. Events completed before the fault are in `out`.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        while let Some(event) = self.next_event(&mut chunk)? {
            out.push(event);
        }
        Ok(())
    }

    /// Reads lines off the front of `chunk` up to the end of the next
    /// event and gives it, leaving in `chunk` what follows it; `None` once
    /// the chunk is used up (its unfinished last line kept for the next
    /// chunk). [`SseParser::feed`] one event at a time, for a reader that
    /// handles each event as it comes (and may stop after one) without
    /// collecting them first.
    ///
    /// # Errors
    /// As [`SseParser::feed`]'s, once the events before the fault are given.
    ///
    /// ```
    /// use mcp_transport_http::sse::SseParser;
    /// let mut parser = SseParser::new(1024);
    /// let mut chunk = &b"data: a\n\ndata: b\n\ndata: c"[..];
    /// assert_eq!(parser.next_event(&mut chunk).unwrap().unwrap().data, b"a");
    /// assert_eq!(chunk, b"data: b\n\ndata: c");
    /// assert_eq!(parser.next_event(&mut chunk).unwrap().unwrap().data, b"b");
    /// assert!(parser.next_event(&mut chunk).unwrap().is_none());
    /// assert!(chunk.is_empty());
    /// ```
    pub fn next_event(&mut self, chunk: &mut &[u8]) -> Result<Option<SseEvent>, SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let mut rest = *chunk;
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        // Whether the cap may be reached within this chunk: when the event
        // so far and the whole chunk fit under it (most chunks), no line of
        // the chunk needs its own check.
        let roomy = self.fits(rest.len());
        while let Some(pos) = memchr::memchr2(b'\n', b'\r', rest) {
            let head = &rest[..pos];
            let terminator = rest[pos];
            rest = &rest[pos + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            *chunk = rest;
            if !roomy {
                self.check(head.len())?;
            }
            let event = if self.line.is_empty() {
                // The whole line is in this chunk: read where it is.
                self.process_line(head)
            } else {
                // Its start came in an earlier chunk; its buffer is kept
                // (emptied) for the next line that spans chunks.
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                let event = self.process_line(&line);
                line.clear();
                self.line = line;
                event
            };
            if event.is_some() {
                return Ok(event);
            }
        }
        *chunk = &[];
        if !roomy {
            self.check(rest.len())?;
        }
        self.line.extend_from_slice(rest);
        Ok(None)
    }

    /// Whether the current event (its lines and its partial line) and
    /// `extra` more bytes fit under the cap.
    fn fits(&self, extra: usize) -> bool {
        self.event_bytes
            .saturating_add(self.line.len())
            .saturating_add(extra)
            <= self.limit
    }

    /// Fails when the current event plus `extra` pending bytes exceed the cap.
    fn check(&mut self, extra: usize) -> Result<(), SseError> {
        if !self.fits(extra) {
            let err = SseError::EventTooLarge { limit: self.limit };
            self.failed = Some(err.clone());
            self.line = Vec::new();
            self.data = Vec::new();
            return Err(err);
        }
        Ok(())
    }

    /// Reads one whole line (without its terminator): the event a blank
    /// line dispatches, `None` for any other.
    fn process_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        let line = match std::mem::take(&mut self.at_start) {
            true => line.strip_prefix(BOM).unwrap_or(line),
            false => line,
        };
        if line.is_empty() {
            return self.dispatch();
        }
        self.event_bytes += line.len();
        if line[0] == b':' {
            return None;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                // Lines joined by LF; a one-line event's data allocated at
                // its size once (a `Bytes` made of it needs no header).
                if self.has_data {
                    self.data.push(b'\n');
                } else {
                    self.data.reserve_exact(value.len());
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => self.event_type = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" if !value.contains(&0) => match std::str::from_utf8(value) {
                Ok(id) => self.last_id.set(id),
                Err(_) => self.last_id.set(&String::from_utf8_lossy(value)),
            },
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let millis = value.iter().fold(0u64, |acc, d| {
                    acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                });
                self.retry = Some(Duration::from_millis(millis));
            }
            _ => {}
        }
        None
    }

    /// Ends the current event: the event, unless it has no data.
    fn dispatch(&mut self) -> Option<SseEvent> {
        self.event_bytes = 0;
        let event_type = self.event_type.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        let data = std::mem::take(&mut self.data);
        Some(SseEvent {
            event: event_type.filter(|t| !t.is_empty()),
            data,
            id: match self.event_ids {
                true => self.last_id.get().map(str::to_owned),
                false => None,
            },
        })
    }
}

/// How long an event id [`LastId`] keeps in place.
const SHORT_ID: usize = 30;

/// A stream's last event id: a short one (most are: a counter, a
/// stream's number and a counter) in place, a longer one in a `String`
/// whose room the next long one reuses. A stream's parser is made for each
/// POST that answers with one, and most never hand their id to anyone
/// (the reply came): no allocation for it. The stream that outlives its
/// parsers (`stream.rs`) keeps its own the same way.
#[derive(Default)]
pub(crate) enum LastId {
    #[default]
    None,
    Short {
        len: u8,
        bytes: [u8; SHORT_ID],
    },
    Long(String),
}

impl std::fmt::Debug for LastId {
    /// The id as text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl LastId {
    /// The id, if one was set.
    pub(crate) fn get(&self) -> Option<&str> {
        match self {
            LastId::None => None,
            // Written from a `str` (`set`): always UTF-8.
            LastId::Short { len, bytes } => std::str::from_utf8(&bytes[..usize::from(*len)]).ok(),
            LastId::Long(id) => Some(id),
        }
    }

    /// Replaces the id with `id`.
    pub(crate) fn set(&mut self, id: &str) {
        match (u8::try_from(id.len()), self) {
            (Ok(len), this) if id.len() <= SHORT_ID => {
                let mut bytes = [0; SHORT_ID];
                bytes[..id.len()].copy_from_slice(id.as_bytes());
                *this = LastId::Short { len, bytes };
            }
            (_, LastId::Long(last)) => {
                last.clear();
                last.push_str(id);
            }
            (_, this) => *this = LastId::Long(id.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(input: &[u8]) -> Vec<SseEvent> {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        p.feed(input, &mut out).unwrap();
        out
    }

    #[test]
    fn all_line_endings_and_multiline_data() {
        for sep in ["\n", "\r\n", "\r"] {
            let text = format!("data: a{sep}data:b{sep}: comment{sep}{sep}");
            let events = parse(text.as_bytes());
            assert_eq!(events.len(), 1, "separator {sep:?}");
            assert_eq!(events[0].data, b"a\nb");
        }
    }

    #[test]
    fn one_line_data_is_allocated_at_its_size() {
        for input in [&b"data: {\"id\":1}\n\n"[..], b"id: 7\ndata: {}\r\n\r\n"] {
            let events = parse(input);
            assert_eq!(events[0].data.len(), events[0].data.capacity());
        }
        // Lines from several chunks are joined as from one.
        let mut p = SseParser::new(100);
        let mut out = Vec::new();
        for piece in [&b"da"[..], b"ta: a", b"b\ndata:", b" c\n", b"\n"] {
            p.feed(piece, &mut out).unwrap();
        }
        assert_eq!(out[0].data, b"ab\nc");
    }

    #[test]
    fn cr_then_lf_across_chunks_is_one_line_end() {
        let mut p = SseParser::new(100);
        let mut out = Vec::new();
        p.feed(b"data: x\r", &mut out).unwrap();
        p.feed(b"\n\r", &mut out).unwrap();
        assert_eq!(out.len(), 1);
        p.feed(b"\ndata: y\n\n", &mut out).unwrap();
        // The LF after the second CR belongs to it: no extra blank line.
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].data, b"y");
    }

    #[test]
    fn id_retry_and_priming_event() {
        let mut p = SseParser::new(100);
        let mut out = Vec::new();
        p.feed(b"id: 1\nretry: 250\ndata:\n\n", &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert!(out[0].data.is_empty());
        assert_eq!(p.last_event_id(), Some("1"));
        assert_eq!(p.retry(), Some(Duration::from_millis(250)));
        p.feed(b"retry: 1x\nid: a\0b\n\n", &mut out).unwrap();
        assert_eq!(p.retry(), Some(Duration::from_millis(250)));
        assert_eq!(p.last_event_id(), Some("1"));
        assert_eq!(out.len(), 1, "no data, no dispatch");
        // Each id replaces the one before, longer or shorter.
        p.feed(b"id: 1234\ndata: a\n\nid: 5\ndata: b\n\n", &mut out)
            .unwrap();
        assert_eq!(p.last_event_id(), Some("5"));
        let ids: Vec<_> = out[1..].iter().map(|e| e.id.as_deref()).collect();
        assert_eq!(ids, [Some("1234"), Some("5")]);
        // An id that is not UTF-8 is kept with its bad bytes replaced.
        p.feed(b"id: a\xffb\n\n", &mut out).unwrap();
        assert_eq!(p.last_event_id(), Some("a\u{fffd}b"));
    }

    #[test]
    fn long_and_short_ids_follow_each_other() {
        let mut p = SseParser::new(1000);
        let mut out = Vec::new();
        let long = "l".repeat(SHORT_ID + 1);
        let at_most = "s".repeat(SHORT_ID);
        for id in [long.as_str(), "1", at_most.as_str(), &long, &long[1..], ""] {
            p.feed(format!("id: {id}\ndata: x\n\n").as_bytes(), &mut out)
                .unwrap();
            assert_eq!(p.last_event_id(), Some(id));
            assert_eq!(out.last().and_then(|e| e.id.as_deref()), Some(id));
        }
        p.feed(b"id: 7\n\n", &mut out).unwrap();
        assert!(format!("{p:?}").contains(r#"last_id: Some("7")"#), "{p:?}");
    }

    #[test]
    fn without_event_ids_only_the_last_id_is_kept() {
        let mut p = SseParser::new(100).without_event_ids();
        let mut out = Vec::new();
        p.feed(b"id: 7\ndata: a\n\nid: 8\ndata: b\n\n", &mut out)
            .unwrap();
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|e| e.id.is_none()));
        assert_eq!(p.last_event_id(), Some("8"));
    }

    #[test]
    fn event_type_field_without_colon_and_bom() {
        let events = parse(b"\xEF\xBB\xBFevent: ping\ndata\n\n");
        assert_eq!(events[0].event.as_deref(), Some("ping"));
        assert!(!events[0].is_message());
        assert_eq!(events[0].data, b"");
    }

    proptest::proptest! {
        /// Events read one at a time, the rest of each chunk handed back,
        /// are the events `feed` collects, however the input is cut.
        #[test]
        fn next_event_gives_what_feed_collects(
            lines in proptest::collection::vec(
                proptest::sample::select(vec![
                    "data: a", "data:b", "id: 7", "retry: 5", ": c", "event: x", "", "data",
                ]),
                0..24,
            ),
            ends in proptest::collection::vec(proptest::sample::select(vec!["\n", "\r", "\r\n"]), 24),
            cut in 0usize..64,
        ) {
            let text: String = lines.iter().zip(&ends).map(|(l, e)| format!("{l}{e}")).collect();
            let whole = parse(text.as_bytes());
            let mut p = SseParser::new(1 << 20);
            let mut got = Vec::new();
            let (a, b) = text.as_bytes().split_at(cut.min(text.len()));
            for piece in [a, b] {
                let mut chunk = piece;
                while let Some(event) = p.next_event(&mut chunk).unwrap() {
                    got.push(event);
                }
                proptest::prop_assert!(chunk.is_empty());
            }
            proptest::prop_assert_eq!(got, whole);
        }

        /// Under a cap, the events given before the fault and the fault
        /// itself do not depend on how the input is cut either.
        #[test]
        fn the_cap_holds_however_the_input_is_cut(
            lines in proptest::collection::vec(
                proptest::sample::select(vec!["data: abc", "id: 12", ": c", "", "data: x"]),
                0..6,
            ),
            limit in 0usize..24,
            cut in 0usize..64,
        ) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let run = |pieces: &[&[u8]]| {
                let mut p = SseParser::new(limit);
                let mut out = Vec::new();
                let fault = pieces.iter().find_map(|piece| p.feed(piece, &mut out).err());
                (out, fault)
            };
            let (a, b) = text.as_bytes().split_at(cut.min(text.len()));
            let whole = run(&[text.as_bytes()]);
            proptest::prop_assert_eq!(run(&[a, b]), whole.clone());
            // The fault comes exactly when an event's lines outgrow the cap.
            let mut bytes = 0;
            let over = lines.iter().any(|l| {
                bytes = if l.is_empty() { 0 } else { bytes + l.len() };
                bytes > limit
            });
            proptest::prop_assert_eq!(whole.1.is_some(), over);
        }
    }

    #[test]
    fn the_cap_counts_every_line_of_an_event_in_one_chunk_or_two() {
        // The second event's lines (6 + 7 bytes) outgrow a cap of 11 that
        // the whole input (23 bytes with its line ends) also outgrows, and
        // that its first 16 bytes do not: each piece's lines are checked.
        let text = b"data: x\n\nid: 12\ndata: x\n";
        for pieces in [&[&text[..]][..], &[&text[..16], &text[16..]]] {
            let mut p = SseParser::new(11);
            let mut out = Vec::new();
            let fault = pieces
                .iter()
                .find_map(|piece| p.feed(piece, &mut out).err());
            assert_eq!(fault, Some(SseError::EventTooLarge { limit: 11 }));
            assert_eq!(out.len(), 1);
        }
    }

    #[test]
    fn cap_is_enforced_and_sticky() {
        let mut p = SseParser::new(8);
        let mut out = Vec::new();
        p.feed(b"data: 1\n\n", &mut out).unwrap();
        assert_eq!(
            p.feed(b"data: 123456789", &mut out),
            Err(SseError::EventTooLarge { limit: 8 })
        );
        assert!(p.feed(b"\n\n", &mut out).is_err());
        assert_eq!(out.len(), 1);
    }
}

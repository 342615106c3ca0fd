//! The canonical text of the commonest result there is, a tool's text
//! blocks, as servers write it: `{"content":[{"type":"text","text":"..."},...]}`,
//! no whitespace anywhere, texts without escapes or control characters,
//! and after the list, each perhaps absent, in this order: `"isError":true`
//! or `false`, 2026-07-28's `"resultType":"..."` (a plain string) and a
//! `_meta` object of plain JSON (`meta::plain_end`, the server's
//! `serverInfo`). The `resultType` may come first instead, before
//! `content` (rmcp writes it there).
//!
//! Such a text is matched here by its fixed bytes, with no walk token by
//! token: the envelope's read finds where such a result ends and notes its
//! head (`resultType`, the checked `_meta`), and the tool result's reader
//! builds the result from it. Anything else (whitespace, members in
//! another order, another member or block, an escape) is not matched, and
//! is read by the walks as before, to the same reading.

use std::ops::Range;

use super::scan::{plain_len, text_len};

/// How a block's text is scanned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Texts {
    /// It must be plain (no escape, no control character): the reader
    /// takes it as it is. A text at the range given (where the envelope's
    /// read found a plain one, [`TextBlocks::first_plain_text`]) is not
    /// scanned again.
    Plain(Option<Range<usize>>),
    /// Any string: its end is wanted, and whether it is plain (the
    /// envelope's read, which steps over a string as its walk does,
    /// leaving its check to the reader).
    Ends,
}

/// Where a canonical result's parts are.
pub(crate) struct TextBlocks {
    /// Just past the result's closing brace.
    pub(crate) end: usize,
    /// `isError`, when the result has it.
    pub(crate) is_error: Option<bool>,
    /// Where the first long plain text is (inside its quotes), when the
    /// texts were scanned for their ends ([`Texts::Ends`]) and one was
    /// (`scan::text_len` checks only a long one on its way: a short one is
    /// cheap to scan again).
    pub(crate) first_plain_text: Option<Range<usize>>,
    /// `resultType`'s value, quotes included, when the result has it.
    pub(crate) result_type: Option<Range<usize>>,
    /// `_meta`'s value, checked, when the result has it.
    pub(crate) meta: Option<Range<usize>>,
}

/// Matches the canonical text-blocks result at `s[start]`, its texts
/// scanned as `texts` says, calling `on_text` with where each block's text
/// is (inside its quotes), in order. A `_meta` at `checked_meta` was checked already (by the
/// envelope's read) and is not checked again. `None` when the text there
/// is not in that form (whatever `on_text` was called with before is then
/// to be discarded).
pub(crate) fn text_blocks(
    s: &[u8],
    start: usize,
    texts: Texts,
    checked_meta: Option<Range<usize>>,
    mut on_text: impl FnMut(Range<usize>),
) -> Option<TextBlocks> {
    const HEAD: &[u8] = br#"{"content":["#;
    const TYPE_FIRST: &[u8] = br#"{"resultType":""#;
    const THEN_CONTENT: &[u8] = br#","content":["#;
    const BLOCK: &[u8] = br#"{"type":"text","text":""#;
    let mut head = Cursor { s, at: start };
    let mut result_type = None;
    if !head.eat(HEAD) {
        if !head.eat(TYPE_FIRST) {
            return None;
        }
        result_type = Some(head.plain_string()?);
        if !head.eat(THEN_CONTENT) {
            return None;
        }
    }
    let mut at = head.at;
    let mut first_plain_text = None;
    if s.get(at) == Some(&b']') {
        at += 1;
    } else {
        loop {
            if !s.get(at..)?.starts_with(BLOCK) {
                return None;
            }
            at += BLOCK.len();
            let len = match &texts {
                Texts::Plain(Some(known)) if known.start == at => known.len(),
                Texts::Plain(_) => plain_len(s.get(at..)?)?,
                Texts::Ends => {
                    let (len, plain) = text_len(s.get(at..)?)?;
                    if plain && first_plain_text.is_none() {
                        first_plain_text = Some(at..at + len);
                    }
                    len
                }
            };
            // Past the closing quote: the block's end, then the list's next
            // block or its end.
            let next = s.get(at + len + 1..at + len + 3)?;
            if !matches!(next, b"}," | b"}]") {
                return None;
            }
            on_text(at..at + len);
            at += len + 3;
            if next == b"}]" {
                break;
            }
        }
    }
    // Most results end with their list.
    if s.get(at) == Some(&b'}') {
        return Some(TextBlocks {
            end: at + 1,
            is_error: None,
            first_plain_text,
            result_type,
            meta: None,
        });
    }
    let mut tail = Cursor { s, at };
    let is_error = if tail.eat(br#","isError":false"#) {
        Some(false)
    } else if tail.eat(br#","isError":true"#) {
        Some(true)
    } else {
        None
    };
    // A second `resultType` is left to the walks (serde's error).
    if result_type.is_none() && tail.eat(br#","resultType":""#) {
        result_type = Some(tail.plain_string()?);
    }
    let meta = if tail.eat(br#","_meta":"#) {
        let from = tail.at;
        let end = match checked_meta {
            Some(m) if m.start == from => m.end,
            _ => crate::meta::plain_end(s, from)?,
        };
        tail.at = end;
        Some(from..end)
    } else {
        None
    };
    if !tail.eat(b"}") {
        return None;
    }
    Some(TextBlocks {
        end: tail.at,
        is_error,
        first_plain_text,
        result_type,
        meta,
    })
}

/// Where the match is in the members around the list, read in their order.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    /// Steps over `bytes` when they come next.
    #[inline]
    fn eat(&mut self, bytes: &[u8]) -> bool {
        let here = self.s.get(self.at..).is_some_and(|r| r.starts_with(bytes));
        if here {
            self.at += bytes.len();
        }
        here
    }

    /// Steps over the rest of a plain string whose opening quote was just
    /// eaten; where the string is, quotes included.
    #[inline]
    fn plain_string(&mut self) -> Option<Range<usize>> {
        let opening = self.at - 1;
        self.at += plain_len(self.s.get(self.at..)?)? + 1;
        Some(opening..self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Found<'a> = (
        Vec<&'a str>,
        usize,
        Option<bool>,
        Option<&'a str>,
        Option<&'a str>,
    );

    fn texts(s: &str, start: usize) -> Option<Found<'_>> {
        let mut found = Vec::new();
        let m = text_blocks(s.as_bytes(), start, Texts::Plain(None), None, |r| {
            found.push(&s[r])
        })?;
        let part = |r: Option<Range<usize>>| r.map(|r| &s[r]);
        Some((found, m.end, m.is_error, part(m.result_type), part(m.meta)))
    }

    #[test]
    fn the_canonical_form_is_matched_wherever_it_starts_and_ends() {
        let r =
            r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"é"}],"isError":true}"#;
        assert_eq!(
            texts(r, 0),
            Some((vec!["a", "é"], r.len(), Some(true), None, None))
        );
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{r}}}"#);
        let start = line.find(r#"{"content""#).unwrap();
        assert_eq!(
            texts(&line, start),
            Some((vec!["a", "é"], start + r.len(), Some(true), None, None))
        );
        assert_eq!(
            texts(r#"{"content":[]}"#, 0),
            Some((vec![], 14, None, None, None))
        );
        let no_error = r#"{"content":[],"isError":false}"#;
        assert_eq!(
            texts(no_error, 0),
            Some((vec![], no_error.len(), Some(false), None, None))
        );
    }

    #[test]
    fn a_2026_result_type_and_a_plain_meta_are_matched_after_the_list() {
        let meta = r#"{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}"#;
        let r = format!(
            r#"{{"content":[{{"type":"text","text":"hi"}}],"resultType":"complete","_meta":{meta}}}"#
        );
        assert_eq!(
            texts(&r, 0),
            Some((vec!["hi"], r.len(), None, Some(r#""complete""#), Some(meta)))
        );
        let r = format!(r#"{{"content":[],"isError":true,"_meta":{meta}}}"#);
        assert_eq!(
            texts(&r, 0),
            Some((vec![], r.len(), Some(true), None, Some(meta)))
        );
        // A `_meta` noted as checked is taken as it is noted.
        let m = r.find(meta).unwrap()..r.len() - 1;
        let found =
            text_blocks(r.as_bytes(), 0, Texts::Plain(None), Some(m.clone()), |_| {}).unwrap();
        assert_eq!(found.meta, Some(m));
    }

    #[test]
    fn the_notes_are_those_the_member_walk_takes() {
        for r in [
            r#"{"content":[{"type":"text","text":"a"}]}"#,
            r#"{"content":[],"isError":true,"resultType":"complete"}"#,
            r#"{"content":[{"type":"text","text":"b"}],"resultType":"input_required","_meta":{"k":{"n":[1,-2.5,"s"]}}}"#,
            r#"{"content":[],"_meta":{}}"#,
            r#"{"resultType":"complete","content":[{"type":"text","text":"c"}],"isError":false,"_meta":{"k":1}}"#,
            r#"{"resultType":"complete","content":[]}"#,
            // Escapes do not stop the envelope's scan (only the reader's).
            r#"{"content":[{"type":"text","text":"q\"}],\\"}],"resultType":"complete"}"#,
        ] {
            let found = text_blocks(r.as_bytes(), 0, Texts::Ends, None, |_| {}).expect(r);
            let notes = super::super::HeadNotes::of(0, &found).expect(r);
            let (end, walked) = super::super::head::object_end_noting(r.as_bytes(), 0).expect(r);
            let walked = walked.expect(r);
            assert_eq!(found.end, end, "{r}");
            assert_eq!(notes.starts(), walked.starts(), "{r}");
            assert_eq!(notes.checked_meta(), walked.checked_meta(), "{r}");
        }
    }

    #[test]
    fn anything_else_is_not_matched() {
        for s in [
            r#"{ "content":[]}"#,
            r#"{"content":[{"type":"text","text":"a"}]"#,
            r#"{"content":[{"type":"text","text":"a\n"}]}"#,
            r#"{"content":[{"type":"text","text":"a"},]}"#,
            r#"{"content":[{"type":"text","text":"a"}{"type":"text","text":"b"}]}"#,
            r#"{"content":[{"type":"text","text":"a","x":1}]}"#,
            r#"{"content":[{"type":"image","data":""}]}"#,
            r#"{"content":[],"isError":null}"#,
            r#"{"content":[],"structuredContent":{}}"#,
            r#"{"content":[{"type":"text","text":"unterminated}]}"#,
            r#"{"content":["#,
            r#"{"content":[],"resultType":"complete","isError":true}"#,
            r#"{"content":[],"_meta":{},"resultType":"complete"}"#,
            r#"{"content":[],"resultType":"a\u0062"}"#,
            r#"{"content":[],"resultType":7}"#,
            r#"{"content":[],"_meta":{"n":1e3}}"#,
            r#"{"content":[],"_meta":[]}"#,
            r#"{"content":[],"_meta":{}"#,
            r#"{"resultType":"complete","content":[],"resultType":"complete"}"#,
            r#"{"resultType":"complete","isError":true,"content":[]}"#,
            r#"{"resultType":"a\nb","content":[]}"#,
        ] {
            assert!(texts(s, 0).is_none(), "{s}");
        }
    }
}

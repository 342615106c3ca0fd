//! The canonical text of the commonest result there is, a tool's text
//! blocks, as the official SDKs and rmcp write it:
//! `{"content":[{"type":"text","text":"..."},...]}`, perhaps with
//! `,"isError":true` or `false` after the list, no whitespace anywhere, and
//! texts without escapes or control characters.
//!
//! Such a text is matched here by its fixed bytes, with no walk token by
//! token: the envelope's read finds where such a result ends (it has no
//! head member to note), and the tool result's reader builds its blocks
//! from it. Anything else (whitespace, members in another order, another
//! member or block, an escape) is not matched, and is read by the walks as
//! before, to the same reading.

use std::ops::Range;

use super::scan::plain_len;

/// Where a canonical result's parts are.
pub(crate) struct TextBlocks {
    /// Just past the result's closing brace.
    pub(crate) end: usize,
    /// `isError`, when the result has it.
    pub(crate) is_error: Option<bool>,
}

/// Matches the canonical text-blocks result at `s[start]`, calling
/// `on_text` with where each block's text is (inside its quotes), in
/// order. `None` when the text there is not in that form (whatever
/// `on_text` was called with before is then to be discarded).
pub(crate) fn text_blocks(
    s: &[u8],
    start: usize,
    mut on_text: impl FnMut(Range<usize>),
) -> Option<TextBlocks> {
    const HEAD: &[u8] = br#"{"content":["#;
    const BLOCK: &[u8] = br#"{"type":"text","text":""#;
    if !s.get(start..)?.starts_with(HEAD) {
        return None;
    }
    let mut at = start + HEAD.len();
    if s.get(at) == Some(&b']') {
        at += 1;
    } else {
        loop {
            if !s.get(at..)?.starts_with(BLOCK) {
                return None;
            }
            at += BLOCK.len();
            let len = plain_len(s.get(at..)?)?;
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
    const NOT_ERROR: &[u8] = br#","isError":false}"#;
    const ERROR: &[u8] = br#","isError":true}"#;
    let rest = s.get(at..)?;
    let (is_error, len) = if rest.first() == Some(&b'}') {
        (None, 1)
    } else if rest.starts_with(NOT_ERROR) {
        (Some(false), NOT_ERROR.len())
    } else if rest.starts_with(ERROR) {
        (Some(true), ERROR.len())
    } else {
        return None;
    };
    Some(TextBlocks {
        end: at + len,
        is_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str, start: usize) -> Option<(Vec<&str>, usize, Option<bool>)> {
        let mut found = Vec::new();
        let m = text_blocks(s.as_bytes(), start, |r| found.push(&s[r]))?;
        Some((found, m.end, m.is_error))
    }

    #[test]
    fn the_canonical_form_is_matched_wherever_it_starts_and_ends() {
        let r =
            r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"é"}],"isError":true}"#;
        assert_eq!(texts(r, 0), Some((vec!["a", "é"], r.len(), Some(true))));
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{r}}}"#);
        let start = line.find(r#"{"content""#).unwrap();
        assert_eq!(
            texts(&line, start),
            Some((vec!["a", "é"], start + r.len(), Some(true)))
        );
        assert_eq!(texts(r#"{"content":[]}"#, 0), Some((vec![], 14, None)));
        let no_error = r#"{"content":[],"isError":false}"#;
        assert_eq!(
            texts(no_error, 0),
            Some((vec![], no_error.len(), Some(false)))
        );
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
        ] {
            assert!(texts(s, 0).is_none(), "{s}");
        }
    }
}

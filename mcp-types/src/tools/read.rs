//! A `tools/call` result read from its JSON text
//! ([`CallToolResult::from_json`]).
//!
//! Nearly every tool result is a list of text blocks, perhaps with
//! `isError`: `{"content":[{"type":"text","text":"..."}]}`. Such a result
//! is read here in one pass over its text: each byte is looked at once, and
//! a block's text becomes its `String` in one copy, without serde_json's
//! calls per key and per value. Every other member and every other block is
//! read by serde from its own text, and anything this reader does not take
//! exactly as serde would (an escape or a control character in a key or a
//! text, a repeated member, syntax it does not expect) hands the whole
//! result to serde, so the outcome is serde's, error and all. The
//! canonical text of such a result (no whitespace, the members in the
//! usual order, as the official SDKs write it) is matched by its bytes
//! before any walk.
//!
//! One difference remains, as for a received `_meta` (see
//! `meta/object.rs`): serde_json's nesting limit (128) is counted from a
//! member's value, read from its own text, not from the top of the result,
//! so a value nested 125 to 127 levels deep within itself may be accepted
//! where a whole-text read refuses it.

use std::ops::Range;

use serde::de::{DeserializeOwned, IgnoredAny};

use super::CallToolResult;
use crate::content::{ContentBlock, TextContent, room_for_one};
use crate::meta::{Meta, plain_end};
use crate::raw::RawJson;
use crate::raw::{Texts, plain_len, skip_ws, text_blocks, utf8};
use crate::results::ResultType;

impl CallToolResult {
    /// Reads a `tools/call` result from its JSON text: the same result, or
    /// the same error, as `serde_json::from_str`, at a fraction of the cost
    /// for the common shape (text blocks).
    ///
    /// ```
    /// use mcp_types::tools::CallToolResult;
    /// let r = CallToolResult::from_json(r#"{"content":[{"type":"text","text":"hi"}]}"#).unwrap();
    /// assert_eq!(r.text(), "hi");
    /// assert!(CallToolResult::from_json(r#"{"content":[{"type":"text"}]}"#).is_err());
    /// ```
    ///
    /// # Errors
    /// When the text is not JSON or not a `tools/call` result.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        if let Some(result) = canonical(text.as_bytes(), None, None, |at| text.get(at)) {
            return Ok(result);
        }
        read(text, None)
    }

    /// [`CallToolResult::from_json`] on a result as it came in its
    /// envelope: a `_meta` the envelope's walk already checked is not
    /// checked again.
    ///
    /// ```
    /// use mcp_types::Message;
    /// use mcp_types::tools::CallToolResult;
    /// let line = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"k":"v"}}}"#;
    /// let Ok(Message::Response(r)) = Message::from_slice(line) else { panic!() };
    /// let result = CallToolResult::from_raw(&r.result).unwrap();
    /// assert_eq!(result.meta.get("k"), Some(&serde_json::json!("v")));
    /// ```
    ///
    /// # Errors
    /// As [`CallToolResult::from_json`], and when the bytes are not UTF-8.
    #[inline]
    pub fn from_raw(raw: &RawJson) -> Result<Self, serde_json::Error> {
        // The canonical form's fixed bytes are ASCII: only its texts need
        // the UTF-8 check that the whole text needs otherwise.
        let bytes = raw.as_bytes();
        let text = |at: Range<usize>| utf8(&bytes[at]).ok();
        if let Some(result) = canonical(bytes, raw.checked_meta(), raw.plain_text(), text) {
            return Ok(result);
        }
        raw.decode_with(|text| read(text, raw.checked_meta()))
    }
}

/// Reads the result in `text` (not in its canonical form: the callers
/// tried that first), taking a `_meta` at `checked_meta` as checked; hands
/// serde anything the reader does not read as it would.
fn read(
    text: &str,
    checked_meta: Option<Range<usize>>,
) -> Result<CallToolResult, serde_json::Error> {
    let reader = Reader {
        text,
        at: 0,
        checked_meta,
    };
    match reader.result() {
        Some(result) => Ok(result),
        None => serde_json::from_str(text),
    }
}

/// The commonest result in its canonical form (`raw::text_blocks`),
/// read from its bytes, each text of it by `text` (`None`: not UTF-8);
/// `None` for any other text. A `_meta` at `checked_meta` is taken as
/// checked.
fn canonical<'a>(
    bytes: &'a [u8],
    checked_meta: Option<Range<usize>>,
    plain_text: Option<Range<usize>>,
    text: impl Fn(Range<usize>) -> Option<&'a str>,
) -> Option<CallToolResult> {
    let mut content = Vec::new();
    let mut broken = false;
    let found = text_blocks(bytes, 0, Texts::Plain(plain_text), checked_meta, |at| {
        room_for_one(&mut content);
        match text(at) {
            Some(t) => content.push(ContentBlock::Text(TextContent::new(t))),
            None => broken = true,
        }
    })?;
    if found.end != bytes.len() || broken {
        return None;
    }
    // Inside its quotes: a plain string is its own text.
    let result_type = match found.result_type {
        Some(r) => {
            let wire = r.start + 1..r.end - 1;
            // A known value's bytes are ASCII: no UTF-8 check for them.
            match ResultType::known_wire(&bytes[wire.clone()]) {
                Some(known) => Some(known),
                None => Some(ResultType::parse(text(wire)?)),
            }
        }
        None => None,
    };
    let meta = match found.meta {
        Some(m) => Meta::known(&bytes[m.clone()]).or_else(|| text(m).map(Meta::checked))?,
        None => Meta::default(),
    };
    Some(CallToolResult {
        meta,
        result_type,
        content,
        structured_content: None,
        is_error: found.is_error,
    })
}

/// Where the reader is in the text. Each step returns `None` for anything
/// it does not read exactly as serde would; the caller then hands the
/// whole text to serde.
struct Reader<'a> {
    text: &'a str,
    at: usize,
    /// Where a `_meta` already checked is (by the envelope's walk).
    checked_meta: Option<Range<usize>>,
}

impl<'a> Reader<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Skips whitespace; the byte there.
    fn peek(&mut self) -> Option<u8> {
        self.at = skip_ws(self.bytes(), self.at);
        self.bytes().get(self.at).copied()
    }

    /// Skips whitespace and `byte`.
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A string without escapes or control characters, as written.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.at;
        let len = plain_len(self.bytes().get(start..)?)?;
        self.at = start + len + 1;
        self.text.get(start..start + len)
    }

    /// The value here, read by serde from the text on (one pass: serde
    /// finds its end), and the reader past it.
    fn serde_value<T: DeserializeOwned>(&mut self) -> Option<T> {
        self.peek()?;
        let mut values = serde_json::Deserializer::from_str(self.text.get(self.at..)?).into_iter();
        let value = values.next()?.ok()?;
        self.at += values.byte_offset();
        Some(value)
    }

    /// A `resultType`: a plain string read here, anything else by serde.
    fn result_type(&mut self) -> Option<Option<ResultType>> {
        let start = self.at;
        match self.plain_string() {
            Some(s) => Some(Some(ResultType::parse(s))),
            None => {
                self.at = start;
                self.serde_value()
            }
        }
    }

    /// A `_meta`: kept as text when it is plain JSON, checked here
    /// (`meta::plain_end`) unless the envelope's walk checked it already;
    /// anything else read by serde.
    fn meta(&mut self) -> Option<Meta> {
        self.peek()?;
        let noted = self.checked_meta.as_ref().filter(|m| m.start == self.at);
        match noted
            .map(|m| m.end)
            .or_else(|| plain_end(self.bytes(), self.at))
        {
            Some(end) => {
                let text = self.text.get(self.at..end)?;
                let meta = Meta::known(text.as_bytes()).unwrap_or_else(|| Meta::checked(text));
                self.at = end;
                Some(meta)
            }
            None => self.serde_value(),
        }
    }

    /// After a member or an item: `true` for `,`, `false` at `close`.
    fn next_or(&mut self, close: u8) -> Option<bool> {
        let byte = self.peek()?;
        self.at += 1;
        match byte {
            b',' => Some(true),
            b if b == close => Some(false),
            _ => None,
        }
    }

    fn result(mut self) -> Option<CallToolResult> {
        let mut result = CallToolResult {
            meta: Default::default(),
            result_type: None,
            content: Vec::new(),
            structured_content: None,
            is_error: None,
        };
        self.eat(b'{')?;
        let mut more = self.peek()? != b'}';
        if !more {
            self.at += 1;
        }
        let mut seen = 0u8;
        while more {
            let key = self.plain_string()?;
            self.eat(b':')?;
            let bit = match key {
                "content" => 1,
                "isError" => 2,
                "structuredContent" => 4,
                "resultType" => 8,
                "_meta" => 16,
                _ => 0,
            };
            // A repeated member is serde's error to report.
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            match key {
                "content" => result.content = self.blocks()?,
                "isError" => result.is_error = self.serde_value()?,
                "structuredContent" => result.structured_content = self.serde_value()?,
                "resultType" => result.result_type = self.result_type()?,
                "_meta" => result.meta = self.meta()?,
                // Ignored, as serde ignores it, once it is checked to be JSON.
                _ => {
                    self.serde_value::<IgnoredAny>()?;
                }
            }
            more = self.next_or(b'}')?;
        }
        (skip_ws(self.bytes(), self.at) == self.text.len()).then_some(result)
    }

    /// A `content` array; the list grows as serde's read of it does
    /// (`content::room_for_one`).
    fn blocks(&mut self) -> Option<Vec<ContentBlock>> {
        self.eat(b'[')?;
        let mut blocks = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(blocks);
        }
        loop {
            let start = self.at;
            room_for_one(&mut blocks);
            // Each block made where it is pushed (a text block is written
            // into the list, not moved there).
            match self.plain_text_block() {
                Some(text) => blocks.push(ContentBlock::Text(TextContent::new(text))),
                None => {
                    self.at = start;
                    blocks.push(self.serde_value()?);
                }
            }
            if !self.next_or(b']')? {
                return Some(blocks);
            }
        }
    }

    /// The text of a block that is exactly `{"type":"text","text":"..."}`
    /// (any whitespace) with a plain text; `None` leaves the block to serde.
    fn plain_text_block(&mut self) -> Option<&'a str> {
        self.eat(b'{')?;
        if self.plain_string()? != "type" {
            return None;
        }
        self.eat(b':')?;
        if self.plain_string()? != "text" {
            return None;
        }
        self.eat(b',')?;
        if self.plain_string()? != "text" {
            return None;
        }
        self.eat(b':')?;
        let text = self.plain_string()?;
        self.eat(b'}')?;
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk's reading and serde's agree: both succeed with the same
    /// result, or both fail.
    fn agrees(text: &str) {
        same(text, CallToolResult::from_json(text));
        // As it comes in an envelope (its text trimmed there), its `_meta`
        // perhaps checked there.
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{text}}}"#);
        if let Ok(crate::Message::Response(r)) = crate::Message::from_slice(line.as_bytes()) {
            let raw = std::str::from_utf8(r.result.as_bytes()).unwrap();
            same(raw, CallToolResult::from_raw(&r.result));
        }
    }

    /// `ours` is serde's reading of `text`, or its error.
    fn same(text: &str, ours: Result<CallToolResult, serde_json::Error>) {
        let serde: Result<CallToolResult, _> = serde_json::from_str(text);
        match (&serde, &ours) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
            _ => panic!("{text}: serde {serde:?}, walk {ours:?}"),
        }
    }

    #[test]
    fn reads_what_serde_reads_and_refuses_what_it_refuses() {
        let cases = [
            r#"{"content":[{"type":"text","text":"hello"}]}"#,
            r#" { "content" : [ { "type" : "text" , "text" : "a b" } , {"type":"text","text":""} ] , "isError" : true } "#,
            r#"{"content":[],"isError":false}"#,
            r#"{"content":[],"isError":null}"#,
            r#"{"isError":1,"content":[]}"#,
            r#"{}"#,
            r#"{"content":[{"type":"text","text":"é\u00e9\n"}]}"#,
            r#"{"content":[{"type":"text","text":"tab	in"}]}"#,
            r#"{"content":[{"text":"first","type":"text"}]}"#,
            r#"{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}"#,
            r#"{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}"#,
            r#"{"content":[{"type":"hologram","frames":3}]}"#,
            r#"{"content":[{"type":"text"}]}"#,
            r#"{"content":[{"type":"text","text":7}]}"#,
            r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
            r#"{"content":[{"type":"text","text":"a"},]}"#,
            r#"{"content":[{"type":"text","text":"a"}],"content":[]}"#,
            r#"{"content":null}"#,
            r#"{"content":{}}"#,
            r#"{"content":[1]}"#,
            r#"{"content":[],"structuredContent":{"n":[1,2.5,null]}}"#,
            r#"{"content":[],"structuredContent":null}"#,
            r#"{"content":[],"resultType":"complete","_meta":{"k":"v"}}"#,
            r#"{"content":[],"resultType":"something_new"}"#,
            r#"{"content":[],"_meta":[]}"#,
            r#"{"content":[],"_meta":null}"#,
            r#"{"content":[],"_meta":{"a":{"b":[1,-2.5,"c",false]}},"resultType":null}"#,
            r#"{"content":[],"_meta":{"a":1,}}"#,
            r#"{"content":[],"_meta":{"a":01}}"#,
            r#"{"content":[],"resultType":7}"#,
            r#"{"content":[],"resultType":"input_required","_meta":{"deep":[[[[[]]]]]}}"#,
            r#"{"content":[],"other":{"deep":[true,false,null]}}"#,
            r#"{"content":[],"other":tru}"#,
            r#"{"content":[],"other":01}"#,
            r#"{"content":[]} x"#,
            r#"{"content":[] "isError":true}"#,
            r#"[]"#,
            r#""text""#,
            r#"{"content":[{"type":"text","text":"unterminated}]}"#,
            r#"{"cont\u0065nt":[{"type":"text","text":"escaped key"}]}"#,
        ];
        for case in cases {
            agrees(case);
        }
        let control = "{\"content\":[{\"type\":\"text\",\"text\":\"a\u{1}b\"}]}";
        agrees(control);
    }

    #[test]
    fn texts_in_blocks_of_the_canonical_form_are_read_as_serde_reads_them() {
        // Long and short texts, plain or not, in each place of the list:
        // the envelope's read notes the first plain one, and the reader
        // takes it from the note.
        let long = "long text ".repeat(30);
        let texts = [
            long.clone(),
            "short".to_owned(),
            String::new(),
            format!("{long}\\\"quoted\\\" and \\\\"),
            format!("\\n{long}"),
            format!("{long}\u{1}{long}"),
            format!("{long}\u{1f}"),
            "é".repeat(100),
        ];
        let block = |t: &str| format!(r#"{{"type":"text","text":"{t}"}}"#);
        for a in &texts {
            agrees(&format!(r#"{{"content":[{}]}}"#, block(a)));
            for b in &texts {
                agrees(&format!(
                    r#"{{"content":[{},{}],"isError":false,"resultType":"complete"}}"#,
                    block(a),
                    block(b)
                ));
            }
        }
    }

    #[test]
    fn canonical_texts_are_matched_by_their_bytes_and_read_as_serde_reads() {
        let canonical_texts = [
            r#"{"content":[]}"#,
            r#"{"content":[{"type":"text","text":"hello"}]}"#,
            r#"{"content":[{"type":"text","text":""},{"type":"text","text":"é ü"}]}"#,
            r#"{"content":[{"type":"text","text":"x"}],"isError":false}"#,
            r#"{"content":[],"isError":true}"#,
            r#"{"content":[{"type":"text","text":"x"}],"resultType":"complete","_meta":{"k":["v",1,null]}}"#,
            r#"{"content":[],"isError":false,"resultType":"input_required"}"#,
            r#"{"content":[],"_meta":{}}"#,
            r#"{"resultType":"complete","content":[{"type":"text","text":"r"}],"isError":true,"_meta":{"a":1}}"#,
        ];
        for text in canonical_texts {
            assert!(
                canonical(text.as_bytes(), None, None, |at| text.get(at)).is_some(),
                "{text}"
            );
            agrees(text);
        }
        let others = [
            r#"{"content":[{"type":"text","text":"a"}]} "#,
            r#"{"content":[{"type":"text","text":"a"}]}}"#,
            r#"{"content":[{"type":"text","text":"a"}]"#,
            r#"{"content":[{"type":"text","text":"a"},]}"#,
            r#"{"content":[{"type":"text","text":"a"}],"isError":null}"#,
            r#"{"content":[{"type":"text","text":"a"}],"isError":false,"x":1}"#,
            r#"{"content":[],"resultType":"complete","_meta":{"n":1e3}}"#,
            r#"{"content":[],"_meta":{"a":1},"_meta":{}}"#,
            r#"{"resultType":"complete","content":[],"resultType":"input_required"}"#,
            r#"{"content":[{"type":"text","text":"a\nb"}]}"#,
            r#"{"content":[{"type":"text","text":"a"}{"type":"text","text":"b"}]}"#,
            r#"{"content":[{"type":"text","text":"a","_meta":{}}]}"#,
            r#"{"content":[{"type":"text","text":"unterminated}]}"#,
            r#"{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}"#,
        ];
        for text in others {
            assert!(
                canonical(text.as_bytes(), None, None, |at| text.get(at)).is_none(),
                "{text}"
            );
            agrees(text);
        }
    }

    #[test]
    fn a_meta_seen_before_is_read_as_it_was_read_the_first_time() {
        // Plain (kept by the first read of a canonical result), escaped
        // and with an exponent (not plain: kept by serde's reading), and
        // one serde refuses (never kept).
        let metas = [
            r#"{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}"#,
            r#"{"k":"a\"b","n":1e3}"#,
            r#"{"n":1e999}"#,
        ];
        for meta in metas {
            let text = format!(r#"{{"content":[{{"type":"text","text":"x"}}],"_meta":{meta}}}"#);
            for _ in 0..2 {
                agrees(&text);
            }
        }
        // The second time, the result's `_meta` shares the first's text.
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[],"_meta":{}}}}}"#,
            metas[0]
        );
        let read = || {
            let Ok(crate::Message::Response(r)) = crate::Message::from_slice(line.as_bytes())
            else {
                panic!("{line}")
            };
            CallToolResult::from_raw(&r.result).unwrap()
        };
        let (first, second) = (read(), read());
        assert_eq!(first, second);
        assert!(first.meta.shares_text_with(&second.meta));
    }

    #[test]
    fn a_canonical_text_that_is_not_utf8_is_refused() {
        let mut bytes =
            br#"{"content":[{"type":"text","text":"ok"},{"type":"text","text":"x"}]}"#.to_vec();
        let at = bytes.iter().rposition(|&b| b == b'x').unwrap();
        bytes[at] = 0xff;
        let raw = RawJson::from_bytes(bytes::Bytes::from(bytes));
        assert!(CallToolResult::from_raw(&raw).is_err());
    }

    #[test]
    fn long_texts_are_checked_whole() {
        let long = "x".repeat(300);
        for bad in ["", "\\n", "\u{7}"] {
            let text = format!(r#"{{"content":[{{"type":"text","text":"{long}{bad}{long}"}}]}}"#);
            agrees(&text);
        }
    }

    mod props {
        use proptest::prelude::*;

        use super::agrees;

        /// A string literal: plain, or with escapes or control characters.
        fn string() -> impl Strategy<Value = String> {
            let piece = prop_oneof![
                4 => "[a-z é]{0,6}",
                1 => Just(r#"\""#.to_owned()),
                1 => Just(r"\u00e9".to_owned()),
                1 => Just("\u{1}".to_owned()),
                1 => Just("\t".to_owned()),
            ];
            prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()))
        }

        /// Whitespace, often none.
        fn ws() -> impl Strategy<Value = &'static str> {
            prop::sample::select(vec!["", "", "", " ", "\n\t "])
        }

        fn block() -> impl Strategy<Value = String> {
            prop_oneof![
                4 => (ws(), string()).prop_map(|(w, t)| format!(r#"{{{w}"type"{w}:{w}"text",{w}"text":{t}{w}}}"#)),
                1 => string().prop_map(|t| format!(r#"{{"text":{t},"type":"text"}}"#)),
                1 => string().prop_map(|t| format!(r#"{{"type":"text","text":{t},"annotations":{{"priority":0.5}}}}"#)),
                1 => Just(r#"{"type":"image","data":"AA==","mimeType":"image/png"}"#.to_owned()),
                1 => Just(r#"{"type":"text"}"#.to_owned()),
                1 => Just(r#"{"type":"new","x":[1,{}]}"#.to_owned()),
                1 => Just("7".to_owned()),
            ]
        }

        fn member() -> impl Strategy<Value = String> {
            let blocks = prop::collection::vec(block(), 0..4);
            prop_oneof![
                4 => (blocks, ws()).prop_map(|(b, w)| format!(r#""content":{w}[{w}{}{w}]"#, b.join(","))),
                1 => prop::sample::select(vec!["true", "false", "null", "0", "\"yes\""])
                    .prop_map(|v| format!(r#""isError":{v}"#)),
                1 => Just(r#""structuredContent":{"a":[1,2]}"#.to_owned()),
                1 => Just(r#""resultType":"complete""#.to_owned()),
                1 => string().prop_map(|v| format!(r#""resultType":{v}"#)),
                1 => Just(r#""_meta":{"k":{"n":1e3}}"#.to_owned()),
                1 => (string(), ws()).prop_map(|(v, w)| {
                    format!(r#""_meta":{w}{{{w}"k":{w}[{v},{w}-0.5,true,null,{{}}]{w},"n":{{"v":{v}}}}}"#)
                }),
                1 => string().prop_map(|v| format!(r#""other":{v}"#)),
            ]
        }

        /// A result, then perhaps broken by one byte removed or added.
        fn result() -> impl Strategy<Value = String> {
            let whole = (prop::collection::vec(member(), 0..4), ws())
                .prop_map(|(m, w)| format!("{w}{{{}}}{w}", m.join(&format!("{w},{w}"))));
            (
                whole,
                any::<prop::sample::Index>(),
                0u8..4,
                prop::sample::select(vec![",", "]", "}", "\"", ":", "x"]),
            )
                .prop_map(|(text, at, how, extra)| {
                    let i = at.index(text.len() + 1);
                    if !text.is_char_boundary(i) {
                        return text;
                    }
                    match how {
                        0 if i < text.len() && text.is_char_boundary(i + 1) => {
                            format!("{}{}", &text[..i], &text[i + 1..])
                        }
                        1 => format!("{}{extra}{}", &text[..i], &text[i..]),
                        _ => text,
                    }
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            #[test]
            fn the_walk_reads_as_serde_reads(text in result()) {
                agrees(&text);
            }
        }
    }
}

//! The floor's request templates and its borrowed reply: a request is two
//! constant byte strings around the id; a reply is parsed in place into a
//! struct that borrows the result's text from the read buffer.

use std::borrow::Cow;

use serde::Deserialize;

use crate::measure::Args;

/// A `tools/call` request as bytes: `head`, the id in decimal, `tail`.
pub struct Template {
    head: &'static [u8],
    tail: Vec<u8>,
}

impl Template {
    /// The request `args` asks for, at its revision, with a trailing
    /// newline when `newline`.
    pub fn new(args: &Args, newline: bool) -> Template {
        let meta = if args.era == "modern" {
            r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"floor","version":"0"}}"#
        } else {
            ""
        };
        let tail = format!(
            r#","method":"tools/call","params":{{"name":"{}","arguments":{}{meta}}}}}{}"#,
            args.tool(),
            args.arguments_json(),
            if newline { "\n" } else { "" }
        );
        Template {
            head: br#"{"jsonrpc":"2.0","id":"#,
            tail: tail.into_bytes(),
        }
    }

    /// The request's length with `id`.
    pub fn len(&self, id: u64) -> usize {
        self.head.len() + digits(id) + self.tail.len()
    }

    /// Appends the request with `id` to `out`.
    pub fn write(&self, id: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(self.head);
        push_decimal(id, out);
        out.extend_from_slice(&self.tail);
    }
}

/// The number of decimal digits of `n`.
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Appends `n` in decimal to `out`.
pub fn push_decimal(n: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// A JSON-RPC response, borrowed from the line it was parsed from.
#[derive(Deserialize)]
pub struct Reply<'a> {
    /// The request id.
    pub id: Option<u64>,
    /// A `tools/call` result.
    #[serde(borrow)]
    pub result: Option<ToolResult<'a>>,
    /// Present on an error reply.
    pub error: Option<serde::de::IgnoredAny>,
}

/// The part of a `CallToolResult` a caller reads.
#[derive(Deserialize)]
pub struct ToolResult<'a> {
    /// Content blocks; the text of text blocks is borrowed when unescaped.
    #[serde(borrow, default)]
    pub content: Vec<Text<'a>>,
}

/// A content block's text.
#[derive(Deserialize)]
pub struct Text<'a> {
    /// The text of a text block.
    #[serde(borrow)]
    pub text: Option<Cow<'a, str>>,
}

/// Parses one reply and checks it answers `tools/call` with `expected`
/// bytes of text; returns its id.
pub fn check(bytes: &[u8], expected: usize) -> Result<u64, String> {
    let reply: Reply<'_> = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "bad reply ({e}): {}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        )
    })?;
    let len = reply
        .result
        .as_ref()
        .and_then(|r| r.content.first())
        .and_then(|t| t.text.as_ref())
        .map(|t| t.len());
    match (reply.id, len) {
        (Some(id), Some(n)) if n == expected && reply.error.is_none() => Ok(id),
        _ => Err(format!(
            "unexpected reply: {}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        )),
    }
}

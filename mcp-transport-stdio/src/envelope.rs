//! A received line that broke the JSON-RPC envelope.
//!
//! Lines are read with [`mcp_types::jsonrpc::Message::read`]: a line the
//! lenient reader rejects but whose envelope names a request (both `result`
//! and `error`, say) is reported as a [`BrokenEnvelope`], so the request it
//! answers can fail at once instead of at its deadline. With checks on (a
//! client's strict mode), so is a line the lenient reader accepts despite a
//! broken rule (a missing `jsonrpc`). The report names the id and the
//! rules, never the payload.

use mcp_types::RequestId;
use mcp_types::jsonrpc::EnvelopeViolation;

/// A line that broke the JSON-RPC envelope rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BrokenEnvelope {
    /// The `id` it carried, when readable (the request a broken reply
    /// answers).
    pub id: Option<RequestId>,
    /// The rules it broke.
    pub violations: Vec<EnvelopeViolation>,
}

/// The id of the response a discarded (oversized) line carried, read from
/// the line's first and last bytes without parsing the rest.
///
/// The line must show that it is a response: a top-level `result` or
/// `error` key among the leading keys. The id is taken from the leading
/// keys (`{"jsonrpc":"2.0","id":7,"result":...`) or, as most SDKs put it
/// after the result, from the very end (`...,"jsonrpc":"2.0","id":7}`):
/// a key just before the closing brace of the line is a top-level key.
/// A line that starts with `method` (a request from the server) or that
/// shows neither gives `None`.
pub(crate) fn discarded_response_id(head: &[u8], tail: &[u8]) -> Option<RequestId> {
    let (is_response, id) = leading_keys(head);
    if !is_response {
        return None;
    }
    id.or_else(|| trailing_id(tail))
}

/// Scans the top-level keys at the start of a line up to the first nested
/// value: whether one of them is `result` or `error` (or the nested value
/// is theirs), and the id if one of them is `id`.
fn leading_keys(head: &[u8]) -> (bool, Option<RequestId>) {
    let mut s = Scan { b: head, i: 0 };
    let (mut response, mut id) = (false, None);
    s.ws();
    if !s.eat(b'{') {
        return (false, None);
    }
    loop {
        s.ws();
        let Some(key) = s.string() else {
            return (response, id);
        };
        s.ws();
        if !s.eat(b':') {
            return (response, id);
        }
        s.ws();
        match key {
            b"result" | b"error" => response = true,
            b"method" => return (false, None),
            _ => {}
        }
        let start = s.i;
        match s.b.get(s.i) {
            Some(b'{' | b'[') | None => return (response, id),
            Some(b'"') => {
                if s.string().is_none() {
                    return (response, id);
                }
            }
            Some(_) => s.scalar(),
        }
        if key == b"id" {
            id = parse_id(&s.b[start..s.i]);
        }
        s.ws();
        if !s.eat(b',') {
            return (response, id);
        }
    }
}

/// The id when the line ends with `"id": <number or string> }`.
fn trailing_id(tail: &[u8]) -> Option<RequestId> {
    let t = tail.trim_ascii_end().strip_suffix(b"}")?.trim_ascii_end();
    let value_start = if t.ends_with(b"\"") {
        // The opening quote of the string: the first unescaped `"` before.
        let body = &t[..t.len() - 1];
        let mut i = body.len();
        loop {
            i = memchr::memrchr(b'"', &body[..i])?;
            let backslashes = body[..i].iter().rev().take_while(|b| **b == b'\\').count();
            if backslashes % 2 == 0 {
                break i;
            }
        }
    } else {
        t.iter()
            .rposition(|b| !(b.is_ascii_digit() || b"-+.eE".contains(b)))
            .map_or(0, |p| p + 1)
    };
    let value = &t[value_start..];
    let before = t[..value_start].trim_ascii_end().strip_suffix(b":")?;
    let before = before.trim_ascii_end().strip_suffix(b"\"id\"")?;
    matches!(before.trim_ascii_end().last(), Some(b',' | b'{')).then_some(())?;
    parse_id(value)
}

fn parse_id(value: &[u8]) -> Option<RequestId> {
    mcp_types::raw::parse::<RequestId>(value).ok()
}

/// A cursor over the bytes of a JSON prefix.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        self.i += usize::from(hit);
        hit
    }

    /// A string's raw content (escapes left as they are), or `None` if
    /// none starts here or it is cut off.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return Some(&self.b[start..self.i - 1]),
                b'\\' => self.i += 1,
                _ => {}
            }
        }
        None
    }

    /// Skips a number, `true`, `false` or `null`.
    fn scalar(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || b"-+.".contains(c))
        {
            self.i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(line: &str) -> Option<RequestId> {
        let b = line.as_bytes();
        discarded_response_id(&b[..b.len().min(256)], &b[b.len().saturating_sub(64)..])
    }

    #[test]
    fn the_id_of_a_discarded_response_is_read_from_either_end() {
        let big = "x".repeat(1000);
        assert_eq!(
            id(&format!(
                r#"{{"jsonrpc":"2.0","id":7,"result":{{"data":"{big}"}}}}"#
            )),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            id(&format!(
                r#"{{"result":{{"data":"{big}","id":9}},"jsonrpc":"2.0","id":"a\"b"}}"#
            )),
            Some(RequestId::String("a\"b".into()))
        );
        assert_eq!(
            id(&format!(
                r#"{{ "jsonrpc" : "2.0", "result" : {{"x":"{big}"}}, "id" : 12 }} "#
            )),
            Some(RequestId::Number(12))
        );
    }

    #[test]
    fn requests_and_unrecognisable_lines_give_no_id() {
        let big = "x".repeat(1000);
        // A request from the server: its id is the server's own.
        assert_eq!(
            id(&format!(
                r#"{{"jsonrpc":"2.0","method":"sampling/createMessage","params":{{"m":"{big}"}},"id":3}}"#
            )),
            None
        );
        // Params first: no sign of a response.
        assert_eq!(id(&format!(r#"{{"params":{{"m":"{big}"}},"id":3}}"#)), None);
        // The last key of a nested object is no top-level id.
        assert_eq!(
            id(&format!(
                r#"{{"result":{{"items":[{{"n":"{big}","id":4}}]}}}}"#
            )),
            None
        );
        assert_eq!(id(&big), None);
    }
}

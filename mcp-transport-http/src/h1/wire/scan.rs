//! A response head in the shape servers write, read without `httparse`:
//! `HTTP/1.0` or `HTTP/1.1`, one space, a three-digit code, an optional
//! reason, then a few fields of a token name, a colon and a value, every
//! line ended by CRLF. Anything else (a partial head, a bare LF, a folded
//! line, a byte outside the grammar, more fields than [`FIELDS`]) is
//! `None`, and `httparse` reads it then: what this reads is a subset of
//! what `httparse` accepts, read the same (a test holds the two to it).
//!
//! A field's value is checked eight bytes at a time ([`field_value::end`]:
//! a response's values are most of its head), its name a byte at a time
//! against a table of `mcp_types::routing::is_tchar`; nothing is copied
//! or allocated.

use mcp_types::routing::is_tchar;

use crate::field_value;

/// The most fields a head read here may have (a server's response has a
/// handful; one with more goes to `httparse`).
pub(super) const FIELDS: usize = 16;

/// One field: its name and its value (without the spaces around it).
pub(super) type Field<'b> = (&'b [u8], &'b [u8]);

/// A slot for a field, before one is read into it.
pub(super) const NO_FIELD: Field<'static> = (&[], &[]);

/// What a head's status line says, and where the head ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Top {
    /// The head's length, its blank line included.
    pub(super) len: usize,
    /// `HTTP/1.1` (not `HTTP/1.0`).
    pub(super) http11: bool,
    /// The three digits of the status code.
    pub(super) code: u16,
}

/// [`is_tchar`] as a table, built from it at compile time: the bytes of a
/// field name, one load a byte (the name is the head's one byte-by-byte
/// loop).
static TOKEN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_tchar(b as u8);
        b += 1;
    }
    table
};

/// Reads the head at the start of `buf` into `fields`: its status line
/// and the number of fields read, or `None` when it is not whole or not
/// in the usual shape (see the module's doc).
pub(super) fn scan<'b>(buf: &'b [u8], fields: &mut [Field<'b>; FIELDS]) -> Option<(Top, usize)> {
    let (http11, code) = status_line(buf)?;
    // The status line's end: right after the code, or after a reason.
    let mut at = match *buf.get(12)? {
        b' ' => field_value::end(buf, 13),
        _ => 12,
    };
    at = line_end(buf, at)?;
    let mut count = 0;
    loop {
        if *buf.get(at)? == b'\r' {
            let len = line_end(buf, at)?;
            return Some((Top { len, http11, code }, count));
        }
        let (field, next) = field(buf, at)?;
        *fields.get_mut(count)? = field;
        count += 1;
        at = next;
    }
}

/// `HTTP/1.x DDD` at the start of `buf`: the version and the code.
fn status_line(buf: &[u8]) -> Option<(bool, u16)> {
    let [
        b'H',
        b'T',
        b'T',
        b'P',
        b'/',
        b'1',
        b'.',
        minor,
        b' ',
        digits @ ..,
        _,
    ] = buf.first_chunk::<13>()?
    else {
        return None;
    };
    let http11 = match *minor {
        b'1' => true,
        b'0' => false,
        _ => return None,
    };
    let mut code = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        code = code * 10 + u16::from(d - b'0');
    }
    Some((http11, code))
}

/// One field at `at`: the field, and where the next line starts.
fn field(buf: &[u8], at: usize) -> Option<(Field<'_>, usize)> {
    let mut end = at;
    while TOKEN[usize::from(*buf.get(end)?)] {
        end += 1;
    }
    if end == at || *buf.get(end)? != b':' {
        return None;
    }
    let name = &buf[at..end];
    let mut from = end + 1;
    while matches!(buf.get(from)?, b' ' | b'\t') {
        from += 1;
    }
    let to = field_value::end(buf, from);
    let next = line_end(buf, to)?;
    let value = buf[from..to].trim_ascii_end();
    Some(((name, value), next))
}

/// Where the line ends: past the CRLF at `at`, if that is one.
fn line_end(buf: &[u8], at: usize) -> Option<usize> {
    match buf.get(at..at + 2)? {
        b"\r\n" => Some(at + 2),
        _ => None,
    }
}

#[cfg(test)]
mod tests;

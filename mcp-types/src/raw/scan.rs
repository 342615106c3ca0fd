//! Byte scans of JSON text shared by the walks: whitespace, a string's
//! end, a value's end by bracket counting, and a string whose text is
//! itself (no escape, no control character).

/// The index of the first byte at or after `i` that is not JSON
/// whitespace.
pub(crate) fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while s
        .get(i)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// How far [`quote_or_backslash`] looks eight bytes at a time before it
/// hands the rest of a long string to a vector search.
const SHORT: usize = 32;

/// A one in every byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of every byte of a word.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of every zero byte of `word` flagged (and perhaps of
/// bytes above one, never below: the lowest flagged byte is exact).
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// `byte` in every byte of a word.
fn splat(byte: u8) -> u64 {
    ONES * u64::from(byte)
}

/// Where the first `"` or `\` of `s` is. Most strings walked here are
/// short (keys, tags, small values): a word at a time finds their end
/// before a vector search would have set up, and a long one goes to
/// `memchr2`.
pub(crate) fn quote_or_backslash(s: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = s[at..].first_chunk::<8>() {
        if at >= SHORT {
            return memchr::memchr2(b'"', b'\\', &s[at..]).map(|k| at + k);
        }
        let word = u64::from_le_bytes(*word);
        // A byte of `quote` (or `backslash`) is zero where the word has a
        // `"` (a `\`); the lowest flagged byte is exactly the first one.
        let hits = zero_bytes(word ^ splat(b'"')) | zero_bytes(word ^ splat(b'\\'));
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = s[at..].iter().position(|&b| b == b'"' || b == b'\\');
    tail.map(|k| at + k)
}

/// The index just past the string starting at `s[i] == b'"'`, and
/// whether the string has an escape.
pub(crate) fn string_end(s: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        let at = j + quote_or_backslash(s.get(j..)?)?;
        if s[at] == b'\\' {
            escaped = true;
            j = at + 2;
        } else {
            return Some((at + 1, escaped));
        }
    }
}

/// The index just past the value starting at `s[i]`; `None` when brackets
/// do not balance or the text ends first.
pub(crate) fn value_end(s: &[u8], i: usize) -> Option<usize> {
    match s.get(i)? {
        b'"' => string_end(s, i).map(|(end, _)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match s.get(j)? {
                    b'"' => {
                        j = string_end(s, j)?.0;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        b',' | b'}' | b']' | b':' => None,
        _ => {
            let mut j = i;
            while s
                .get(j)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// How long the string whose text starts `s` is, when it has no escape
/// and no control character (below U+0020): its text is then the string
/// itself. A short string is checked a word at a time (its end is found
/// before a vector search would have set up); the rest of a long one is
/// searched for its end with `memchr2` and checked with [`plain`].
pub(crate) fn plain_len(s: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = s[at..].first_chunk::<8>() {
        if at >= SHORT {
            let len = at + memchr::memchr2(b'"', b'\\', &s[at..])?;
            return (s[len] == b'"' && plain(&s[at..len])).then_some(len);
        }
        let hits = special_bytes(u64::from_le_bytes(*word));
        if hits != 0 {
            let end = at + hits.trailing_zeros() as usize / 8;
            return (s[end] == b'"').then_some(end);
        }
        at += 8;
    }
    for (k, &b) in s[at..].iter().enumerate() {
        match b {
            b'"' => return Some(at + k),
            b'\\' | 0..0x20 => return None,
            _ => {}
        }
    }
    None
}

/// The bytes of `word` (little-endian) that a JSON string escapes, flagged:
/// a `"` or `\` (a zero byte after the xor), or a byte below 0x20; the
/// lowest flagged byte is exactly the first one.
fn special_bytes(word: u64) -> u64 {
    let below = word.wrapping_sub(splat(0x20)) & !word & HIGHS;
    zero_bytes(word ^ splat(b'"')) | zero_bytes(word ^ splat(b'\\')) | below
}

/// Whether `s` is a JSON string's text as it is: no `"`, no `\` and no
/// control character (below U+0020), so that nothing in it is escaped.
/// Checked a word at a time, as [`plain_len`] checks a string's start.
pub(crate) fn is_plain_text(s: &[u8]) -> bool {
    let (words, rest) = s.as_chunks::<8>();
    words
        .iter()
        .all(|word| special_bytes(u64::from_le_bytes(*word)) == 0)
        && rest.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// Whether `s` has no `\` and no control character. Checked a chunk at a
/// time without an early exit inside one, which the compiler turns into
/// vector instructions.
fn plain(s: &[u8]) -> bool {
    s.chunks(64).all(|chunk| {
        !chunk
            .iter()
            .fold(false, |bad, &b| bad | (b < 0x20) | (b == b'\\'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_or_backslash_finds_the_first_one() {
        // Near misses of both bytes (one bit off, high bit set), at every
        // place in and around a word, in strings short and long.
        let fillers = [b'a', 0x00, 0x01, 0x21, 0x23, 0x5b, 0x5d, 0xa2, 0xdc, 0xff];
        for len in 0..80 {
            for filler in fillers {
                let mut text = vec![filler; len];
                assert_eq!(quote_or_backslash(&text), None, "{len} {filler}");
                for at in 0..len {
                    for target in [b'"', b'\\'] {
                        text[at] = target;
                        if at + 1 < len {
                            text[at + 1] = b'"';
                        }
                        assert_eq!(quote_or_backslash(&text), Some(at), "{len} {filler} {at}");
                        text[at] = filler;
                        if at + 1 < len {
                            text[at + 1] = filler;
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn plain_strings_are_found_at_any_length() {
        let long = "x".repeat(300);
        assert!(plain(long.as_bytes()));
        assert!(!plain(format!("{long}\\").as_bytes()));
        assert!(!plain(format!("{long}\u{1f}").as_bytes()));
        assert!(plain("é \u{7f}".as_bytes()));
        for len in [0, 5, 7, 8, 9, 31, 32, 33, 40, 300] {
            let body = "é".repeat(len / 2) + &"a".repeat(len % 2);
            let n = body.len();
            assert_eq!(
                plain_len(format!("{body}\" x").as_bytes()),
                Some(n),
                "{len}"
            );
            assert_eq!(plain_len(format!("{body}\\\"\"").as_bytes()), None, "{len}");
            assert_eq!(
                plain_len(format!("{body}\u{1f}\"").as_bytes()),
                None,
                "{len}"
            );
            assert_eq!(plain_len(body.as_bytes()), None, "{len}: no end");
        }
    }
}

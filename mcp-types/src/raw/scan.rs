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

/// How far the scans of a string here look eight bytes at a time before
/// they hand the rest of a long one to a vector search.
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
    string_end_from(s, i + 1)
}

/// [`string_end`] of a string whose text is known to `s[j]`, which is in
/// its text (an escape's `\` included) or its closing quote.
fn string_end_from(s: &[u8], mut j: usize) -> Option<(usize, bool)> {
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
/// itself.
pub(crate) fn plain_len(s: &[u8]) -> Option<usize> {
    first_escaped(s).filter(|&end| s[end] == b'"')
}

/// How long the string whose text starts `s` is (to its closing quote),
/// and, for a long one, whether it is plain ([`plain_len`]): a short one is
/// stepped over as [`string_end`] does (a plain short text is cheap to scan
/// again), a long one in one pass ([`long_first_escaped`]) that finds its
/// end and checks it, so that a long plain text is read once by both.
#[inline]
pub(crate) fn text_len(s: &[u8]) -> Option<(usize, bool)> {
    match quote_or_backslash(&s[..s.len().min(SHORT)]) {
        Some(k) if s[k] == b'"' => Some((k, false)),
        Some(k) => escaped_text_len(s, k),
        None => long_text_len(s),
    }
}

/// [`text_len`] of a string with no `"` or `\` in its first [`SHORT`]
/// bytes.
#[inline(never)]
fn long_text_len(s: &[u8]) -> Option<(usize, bool)> {
    let first = long_first_escaped(s, SHORT)?;
    if s[first] == b'"' {
        return Some((first, is_plain_text(&s[..SHORT])));
    }
    escaped_text_len(s, first)
}

/// [`text_len`] of a string that is not plain, from `s[from]`: an escape's
/// `\` or a control character in its text.
fn escaped_text_len(s: &[u8], from: usize) -> Option<(usize, bool)> {
    let (end, _) = string_end_from(s, from)?;
    Some((end - 1, false))
}

/// Where the first byte of `s` that a JSON string escapes is (a `"`, a
/// `\` or a control character). A short string is checked a word at a
/// time (its end is found before a vector search would have set up); the
/// rest of a long one in one pass by [`long_first_escaped`].
#[inline]
fn first_escaped(s: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = s[at..].first_chunk::<8>() {
        if at >= SHORT {
            return long_first_escaped(s, at);
        }
        let hits = special_bytes(u64::from_le_bytes(*word));
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    s[at..].iter().position(|&b| escaped(b)).map(|k| at + k)
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
/// Checked a word at a time, as [`plain_len`] checks a string's start, the
/// bytes past the last whole word as a word that ends with the text (some
/// bytes looked at twice: a method's or a tool's name is a word or two,
/// with no byte-by-byte tail); a text shorter than a word as its two
/// halves' overlapping ends in one word.
pub(crate) fn is_plain_text(s: &[u8]) -> bool {
    let plain = |word: u64| special_bytes(word) == 0;
    if let Some(last) = s.last_chunk::<8>() {
        let (words, _) = s.as_chunks::<8>();
        return words.iter().all(|w| plain(u64::from_le_bytes(*w)))
            && plain(u64::from_le_bytes(*last));
    }
    match (s.first_chunk::<4>(), s.last_chunk::<4>()) {
        (Some(head), Some(tail)) => {
            plain(u64::from(u32::from_le_bytes(*head)) | u64::from(u32::from_le_bytes(*tail)) << 32)
        }
        _ => !s.iter().any(|&b| escaped(b)),
    }
}

/// [`first_escaped`] in a long string from `at`: one pass over its text,
/// a chunk at a time checked for any byte a JSON string escapes without
/// an early exit inside the chunk (which the compiler turns into vector
/// instructions), then the flagged chunk a byte at a time. One pass, not a
/// search for the end and a check of the text before it: a large result's
/// text is read once here, not twice.
fn long_first_escaped(s: &[u8], mut at: usize) -> Option<usize> {
    while let Some(chunk) = s.get(at..)?.first_chunk::<64>() {
        if chunk.iter().fold(false, |hit, &b| hit | escaped(b)) {
            break;
        }
        at += 64;
    }
    s[at..].iter().position(|&b| escaped(b)).map(|k| at + k)
}

/// Whether a JSON string escapes `b`: a `"`, a `\` or a control character
/// (below U+0020). Written without short-circuits so that a chunk's check
/// vectorizes, and with one comparison for two of the three: flipping bit
/// 1 maps `"` (0x22) to 0x20 and keeps every control character below it,
/// while no other byte lands at or below 0x20.
fn escaped(b: u8) -> bool {
    ((b ^ 0x02) <= 0x20) | (b == b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length from empty to past four words, with each kind of
    /// byte a string escapes (and near misses) at every place: the word
    /// checks, overlapping ones included, say what a byte-by-byte look
    /// says.
    #[test]
    fn a_plain_text_is_told_at_every_length_and_place() {
        for len in 0..=40 {
            for c in [b'"', b'\\', 0x00, 0x1f, b'\t', b' ', b'!', 0x7f, 0x80, 0xff] {
                for at in 0..len.max(1) {
                    let mut s = vec![b'a'; len];
                    if let Some(b) = s.get_mut(at) {
                        *b = c;
                    }
                    let slow = !s.iter().any(|&b| escaped(b));
                    assert_eq!(is_plain_text(&s), slow, "{c:#x} at {at} of {len}");
                }
            }
        }
    }

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
    fn a_plain_strings_end_or_first_escape_is_found_at_any_place() {
        // Near misses (0x20, 0x7f, the high bit set) as the filler; the
        // byte that ends the scan at every place of strings short and
        // long, across word and chunk boundaries.
        for filler in [b'a', 0x20, 0x7f, 0x9f, 0xdc, 0xe2] {
            for len in 0..200 {
                let mut text = vec![filler; len];
                text.push(b'"');
                assert_eq!(plain_len(&text), Some(len), "{filler} {len}");
                for at in 0..len {
                    for (target, want) in [(b'"', Some(at)), (b'\\', None), (0x1f, None), (0, None)]
                    {
                        text[at] = target;
                        assert_eq!(plain_len(&text), want, "{filler} {len} {at} {target}");
                        text[at] = filler;
                    }
                }
            }
        }
    }

    #[test]
    fn a_texts_end_is_found_past_escapes_and_control_characters() {
        for len in [0, 7, 8, 31, 32, 33, 64, 65, 200] {
            let plain = "a".repeat(len);
            // Only a long text is checked on the way.
            for (text, is_plain) in [
                (plain.clone(), len >= SHORT),
                (format!("{plain}\\\"{plain}"), false),
                (format!("{plain}\\\\"), false),
                (format!("{plain}\u{1f}{plain}"), false),
                (format!("\\n{plain}\\\"\\\\"), false),
            ] {
                let s = format!("{text}\"}}");
                assert_eq!(
                    text_len(s.as_bytes()),
                    Some((text.len(), is_plain)),
                    "{text}"
                );
                assert_eq!(text_len(text.as_bytes()), None, "{text}: no end");
            }
        }
    }

    #[test]
    fn plain_strings_are_found_at_any_length() {
        for len in [
            0, 5, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 95, 96, 97, 127, 128, 300,
        ] {
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

//! Whether a `_meta` text surely decodes into a `Map<String, Value>`,
//! found by one pass over its bytes that builds nothing.
//!
//! The text is a JSON value whose syntax serde_json already checked (it
//! came as its `RawValue`: structure, literals, number grammar, escapes,
//! no control characters in strings, UTF-8). What a decode into a map
//! checks beyond that is: an object at the top; every number in range (a
//! finite `f64` at worst); every `\u` escape a character (surrogates in
//! pairs); at most 127 levels of nesting. The scan answers `true` only
//! when all of these surely hold, and is free to answer `false` for a text
//! that would decode after all (a number written with an exponent far
//! beyond its size, say): the caller then decodes the text at once, so the
//! outcome is always exactly the map decode's.

/// The nesting a decode into a map accepts, counting the object itself
/// (serde_json's recursion limit of 128, of which the 128th level fails).
pub(super) const MAX_DEPTH: usize = 127;

/// The largest power of ten a number may reach for the scan to call it in
/// range without computing it (an `f64` reaches 1.8e308).
pub(super) const MAX_MAGNITUDE: i64 = 300;

/// Whether the text (a JSON value, syntax checked) surely decodes into a
/// map with serde_json. `false` means "decode it to find out".
pub(super) fn decodes_as_map(text: &[u8]) -> bool {
    if text.first() != Some(&b'{') {
        return false;
    }
    let mut depth: usize = 0;
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        at = match byte {
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
                at + 1
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                at + 1
            }
            b'"' => match string_end(text, at + 1) {
                Some(end) => end,
                None => return false,
            },
            b'-' | b'0'..=b'9' => match number_end(text, at) {
                Some(end) => end,
                None => return false,
            },
            // Whitespace, `,`, `:` and the letters of true, false, null.
            _ => at + 1,
        };
    }
    true
}

/// The end of the string whose contents start at `at`, when every `\u`
/// escape in it is a character: not a surrogate, or a leading surrogate
/// followed at once by an escaped trailing one.
fn string_end(text: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at += crate::raw::quote_or_backslash(text.get(at..)?)?;
        if text[at] == b'"' {
            return Some(at + 1);
        }
        if text.get(at + 1) != Some(&b'u') {
            at += 2;
            continue;
        }
        let unit = hex_escape(text, at)?;
        at += 6;
        if (0xDC00..0xE000).contains(&unit) {
            return None;
        }
        if (0xD800..0xDC00).contains(&unit) {
            let trailing = hex_escape(text, at)?;
            if !(0xDC00..0xE000).contains(&trailing) {
                return None;
            }
            at += 6;
        }
    }
}

/// The code unit of the `\uXXXX` escape at `at`, if there is one.
fn hex_escape(text: &[u8], at: usize) -> Option<u32> {
    let digits = text.get(at..at + 6)?.strip_prefix(b"\\u")?;
    digits
        .iter()
        .try_fold(0, |unit, &d| Some(unit << 4 | char::from(d).to_digit(16)?))
}

/// The end of the number at `at`, when it is surely in range: fewer than
/// [`MAX_MAGNITUDE`] digits before the point, exponent included.
fn number_end(text: &[u8], at: usize) -> Option<usize> {
    let is_digit = |at: &usize| text.get(*at).is_some_and(u8::is_ascii_digit);
    let start = at + usize::from(text[at] == b'-');
    let mut end = (start..).find(|at| !is_digit(at))?;
    let mut magnitude = i64::try_from(end - start).ok()?;
    if text.get(end) == Some(&b'.') {
        end = (end + 1..).find(|at| !is_digit(at))?;
    }
    if let Some(b'e' | b'E') = text.get(end) {
        let sign = end + 1;
        let digits = sign + usize::from(matches!(text.get(sign), Some(b'+' | b'-')));
        end = (digits..).find(|at| !is_digit(at))?;
        let exponent = std::str::from_utf8(&text[digits..end]).ok()?;
        // An exponent too long for an i64 is far out of range either way.
        let exponent = exponent.parse::<i64>().unwrap_or(i64::MAX);
        magnitude = match text[sign] {
            b'-' => magnitude.saturating_sub(exponent),
            _ => magnitude.saturating_add(exponent),
        };
    }
    (magnitude <= MAX_MAGNITUDE).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::decodes_as_map;

    fn sure(text: &str) -> bool {
        decodes_as_map(text.as_bytes())
    }

    #[test]
    fn plain_objects_are_sure() {
        assert!(sure("{}"));
        assert!(sure(
            r#"{"a": [1, -2.5e-3, "x\"y", {"b": null}], "c": true}"#
        ));
        assert!(sure(
            r#"{"emoji": "\ud83d\ude00", "e": "\u00e9", "n": 1e299}"#
        ));
        assert!(sure(&format!(r#"{{"big": 1{}}}"#, "0".repeat(299))));
        assert!(sure(r#"{"tiny": 1e-99999999999999999999999}"#));
    }

    #[test]
    fn what_a_map_decode_may_refuse_is_left_to_it() {
        for text in [
            "[]",
            "5",
            r#""{}""#,
            r#"{"n": 1e301}"#,
            r#"{"n": 0e400}"#,
            r#"{"n": -1E+99999999999999999999999}"#,
            &format!(r#"{{"n": 1{}}}"#, "0".repeat(300)),
            r#"{"s": "\ud800"}"#,
            r#"{"s": "\udc00\ud800"}"#,
            r#"{"s": "\ud800\u0041"}"#,
            r#"{"s": "\ud800\n"}"#,
            r#"{"\ud800": 1}"#,
        ] {
            assert!(!sure(text), "{text}");
        }
    }

    #[test]
    fn nesting_up_to_the_limit_is_sure() {
        let nested =
            |levels: usize| format!("{{\"k\":{}1{}}}", "[".repeat(levels), "]".repeat(levels));
        assert!(sure(&nested(126)), "127 levels");
        assert!(!sure(&nested(127)), "128 levels");
        assert!(
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&nested(126))
                .is_ok()
        );
        assert!(
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&nested(127))
                .is_err()
        );
    }
}

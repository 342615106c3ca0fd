//! A JSON value's end found by one pass that also checks its syntax
//! ([`plain_value_end`]), for the plain JSON that serde_json surely reads
//! the same way. A reader that would otherwise hand a value to serde only
//! to learn that it is well formed and where it ends (a result's `_meta`,
//! kept as text) checks it here for a fraction of serde's cost, and hands
//! serde only what this pass is not sure of.

use super::scan::{plain_len, skip_ws};

/// The deepest nesting [`plain_value_end`] follows: its stack of open
/// containers is one bit per level.
const STACK_BITS: usize = 128;

/// The end (just past it) of the JSON value at `s[i]`, when the value is
/// plain JSON that serde_json surely reads, to the same end:
///
/// * strings without escapes or control characters;
/// * numbers without an exponent and with at most `max_digits` digits
///   before the point (so every one is a finite `f64` at worst);
/// * `true`, `false`, `null`;
/// * objects and arrays of these, at most `max_depth` levels deep (the
///   value itself is the first level when it is a container; at most 128).
///
/// `None` means "not sure": anything else (an escape, an exponent, deeper
/// nesting, broken syntax) is for serde_json to read, which gives the
/// reading or the error. So this never answers `Some` for a text serde
/// refuses, and a caller falls back to serde for every `None`.
pub(crate) fn plain_value_end(
    s: &[u8],
    i: usize,
    max_depth: usize,
    max_digits: usize,
) -> Option<usize> {
    let max_depth = max_depth.min(STACK_BITS);
    // The open containers, innermost in the lowest bit: 1 for an object.
    let (mut open, mut depth) = (0u128, 0usize);
    let mut i = skip_ws(s, i);
    loop {
        // A value starts at `s[i]`.
        i = match *s.get(i)? {
            b @ (b'{' | b'[') => {
                if depth == max_depth {
                    return None;
                }
                let object = b == b'{';
                let first = skip_ws(s, i + 1);
                if s.get(first) == Some(&if object { b'}' } else { b']' }) {
                    first + 1
                } else {
                    depth += 1;
                    open = open << 1 | u128::from(object);
                    i = if object { key_end(s, first)? } else { first };
                    continue;
                }
            }
            b'"' => plain_string_end(s, i)?,
            b'-' | b'0'..=b'9' => number_end(s, i, max_digits)?,
            b't' => literal_end(s, i, b"true")?,
            b'f' => literal_end(s, i, b"false")?,
            b'n' => literal_end(s, i, b"null")?,
            _ => return None,
        };
        // A value ended at `i`: close the containers it ends, or go on to
        // the next member or item.
        loop {
            if depth == 0 {
                return ends_value(s, i).then_some(i);
            }
            let object = open & 1 == 1;
            i = skip_ws(s, i);
            match (*s.get(i)?, object) {
                (b',', true) => {
                    i = key_end(s, skip_ws(s, i + 1))?;
                    break;
                }
                (b',', false) => {
                    i = skip_ws(s, i + 1);
                    break;
                }
                (b'}', true) | (b']', false) => {
                    i += 1;
                    depth -= 1;
                    open >>= 1;
                }
                _ => return None,
            }
        }
    }
}

/// Whether a value may end before `s[i]` at the top: serde_json's
/// stream reader wants a number or a literal followed by the end, a
/// delimiter or whitespace (`12x` is no number); inside a container the
/// walk checks what follows itself.
fn ends_value(s: &[u8], i: usize) -> bool {
    match i.checked_sub(1).and_then(|last| s.get(last)) {
        Some(b'}' | b']' | b'"') => true,
        _ => s.get(i).is_none_or(|b| {
            matches!(
                b,
                b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':'
            )
        }),
    }
}

/// Past a member's key and its colon (and the whitespace after), the key
/// starting at `s[i]`.
fn key_end(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let colon = skip_ws(s, plain_string_end(s, i)?);
    (s.get(colon) == Some(&b':')).then(|| skip_ws(s, colon + 1))
}

/// Past the string at `s[i] == b'"'`, when it has no escape and no
/// control character.
fn plain_string_end(s: &[u8], i: usize) -> Option<usize> {
    Some(i + 1 + plain_len(s.get(i + 1..)?)? + 1)
}

/// Past the number at `s[i]`: `-`, digits without a leading zero (at most
/// `max_digits`), perhaps a point and digits; no exponent.
fn number_end(s: &[u8], i: usize, max_digits: usize) -> Option<usize> {
    let digits_at = |at: usize| {
        s.get(at..)
            .map_or(0, |t| t.iter().take_while(|b| b.is_ascii_digit()).count())
    };
    let start = i + usize::from(s[i] == b'-');
    let whole = digits_at(start);
    if whole == 0 || whole > max_digits || (whole > 1 && s[start] == b'0') {
        return None;
    }
    let mut end = start + whole;
    if s.get(end) == Some(&b'.') {
        let fraction = digits_at(end + 1);
        if fraction == 0 {
            return None;
        }
        end += 1 + fraction;
    }
    (!matches!(s.get(end), Some(b'e' | b'E'))).then_some(end)
}

/// Past the literal `word` at `s[i]`.
fn literal_end(s: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (s.get(i..i + word.len())? == word).then_some(i + word.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn end(text: &str) -> Option<usize> {
        plain_value_end(text.as_bytes(), 0, 127, 300)
    }

    /// What serde_json reads from the start of `text`: the end of the
    /// first value, or `None` for an error.
    fn serde_end(text: &str) -> Option<usize> {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
        values.next()?.ok()?;
        Some(values.byte_offset())
    }

    #[test]
    fn plain_values_end_where_serde_ends_them() {
        for text in [
            "{}",
            "[]",
            " { } ",
            r#"{"a":1}"#,
            r#"{ "a" : [ 1 , -2.50, 0, -0, true, false, null, "x", {}, [] ] , "b" : {"c":"d"} }"#,
            r#"[{"a":[{"b":[]}]}]"#,
            r#""text""#,
            "12.5,",
            "null]",
            r#"{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"0.1.0"}}"#,
            "{\"héllo\": \"wörld ✓\"}",
        ] {
            assert_eq!(end(text), serde_end(text), "{text}");
            assert!(end(text).is_some(), "{text}");
        }
    }

    #[test]
    fn what_it_is_not_sure_of_is_left_to_serde() {
        for text in [
            // Escapes, control characters, exponents: serde reads them.
            r#"{"a":"\n"}"#,
            r#"{"a\"b":1}"#,
            "{\"a\":\"\t\"}",
            r#"{"a":1e5}"#,
            r#"{"a":1E-5}"#,
            // Broken syntax: serde reports it.
            "{",
            r#"{"a"}"#,
            r#"{"a":}"#,
            r#"{"a":1,}"#,
            "[1,]",
            "[1 2]",
            r#"{"a":1 "b":2}"#,
            "[01]",
            "[1.]",
            "[-]",
            "[.5]",
            "[+1]",
            "[tru]",
            "[nul1]",
            "[truex]",
            "truex",
            "12x",
            "nullnull",
            r#"{1:2}"#,
            r#"["a":1]"#,
            r#"{"a":1]"#,
            "[}",
            "'a'",
            "",
        ] {
            assert_eq!(end(text), None, "{text}");
        }
    }

    #[test]
    fn the_limits_hold() {
        let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(end(&nested(127)), Some(254));
        assert_eq!(end(&nested(128)), None);
        assert_eq!(plain_value_end(b"[[[1]]]", 0, 2, 300), None);
        assert_eq!(plain_value_end(b"[[[1]]]", 0, 3, 300), Some(7));
        assert_eq!(
            plain_value_end(b"[[[]]]", 0, 2, 300),
            None,
            "empty ones count"
        );
        let digits = |n: usize| format!("[{}]", "9".repeat(n));
        assert!(end(&digits(300)).is_some());
        assert_eq!(end(&digits(301)), None);
        assert_eq!(plain_value_end(b"[1.25]", 0, 1, 1), Some(6));
        assert_eq!(plain_value_end(b"[12]", 0, 1, 1), None);
        // The widest stack: 128 levels.
        assert!(plain_value_end(nested(128).as_bytes(), 0, 500, 300).is_some());
        assert_eq!(plain_value_end(nested(129).as_bytes(), 0, 500, 300), None);
    }

    /// JSON-like texts built from the pieces the check reads, some of them
    /// broken on purpose.
    fn texts() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "1", "-0", "10.25", "0.5", "01", "1.", "-", "1e3", "true", "false", "null", "nul",
            r#""""#, r#""a b""#, r#""\n""#, r#""é""#, "\"\t\"",
        ])
        .prop_map(str::to_owned);
        atom.prop_recursive(5, 48, 6, |inner| {
            let members = prop::collection::vec(
                (
                    prop::sample::select(vec![r#""k""#, r#""é""#, "k", r#""\"""#]),
                    inner.clone(),
                ),
                0..4,
            );
            let sep = prop::sample::select(vec![",", ", ", " ,", ",,", ""]);
            prop_oneof![
                (prop::collection::vec(inner, 0..4), sep.clone())
                    .prop_map(|(items, sep)| format!("[{}]", items.join(sep))),
                (members, sep).prop_map(|(members, sep)| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v)| format!("{k}:{v}"))
                        .collect();
                    format!("{{ {} }}", members.join(sep))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Whatever the check accepts, serde accepts, ending it at the same
        /// byte; the check is sure of every plain text serde accepts.
        #[test]
        fn the_check_agrees_with_serde(text in texts(), cut in 0usize..64, trailing in prop::sample::select(vec!["", " ", "}", ",1", "x"])) {
            let mut text = text + trailing;
            if cut < text.len() && text.is_char_boundary(cut) && cut % 3 == 0 {
                text.truncate(cut);
            }
            let ours = end(&text);
            let theirs = serde_end(&text);
            if ours.is_some() {
                prop_assert_eq!(ours, theirs, "{}", text);
            }
            // The only plain-JSON texts serde reads that the check leaves to
            // it: those with an escape or an exponent.
            if let Some(theirs) = theirs {
                let read = &text[..theirs];
                if !read.contains('\\') && !read.contains("1e3") {
                    prop_assert_eq!(ours, Some(theirs), "{}", text);
                }
            }
        }
    }
}

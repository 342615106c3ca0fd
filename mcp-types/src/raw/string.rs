//! Writing a JSON string: the bytes serde writes, without its escaper for
//! the strings that need none.

/// Appends `s` to `out` as a JSON string: the bytes serde writes for it. A
/// string with nothing to escape (a method, a tool's name: nearly all) is
/// copied between its quotes after a check of eight bytes at a time, without
/// serde's escaper, which looks up every byte in a table and writes a string
/// in three appends.
///
/// ```
/// let mut out = Vec::new();
/// mcp_types::raw::write_string(&mut out, "tools/call");
/// mcp_types::raw::write_string(&mut out, "a \"quote\"\n");
/// assert_eq!(out, br#""tools/call""a \"quote\"\n""#);
/// ```
pub fn write_string(out: &mut Vec<u8>, s: &str) {
    if super::scan::is_plain_text(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // Writing a `str` into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One character of each kind at every place in and past a word: a
    /// string is written as serde writes it.
    #[test]
    fn each_character_at_each_place_is_written_as_serde_writes_it() {
        for c in [
            '\0', '\u{1f}', ' ', '!', '"', '#', '\\', '[', ']', '\u{7f}', 'é', '\u{20ac}',
        ] {
            for at in 0..=17 {
                let s: String = (0..=17).map(|i| if i == at { c } else { 'a' }).collect();
                let mut out = Vec::new();
                write_string(&mut out, &s);
                assert_eq!(out, serde_json::to_string(&s).unwrap().as_bytes(), "{s:?}");
            }
        }
    }

    proptest::proptest! {
        /// Any string is written as serde writes it, escapes or not.
        #[test]
        fn a_string_is_written_as_serde_writes_it(
            s in proptest::prop_oneof!["[a-z/_]{0,24}", "\\PC{0,24}", "[a-z\"\\\\\x00-\x1f\x7f]{0,24}", any_char_string()],
        ) {
            let mut out = b"x".to_vec();
            write_string(&mut out, &s);
            let serde = serde_json::to_string(&s).unwrap();
            proptest::prop_assert_eq!(&out[1..], serde.as_bytes());
        }
    }

    /// Strings over every char, control characters, quotes and
    /// backslashes included.
    fn any_char_string() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        proptest::collection::vec(proptest::char::any(), 0..24)
            .prop_map(|chars| chars.into_iter().collect())
    }
}

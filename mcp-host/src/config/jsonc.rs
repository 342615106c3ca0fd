//! JSON with comments: VS Code's `mcp.json` and `settings.json` allow `//`
//! and `/* */` comments and trailing commas. They are blanked out (replaced
//! by spaces, newlines kept) so the JSON parser's line and column still
//! point into the original text.

/// `text` with comments and trailing commas replaced by spaces.
pub(crate) fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let mut in_string = false;
    // Index of a comma that a `}` or `]` may yet make trailing.
    let mut pending_comma: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                pending_comma = None;
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                for (j, byte) in out.iter_mut().enumerate().take(end).skip(i) {
                    if bytes[j] != b'\n' {
                        *byte = b' ';
                    }
                }
                i = end;
                continue;
            }
            (b',', _) => pending_comma = Some(i),
            (b'}' | b']', _) => {
                if let Some(c) = pending_comma.take() {
                    out[c] = b' ';
                }
            }
            (b' ' | b'\t' | b'\r' | b'\n', _) => {}
            _ => pending_comma = None,
        }
        i += 1;
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces, and
    // a multi-byte character is never split: the text stays UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn comments_and_trailing_commas_go_strings_stay() {
        let text = "{\n // c\n \"a\": \"x // y /* z */\", /* b\n */ \"b\": [1, 2,],\n}";
        let v: serde_json::Value = serde_json::from_str(&strip(text)).unwrap();
        assert_eq!(v["a"], "x // y /* z */");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        assert_eq!(strip(text).lines().count(), text.lines().count());
    }

    #[test]
    fn escaped_quotes_do_not_end_strings() {
        let text = r#"{"a": "q\"//", "b": 1}"#;
        let v: serde_json::Value = serde_json::from_str(&strip(text)).unwrap();
        assert_eq!(v["a"], "q\"//");
    }

    #[test]
    fn a_comma_between_values_stays() {
        let text = r#"{"a": [1, /* x */ 2]}"#;
        let v: serde_json::Value = serde_json::from_str(&strip(text)).unwrap();
        assert_eq!(v["a"], serde_json::json!([1, 2]));
    }
}

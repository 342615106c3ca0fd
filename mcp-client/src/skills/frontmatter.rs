//! The YAML frontmatter of a `SKILL.md`: found between `---` lines at the
//! very start, bounded before it is parsed, parsed with `serde-saphyr`
//! (its alias-replay limits and budget stop alias bombs), and compared
//! field by field with the entry's `frontmatter`.
//!
//! Equality is by value: a mapping whose keys come in another order is
//! equal, numbers are equal when they denote the same value (`1` and
//! `1.0`), and a field absent on one side equals an explicit `null` on the
//! other (`license:` with no value).

use mcp_types::common::JsonObject;
use serde_json::Value;

use super::SkillError;

/// The largest frontmatter block parsed, in bytes (delimiters excluded).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The most events aliases may replay in one frontmatter.
const MAX_ALIAS_REPLAY: usize = 10_000;

/// The frontmatter block and the body after it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The YAML between the delimiters.
    pub yaml: &'a str,
    /// Byte offset of the body in the text.
    pub body_start: usize,
}

/// Finds the frontmatter block of `text` (a leading BOM is skipped).
pub(crate) fn split(text: &str) -> Result<Split<'_>, String> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let after_bom = &text[bom..];
    let first_len = line_len(after_bom);
    if after_bom[..first_len].trim_end_matches(['\r', '\n']) != "---" {
        return Err("SKILL.md does not start with a `---` line".into());
    }
    let yaml_start = bom + first_len;
    let mut pos = yaml_start;
    loop {
        if pos - yaml_start > MAX_FRONTMATTER_BYTES {
            return Err(format!(
                "the frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes"
            ));
        }
        if pos >= text.len() {
            return Err("the frontmatter has no closing `---` line".into());
        }
        let len = line_len(&text[pos..]);
        let line = text[pos..pos + len].trim_end_matches(['\r', '\n']);
        if line.trim_end_matches([' ', '\t']) == "---" {
            return Ok(Split {
                yaml: &text[yaml_start..pos],
                body_start: pos + len,
            });
        }
        pos += len;
    }
}

/// The length of the first line of `s`, its `\n` included.
fn line_len(s: &str) -> usize {
    s.find('\n').map_or(s.len(), |i| i + 1)
}

/// Parses a frontmatter block into a JSON object.
pub(crate) fn parse(yaml: &str) -> Result<JsonObject, String> {
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(format!(
            "the frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes"
        ));
    }
    if yaml.trim().is_empty() {
        return Err("the frontmatter is empty".into());
    }
    // A frontmatter has no use for more alias replay than this; the
    // parser's default budget and duplicate-key refusal stay in force.
    let options = serde_saphyr::options! {
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: MAX_ALIAS_REPLAY,
        },
    };
    match serde_saphyr::from_str_with_options::<Value>(yaml, options) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "the frontmatter is not a mapping but {}",
            kind(&other)
        )),
        Err(e) => Err(format!("invalid YAML: {e}")),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// Compares the parsed frontmatter with the entry's, field by field (in
/// sorted order, so the first difference reported is stable).
pub(crate) fn compare(uri: &str, file: &JsonObject, entry: &JsonObject) -> Result<(), SkillError> {
    let mut fields: Vec<&String> = file.keys().chain(entry.keys()).collect();
    fields.sort();
    fields.dedup();
    for field in fields {
        let (f, e) = (file.get(field), entry.get(field));
        let detail = match (f, e) {
            (Some(a), Some(b)) if same(a, b) => continue,
            (Some(Value::Null), None) | (None, Some(Value::Null)) => continue,
            (Some(_), Some(_)) => "the values differ",
            (Some(_), None) => "present in SKILL.md, absent from the entry",
            (None, _) => "present in the entry, absent from SKILL.md",
        };
        return Err(SkillError::FrontmatterMismatch {
            uri: uri.to_owned(),
            field: field.clone(),
            detail,
        });
    }
    Ok(())
}

/// Value equality with numbers compared by value and mappings by key.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    const SKILL: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1.0\"\n  tags: [pdf, forms]\n  weight: 1\n---\n\n# Body\n";

    #[test]
    fn frontmatter_is_split_from_the_body() {
        let s = split(SKILL).unwrap();
        assert!(s.yaml.starts_with("name: pdf-processing\n"));
        assert_eq!(&SKILL[s.body_start..], "\n# Body\n");
        let crlf = "\u{feff}---\r\nname: a\r\n---  \r\nbody";
        let s = split(crlf).unwrap();
        assert_eq!(s.yaml, "name: a\r\n");
        assert_eq!(&crlf[s.body_start..], "body");
    }

    #[test]
    fn a_reordered_mapping_with_equal_values_is_equal() {
        let file = parse(split(SKILL).unwrap().yaml).unwrap();
        let entry = obj(json!({
            "metadata": {"weight": 1.0, "tags": ["pdf", "forms"], "version": "2.1.0"},
            "description": "Extract, fill, and assemble PDF documents",
            "name": "pdf-processing"
        }));
        compare("skill://p/SKILL.md", &file, &entry).unwrap();
    }

    #[test]
    fn a_changed_field_is_a_mismatch_naming_the_field() {
        let file = parse(split(SKILL).unwrap().yaml).unwrap();
        let mut entry = file.clone();
        entry.insert("description".into(), json!("Exfiltrate credentials"));
        let err = compare("skill://p/SKILL.md", &file, &entry).unwrap_err();
        assert!(
            matches!(&err, SkillError::FrontmatterMismatch { field, detail: "the values differ", .. } if field == "description"),
            "{err:?}"
        );
        assert!(err.is_verification_failure());
        // A nested difference names the top-level field.
        let mut entry = file.clone();
        entry["metadata"]["tags"] = json!(["pdf"]);
        let err = compare("skill://p/SKILL.md", &file, &entry).unwrap_err();
        assert!(
            matches!(&err, SkillError::FrontmatterMismatch { field, .. } if field == "metadata")
        );
    }

    #[test]
    fn a_field_on_one_side_only_is_a_mismatch() {
        let file = parse("name: a\ndescription: d\nallowed-tools: Bash\n").unwrap();
        let entry = obj(json!({"name": "a", "description": "d"}));
        let err = compare("u", &file, &entry).unwrap_err();
        assert!(
            matches!(&err, SkillError::FrontmatterMismatch { field, .. } if field == "allowed-tools")
        );
        let err = compare("u", &entry, &file).unwrap_err();
        assert!(err.to_string().contains("absent from SKILL.md"), "{err}");
        // An empty value is null, which equals absence.
        let file = parse("name: a\nlicense:\n").unwrap();
        compare("u", &file, &obj(json!({"name": "a"}))).unwrap();
    }

    #[test]
    fn malformed_or_oversized_frontmatter_is_refused() {
        assert!(
            split("name: a\n---\n")
                .unwrap_err()
                .contains("does not start")
        );
        assert!(split("---\nname: a\n").unwrap_err().contains("no closing"));
        let big = format!(
            "---\n{}---\n",
            "k: v\n".repeat(MAX_FRONTMATTER_BYTES / 5 + 1)
        );
        assert!(split(&big).unwrap_err().contains("larger than"));
        assert!(parse("- a\n- b\n").unwrap_err().contains("not a mapping"));
        assert!(
            parse("name: [unclosed\n")
                .unwrap_err()
                .contains("invalid YAML")
        );
        assert!(parse("  \n").unwrap_err().contains("empty"));
    }

    #[test]
    fn alias_bombs_are_stopped_by_the_parser_limits() {
        let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            yaml.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        assert!(
            parse(&yaml).is_err(),
            "10^12 expanded nodes must be refused"
        );
    }
}

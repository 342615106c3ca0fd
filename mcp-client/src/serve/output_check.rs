//! Handler output is checked before it is written: an accepted form must
//! satisfy the form's `requestedSchema`, and a sampling answer must be a
//! valid `CreateMessageResult`. Invalid output is answered with JSON-RPC
//! `-32603` (internal error) instead of reaching the server.
//!
//! The form check covers the restricted schema elicitation allows: a flat
//! object of strings (`minLength`, `maxLength`, `format`, `enum`, `oneOf`
//! consts), numbers and integers (`minimum`, `maximum`), booleans, and
//! multi-select string arrays (`items.enum` / `items.anyOf`, `minItems`,
//! `maxItems`), plus `required`.

use mcp_types::elicitation::{ElicitAction, ElicitResult};
use mcp_types::sampling::CreateMessageResult;
use serde_json::{Map, Value};

/// Checks an accepted form's content against `requested_schema`.
/// `Err` names the first failing field and why.
pub(crate) fn check_form(requested_schema: &Value, result: &ElicitResult) -> Result<(), String> {
    let content = match (&result.action, &result.content) {
        (ElicitAction::Accept, Some(c)) => serde_json::to_value(c).map_err(|e| e.to_string())?,
        (ElicitAction::Accept, None) => Value::Object(Map::new()),
        // Declined or cancelled: content is not the schema's business, but
        // the spec only allows it on accept.
        (_, Some(_)) => return Err("content is only allowed when the form is accepted".into()),
        (_, None) => return Ok(()),
    };
    let Value::Object(content) = content else {
        return Err("content must be an object".into());
    };
    let empty = Map::new();
    let properties = requested_schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(required) = requested_schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !content.contains_key(name) {
                return Err(format!("required field `{name}` is missing"));
            }
        }
    }
    for (name, value) in &content {
        let Some(schema) = properties.get(name) else {
            return Err(format!("field `{name}` is not in the requested schema"));
        };
        check_field(schema, value).map_err(|why| format!("field `{name}`: {why}"))?;
    }
    Ok(())
}

fn check_field(schema: &Value, value: &Value) -> Result<(), String> {
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "string" => {
            let s = value.as_str().ok_or("expected a string")?;
            check_string(schema, s)
        }
        "number" | "integer" => {
            let n = value.as_f64().ok_or("expected a number")?;
            if kind == "integer" && !(value.is_i64() || value.is_u64()) {
                return Err("expected an integer".into());
            }
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                return Err(format!("{n} is below the minimum {min}"));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                return Err(format!("{n} is above the maximum {max}"));
            }
            Ok(())
        }
        "boolean" => value
            .as_bool()
            .map(|_| ())
            .ok_or_else(|| "expected a boolean".into()),
        "array" => {
            let items = value.as_array().ok_or("expected an array")?;
            let count = items.len() as u64;
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
                && count < min
            {
                return Err(format!("{count} items, at least {min} required"));
            }
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && count > max
            {
                return Err(format!("{count} items, at most {max} allowed"));
            }
            let allowed = schema.get("items").map(choices).unwrap_or_default();
            for item in items {
                let s = item.as_str().ok_or("expected an array of strings")?;
                if !allowed.is_empty() && !allowed.iter().any(|a| a == s) {
                    return Err(format!("{s:?} is not one of the allowed options"));
                }
            }
            Ok(())
        }
        other => Err(format!("unsupported field type {other:?}")),
    }
}

/// The allowed values of an enum schema: `enum`, or the `const` of each
/// `oneOf` / `anyOf` option.
fn choices(schema: &Value) -> Vec<String> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|o| o.get("const").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

fn check_string(schema: &Value, s: &str) -> Result<(), String> {
    let chars = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && chars < min
    {
        return Err(format!("{chars} characters, at least {min} required"));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && chars > max
    {
        return Err(format!("{chars} characters, at most {max} allowed"));
    }
    let allowed = choices(schema);
    if !allowed.is_empty() && !allowed.iter().any(|a| a == s) {
        return Err(format!("{s:?} is not one of the allowed options"));
    }
    match schema.get("format").and_then(Value::as_str) {
        Some("email") if !is_email(s) => Err("not an email address".into()),
        Some("uri") if !is_uri(s) => Err("not an absolute URI".into()),
        Some("date") if !is_date(s) => Err("not a date (YYYY-MM-DD)".into()),
        Some("date-time") if !is_date_time(s) => Err("not an RFC 3339 date-time".into()),
        _ => Ok(()),
    }
}

fn is_email(s: &str) -> bool {
    match s.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !s.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn is_date(s: &str) -> bool {
    let mut parts = s.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn is_date_time(s: &str) -> bool {
    let Some((date, time)) = s.split_once(['T', 't']) else {
        return false;
    };
    if !is_date(date) || time.len() < 9 {
        return false;
    }
    let (clock, zone) = time.split_at(8);
    let mut hms = clock.split(':');
    let (Some(h), Some(mi), Some(se), None) = (hms.next(), hms.next(), hms.next(), hms.next())
    else {
        return false;
    };
    let (Some(h), Some(mi), Some(se)) = (digits(h, 2), digits(mi, 2), digits(se, 2)) else {
        return false;
    };
    if h > 23 || mi > 59 || se > 60 {
        return false;
    }
    let zone = match zone.strip_prefix('.') {
        Some(rest) => {
            let frac = rest.bytes().take_while(u8::is_ascii_digit).count();
            if frac == 0 {
                return false;
            }
            &rest[frac..]
        }
        None => zone,
    };
    if zone.eq_ignore_ascii_case("z") {
        return true;
    }
    let Some(offset) = zone.strip_prefix(['+', '-']) else {
        return false;
    };
    match offset.split_once(':') {
        Some((oh, om)) => {
            digits(oh, 2).is_some_and(|h| h < 24) && digits(om, 2).is_some_and(|m| m < 60)
        }
        None => false,
    }
}

/// Checks a sampling answer: it must serialize to a `CreateMessageResult`
/// with a model name and only the content kinds sampling allows
/// (`text`, `image`, `audio`, `tool_use`, `tool_result`), each complete.
pub(crate) fn check_sampling(result: &CreateMessageResult) -> Result<Value, String> {
    let value = serde_json::to_value(result).map_err(|e| e.to_string())?;
    if value
        .get("model")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err("`model` must be a non-empty string".into());
    }
    if !matches!(
        value.get("role").and_then(Value::as_str),
        Some("user" | "assistant")
    ) {
        return Err("`role` must be \"user\" or \"assistant\"".into());
    }
    let blocks = match value.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().collect::<Vec<_>>(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => return Err("`content` must be a block or an array of blocks".into()),
    };
    if blocks.is_empty() {
        return Err("`content` must not be empty".into());
    }
    for block in blocks {
        check_block(block)?;
    }
    Ok(value)
}

fn check_block(block: &Value) -> Result<(), String> {
    let has_str = |k: &str| block.get(k).is_some_and(Value::is_string);
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    let complete = match kind {
        "text" => has_str("text"),
        "image" | "audio" => has_str("data") && has_str("mimeType"),
        "tool_use" => {
            has_str("id") && has_str("name") && block.get("input").is_some_and(Value::is_object)
        }
        "tool_result" => has_str("toolUseId") && block.get("content").is_some_and(Value::is_array),
        other => {
            return Err(format!(
                "content type {other:?} is not allowed in a sampling result"
            ));
        }
    };
    if complete {
        Ok(())
    } else {
        Err(format!(
            "a `{kind}` content block is missing required fields"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn accept(content: Value) -> ElicitResult {
        serde_json::from_value(json!({"action": "accept", "content": content}))
            .unwrap_or_else(|e| panic!("test content parses: {e}"))
    }

    fn schema() -> Value {
        json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 5},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "score": {"type": "number", "maximum": 1.5},
            "ok": {"type": "boolean"},
            "color": {"type": "string", "enum": ["red", "green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "S"}, {"const": "m", "title": "M"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2},
            "mail": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"}}})
    }

    #[test]
    fn valid_forms_pass() {
        let ok = accept(
            json!({"name": "Ann", "age": 30, "score": 1.5, "ok": true, "color": "red",
            "size": "m", "tags": ["a", "b"], "mail": "a@b.c", "site": "https://x.y/z",
            "day": "2024-02-29", "at": "2025-11-25T10:00:00.5+01:00"}),
        );
        assert_eq!(check_form(&schema(), &ok), Ok(()));
        let declined: ElicitResult =
            serde_json::from_value(json!({"action": "decline"})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(check_form(&schema(), &declined), Ok(()));
    }

    #[test]
    fn invalid_forms_fail_with_the_field_named() {
        let cases = [
            (json!({}), "name"),
            (json!({"name": 5}), "expected a string"),
            (json!({"name": "A"}), "at least 2"),
            (json!({"name": "Ann", "age": 1.5}), "integer"),
            (json!({"name": "Ann", "age": 151}), "maximum"),
            (json!({"name": "Ann", "color": "blue"}), "allowed"),
            (json!({"name": "Ann", "size": "xl"}), "allowed"),
            (json!({"name": "Ann", "tags": ["a", "c"]}), "allowed"),
            (json!({"name": "Ann", "tags": ["a", "b", "a"]}), "at most 2"),
            (json!({"name": "Ann", "mail": "nope"}), "email"),
            (json!({"name": "Ann", "site": "no scheme"}), "URI"),
            (json!({"name": "Ann", "day": "2023-02-29"}), "date"),
            (
                json!({"name": "Ann", "at": "2025-11-25 10:00"}),
                "date-time",
            ),
            (
                json!({"name": "Ann", "extra": "x"}),
                "not in the requested schema",
            ),
        ];
        for (content, why) in cases {
            let err = check_form(&schema(), &accept(content.clone()))
                .err()
                .unwrap_or_else(|| panic!("{content} should fail"));
            assert!(err.contains(why), "{content}: {err}");
        }
    }

    #[test]
    fn sampling_results_are_checked() {
        use mcp_types::content::ContentBlock;
        let ok = CreateMessageResult::new(ContentBlock::text("hi"), "m");
        assert!(check_sampling(&ok).is_ok());
        let no_model = CreateMessageResult::new(ContentBlock::text("hi"), "");
        assert!(check_sampling(&no_model).is_err());
        let link: CreateMessageResult =
            serde_json::from_value(json!({"role": "assistant", "model": "m",
            "content": {"type": "resource_link", "uri": "file:///x", "name": "x"}}))
            .unwrap_or_else(|e| panic!("{e}"));
        let err = check_sampling(&link).err().unwrap_or_default();
        assert!(err.contains("resource_link"), "{err}");
    }
}

//! Tool arguments from the command line: `key=value` pairs typed from the
//! tool's `inputSchema`, or one JSON object (`--args '{...}'`, `--args
//! @FILE`), checked against the schema before anything is sent.
//!
//! The schema comes from the server and is untrusted: it is compiled with
//! a loader that refuses every external reference, so checking never reads
//! a file or the network.

use serde_json::{Map, Value};

use crate::exit::CliError;

/// The largest `@FILE` of arguments read (bytes).
const MAX_ARGS_FILE: u64 = 16 * 1024 * 1024;

/// Reads `--args`: inline JSON, or `@FILE`.
pub(crate) fn read_json_object(text: &str) -> Result<Map<String, Value>, CliError> {
    let owned;
    let (source, body) = match text.strip_prefix('@') {
        Some(path) => {
            let meta = std::fs::metadata(path)
                .map_err(|e| CliError::usage(format!("cannot read {path}: {e}")))?;
            if meta.len() > MAX_ARGS_FILE {
                return Err(CliError::usage(format!(
                    "{path} is larger than {MAX_ARGS_FILE} bytes"
                )));
            }
            owned = std::fs::read_to_string(path)
                .map_err(|e| CliError::usage(format!("cannot read {path}: {e}")))?;
            (path, owned.as_str())
        }
        None => ("--args", text),
    };
    match serde_json::from_str(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(CliError::usage(format!(
            "{source}: the arguments must be a JSON object ({{...}})"
        ))),
        Err(e) => Err(CliError::usage(format!("{source} is not valid JSON: {e}"))),
    }
}

/// Splits `key=value` pairs into a map of strings (prompt arguments).
pub(crate) fn string_pairs(pairs: &[String]) -> Result<Map<String, Value>, CliError> {
    let mut out = Map::new();
    for pair in pairs {
        let (k, v) = split_pair(pair)?;
        out.insert(k.to_owned(), Value::String(v.to_owned()));
    }
    Ok(out)
}

fn split_pair(pair: &str) -> Result<(&str, &str), CliError> {
    match pair.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k, v)),
        _ => Err(CliError::usage(format!(
            "argument {pair:?} is not KEY=VALUE (use --args for JSON)"
        ))),
    }
}

/// Builds a tool's arguments: the `--args` object, then the pairs on top,
/// each typed by its property in `schema`.
pub(crate) fn build(
    tool: &str,
    schema: &Map<String, Value>,
    json: Option<Map<String, Value>>,
    pairs: &[String],
) -> Result<Value, CliError> {
    let mut args = json.unwrap_or_default();
    let props = schema.get("properties").and_then(Value::as_object);
    for pair in pairs {
        let (key, raw) = split_pair(pair)?;
        let prop = props.and_then(|p| p.get(key));
        if prop.is_none() && props.is_some() && closed(schema) {
            return Err(CliError::usage(format!(
                "tool {tool:?} has no argument {key:?}; it takes: {}",
                names(props)
            )));
        }
        let value = typed(key, raw, prop)?;
        args.insert(key.to_owned(), value);
    }
    let args = Value::Object(args);
    check(tool, schema, &args)?;
    Ok(args)
}

/// Whether the schema refuses properties it does not name.
fn closed(schema: &Map<String, Value>) -> bool {
    schema.get("additionalProperties") == Some(&Value::Bool(false))
}

fn names(props: Option<&Map<String, Value>>) -> String {
    props.map_or_else(String::new, |p| {
        p.keys().cloned().collect::<Vec<_>>().join(", ")
    })
}

/// One value typed by its property schema: strings stay strings; numbers,
/// booleans, arrays and objects are parsed; an untyped property takes
/// JSON when the text is JSON, else the text.
fn typed(key: &str, raw: &str, prop: Option<&Value>) -> Result<Value, CliError> {
    let types: Vec<&str> = match prop.and_then(|p| p.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        return Ok(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())));
    }
    if types.contains(&"string") {
        return Ok(Value::String(raw.to_owned()));
    }
    let parsed: Option<Value> = serde_json::from_str(raw).ok();
    let fits = |v: &Value, t: &str| match t {
        "integer" => v.as_i64().is_some() || v.as_u64().is_some(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => false,
    };
    match parsed {
        Some(v) if types.iter().any(|t| fits(&v, t)) => Ok(v),
        _ => Err(CliError::usage(format!(
            "argument {key}={raw:?}: expected {}",
            types.join(" or ")
        ))),
    }
}

/// Refuses to load any external schema.
struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("external schema {url} not loaded").into())
    }
}

/// Checks `args` against the tool's input schema (JSON Schema 2020-12).
/// A schema that does not compile is not held against the user: the
/// server decides then.
pub(crate) fn check(tool: &str, schema: &Map<String, Value>, args: &Value) -> Result<(), CliError> {
    const URL: &str = "urn:mcp-cli:input-schema";
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.use_loader(Box::new(NoLoader));
    compiler.set_default_draft(boon::Draft::V2020_12);
    if compiler
        .add_resource(URL, Value::Object(schema.clone()))
        .is_err()
    {
        return Ok(());
    }
    let Ok(index) = compiler.compile(URL, &mut schemas) else {
        return Ok(());
    };
    match schemas.validate(args, index) {
        Ok(()) => Ok(()),
        Err(e) => Err(CliError::usage(format!(
            "the arguments do not fit the input schema of tool {tool:?}: {}",
            flatten(&e)
        ))),
    }
}

/// The leaf causes of a validation error, one per line.
fn flatten(e: &boon::ValidationError<'_, '_>) -> String {
    let mut leaves = Vec::new();
    collect(e, &mut leaves);
    leaves.join("; ")
}

fn collect(e: &boon::ValidationError<'_, '_>, out: &mut Vec<String>) {
    if e.causes.is_empty() {
        let at = e.instance_location.to_string();
        let at = if at.is_empty() {
            "arguments".to_owned()
        } else {
            format!("at {at}")
        };
        out.push(format!("{at}: {}", e.kind));
    } else {
        for c in &e.causes {
            collect(c, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "count": {"type": "integer"},
                "loud": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["text"]
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn pairs(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn pairs_are_typed_from_the_schema() {
        let args = build(
            "t",
            &schema(),
            None,
            &pairs(&["text=42", "count=3", "loud=true", "tags=[\"a\"]"]),
        )
        .expect("valid");
        assert_eq!(
            args,
            json!({"text": "42", "count": 3, "loud": true, "tags": ["a"]})
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_names_the_argument_and_the_type() {
        let e = build("t", &schema(), None, &pairs(&["text=a", "count=three"])).unwrap_err();
        assert!(
            e.message.contains("count=\"three\": expected integer"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_missing_required_argument_is_refused_before_sending() {
        let e = build("t", &schema(), None, &pairs(&["count=1"])).unwrap_err();
        assert!(e.message.contains("text"), "{}", e.message);
        assert!(e.message.contains("input schema"), "{}", e.message);
    }

    #[test]
    fn json_arguments_are_checked_too_and_pairs_override_them() {
        let json = read_json_object(r#"{"text": "x", "count": 1}"#).expect("object");
        let args = build("t", &schema(), Some(json), &pairs(&["count=2"])).expect("valid");
        assert_eq!(args, json!({"text": "x", "count": 2}));
        assert!(
            read_json_object("[1]")
                .unwrap_err()
                .message
                .contains("JSON object")
        );
        let bad = read_json_object(r#"{"text": 1}"#).expect("object");
        assert!(build("t", &schema(), Some(bad), &[]).is_err());
    }
}

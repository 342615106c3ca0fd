//! Shared helpers of the integration tests: fixture loading, typed round
//! trips through the crate's types, JSON comparison and schema validation.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used)] // test helpers outside #[test] functions

use std::path::{Path, PathBuf};

use mcp_types::error::KnownError;
use mcp_types::jsonrpc::{ErrorObject, ErrorResponse, Notification, Request, Response};
use mcp_types::results::{ResultOutcome, decode_result};
use mcp_types::{Message, NotificationMethod, RequestMethod};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub type Outcome = Result<Value, String>;

pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

pub fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `<dir>/<Type>/<name>.json`, as (type, file path, value), sorted.
pub fn fixtures(dir: &Path) -> Vec<(String, PathBuf, Value)> {
    let mut out = Vec::new();
    let mut types: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    types.sort();
    for t in types {
        let name = t.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(&t)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            let v = load(&f);
            out.push((name.clone(), f, v));
        }
    }
    out
}

/// JSON equality where numbers compare by value: RFC 8259 gives `50` and
/// `50.0` the same meaning, and `f64` fields write the latter.
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Decodes `v` as `T` and serializes it back.
pub fn rt<T: DeserializeOwned + Serialize>(v: &Value) -> Outcome {
    let t: T = serde_json::from_value(v.clone()).map_err(err)?;
    serde_json::to_value(&t).map_err(err)
}

fn message(v: &Value) -> Result<Message, String> {
    Message::from_slice(&serde_json::to_vec(v).map_err(err)?).map_err(err)
}

fn to_value(m: &Message) -> Outcome {
    serde_json::from_slice(&m.to_vec().map_err(err)?).map_err(err)
}

/// A JSON-RPC request of method `M`, params decoded as `M::Params`.
pub fn req<M: RequestMethod>(v: &Value) -> Outcome {
    let Message::Request(r) = message(v)? else {
        return Err("not a request".into());
    };
    if r.method != M::METHOD {
        return Err(format!("method {} is not {}", r.method, M::METHOD));
    }
    let had_params = r.params.is_some();
    let params: M::Params = r.params_as().map_err(err)?;
    let mut out = Request::typed::<M>(r.id, &params).map_err(err)?;
    if !had_params && out.params.as_ref().is_some_and(|p| p.get() == "{}") {
        out.params = None;
    }
    to_value(&Message::Request(out))
}

/// A JSON-RPC notification of method `M`.
pub fn notif<M: NotificationMethod>(v: &Value) -> Outcome {
    let Message::Notification(n) = message(v)? else {
        return Err("not a notification".into());
    };
    if n.method != M::METHOD {
        return Err(format!("method {} is not {}", n.method, M::METHOD));
    }
    let had_params = n.params.is_some();
    let params: M::Params = n.params_as().map_err(err)?;
    let mut out = Notification::typed::<M>(&params).map_err(err)?;
    if !had_params && out.params.as_ref().is_some_and(|p| p.get() == "{}") {
        out.params = None;
    }
    to_value(&Message::Notification(out))
}

/// A JSON-RPC result response whose `complete` result is an `R`, decoded
/// through `resultType` dispatch.
pub fn resp<R: DeserializeOwned + Serialize + std::fmt::Debug>(v: &Value) -> Outcome {
    let Message::Response(r) = message(v)? else {
        return Err("not a response".into());
    };
    let result = match decode_result::<R>(&r.result).map_err(err)? {
        ResultOutcome::Complete(x) => serde_json::to_value(x),
        ResultOutcome::InputRequired(x) => serde_json::to_value(x),
        ResultOutcome::Task(x) => serde_json::to_value(x),
        other => return Err(format!("unexpected outcome {other:?}")),
    }
    .map_err(err)?;
    let out = Response::typed(r.id, &result).map_err(err)?;
    to_value(&Message::Response(out))
}

/// A JSON-RPC error response, with typed `data` for the known codes; the
/// error object is rebuilt from the typed form.
pub fn err_resp(v: &Value, expect_typed: bool) -> Outcome {
    let Message::Error(e) = message(v)? else {
        return Err("not an error response".into());
    };
    let base = ErrorObject::new(e.error.code, e.error.message.clone());
    let rebuilt = match KnownError::classify(&e.error) {
        KnownError::UnsupportedProtocolVersion(d) => {
            base.with_data(serde_json::to_value(d).map_err(err)?)
        }
        KnownError::MissingRequiredClientCapability(d) => {
            base.with_data(serde_json::to_value(d).map_err(err)?)
        }
        KnownError::UrlElicitationRequired(d) => {
            base.with_data(serde_json::to_value(d).map_err(err)?)
        }
        KnownError::HeaderMismatch { .. } => match e.error.data.clone() {
            Some(d) => base.with_data(d),
            None => base,
        },
        KnownError::Other(o) if !expect_typed => o,
        other => return Err(format!("expected a typed error, got {other:?}")),
    };
    to_value(&Message::Error(ErrorResponse {
        id: e.id,
        error: rebuilt,
    }))
}

/// A JSON Schema 2020-12 validator over one schema file's `$defs`.
pub struct SchemaSet {
    url: String,
    compiler: boon::Compiler,
    schemas: boon::Schemas,
}

impl SchemaSet {
    pub fn load(file: &str) -> SchemaSet {
        let path = tests_dir().join("schema").join(file);
        let url = format!("https://schemas.invalid/{file}");
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        compiler.enable_format_assertions();
        compiler
            .add_resource(&url, load(&path))
            .expect("schema resource");
        SchemaSet {
            url,
            compiler,
            schemas: boon::Schemas::new(),
        }
    }

    /// Validates `value` against `$defs/<def>`.
    pub fn validate(&mut self, def: &str, value: &Value) -> Result<(), String> {
        let loc = format!("{}#/$defs/{def}", self.url);
        let idx = self
            .compiler
            .compile(&loc, &mut self.schemas)
            .map_err(|e| format!("{e:#}"))?;
        self.schemas
            .validate(value, idx)
            .map_err(|e| format!("{e:#}"))
    }

    /// The `$ref` names of the members of union `$defs/<union>` (`anyOf`).
    pub fn union_members(&self, union: &str) -> Vec<String> {
        let path = tests_dir()
            .join("schema")
            .join(self.url.rsplit('/').next().unwrap_or(""));
        let schema = load(&path);
        let def = &schema["$defs"][union];
        let members = def
            .get("anyOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| vec![def.clone()]);
        members
            .iter()
            .filter_map(|m| m.get("$ref").and_then(Value::as_str))
            .map(|r| r.rsplit('/').next().unwrap_or(r).to_owned())
            .collect()
    }
}

/// Runs `roundtrip` on every fixture of `dir`: the output must equal the
/// input (after `adjust_expected`) and validate against the schema `$defs`
/// entry named by the folder. Returns the list of failures.
pub fn check_dir(
    dir: &Path,
    schema: &mut SchemaSet,
    roundtrip: &dyn Fn(&str, &Value) -> Option<Outcome>,
    adjust_expected: &dyn Fn(&str, &Value) -> Value,
) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let all = fixtures(dir);
    for (ty, path, value) in &all {
        let file = path
            .strip_prefix(tests_dir())
            .unwrap_or(path)
            .display()
            .to_string();
        let Some(out) = roundtrip(ty, value) else {
            failures.push(format!("{file}: no Rust type mapped for {ty}"));
            continue;
        };
        match out {
            Err(e) => failures.push(format!("{file}: does not parse as {ty}: {e}")),
            Ok(out) => {
                let expected = adjust_expected(ty, value);
                if !same_json(&out, &expected) {
                    failures.push(format!(
                        "{file}: round trip differs\n  in:  {expected}\n  out: {out}"
                    ));
                }
                if let Err(e) = schema.validate(ty, &out) {
                    failures.push(format!("{file}: output invalid against $defs/{ty}: {e}"));
                }
            }
        }
    }
    (all.len(), failures)
}

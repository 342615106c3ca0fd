//! What the server asks of the user: form and URL elicitation, sampling.
//!
//! On a terminal (stdin and stderr) each request becomes questions on
//! stderr, read from stdin on a blocking thread (handlers are polled on the
//! client's driver and must not block it). A form is asked field by field
//! from its `requestedSchema`, with defaults, options and type checks; an
//! empty answer takes the default. Without a terminal, or with
//! `--no-input`, elicitation is declined and sampling refused, and a note
//! says so on stderr.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use mcp_client::{HandlerError, HandlerResult, UrlElicitation};
use mcp_types::content::ContentBlock;
use mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::Value;

use crate::held::pending::Pending;
use crate::ui::Ui;

/// Answers elicitation and sampling for one run.
#[derive(Clone, Debug)]
pub(crate) struct Asker {
    ui: Ui,
    /// Questions may be asked.
    interactive: bool,
    /// Held connections: questions wait for `mcp elicitation respond`.
    pending: Option<Pending>,
}

/// What one line of input was.
enum Line {
    Text(String),
    /// End of input (Ctrl-D).
    Eof,
}

impl Asker {
    /// An asker that prompts only when `interactive`; with `pending`,
    /// elicitations wait for a later `mcp elicitation respond` instead.
    pub(crate) fn new(ui: Ui, interactive: bool, pending: Option<Pending>) -> Asker {
        Asker {
            ui,
            interactive,
            pending,
        }
    }

    /// Serves a form elicitation.
    pub(crate) async fn form(
        &self,
        params: ElicitRequestFormParams,
    ) -> HandlerResult<ElicitResult> {
        if let Some(p) = &self.pending {
            return p.form(params).await;
        }
        if !self.interactive {
            self.ui.note(&format!(
                "mcp: declined the server's question ({:?}): no terminal to ask on",
                params.message
            ));
            return Ok(ElicitResult::decline());
        }
        let ui = self.ui.clone();
        run_blocking(move || ui.prompt_lock(|| ask_form(&params))).await
    }

    /// Serves a URL elicitation: the URL is printed, never fetched.
    pub(crate) async fn url(&self, request: UrlElicitation) -> HandlerResult<ElicitResult> {
        if let Some(p) = &self.pending {
            return p.url(request).await;
        }
        self.ui.note(&format!(
            "mcp: the server asks you to open a URL: {}\n  {}",
            request.message, request.url
        ));
        if !self.interactive {
            self.ui.note("mcp: declined (no terminal to confirm on)");
            return Ok(ElicitResult::decline());
        }
        let ui = self.ui.clone();
        run_blocking(move || {
            ui.prompt_lock(|| match ask("Did you complete it there? [y/N] ") {
                Line::Text(t) if is_yes(&t) => ElicitResult::accept_url(),
                Line::Text(_) => ElicitResult::decline(),
                Line::Eof => ElicitResult::cancel(),
            })
        })
        .await
    }

    /// Serves sampling: the user writes the reply, or refuses.
    pub(crate) async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> HandlerResult<CreateMessageResult> {
        if !self.interactive {
            self.ui
                .note("mcp: refused a sampling request: no terminal to ask on");
            return Err(HandlerError::rejected(
                "the user is not available to sample",
            ));
        }
        let ui = self.ui.clone();
        let answer = run_blocking(move || ui.prompt_lock(|| ask_sampling(&params))).await?;
        match answer {
            Some(text) => Ok(CreateMessageResult::new(ContentBlock::text(text), "human")),
            None => Err(HandlerError::rejected(
                "the user refused the sampling request",
            )),
        }
    }
}

/// Runs a blocking prompt off the driver.
async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> HandlerResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| HandlerError::internal(format!("the prompt failed: {e}")))
}

/// Prints `question` on stderr and reads one line from stdin.
fn ask(question: &str) -> Line {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => Line::Eof,
        Ok(_) => Line::Text(line.trim_end_matches(['\n', '\r']).to_owned()),
    }
}

fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn ask_sampling(params: &CreateMessageRequestParams) -> Option<String> {
    errln!(
        "mcp: the server asks for a model reply (max {} tokens):",
        params.max_tokens
    );
    if let Some(system) = &params.system_prompt {
        errln!("  system: {system}");
    }
    for m in &params.messages {
        let role = serde_json::to_value(&m.role).unwrap_or(Value::Null);
        let text: Vec<&str> = m
            .content
            .blocks()
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        errln!("  {}: {}", role.as_str().unwrap_or("?"), text.join(" "));
    }
    match ask("Your reply (empty to refuse): ") {
        Line::Text(t) if !t.trim().is_empty() => Some(t),
        _ => None,
    }
}

fn ask_form(params: &ElicitRequestFormParams) -> ElicitResult {
    errln!("mcp: the server asks: {}", params.message);
    let required = params.requested_schema.required.clone().unwrap_or_default();
    let mut content = BTreeMap::new();
    for (name, def) in &params.requested_schema.properties.0 {
        let schema = serde_json::to_value(def).unwrap_or(Value::Null);
        let needed = required.iter().any(|r| r == name);
        match ask_field(name, &schema, needed) {
            Field::Value(v) => {
                content.insert(name.clone(), v);
            }
            Field::Skip => {}
            Field::Cancel => return ElicitResult::cancel(),
        }
    }
    match ask("Send these answers? [Y/n] (n declines) ") {
        Line::Text(t) if t.trim().is_empty() || is_yes(&t) => ElicitResult::accept(content),
        Line::Text(_) => ElicitResult::decline(),
        Line::Eof => ElicitResult::cancel(),
    }
}

/// The outcome of one field.
enum Field {
    Value(ElicitValue),
    Skip,
    Cancel,
}

fn ask_field(name: &str, schema: &Value, required: bool) -> Field {
    let label = schema.get("title").and_then(Value::as_str).unwrap_or(name);
    let options = field_options(schema);
    let default = schema.get("default").cloned();
    let mut question = format!("  {label}");
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        question.push_str(&format!(" ({d})"));
    }
    if !options.is_empty() {
        question.push_str(&format!(" one of {}", options.join(", ")));
    }
    match &default {
        Some(d) => question.push_str(&format!(" [{}]", plain(d))),
        None if !required => question.push_str(" [skip]"),
        None => {}
    }
    question.push_str(": ");
    loop {
        let answer = match ask(&question) {
            Line::Eof => return Field::Cancel,
            Line::Text(t) => t,
        };
        if answer.trim().is_empty() {
            match &default {
                Some(d) => match serde_json::from_value(d.clone()) {
                    Ok(v) => return Field::Value(v),
                    Err(_) => errln!("  the server's default is not a valid answer"),
                },
                None if !required => return Field::Skip,
                None => {
                    errln!("  an answer is required");
                    continue;
                }
            }
            continue;
        }
        match parse_field(&answer, schema, &options) {
            Ok(v) => return Field::Value(v),
            Err(e) => errln!("  {e}"),
        }
    }
}

/// The allowed values of a select field, in order.
fn field_options(schema: &Value) -> Vec<String> {
    let strings = |v: Option<&Value>, key: Option<&str>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|o| match key {
                        Some(k) => o.get(k).and_then(Value::as_str),
                        None => o.as_str(),
                    })
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let items = schema.get("items");
    [
        strings(schema.get("enum"), None),
        strings(schema.get("oneOf"), Some("const")),
        strings(items.and_then(|i| i.get("enum")), None),
        strings(items.and_then(|i| i.get("anyOf")), Some("const")),
    ]
    .into_iter()
    .find(|o| !o.is_empty())
    .unwrap_or_default()
}

/// A JSON value shown without quotes.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Parses one answer by the field's type.
fn parse_field(answer: &str, schema: &Value, options: &[String]) -> Result<ElicitValue, String> {
    let answer = answer.trim();
    let kind = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let pick = |a: &str| -> Result<String, String> {
        if options.is_empty() || options.iter().any(|o| o == a) {
            Ok(a.to_owned())
        } else {
            Err(format!("{a:?} is not one of {}", options.join(", ")))
        }
    };
    match kind {
        "boolean" => match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(ElicitValue::Bool(true)),
            "n" | "no" | "false" => Ok(ElicitValue::Bool(false)),
            _ => Err("answer yes or no".into()),
        },
        "integer" => answer
            .parse::<i64>()
            .map(ElicitValue::from)
            .map_err(|_| format!("{answer:?} is not an integer")),
        "number" => answer
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(ElicitValue::Number)
            .ok_or_else(|| format!("{answer:?} is not a number")),
        "array" => answer
            .split(',')
            .map(|s| pick(s.trim()))
            .collect::<Result<Vec<_>, _>>()
            .map(ElicitValue::Strings),
        _ => pick(answer).map(ElicitValue::String),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_typed_by_the_field_schema() {
        let int = json!({"type": "integer"});
        assert_eq!(parse_field("42", &int, &[]), Ok(ElicitValue::from(42)));
        assert!(parse_field("4x", &int, &[]).is_err());
        let b = json!({"type": "boolean"});
        assert_eq!(parse_field("yes", &b, &[]), Ok(ElicitValue::Bool(true)));
        let e = json!({"type": "string", "enum": ["red", "blue"]});
        let opts = field_options(&e);
        assert_eq!(parse_field("red", &e, &opts), Ok(ElicitValue::from("red")));
        assert!(
            parse_field("green", &e, &opts)
                .unwrap_err()
                .contains("red, blue")
        );
        let multi = json!({"type": "array", "items": {"anyOf": [{"const": "a"}, {"const": "b"}]}});
        let opts = field_options(&multi);
        assert_eq!(
            parse_field("a, b", &multi, &opts),
            Ok(ElicitValue::Strings(vec!["a".into(), "b".into()]))
        );
    }
}

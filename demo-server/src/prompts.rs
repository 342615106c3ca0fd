//! Prompts and completion.

use serde_json::{Value, json};

use crate::support::{Reply, RpcError, required_str};

fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn required<'a>(args: &'a Value, key: &str) -> Result<&'a str, RpcError> {
    arg(args, key)
        .ok_or_else(|| RpcError::invalid_params(format!("Missing required argument: {key}")))
}

fn user_text(text: String) -> Value {
    json!({ "role": "user", "content": { "type": "text", "text": text } })
}

/// `prompts/get` without era decorations.
pub(crate) fn get(params: &Value) -> Reply {
    let name = required_str(params, "name")?;
    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
    match name {
        "greeting" => {
            let who = required(&args, "name")?;
            let text = match arg(&args, "style") {
                None | Some("casual") => format!("Say hi to {who} in a relaxed way."),
                Some("formal") => format!("Write a formal greeting to {who}."),
                Some(other) => {
                    return Err(RpcError::invalid_params(format!(
                        "style must be casual or formal, not {other:?}"
                    )));
                }
            };
            Ok(json!({ "description": "A greeting", "messages": [user_text(text)] }))
        }
        "code_review" => {
            let language = required(&args, "language")?;
            let code = required(&args, "code")?;
            Ok(json!({
                "description": "Code review request",
                "messages": [user_text(format!("Please review this {language} code:\n\n{code}"))]
            }))
        }
        "plain" => Ok(json!({
            "messages": [
                user_text("Read the README below and say what this server offers.".into()),
                { "role": "user", "content": {
                    "type": "resource",
                    "resource": { "uri": "demo://readme", "mimeType": "text/markdown",
                                  "text": "# demo-server" }
                } }
            ]
        })),
        other => Err(RpcError::invalid_params(format!("Unknown prompt: {other}"))),
    }
}

const STYLES: [&str; 2] = ["casual", "formal"];
const LANGUAGES: [&str; 6] = ["c", "go", "python", "rust", "ruby", "typescript"];
const NAMES: [&str; 3] = ["Ada", "Alan", "Grace"];

/// `completion/complete` without era decorations.
pub(crate) fn complete(params: &Value) -> Reply {
    let reference = params
        .get("ref")
        .ok_or_else(|| RpcError::invalid_params("missing ref"))?;
    let argument = params
        .get("argument")
        .ok_or_else(|| RpcError::invalid_params("missing argument"))?;
    let arg_name = required_str(argument, "name")?;
    let prefix = required_str(argument, "value")?;
    let candidates: Vec<String> = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => match (required_str(reference, "name")?, arg_name) {
            ("greeting", "style") => STYLES.iter().map(|s| (*s).to_owned()).collect(),
            ("greeting", "name") => NAMES.iter().map(|s| (*s).to_owned()).collect(),
            ("code_review", "language") => LANGUAGES.iter().map(|s| (*s).to_owned()).collect(),
            ("greeting" | "code_review" | "plain", _) => Vec::new(),
            (other, _) => {
                return Err(RpcError::invalid_params(format!("Unknown prompt: {other}")));
            }
        },
        Some("ref/resource") => match (required_str(reference, "uri")?, arg_name) {
            ("demo://item/{id}", "id") => (1..=12).map(|i| i.to_string()).collect(),
            _ => Vec::new(),
        },
        _ => {
            return Err(RpcError::invalid_params(
                "ref.type must be ref/prompt or ref/resource",
            ));
        }
    };
    let values: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(prefix))
        .collect();
    Ok(json!({
        "completion": { "values": values, "total": values.len(), "hasMore": false }
    }))
}

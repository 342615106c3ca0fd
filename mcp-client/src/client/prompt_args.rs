//! `get_prompt_typed`: a serde struct turned into the string map that
//! `prompts/get` carries on the wire.

use std::collections::BTreeMap;

use mcp_core::UsageError;
use mcp_types::prompts::GetPromptResult;
use serde::Serialize;
use serde_json::Value;

use crate::client::Client;
use crate::error::Error;

/// Serializes `args` into prompt arguments: strings pass through, numbers
/// and booleans are written with `Display`, `null` fields are omitted,
/// arrays and objects become their JSON text. A top-level `null` (e.g.
/// `()`) is no arguments.
///
/// # Errors
/// [`UsageError::ParamsNotObject`] when `args` is not a map or struct;
/// [`UsageError::Serialize`] when serde fails.
pub(crate) fn prompt_arguments<T: Serialize + ?Sized>(
    args: &T,
) -> Result<BTreeMap<String, String>, UsageError> {
    let object = match serde_json::to_value(args)? {
        Value::Object(map) => map,
        Value::Null => return Ok(BTreeMap::new()),
        _ => return Err(UsageError::ParamsNotObject),
    };
    let mut out = BTreeMap::new();
    for (key, value) in object {
        let text = match value {
            Value::Null => continue,
            Value::String(s) => s,
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            v @ (Value::Array(_) | Value::Object(_)) => v.to_string(),
        };
        out.insert(key, text);
    }
    Ok(out)
}

impl Client {
    /// `prompts/get` with arguments taken from any serde type (a struct or
    /// a map): strings pass through, numbers and booleans are written with
    /// `Display`, `None`/`null` fields are left out, arrays and objects are
    /// sent as JSON text.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// #[derive(serde::Serialize)]
    /// struct Greeting<'a> { name: &'a str, style: Option<&'a str> }
    /// let prompt = client
    ///     .get_prompt_typed("greeting", &Greeting { name: "Ada", style: None })
    ///     .await?;
    /// println!("{:?}", prompt.messages);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// See [`Error`]; a usage error when `args` does not serialize to an
    /// object (or `null`).
    pub async fn get_prompt_typed<T: Serialize + ?Sized>(
        &self,
        name: &str,
        args: &T,
    ) -> Result<GetPromptResult, Error> {
        let arguments = prompt_arguments(args)?;
        self.get_prompt(name, arguments).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn strings_pass_through_unquoted() {
        let got = prompt_arguments(&json!({"a": "x \"y\"", "b": ""})).ok();
        assert_eq!(got, Some(map(&[("a", "x \"y\""), ("b", "")])));
    }

    #[test]
    fn numbers_and_booleans_use_display() {
        let got = prompt_arguments(&json!({"i": -3, "f": 1.5, "t": true, "n": false})).ok();
        assert_eq!(
            got,
            Some(map(&[
                ("f", "1.5"),
                ("i", "-3"),
                ("n", "false"),
                ("t", "true")
            ]))
        );
    }

    #[test]
    fn null_fields_are_omitted() {
        #[derive(Serialize)]
        struct Args {
            name: &'static str,
            style: Option<&'static str>,
        }
        let got = prompt_arguments(&Args {
            name: "Ada",
            style: None,
        })
        .ok();
        assert_eq!(got, Some(map(&[("name", "Ada")])));
    }

    #[test]
    fn arrays_and_objects_become_json_text() {
        let got = prompt_arguments(&json!({"l": [1, "a"], "o": {"k": null}})).ok();
        assert_eq!(got, Some(map(&[("l", "[1,\"a\"]"), ("o", "{\"k\":null}")])));
    }

    #[test]
    fn unit_is_no_arguments_and_scalars_are_refused() {
        assert_eq!(prompt_arguments(&()).ok(), Some(BTreeMap::new()));
        assert!(matches!(
            prompt_arguments(&42),
            Err(UsageError::ParamsNotObject)
        ));
        assert!(matches!(
            prompt_arguments(&vec!["a"]),
            Err(UsageError::ParamsNotObject)
        ));
    }
}

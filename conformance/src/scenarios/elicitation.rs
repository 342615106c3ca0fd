//! The `elicitation` family: `elicitation-sep1034-client-defaults`
//! (2025-11-25), and [`accept_with_defaults`], the SEP-1034 rule the
//! scenario's handler applies.

use std::collections::BTreeMap;

use mcp_client::HandlerError;
use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitValue};
use serde_json::{Value, json};

use crate::invocation::Invocation;
use crate::registry::{Family, Scenario, ScenarioError, ScenarioFuture};
use crate::scenarios::{LEGACY, builder, connect, expect_success, failed, text_of, unexpected};

/// The family.
pub const FAMILY: Family = Family::new(
    "elicitation",
    &[Scenario::new(
        "elicitation-sep1034-client-defaults",
        LEGACY,
        |inv| Box::pin(client_defaults(inv)) as ScenarioFuture<'_>,
    )],
);

/// SEP-1034: accepts a form with `submitted` (what the user filled in) and
/// every field the user left empty taken from its schema `default`. A field
/// with neither stays absent. A default that is not a valid form value (an
/// object, say) is ignored rather than sent.
///
/// ```
/// use std::collections::BTreeMap;
/// use conformance::scenarios::elicitation::accept_with_defaults;
/// use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitValue};
///
/// let params: ElicitRequestFormParams = serde_json::from_value(serde_json::json!({
///     "message": "m",
///     "requestedSchema": {"type": "object", "properties": {
///         "name": {"type": "string", "default": "Ada"},
///         "age": {"type": "integer", "default": 36}}}
/// }))?;
/// let filled = accept_with_defaults(&params, BTreeMap::from([("age".into(), ElicitValue::from(37))]));
/// let content = filled.content.expect("accepted");
/// assert_eq!(content["name"], ElicitValue::from("Ada"));
/// assert_eq!(content["age"], ElicitValue::from(37));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn accept_with_defaults(
    params: &ElicitRequestFormParams,
    submitted: BTreeMap<String, ElicitValue>,
) -> ElicitResult {
    let mut content = submitted;
    let schema = serde_json::to_value(&params.requested_schema).unwrap_or(Value::Null);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (field, property) in properties {
            if content.contains_key(field) {
                continue;
            }
            let Some(default) = property.get("default") else {
                continue;
            };
            if let Ok(value) = serde_json::from_value::<ElicitValue>(default.clone()) {
                content.insert(field.clone(), value);
            }
        }
    }
    ElicitResult::accept(content)
}

/// The handler of a user who accepts without typing anything.
async fn accept_defaults(params: ElicitRequestFormParams) -> Result<ElicitResult, HandlerError> {
    Ok(accept_with_defaults(&params, BTreeMap::new()))
}

/// `elicitation-sep1034-client-defaults`: call
/// `test_client_elicitation_defaults`; the server's `elicitation/create`
/// is accepted with every field taken from its default.
async fn client_defaults(invocation: &Invocation) -> Result<(), ScenarioError> {
    let client = connect(builder(invocation).form_elicitation(accept_defaults)).await?;
    let tool = "test_client_elicitation_defaults";
    let result = client
        .call_tool(tool, json!({}))
        .await
        .map_err(failed("tools/call test_client_elicitation_defaults"))?;
    expect_success(tool, &result)?;
    let text = text_of(&result);
    if !text.contains("accept") && !text.contains("completed") {
        return Err(unexpected(
            "tools/call test_client_elicitation_defaults",
            format!("unexpected result {text:?}"),
        ));
    }
    client.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The form `elicitation-sep1034-client-defaults` sends.
    fn suite_form() -> ElicitRequestFormParams {
        serde_json::from_value(json!({
            "message": "Test client default value handling - please accept with defaults",
            "requestedSchema": {"type": "object", "required": [], "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}}}
        }))
        .expect("the suite's form parses")
    }

    #[test]
    fn fills_every_omitted_field_from_its_default_with_its_type() {
        let result = accept_with_defaults(&suite_form(), BTreeMap::new());
        let wire = serde_json::to_value(&result).expect("encodes");
        assert_eq!(
            wire,
            json!({"action": "accept", "content": {
                "name": "John Doe", "age": 30, "score": 95.5,
                "status": "active", "verified": true}})
        );
    }

    #[test]
    fn what_the_user_submitted_wins_and_fields_without_default_stay_absent() {
        let form: ElicitRequestFormParams = serde_json::from_value(json!({
            "message": "m",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "email": {"type": "string"}}}
        }))
        .expect("parses");
        let submitted = BTreeMap::from([("name".to_owned(), ElicitValue::from("Ada"))]);
        let result = accept_with_defaults(&form, submitted);
        let content = result.content.expect("accepted with content");
        assert_eq!(content.get("name"), Some(&ElicitValue::from("Ada")));
        assert!(!content.contains_key("email"));
    }
}

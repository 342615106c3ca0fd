//! SEP-1034: a form the user accepted gets every omitted field that has a
//! schema `default` filled with it before the answer is sent
//! ([`ClientBuilder::apply_elicitation_defaults`](crate::ClientBuilder::apply_elicitation_defaults),
//! on by default).

use mcp_types::elicitation::{ElicitAction, ElicitRequestFormParams, ElicitResult, ElicitValue};

/// Fills the omitted fields of an accepted form from their `default`.
///
/// What the handler submitted always wins; a field with no default stays
/// absent; a default that is not a valid form value (an object, say) is
/// ignored rather than sent. Declined and cancelled answers are untouched.
pub(crate) fn apply(params: &ElicitRequestFormParams, result: &mut ElicitResult) {
    if result.action != ElicitAction::Accept {
        return;
    }
    for (field, definition) in &params.requested_schema.properties.0 {
        if result
            .content
            .as_ref()
            .is_some_and(|c| c.contains_key(field))
        {
            continue;
        }
        let Ok(schema) = serde_json::to_value(definition) else {
            continue;
        };
        let Some(default) = schema.get("default") else {
            continue;
        };
        if let Ok(value) = serde_json::from_value::<ElicitValue>(default.clone()) {
            result
                .content
                .get_or_insert_with(Default::default)
                .insert(field.clone(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    /// The form of the `elicitation-sep1034-client-defaults` conformance
    /// scenario.
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

    fn applied(form: &ElicitRequestFormParams, mut result: ElicitResult) -> serde_json::Value {
        apply(form, &mut result);
        serde_json::to_value(&result).expect("encodes")
    }

    #[test]
    fn fills_every_omitted_field_from_its_default_with_its_type() {
        let wire = applied(&suite_form(), ElicitResult::accept(BTreeMap::new()));
        assert_eq!(
            wire,
            json!({"action": "accept", "content": {
                "name": "John Doe", "age": 30, "score": 95.5,
                "status": "active", "verified": true}})
        );
    }

    #[test]
    fn an_accept_without_content_gets_the_defaults() {
        let mut result = ElicitResult::accept(BTreeMap::new());
        result.content = None;
        let wire = applied(&suite_form(), result);
        assert_eq!(wire["content"]["name"], "John Doe");
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
        let wire = applied(&form, ElicitResult::accept(submitted));
        assert_eq!(
            wire,
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
    }

    /// Serves the suite's form through the builder's handlers, the handler
    /// accepting with nothing filled in.
    async fn served(builder: crate::ClientBuilder) -> serde_json::Value {
        let builder = builder.form_elicitation(|_: ElicitRequestFormParams| async {
            Ok(ElicitResult::accept(BTreeMap::new()))
        });
        let params = serde_json::value::to_raw_value(&suite_form()).expect("encodes");
        let request =
            mcp_types::incoming::ServerRequest::classify("elicitation/create".into(), Some(params));
        let fut = builder
            .handlers
            .serve(&request)
            .expect("a form handler is registered");
        fut.await.expect("served")
    }

    #[tokio::test]
    async fn the_client_fills_defaults_unless_turned_off() {
        let on = served(crate::Client::builder()).await;
        assert_eq!(on["content"]["age"], 30);
        assert_eq!(on["content"]["verified"], true);
        let off = served(crate::Client::builder().apply_elicitation_defaults(false)).await;
        assert_eq!(off, json!({"action": "accept", "content": {}}));
    }

    #[test]
    fn declined_and_cancelled_answers_are_untouched() {
        for result in [ElicitResult::decline(), ElicitResult::cancel()] {
            let expected = serde_json::to_value(&result).expect("encodes");
            assert_eq!(applied(&suite_form(), result), expected);
        }
    }
}

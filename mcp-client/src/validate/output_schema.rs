//! Validation of a tool's `structuredContent` against its `outputSchema`
//! (JSON Schema 2020-12 by default, with `boon`), on request
//! ([`CallOptions::validate_output`](crate::CallOptions::validate_output)).
//!
//! The schema comes from the server and is untrusted: references resolve
//! only inside it (a loader that refuses every URL), so validation never
//! reads a file or the network.

use std::collections::HashMap;
use std::sync::PoisonError;

use mcp_types::tools::CallToolResult;
use serde_json::Value;

use crate::client::{Client, Shared};
use crate::error::{Error, ErrorKind};

/// The base URL the schema is registered under (never fetched).
const SCHEMA_URL: &str = "urn:mcp-client:output-schema";

/// Refuses to load any external schema.
struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("external schema {url} not loaded").into())
    }
}

impl Shared {
    /// Forgets the output schemas (the tool list changed).
    pub(crate) fn forget_output_schemas(&self) {
        *self
            .output_schemas
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }

    fn output_schema(&self, tool: &str) -> Option<Option<Value>> {
        let schemas = self
            .output_schemas
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        schemas.as_ref().map(|m| m.get(tool).cloned().flatten())
    }
}

impl Client {
    /// Checks a tool result against the tool's `outputSchema`.
    pub(crate) async fn check_output(
        &self,
        tool: &str,
        result: &CallToolResult,
    ) -> Result<(), Error> {
        if result.is_error == Some(true) {
            return Ok(());
        }
        let shared = &self.inner.shared;
        let schema = match shared.output_schema(tool) {
            Some(s) => s,
            None => {
                let tools = self.list_all_tools().await?;
                let map: HashMap<String, Option<Value>> = tools
                    .into_iter()
                    .map(|t| (t.name, t.output_schema))
                    .collect();
                let schema = map.get(tool).cloned().flatten();
                *shared
                    .output_schemas
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(map);
                schema
            }
        };
        let Some(schema) = schema else {
            return Ok(());
        };
        let Some(content) = &result.structured_content else {
            return Err(invalid(
                tool,
                "the tool declares an outputSchema but the result has no structuredContent".into(),
            ));
        };
        validate(&schema, content).map_err(|reason| invalid(tool, reason))
    }
}

fn invalid(tool: &str, reason: String) -> Error {
    Error::new(ErrorKind::StructuredContent {
        tool: tool.to_owned(),
        reason,
    })
}

/// Validates `instance` against `schema`; the error says why not.
pub(crate) fn validate(schema: &Value, instance: &Value) -> Result<(), String> {
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler.use_loader(Box::new(NoLoader));
    let mut schemas = boon::Schemas::new();
    let unusable =
        |e: boon::CompileError| format!("the tool's outputSchema is not a usable JSON Schema: {e}");
    compiler
        .add_resource(SCHEMA_URL, schema.clone())
        .map_err(unusable)?;
    let index = compiler
        .compile(SCHEMA_URL, &mut schemas)
        .map_err(unusable)?;
    schemas
        .validate(instance, index)
        .map_err(|e| format!("structuredContent does not match the outputSchema: {e}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::validate;

    #[test]
    fn matching_and_mismatching_instances() {
        let schema = json!({
            "type": "object",
            "properties": { "sum": { "type": "integer" } },
            "required": ["sum"]
        });
        assert!(validate(&schema, &json!({ "sum": 5 })).is_ok());
        let e = validate(&schema, &json!({ "sum": "five" })).expect_err("a string");
        assert!(e.contains("does not match"), "{e}");
        assert!(validate(&schema, &json!({})).is_err(), "required");
    }

    #[test]
    fn external_references_are_never_loaded() {
        let schema = json!({ "$ref": "file:///etc/passwd" });
        let e = validate(&schema, &json!(1)).expect_err("refused");
        assert!(e.contains("not a usable JSON Schema"), "{e}");
    }

    #[test]
    fn an_invalid_schema_is_a_typed_error_not_a_panic() {
        let e = validate(&json!({ "type": 12 }), &json!(1)).expect_err("bad schema");
        assert!(e.contains("not a usable"), "{e}");
    }
}

//! Which schema definition applies: a request method's result per
//! revision (and the variant a result declares), and the message definition
//! whose `params` a server request or notification must satisfy. Every
//! definition name comes from the method facts of `mcp-types`
//! ([`mcp_types::methods::facts`]); this file only tells the variants of a
//! result apart.

use mcp_types::Era;
use mcp_types::methods::facts::{self, EraFacts, SchemaDoc, Sender};
use serde_json::Value;

use super::schema::Doc;

/// The schema document this module's validator has for a facts document.
fn doc(schema: SchemaDoc) -> Doc {
    match schema {
        SchemaDoc::Legacy => Doc::Legacy,
        SchemaDoc::Modern => Doc::Modern,
        SchemaDoc::Tasks => Doc::Tasks,
    }
}

/// The facts of `method` in `era`, if the method has a schema there.
fn facts_in(era: Era, method: &str) -> Option<&'static EraFacts> {
    facts::lookup(method)?
        .era(era)
        .filter(|f| f.schema.is_some())
}

/// The document and definition of a completed (non-task, non-input)
/// result of `method` in `era`.
pub(super) fn complete(era: Era, method: &str) -> Option<(Doc, &'static str)> {
    let Some(f) = facts_in(era, method) else {
        // 2026-07-28 removed `ping` from the protocol (the facts table has
        // no modern row), yet a client may still send it to a modern
        // server and get `{}` back; strict mode has always held that reply
        // to `EmptyResult`, and keeps doing so here, in this one place.
        let ping = <mcp_types::methods::v2025_11_25::Ping as mcp_types::RequestMethod>::METHOD;
        return (era == Era::Modern && method == ping).then_some((Doc::Modern, "EmptyResult"));
    };
    Some((doc(f.schema?), f.result_definition?))
}

/// The definition a result must satisfy. The variants a method may return
/// are told apart the way the spec tells them apart: `resultType` in
/// 2026-07-28 (`input_required`, `task`), a `task` member in 2025-11-25.
/// Methods the schema does not know are checked against `Result`.
pub(super) fn definition(
    doc: Doc,
    method: &str,
    call_method: &str,
    result: &Value,
) -> (Doc, &'static str) {
    if doc == Doc::Legacy {
        let can_be_task =
            facts_in(Era::Legacy, method).is_some_and(|f| f.task_capability.is_some());
        if can_be_task && result.get("task").is_some() {
            return (Doc::Legacy, "CreateTaskResult");
        }
        // `tasks/result` answers with the result of the task-augmented
        // request that made the task, when this client knows it; a task it
        // only attached to (its call is `tasks/get` polling) is held to the
        // payload result the schema gives `tasks/result` itself.
        let made_by = facts_in(Era::Legacy, call_method).filter(|f| f.task_capability.is_some());
        if method == "tasks/result"
            && made_by.is_some()
            && let Some(found) = complete(Era::Legacy, call_method)
        {
            return found;
        }
        return complete(Era::Legacy, method).unwrap_or((Doc::Legacy, "Result"));
    }
    let modern = facts_in(Era::Modern, method);
    match result.get("resultType").and_then(Value::as_str) {
        Some("input_required") if modern.is_some_and(|f| f.input_required) => {
            return (Doc::Modern, "InputRequiredResult");
        }
        Some("task") if modern.is_some_and(|f| f.task_capability.is_some()) => {
            return (Doc::Tasks, "CreateTaskResult");
        }
        _ => {}
    }
    complete(Era::Modern, method).unwrap_or((Doc::Modern, "Result"))
}

/// The message definitions whose `params` server requests and
/// notifications are checked against, per document: every method the
/// server sends as a message of its own in that document's revision. The
/// tasks extension's document has none: params are checked against the
/// revision's own document only.
pub(super) fn messages(doc: Doc) -> impl Iterator<Item = (&'static str, &'static str)> {
    let era = match doc {
        Doc::Legacy => Some(Era::Legacy),
        Doc::Modern => Some(Era::Modern),
        Doc::Tasks => None,
    };
    facts::METHODS.iter().filter_map(move |m| {
        let f = m.era(era?)?;
        let sent = matches!(f.sender, Sender::Server | Sender::Both);
        let here = f.schema.map(self::doc) == Some(doc);
        Some((m.name, f.message_definition?)).filter(|_| sent && here)
    })
}

/// The message definition for a server request or notification, if the
/// revision's schema has one.
pub(super) fn message_definition(doc: Doc, method: &str) -> Option<&'static str> {
    messages(doc)
        .find(|(m, _)| *m == method)
        .map(|(_, def)| def)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_result_is_held_to_the_request_that_made_the_task() {
        let empty = serde_json::json!({});
        assert_eq!(
            definition(Doc::Legacy, "tasks/result", "tools/call", &empty),
            (Doc::Legacy, "CallToolResult")
        );
        // An attached task: the client's call is the `tasks/get` polling,
        // whose own result is not what `tasks/result` carries.
        assert_eq!(
            definition(Doc::Legacy, "tasks/result", "tasks/get", &empty),
            (Doc::Legacy, "GetTaskPayloadResult")
        );
        assert_eq!(
            definition(Doc::Legacy, "tasks/get", "tasks/get", &empty),
            (Doc::Legacy, "GetTaskResult")
        );
    }
}

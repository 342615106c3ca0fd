//! Strict mode's result validator: both revisions' `schema.json` and the
//! tasks extension's, embedded, compiled once per process on first use,
//! and the map from a request method to the definition its result must
//! satisfy.

use std::sync::OnceLock;

use mcp_core::ResponseTarget;
use mcp_core::strict::{MAX_FAILURES, SchemaFailure, StrictProblem};
use mcp_types::ProtocolVersion;
use mcp_types::raw::RawJson;
use serde_json::Value;
use serde_json::value::RawValue;

use super::methods;

/// One embedded schema document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Doc {
    /// 2025-11-25 `schema.json`.
    Legacy,
    /// 2026-07-28 `schema.json`.
    Modern,
    /// The tasks extension's `schema.json` (2026-07-28).
    Tasks,
}

const DOCS: [Doc; 3] = [Doc::Legacy, Doc::Modern, Doc::Tasks];

impl Doc {
    /// Where the document is registered (never fetched).
    fn url(self) -> &'static str {
        match self {
            Doc::Legacy => "urn:mcp-client:schema:2025-11-25",
            Doc::Modern => "urn:mcp-client:schema:2026-07-28",
            // The document names itself with this `$id`.
            Doc::Tasks => "https://modelcontextprotocol.io/ext-tasks/schema.json",
        }
    }

    fn text(self) -> &'static str {
        match self {
            Doc::Legacy => include_str!("../../../schema/2025-11-25.json"),
            Doc::Modern => include_str!("../../../schema/2026-07-28.json"),
            Doc::Tasks => include_str!("../../../schema/ext-tasks.json"),
        }
    }

    fn revision(self) -> ProtocolVersion {
        match self {
            Doc::Legacy => ProtocolVersion::V2025_11_25,
            Doc::Modern | Doc::Tasks => ProtocolVersion::V2026_07_28,
        }
    }

    /// Every definition a result may be checked against.
    fn definitions(self) -> &'static [&'static str] {
        match self {
            Doc::Legacy => &[
                "Result",
                "EmptyResult",
                "InitializeResult",
                "ListToolsResult",
                "ListPromptsResult",
                "ListResourcesResult",
                "ListResourceTemplatesResult",
                "ListTasksResult",
                "CallToolResult",
                "CreateTaskResult",
                "GetPromptResult",
                "ReadResourceResult",
                "CompleteResult",
                "CreateMessageResult",
                "ElicitResult",
                "ListRootsResult",
                "GetTaskResult",
                "CancelTaskResult",
                "GetTaskPayloadResult",
            ],
            Doc::Modern => &[
                "Result",
                "EmptyResult",
                "DiscoverResult",
                "ListToolsResult",
                "ListPromptsResult",
                "ListResourcesResult",
                "ListResourceTemplatesResult",
                "CallToolResult",
                "InputRequiredResult",
                "GetPromptResult",
                "ReadResourceResult",
                "CompleteResult",
                "SubscriptionsListenResult",
                "CreateMessageResult",
                "ElicitResult",
                "ListRootsResult",
            ],
            Doc::Tasks => &[
                "CreateTaskResult",
                "GetTaskResult",
                "UpdateTaskResult",
                "CancelTaskResult",
            ],
        }
    }
}

/// What a compiled schema checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// A result definition.
    Result,
    /// The `params` of a message definition.
    Params,
}

/// The compiled definitions.
struct Validator {
    schemas: boon::Schemas,
    index: Vec<(Doc, Part, &'static str, boon::SchemaIndex)>,
}

impl Validator {
    fn find(&self, doc: Doc, part: Part, def: &str) -> Option<boon::SchemaIndex> {
        self.index
            .iter()
            .find(|(d, p, name, _)| *d == doc && *p == part && *name == def)
            .map(|(_, _, _, i)| *i)
    }

    /// Validates; the failures (bounded) and whether some were left out.
    fn failures(&self, doc: Doc, index: boon::SchemaIndex, instance: &Value) -> Option<Failures> {
        let error = self.schemas.validate(instance, index).err()?;
        let mut failures = Failures::default();
        collect(&error, doc.url(), &mut failures);
        Some(failures)
    }
}

/// The failures of one validation, at most [`MAX_FAILURES`].
#[derive(Debug, Default)]
pub(crate) struct Failures {
    /// The failures kept.
    pub(crate) kept: Vec<SchemaFailure>,
    /// More were found than kept.
    pub(crate) truncated: bool,
}

/// Refuses to load anything: every reference resolves inside the
/// embedded documents.
struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is not an embedded schema").into())
    }
}

fn build() -> Result<Validator, String> {
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler.use_loader(Box::new(NoLoader));
    for doc in DOCS {
        let json: Value = serde_json::from_str(doc.text()).map_err(|e| e.to_string())?;
        compiler
            .add_resource(doc.url(), json)
            .map_err(|e| e.to_string())?;
    }
    let mut schemas = boon::Schemas::new();
    let mut index = Vec::new();
    let mut compile = |doc: Doc, part: Part, def: &'static str, at: String| {
        let i = compiler
            .compile(&at, &mut schemas)
            .map_err(|e| format!("{at}: {e}"))?;
        index.push((doc, part, def, i));
        Ok::<(), String>(())
    };
    for doc in DOCS {
        for def in doc.definitions() {
            compile(
                doc,
                Part::Result,
                def,
                format!("{}#/$defs/{def}", doc.url()),
            )?;
        }
        for (_, def) in methods::messages(doc) {
            let at = format!("{}#/$defs/{def}/properties/params", doc.url());
            compile(doc, Part::Params, def, at)?;
        }
    }
    Ok(Validator { schemas, index })
}

static VALIDATOR: OnceLock<Result<Validator, String>> = OnceLock::new();

/// The validator, compiled on first use; an error only if the embedded
/// documents do not compile (a test rules that out).
fn validator() -> Option<&'static Validator> {
    match VALIDATOR.get_or_init(build) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::error!(error = %e, "strict mode: the embedded schemas do not compile");
            None
        }
    }
}

/// The document of a revision; `None` for revisions without one.
fn doc_of(revision: &ProtocolVersion) -> Option<Doc> {
    match revision {
        ProtocolVersion::V2025_11_25 => Some(Doc::Legacy),
        ProtocolVersion::V2026_07_28 => Some(Doc::Modern),
        _ => None,
    }
}

/// Parses a payload for validation. A RawValue is valid JSON; this fails
/// only past serde_json's depth limit, reported as a failure at the root.
fn parse(raw: &[u8]) -> Result<Value, Failures> {
    mcp_types::raw::parse(raw).map_err(|e| Failures {
        // A result read off the wire is delimited but not parsed until now
        // (`RawJson`): it may not be JSON at all.
        kept: vec![SchemaFailure::new(
            "",
            if e.is_syntax() || e.is_eof() {
                "json"
            } else {
                "maxDepth"
            },
            "",
        )],
        truncated: false,
    })
}

/// Checks a result against the schema of the revision in use; `None` when
/// it is valid or no embedded schema covers that revision.
pub(crate) fn check(target: &ResponseTarget<'_>, raw: &RawJson) -> Option<StrictProblem> {
    check_result(
        target.revision?,
        target.method,
        target.call_method,
        raw.as_bytes(),
    )
}

/// [`check`] with the target spelled out.
fn check_result(
    revision: &ProtocolVersion,
    method: &str,
    call_method: &str,
    raw: &[u8],
) -> Option<StrictProblem> {
    let doc = doc_of(revision)?;
    let validator = validator()?;
    let problem = |definition, failures: Failures| StrictProblem::Schema {
        revision: doc.revision(),
        definition,
        failures: failures.kept,
        truncated: failures.truncated,
    };
    let mut instance = match parse(raw) {
        Ok(v) => v,
        Err(f) => return Some(problem("Result", f)),
    };
    // 2026-07-28: a client MUST treat an absent `resultType` as
    // "complete" (the result of an older server), so it is not a violation.
    if doc == Doc::Modern
        && let Value::Object(members) = &mut instance
        && !members.contains_key("resultType")
    {
        members.insert("resultType".into(), Value::from("complete"));
    }
    let (doc, def) = methods::definition(doc, method, call_method, &instance);
    let index = validator.find(doc, Part::Result, def)?;
    let failures = validator.failures(doc, index, &instance)?;
    Some(problem(def, failures))
}

/// Checks the params of a server request or notification against the
/// revision's message definition: the definition's name and the failures,
/// or `None` when they validate (or the method or revision has no
/// definition). Absent params are checked as `{}`.
pub(crate) fn check_params(
    revision: Option<&ProtocolVersion>,
    method: &str,
    params: Option<&RawValue>,
) -> Option<(&'static str, Failures)> {
    let doc = doc_of(revision?)?;
    let def = methods::message_definition(doc, method)?;
    let validator = validator()?;
    let index = validator.find(doc, Part::Params, def)?;
    let instance = match params.map(|p| parse(p.get().as_bytes())) {
        None => Value::Object(serde_json::Map::new()),
        Some(Ok(v)) => v,
        Some(Err(f)) => return Some((def, f)),
    };
    Some((def, validator.failures(doc, index, &instance)?))
}

/// Collects the leaves of a validation error: where (a JSON Pointer into
/// the result) and which keyword failed. Values from the result are not
/// kept; a `required` failure points at the missing member, whose name
/// comes from the schema.
fn collect(error: &boon::ValidationError<'_, '_>, base: &str, out: &mut Failures) {
    if !error.causes.is_empty() {
        // Of the branches of a union (`ContentBlock`, a result variant),
        // report those whose discriminator (`const`) matched, when any did:
        // a text block missing `text` is not also "not an image".
        let union = matches!(
            error.kind,
            boon::ErrorKind::AnyOf | boon::ErrorKind::OneOf(None)
        );
        let narrow = union && error.causes.iter().any(|c| !const_failed(c));
        for cause in &error.causes {
            if !narrow || !const_failed(cause) {
                collect(cause, base, out);
            }
        }
        return;
    }
    let at = error.instance_location.to_string();
    let schema_at = error
        .schema_url
        .strip_prefix(base)
        .unwrap_or(error.schema_url)
        .trim_start_matches('#');
    let keyword = error.kind.keyword_path();
    let name = keyword.as_ref().map_or("schema", |k| k.keyword);
    let keyword_at = match &keyword {
        Some(k) => format!("{schema_at}/{k}"),
        None => schema_at.to_owned(),
    };
    let mut push = |instance: String| {
        if out.kept.len() < MAX_FAILURES {
            out.kept
                .push(SchemaFailure::new(instance, name, keyword_at.clone()));
        } else {
            out.truncated = true;
        }
    };
    match &error.kind {
        boon::ErrorKind::Required { want } => {
            for missing in want {
                push(format!("{at}/{}", escape(missing)));
            }
        }
        _ => push(at),
    }
}

/// Whether a `const` failed anywhere in this branch.
fn const_failed(error: &boon::ValidationError<'_, '_>) -> bool {
    matches!(error.kind, boon::ErrorKind::Const { .. }) || error.causes.iter().any(const_failed)
}

/// Escapes a JSON Pointer token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_embedded_definition_compiles() {
        let v = VALIDATOR
            .get_or_init(build)
            .as_ref()
            .unwrap_or_else(|e| panic!("{e}"));
        let wanted: usize = DOCS
            .iter()
            .map(|d| d.definitions().len() + methods::messages(*d).count())
            .sum();
        assert_eq!(v.index.len(), wanted);
    }

    fn raw(v: Value) -> Vec<u8> {
        serde_json::to_vec(&v).unwrap_or_else(|e| panic!("{e}"))
    }

    fn legacy(method: &str, v: Value) -> Option<StrictProblem> {
        check_result(&ProtocolVersion::V2025_11_25, method, method, &raw(v))
    }

    fn modern(method: &str, v: Value) -> Option<StrictProblem> {
        check_result(&ProtocolVersion::V2026_07_28, method, method, &raw(v))
    }

    fn failures(p: Option<StrictProblem>) -> (&'static str, Vec<(String, String)>) {
        match p {
            Some(StrictProblem::Schema {
                definition,
                failures,
                ..
            }) => (
                definition,
                failures
                    .into_iter()
                    .map(|f| (f.instance_location, f.keyword))
                    .collect(),
            ),
            other => panic!("expected a schema problem, got {other:?}"),
        }
    }

    #[test]
    fn valid_results_of_both_revisions_pass() {
        let text = json!({"type": "text", "text": "hi"});
        assert_eq!(legacy("tools/call", json!({"content": [text]})), None);
        assert_eq!(
            modern(
                "tools/call",
                json!({"resultType": "complete", "content": [text]})
            ),
            None
        );
        assert_eq!(legacy("ping", json!({})), None);
        assert_eq!(
            modern(
                "tools/call",
                json!({"resultType": "input_required", "requestState": "s"})
            ),
            None
        );
        let task = json!({"taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
                          "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": null});
        assert_eq!(legacy("tools/call", json!({"task": task})), None);
    }

    #[test]
    fn a_missing_member_is_named_by_path_and_keyword() {
        let (def, f) = failures(legacy("tools/call", json!({"isError": false})));
        assert_eq!(def, "CallToolResult");
        assert_eq!(f, [("/content".to_owned(), "required".to_owned())]);
        let (def, f) = failures(modern(
            "tools/list",
            json!({"resultType": "complete", "tools": []}),
        ));
        assert_eq!(def, "ListToolsResult");
        assert_eq!(
            f,
            [
                ("/cacheScope".to_owned(), "required".to_owned()),
                ("/ttlMs".to_owned(), "required".to_owned())
            ]
        );
    }

    #[test]
    fn an_absent_result_type_reads_as_complete() {
        assert_eq!(modern("tools/call", json!({"content": []})), None);
        let (def, _) = failures(modern("tools/call", json!({"content": 1})));
        assert_eq!(def, "CallToolResult");
    }

    #[test]
    fn the_declared_variant_is_the_one_checked() {
        let (def, _) = failures(modern(
            "tools/call",
            json!({"resultType": "input_required", "inputRequests": 5}),
        ));
        assert_eq!(def, "InputRequiredResult");
        let (def, _) = failures(modern("tools/call", json!({"resultType": "task"})));
        assert_eq!(def, "CreateTaskResult");
        let (def, _) = failures(legacy("tools/call", json!({"task": {}})));
        assert_eq!(def, "CreateTaskResult");
        let (def, _) = failures(check_result(
            &ProtocolVersion::V2025_11_25,
            "tasks/result",
            "tools/call",
            &raw(json!({"content": 1})),
        ));
        assert_eq!(def, "CallToolResult");
    }

    #[test]
    fn a_union_reports_the_branch_its_discriminator_chose() {
        let (_, f) = failures(legacy("tools/call", json!({"content": [{"type": "text"}]})));
        assert_eq!(f, [("/content/0/text".to_owned(), "required".to_owned())]);
    }

    #[test]
    fn failures_keep_no_value_and_are_bounded() {
        let blocks: Vec<Value> = (0..40)
            .map(|i| json!({"type": "text", "text": i, "secret": "s3cret"}))
            .collect();
        let p = legacy("tools/call", json!({"content": blocks}));
        let shown = format!("{p:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        let Some(StrictProblem::Schema {
            failures,
            truncated,
            ..
        }) = p
        else {
            panic!("{p:?}");
        };
        assert_eq!(failures.len(), MAX_FAILURES);
        assert!(truncated);
        assert!(
            failures[0].instance_location.starts_with("/content/"),
            "{failures:?}"
        );
    }

    #[test]
    fn message_params_are_checked_per_revision() {
        let progress = |v: Value| {
            let raw = serde_json::value::to_raw_value(&v).unwrap_or_else(|e| panic!("{e}"));
            check_params(
                Some(&ProtocolVersion::V2025_11_25),
                "notifications/progress",
                Some(&raw),
            )
        };
        assert!(progress(json!({"progressToken": 1, "progress": 0.5})).is_none());
        let (def, f) = progress(json!({"progressToken": 1})).unwrap_or_else(|| panic!("fails"));
        assert_eq!(def, "ProgressNotification");
        assert_eq!(f.kept[0].instance_location, "/progress");
        // Absent params read as `{}`: fine for list_changed, not for progress.
        let modern = Some(&ProtocolVersion::V2026_07_28);
        assert!(check_params(modern, "notifications/tools/list_changed", None).is_none());
        assert!(check_params(modern, "notifications/progress", None).is_some());
        // Unknown methods and revisions are not checked.
        assert!(check_params(modern, "notifications/custom", None).is_none());
        assert!(check_params(None, "notifications/progress", None).is_none());
    }

    #[test]
    fn other_revisions_are_not_validated() {
        let older = ProtocolVersion::parse("2025-06-18");
        assert_eq!(
            check_result(&older, "tools/call", "tools/call", &raw(json!(1))),
            None
        );
    }

    #[test]
    fn every_mapped_definition_is_compiled() {
        use mcp_types::Era;
        for m in mcp_types::methods::facts::METHODS {
            for era in [Era::Legacy, Era::Modern] {
                if let Some((doc, def)) = methods::complete(era, m.name) {
                    assert!(doc.definitions().contains(&def), "{} -> {def}", m.name);
                }
            }
        }
        let ping = methods::complete(Era::Modern, "ping");
        assert_eq!(ping, Some((Doc::Modern, "EmptyResult")));
    }
}

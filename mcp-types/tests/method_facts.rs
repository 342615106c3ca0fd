//! The method facts table agrees with the schemas: every method a schema
//! defines has a row naming that definition in that era, every definition a
//! row names exists with the row's method, and the senders match the
//! schemas' `ClientRequest`/`ServerRequest`/`InputRequest`/notification
//! unions. The markers and the per-revision method lists agree with the rows.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::collections::{BTreeMap, BTreeSet};

use mcp_types::Era;
use mcp_types::methods::facts::{self, KnownMethod, METHODS, MethodFacts, SchemaDoc, Sender};
use mcp_types::methods::{ext_skills, ext_tasks, v2025_11_25 as v25, v2026_07_28 as v26};
use mcp_types::{NotificationMethod, RequestMethod};
use serde_json::Value;

const DOCS: [(SchemaDoc, &str); 3] = [
    (SchemaDoc::Legacy, "2025-11-25.json"),
    (SchemaDoc::Modern, "2026-07-28.json"),
    (SchemaDoc::Tasks, "ext-tasks.json"),
];

fn defs(doc: SchemaDoc) -> Value {
    let file = DOCS.iter().find(|(d, _)| *d == doc).unwrap().1;
    let schema = common::load(&common::tests_dir().join("schema").join(file));
    schema["$defs"].clone()
}

/// The `method` const of a definition, directly or in one of its `allOf`.
fn method_const(def: &Value) -> Option<&str> {
    let direct = def["properties"]["method"]["const"].as_str();
    let nested = def["allOf"].as_array().and_then(|all| {
        all.iter()
            .find_map(|d| d["properties"]["method"]["const"].as_str())
    });
    direct.or(nested)
}

/// Message definitions of a document by name (unions left out), with their
/// method.
fn messages(defs: &Value) -> BTreeMap<String, String> {
    let is_union = |name: &str| {
        name.starts_with("Client") || name.starts_with("Server") || name.starts_with("JSONRPC")
    };
    defs.as_object()
        .unwrap()
        .iter()
        .filter(|(name, _)| !is_union(name))
        .filter_map(|(name, def)| Some((name.clone(), method_const(def)?.to_owned())))
        .collect()
}

/// The methods of the members of union `union` of a document.
fn union_methods(defs: &Value, union: &str) -> BTreeSet<String> {
    let Some(union_def) = defs.get(union) else {
        return BTreeSet::new();
    };
    let members = union_def["anyOf"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| vec![union_def.clone()]);
    members
        .iter()
        .filter_map(|m| {
            let def = match m["$ref"].as_str() {
                Some(r) => &defs[r.rsplit('/').next().unwrap()],
                None => m,
            };
            method_const(def).map(str::to_owned)
        })
        .collect()
}

fn era_of(doc: SchemaDoc) -> Era {
    match doc {
        SchemaDoc::Legacy => Era::Legacy,
        SchemaDoc::Modern | SchemaDoc::Tasks => Era::Modern,
    }
}

#[test]
fn names_are_unique_and_lookup_finds_each_row() {
    let names: BTreeSet<&str> = METHODS.iter().map(|m| m.name).collect();
    assert_eq!(names.len(), METHODS.len(), "a method has two rows");
    for row in METHODS {
        assert_eq!(facts::lookup(row.name), Some(row));
        assert!(
            row.legacy.is_some() || row.modern.is_some(),
            "{} is in no era",
            row.name
        );
    }
}

#[test]
fn every_schema_method_has_a_row_naming_its_definition() {
    for (doc, file) in DOCS {
        let defs = defs(doc);
        for (def, method) in messages(&defs) {
            let row =
                facts::lookup(&method).unwrap_or_else(|| panic!("{file}: {method} has no row"));
            let era = row
                .era(era_of(doc))
                .unwrap_or_else(|| panic!("{file}: {method} is not in the row's era"));
            // The tasks extension's schema repeats the input requests of
            // 2026-07-28; their row names the revision's own document.
            if doc == SchemaDoc::Tasks && era.schema == Some(SchemaDoc::Modern) {
                continue;
            }
            assert_eq!(era.schema, Some(doc), "{file}: {method}");
            assert_eq!(
                era.message_definition,
                Some(def.as_str()),
                "{file}: {method}"
            );
        }
    }
}

#[test]
fn every_definition_a_row_names_exists_with_its_method() {
    let all: Vec<(SchemaDoc, Value)> = DOCS.iter().map(|(d, _)| (*d, defs(*d))).collect();
    for row in METHODS {
        for era in [row.legacy, row.modern].into_iter().flatten() {
            let Some(doc) = era.schema else {
                assert!(
                    era.extension.is_some(),
                    "{}: no schema and no extension",
                    row.name
                );
                continue;
            };
            let defs = &all.iter().find(|(d, _)| *d == doc).unwrap().1;
            let message = era.message_definition.unwrap();
            assert_eq!(
                method_const(&defs[message]),
                Some(row.name),
                "{}: {message}",
                row.name
            );
            match (row.kind, era.result_definition) {
                (facts::Kind::Request, Some(result)) => {
                    assert!(
                        defs.get(result).is_some(),
                        "{}: {result} not in {doc:?}",
                        row.name
                    );
                }
                (facts::Kind::Notification, None) => {}
                (kind, result) => panic!("{}: {kind:?} with result {result:?}", row.name),
            }
        }
    }
}

/// The rows of one era whose facts satisfy `keep`, limited to the
/// revision's own schema (extensions have their own documents).
fn rows_where(era: Era, kind: facts::Kind, keep: impl Fn(Sender) -> bool) -> BTreeSet<String> {
    METHODS
        .iter()
        .filter(|m| m.kind == kind)
        .filter_map(|m| Some((m.name, *m.era(era)?)))
        .filter(|(_, f)| f.extension.is_none() && keep(f.sender))
        .map(|(name, _)| name.to_owned())
        .collect()
}

#[test]
fn senders_match_the_schema_unions() {
    use facts::Kind::{Notification, Request};
    for (doc, era) in [
        (SchemaDoc::Legacy, Era::Legacy),
        (SchemaDoc::Modern, Era::Modern),
    ] {
        let defs = defs(doc);
        let client = |s: Sender| s.client_sends();
        let server = |s: Sender| matches!(s, Sender::Server | Sender::Both);
        let embedded = |s: Sender| s == Sender::Embedded;
        assert_eq!(
            rows_where(era, Request, client),
            union_methods(&defs, "ClientRequest")
        );
        assert_eq!(
            rows_where(era, Request, server),
            union_methods(&defs, "ServerRequest")
        );
        assert_eq!(
            rows_where(era, Request, embedded),
            union_methods(&defs, "InputRequest")
        );
        assert_eq!(
            rows_where(era, Notification, client),
            union_methods(&defs, "ClientNotification")
        );
        assert_eq!(
            rows_where(era, Notification, server),
            union_methods(&defs, "ServerNotification")
        );
    }
}

fn row_names(era: Era, keep: impl Fn(&MethodFacts) -> bool) -> BTreeSet<String> {
    METHODS
        .iter()
        .filter(|m| m.in_era(era) && keep(m))
        .map(|m| m.name.to_owned())
        .collect()
}

fn set(methods: &[&str]) -> BTreeSet<String> {
    methods.iter().map(|m| (*m).to_owned()).collect()
}

#[test]
fn the_method_lists_agree_with_the_rows() {
    let schema_request = |sender: fn(Sender) -> bool, era: Era| {
        move |m: &MethodFacts| {
            let f = m.era(era).unwrap();
            m.kind == facts::Kind::Request && f.extension.is_none() && sender(f.sender)
        }
    };
    let client: fn(Sender) -> bool = Sender::client_sends;
    let server: fn(Sender) -> bool = |s| matches!(s, Sender::Server | Sender::Both);
    let embedded: fn(Sender) -> bool = |s| s == Sender::Embedded;
    assert_eq!(
        set(v25::CLIENT_REQUESTS),
        row_names(Era::Legacy, schema_request(client, Era::Legacy))
    );
    assert_eq!(
        set(v25::SERVER_REQUESTS),
        row_names(Era::Legacy, schema_request(server, Era::Legacy))
    );
    assert_eq!(
        set(v26::CLIENT_REQUESTS),
        row_names(Era::Modern, schema_request(client, Era::Modern))
    );
    assert_eq!(
        set(v26::INPUT_REQUESTS),
        row_names(Era::Modern, schema_request(embedded, Era::Modern))
    );
    let skills = row_names(Era::Legacy, |m| {
        m.era(Era::Legacy).unwrap().extension.is_some()
    });
    assert_eq!(set(ext_skills::CLIENT_REQUESTS), skills);
}

/// The marker's method, and the name of the row [`facts::lookup`] finds
/// for it (which must be the marker's own row).
fn req<M: RequestMethod + KnownMethod>() -> (&'static str, &'static str) {
    assert_eq!(facts::lookup(M::METHOD), Some(M::FACTS), "{}", M::METHOD);
    (M::METHOD, M::FACTS.name)
}

fn note<M: NotificationMethod + KnownMethod>() -> (&'static str, &'static str) {
    assert_eq!(facts::lookup(M::METHOD), Some(M::FACTS), "{}", M::METHOD);
    (M::METHOD, M::FACTS.name)
}

#[test]
fn markers_point_at_their_rows() {
    let pairs = [
        req::<v25::Initialize>(),
        req::<v25::Ping>(),
        req::<v25::ListResources>(),
        req::<v25::ListResourceTemplates>(),
        req::<v25::ReadResource>(),
        req::<v25::Subscribe>(),
        req::<v25::Unsubscribe>(),
        req::<v25::ListPrompts>(),
        req::<v25::GetPrompt>(),
        req::<v25::ListTools>(),
        req::<v25::CallTool>(),
        req::<v25::CallToolAsTask>(),
        req::<v25::Complete>(),
        req::<v25::SetLevel>(),
        req::<v25::GetTask>(),
        req::<v25::GetTaskPayload>(),
        req::<v25::ListTasks>(),
        req::<v25::CancelTask>(),
        req::<v25::CreateMessage>(),
        req::<v25::ListRoots>(),
        req::<v25::Elicit>(),
        note::<v25::Initialized>(),
        note::<v25::Cancelled>(),
        note::<v25::Progress>(),
        note::<v25::RootsListChanged>(),
        note::<v25::TaskStatus>(),
        note::<v25::LoggingMessage>(),
        note::<v25::ResourceListChanged>(),
        note::<v25::ResourceUpdated>(),
        note::<v25::PromptListChanged>(),
        note::<v25::ToolListChanged>(),
        note::<v25::ElicitationComplete>(),
        req::<v26::Discover>(),
        req::<v26::ListResources>(),
        req::<v26::ListResourceTemplates>(),
        req::<v26::ReadResource>(),
        req::<v26::SubscriptionsListen>(),
        req::<v26::ListPrompts>(),
        req::<v26::GetPrompt>(),
        req::<v26::ListTools>(),
        req::<v26::CallTool>(),
        req::<v26::Complete>(),
        req::<v26::CreateMessage>(),
        req::<v26::ListRoots>(),
        req::<v26::Elicit>(),
        note::<v26::Cancelled>(),
        note::<v26::Progress>(),
        note::<v26::LoggingMessage>(),
        note::<v26::SubscriptionsAcknowledged>(),
        note::<v26::ResourceListChanged>(),
        note::<v26::ResourceUpdated>(),
        note::<v26::PromptListChanged>(),
        note::<v26::ToolListChanged>(),
        req::<ext_tasks::GetTask>(),
        req::<ext_tasks::UpdateTask>(),
        req::<ext_tasks::CancelTask>(),
        note::<ext_tasks::TaskStatus>(),
        req::<ext_skills::ListSkills>(),
        req::<ext_skills::GetSkill>(),
        req::<ext_skills::ReadDirectory>(),
    ];
    for (method, row) in pairs {
        assert_eq!(method, row);
    }
    assert_eq!(v25::TaskStatus::FACTS.name, "notifications/tasks/status");
    assert_eq!(ext_tasks::TaskStatus::FACTS.name, "notifications/tasks");
    assert!(
        ext_tasks::GetTask::FACTS
            .modern
            .unwrap()
            .extension
            .is_some()
    );
}

#[test]
fn the_facts_the_engine_asks_for() {
    let legacy = |m: &str, task: bool| {
        facts::lookup(m)
            .unwrap()
            .server_capability(Era::Legacy, task)
    };
    let modern = |m: &str| {
        facts::lookup(m)
            .unwrap()
            .server_capability(Era::Modern, false)
    };
    assert_eq!(
        legacy("resources/subscribe", false),
        Some("resources.subscribe")
    );
    assert_eq!(
        legacy("tools/call", true),
        Some("tasks.requests.tools.call")
    );
    assert_eq!(legacy("tasks/list", false), Some("tasks.list"));
    assert_eq!(legacy("ping", false), None);
    assert_eq!(modern("tasks/update"), Some(facts::TASKS_CAPABILITY));
    assert_eq!(
        modern("resources/directory/read"),
        Some(facts::DIRECTORY_READ_CAPABILITY)
    );
    let sampling = facts::lookup("sampling/createMessage").unwrap();
    assert_eq!(
        sampling.client_capability(Era::Legacy, false),
        Some("sampling")
    );
    assert_eq!(
        sampling.client_capability(Era::Legacy, true),
        Some("tasks.requests.sampling.createMessage")
    );
    assert_eq!(facts::page_field("skills/list"), Some("skills"));
    assert_eq!(facts::page_field("tools/call"), None);
    assert_eq!(facts::mcp_name_param("tasks/cancel"), Some("taskId"));
    assert_eq!(
        facts::mcp_name_param("resources/directory/read"),
        Some("uri")
    );
    assert!(facts::allows_input_required("prompts/get"));
    assert!(!facts::allows_input_required("tools/list"));
    assert!(facts::modern_replacement("logging/setLevel").is_some());
    assert!(facts::modern_replacement("tools/call").is_none());
    assert!(facts::is_cacheable("resources/read") && !facts::is_cacheable("prompts/get"));
    let modern_only = row_names(Era::Modern, |m| {
        m.kind == facts::Kind::Request && m.only_in(Era::Modern)
    });
    assert_eq!(
        modern_only,
        set(&["server/discover", "subscriptions/listen", "tasks/update"])
    );
    // Every removed method a client sends says what replaces it, and only
    // those.
    let client_sends = |m: &MethodFacts| m.legacy.is_some_and(|f| f.sender.client_sends());
    let removed = row_names(Era::Legacy, |m| m.only_in(Era::Legacy) && client_sends(m));
    let replaced = row_names(Era::Legacy, |m| m.modern_replacement.is_some());
    assert_eq!(removed, replaced);
    for row in METHODS {
        for stale in row.invalidates {
            assert!(
                facts::is_cacheable(stale),
                "{} invalidates {stale}",
                row.name
            );
        }
        if let Some(field) = row.page_field {
            assert!(
                row.idempotent,
                "{} paginates on {field} but is not idempotent",
                row.name
            );
        }
    }
}

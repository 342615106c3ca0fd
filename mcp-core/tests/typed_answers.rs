//! Typed answers (`respond_to::<M>`, `answer_input_with`,
//! `answer_task_input_with`): the `mcp_types` result goes out as its JSON,
//! and a value that does not serialize is a `UsageError::Serialize` that
//! sends and consumes nothing.

mod common;

use std::collections::BTreeMap;

use common::*;
use mcp_core::{ClientFeatures, Event, RequestOptions, UsageError};
use mcp_types::RequestMethod;
use mcp_types::methods::v2025_11_25::ListRoots;
use mcp_types::roots::{ListRootsResult, Root};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::json;

/// A result whose serialization always fails.
#[derive(Debug, Deserialize)]
struct Unencodable;

impl Serialize for Unencodable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("this answer cannot be encoded"))
    }
}

/// `roots/list` with a result type that never serializes.
struct BrokenRoots;

impl RequestMethod for BrokenRoots {
    const METHOD: &'static str = "roots/list";
    type Params = serde_json::Value;
    type Result = Unencodable;
}

#[test]
fn respond_to_sends_the_typed_result_and_a_serialize_failure_consumes_nothing() {
    let features = ClientFeatures::default().with_roots(false);
    let mut h = legacy(config().with_features(features));
    h.feed(json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}));
    let events = h.take_events();
    let Some(Event::ServerRequest { id, .. }) = events.first() else {
        panic!("{events:?}")
    };

    let failed = h.conn.respond_to::<BrokenRoots>(h.now, id, Ok(Unencodable));
    assert!(
        matches!(&failed, Err(UsageError::Serialize(e)) if e.to_string().contains("cannot be encoded")),
        "{failed:?}"
    );
    assert!(h.drain().is_empty(), "nothing is sent");

    let roots = ListRootsResult::new(vec![Root::new("file:///work")]);
    h.conn
        .respond_to::<ListRoots>(h.now, id, Ok(roots))
        .unwrap();
    assert_eq!(
        h.drain(),
        vec![json!({"jsonrpc": "2.0", "id": "r1", "result": {"roots": [{"uri": "file:///work"}]}})]
    );
    assert!(matches!(
        h.conn
            .respond_to::<ListRoots>(h.now, id, Ok(ListRootsResult::new(Vec::new()))),
        Err(UsageError::UnknownServerRequest(_))
    ));
}

#[test]
fn answer_input_with_sends_the_typed_answer_in_the_retry() {
    let mut h = modern(config());
    let id = h
        .conn
        .call_tool(h.now, "book", json!({}), RequestOptions::default())
        .unwrap();
    let r1 = h.drain().remove(0);
    h.feed(json!({"jsonrpc": "2.0", "id": r1["id"], "result": {
        "resultType": "input_required",
        "inputRequests": {"k": {"method": "roots/list"}}}}));
    assert!(matches!(
        &h.take_events()[..],
        [Event::InputRequested { key, .. }] if key == "k"
    ));

    // A map with non-string keys is not JSON: refused, the input still waits.
    let bad: BTreeMap<(u8, u8), u8> = BTreeMap::from([((1, 2), 3)]);
    let failed = h.conn.answer_input_with(h.now, &id, "k", &bad);
    assert!(
        matches!(failed, Err(UsageError::Serialize(_))),
        "{failed:?}"
    );
    assert!(h.drain().is_empty());

    let roots = ListRootsResult::new(vec![Root::new("file:///work")]);
    h.conn.answer_input_with(h.now, &id, "k", &roots).unwrap();
    let r2 = h.drain().remove(0);
    assert_eq!(
        r2["params"]["inputResponses"]["k"],
        json!({"roots": [{"uri": "file:///work"}]})
    );
}

#[test]
fn answer_task_input_with_refuses_what_does_not_serialize() {
    let mut h = modern(config());
    let id = h
        .conn
        .call_tool(h.now, "book", json!({}), RequestOptions::default())
        .unwrap();
    h.drain();
    // No task on this call: the serialize failure is reported first, and
    // a good answer meets the call's own refusal.
    let bad: BTreeMap<(u8, u8), u8> = BTreeMap::from([((1, 2), 3)]);
    assert!(matches!(
        h.conn.answer_task_input_with(h.now, &id, "k", &bad),
        Err(UsageError::Serialize(_))
    ));
    assert!(matches!(
        h.conn
            .answer_task_input_with(h.now, &id, "k", &json!({"roots": []})),
        Err(UsageError::UnknownCall(_))
    ));
}

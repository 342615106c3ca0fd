//! The era-neutral markers (`mcp_types::methods::CallTool`, ...) decode the
//! requests and results of both revisions: every 2025-11-25 fixture and
//! 2026-07-28 spec example of the definitions their facts name.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::path::PathBuf;

use mcp_types::Era;
use mcp_types::methods::{self, facts::KnownMethod};
use mcp_types::raw::RawJson;
use mcp_types::results::{ResultOutcome, decode_result};
use mcp_types::{RequestMethod, methods::v2025_11_25, methods::v2026_07_28};
use serde_json::Value;

fn folder(era: Era) -> PathBuf {
    let dir = common::tests_dir();
    match era {
        Era::Legacy => dir.join("fixtures/2025-11-25"),
        Era::Modern => dir.join("examples/2026-07-28"),
    }
}

/// The JSON files of one definition's folder.
fn files(era: Era, definition: &str) -> Vec<Value> {
    let dir = folder(era).join(definition);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries.map(|e| common::load(&e.unwrap().path())).collect()
}

/// Decodes every request and result example of `M` in both eras; returns
/// how many results were decoded in each.
fn decode_both<M: RequestMethod + KnownMethod>() -> [usize; 2] {
    let mut results = [0, 0];
    for (i, era) in [Era::Legacy, Era::Modern].into_iter().enumerate() {
        let facts = M::FACTS.era(era).unwrap();
        for request in files(era, facts.message_definition.unwrap()) {
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            serde_json::from_value::<M::Params>(params)
                .unwrap_or_else(|e| panic!("{} {era:?} params: {e}", M::METHOD));
        }
        for result in files(era, facts.result_definition.unwrap()) {
            let raw = RawJson::from_bytes(serde_json::to_vec(&result).unwrap());
            match decode_result::<M::Result>(&raw) {
                Ok(ResultOutcome::Complete(_)) => results[i] += 1,
                Ok(_) => panic!(
                    "{} {era:?}: a complete example read as another kind",
                    M::METHOD
                ),
                Err(e) => panic!("{} {era:?} result: {e}", M::METHOD),
            }
        }
    }
    results
}

#[test]
fn neutral_markers_decode_both_revisions() {
    let decoded = [
        ("tools/call", decode_both::<methods::CallTool>()),
        ("tools/list", decode_both::<methods::ListTools>()),
        ("prompts/list", decode_both::<methods::ListPrompts>()),
        ("prompts/get", decode_both::<methods::GetPrompt>()),
        ("resources/list", decode_both::<methods::ListResources>()),
        (
            "resources/templates/list",
            decode_both::<methods::ListResourceTemplates>(),
        ),
        ("resources/read", decode_both::<methods::ReadResource>()),
        ("completion/complete", decode_both::<methods::Complete>()),
    ];
    for (method, [legacy, modern]) in decoded {
        assert!(
            legacy > 0 && modern > 0,
            "{method}: {legacy} legacy and {modern} modern results"
        );
    }
}

#[test]
fn the_revisions_name_the_same_markers() {
    // One type, three paths: the revision modules re-export the neutral one.
    let same = std::any::TypeId::of::<methods::ListTools>()
        == std::any::TypeId::of::<v2025_11_25::ListTools>()
        && std::any::TypeId::of::<methods::CallTool>()
            == std::any::TypeId::of::<v2026_07_28::CallTool>();
    assert!(same);
    // The legacy `tools/call` marker keeps its task-augmented params.
    assert_ne!(
        std::any::TypeId::of::<methods::CallTool>(),
        std::any::TypeId::of::<v2025_11_25::CallTool>()
    );
}

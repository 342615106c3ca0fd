//! The skills extension (SEP-2640) in both eras: a few skills served as
//! `skill://` resources, `skills/list`, `skills/get` and
//! `resources/directory/read` (declared with `directoryRead: true`).
//!
//! * `skill://pdf-processing/SKILL.md`, with `references/FORMS.md` and
//!   `templates/invoice.md` (so `templates` is a subdirectory);
//! * `skill://acme/billing/refunds/SKILL.md`, a skill under a prefix;
//! * `skill://live-status/SKILL.md`, generated on each read: its entry has
//!   no `resources` (it cannot be verified).
//!
//! Entries carry each file's `sha256:` digest and size, computed from the
//! bytes served.

use mcp_types::skills::{DIRECTORY_MIME_TYPE, SKILLS_EXTENSION};
use serde_json::{Value, json};

use crate::support::{Reply, RpcError, paginate, required_str};

/// The capability value declared under `extensions`.
pub(crate) fn capability() -> (&'static str, Value) {
    (SKILLS_EXTENSION, json!({ "directoryRead": true }))
}

const PDF_SKILL: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1.0\"\n  tags: [pdf, forms]\n---\n\n# PDF processing\n\nFill forms as `references/FORMS.md` says; start invoices from `templates/invoice.md`.\n";
const PDF_FORMS: &str = "# Forms\n\nRead every field label before filling it.\n";
const PDF_INVOICE: &str = "# Invoice {{number}}\n\nTotal: {{total}}\n";
const REFUNDS_SKILL: &str = "---\ndescription: Process customer refund requests per company policy\nname: refunds\n---\n\nRefund within 30 days; escalate above 500 EUR.\n";
const LIVE_URI: &str = "skill://live-status/SKILL.md";

/// The static skills: `SKILL.md` URI and its files (URI, text).
const SKILLS: &[(&str, &[(&str, &str)])] = &[
    (
        "skill://pdf-processing/SKILL.md",
        &[
            ("skill://pdf-processing/SKILL.md", PDF_SKILL),
            ("skill://pdf-processing/references/FORMS.md", PDF_FORMS),
            ("skill://pdf-processing/templates/invoice.md", PDF_INVOICE),
        ],
    ),
    (
        "skill://acme/billing/refunds/SKILL.md",
        &[("skill://acme/billing/refunds/SKILL.md", REFUNDS_SKILL)],
    ),
];

fn sha256(text: &str) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn frontmatter_of(name: &str, description: &str) -> Value {
    json!({ "name": name, "description": description })
}

/// Every entry, in listing order.
fn entries() -> Vec<Value> {
    let mut out: Vec<Value> = SKILLS
        .iter()
        .map(|(uri, files)| {
            let frontmatter = match *uri {
                "skill://pdf-processing/SKILL.md" => json!({
                    "name": "pdf-processing",
                    "description": "Extract, fill, and assemble PDF documents",
                    "license": "Apache-2.0",
                    "metadata": { "version": "2.1.0", "tags": ["pdf", "forms"] }
                }),
                _ => frontmatter_of(
                    "refunds",
                    "Process customer refund requests per company policy",
                ),
            };
            let resources: Vec<Value> = files
                .iter()
                .map(|(u, text)| json!({ "uri": u, "digest": sha256(text), "size": text.len() }))
                .collect();
            json!({ "uri": uri, "frontmatter": frontmatter, "resources": resources })
        })
        .collect();
    out.push(json!({
        "uri": LIVE_URI,
        "frontmatter": frontmatter_of("live-status", "The server's status, generated on each read")
    }));
    out
}

/// `skills/list`.
pub(crate) fn list(params: &Value, page: usize) -> Reply {
    paginate(&entries(), "skills", params, page).map(Value::Object)
}

/// `skills/get`: `-32602` for a URI that is not a served skill.
pub(crate) fn get(params: &Value) -> Reply {
    let uri = required_str(params, "uri")?;
    entries()
        .into_iter()
        .find(|e| e["uri"] == uri)
        .map(|skill| json!({ "skill": skill }))
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown skill: {uri}")))
}

/// The contents of a skill file, if `uri` is one.
pub(crate) fn read(uri: &str, items: usize) -> Option<Value> {
    if uri == LIVE_URI {
        let text = format!(
            "---\nname: live-status\ndescription: The server's status, generated on each read\n---\n\n{items} items are served.\n"
        );
        return Some(json!([{ "uri": uri, "mimeType": "text/markdown", "text": text }]));
    }
    let text = SKILLS
        .iter()
        .flat_map(|(_, files)| files.iter())
        .find(|(u, _)| *u == uri)?
        .1;
    Some(json!([{ "uri": uri, "mimeType": "text/markdown", "text": text }]))
}

/// Whether `uri` is a skill file.
pub(crate) fn exists(uri: &str) -> bool {
    uri == LIVE_URI
        || SKILLS
            .iter()
            .any(|(_, files)| files.iter().any(|(u, _)| *u == uri))
}

/// Every file URI served, the generated one included.
fn file_uris() -> impl Iterator<Item = &'static str> {
    SKILLS
        .iter()
        .flat_map(|(_, files)| files.iter().map(|(u, _)| *u))
        .chain([LIVE_URI])
}

/// `resources/directory/read`: the direct children of a directory (every
/// proper prefix of a file URI), `-32602` for anything else.
pub(crate) fn directory_read(params: &Value, page: usize) -> Reply {
    let dir = required_str(params, "uri")?;
    let prefix = format!("{dir}/");
    let mut children: Vec<Value> = Vec::new();
    for file in file_uris() {
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        let child = match rest.split_once('/') {
            Some((sub, _)) => {
                json!({ "uri": format!("{prefix}{sub}"), "name": sub, "mimeType": DIRECTORY_MIME_TYPE })
            }
            None => json!({ "uri": file, "name": rest, "mimeType": "text/markdown" }),
        };
        if !children.contains(&child) {
            children.push(child);
        }
    }
    if children.is_empty() || !dir.contains("://") || dir.ends_with('/') {
        return Err(RpcError::invalid_params(format!(
            "Not a directory resource: {dir}"
        )));
    }
    paginate(&children, "resources", params, page).map(Value::Object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_digest_and_size_matches_the_served_bytes() {
        for entry in entries() {
            for r in entry["resources"].as_array().into_iter().flatten() {
                let uri = r["uri"].as_str().unwrap();
                let contents = read(uri, 0).unwrap();
                let text = contents[0]["text"].as_str().unwrap();
                assert_eq!(r["digest"], sha256(text), "{uri}");
                assert_eq!(r["size"], text.len(), "{uri}");
            }
        }
    }

    #[test]
    fn directories_list_direct_children_and_refuse_files() {
        let root = directory_read(&json!({"uri": "skill://pdf-processing"}), 10).unwrap();
        let uris: Vec<&str> = root["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            [
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/references",
                "skill://pdf-processing/templates"
            ]
        );
        for bad in [
            "skill://pdf-processing/SKILL.md",
            "skill://nope",
            "skill://pdf-processing/",
        ] {
            assert!(directory_read(&json!({ "uri": bad }), 10).is_err(), "{bad}");
        }
    }
}

//! `cargo xtask doccheck`: the code in `mcp-client`'s rustdoc (doc comments
//! and the Markdown files they include) must compile in a user's crate,
//! which depends on `mcp-client` but not on the workspace crates behind it.
//! Rustdoc compiles doc tests with every dependency of the package in
//! scope, so `mcp_types::Message` passes there and fails for a user; this
//! check fails on such a bare path (`mcp_types::`, `mcp_core::`,
//! `mcp_transport_http::`, `mcp_transport_stdio::`, `mcp_auth::`) in a doc
//! code block, hidden `# ` lines included, and names the reachable path.
//! Then it compiles and runs those examples with only the crates a user
//! has in scope (see [`crate::doc_external`]).
//! Then it compiles and runs those examples with only the crates a user
//! has in scope (see [`crate::doc_external`]).

use std::path::{Path, PathBuf};

use crate::util;

/// Workspace-internal crates and what a user of `mcp-client` writes instead.
const INTERNAL: [(&str, &str); 5] = [
    ("mcp_types::", "mcp_client::mcp_types::"),
    (
        "mcp_core::",
        "(not re-exported: depend on mcp-core, or use mcp_client items)",
    ),
    (
        "mcp_transport_http::",
        "mcp_client:: (HttpConfig, auth, ...)",
    ),
    (
        "mcp_transport_stdio::",
        "mcp_client:: (ServerCommand, StderrMode, ...)",
    ),
    ("mcp_auth::", "mcp_client::oauth::"),
];

/// Checks the doc code of `mcp-client`.
pub(crate) fn run() -> Result<(), String> {
    let crate_dir = util::root().join("mcp-client");
    let mut files = Vec::new();
    collect(&crate_dir.join("src"), "rs", &mut files)?;
    collect(&crate_dir.join("docs"), "md", &mut files)?;
    let mut problems = Vec::new();
    let mut sources = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let shown = file
            .strip_prefix(util::root())
            .unwrap_or(file)
            .display()
            .to_string();
        let markdown = crate::doc_external::is_markdown(file);
        problems.extend(check(&shown, &text, markdown));
        sources.push((shown, text, markdown));
    }
    if problems.is_empty() {
        println!(
            "doccheck: {} files, no workspace-internal paths in doc code",
            files.len()
        );
        crate::doc_external::run(&sources)
    } else {
        Err(format!(
            "{} doc code lines name a crate a user of mcp-client does not depend on:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}

/// Every file ending in `.ext` under `dir` (none when `dir` is absent).
fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect(&path, ext, out)?;
        } else if path.extension().is_some_and(|x| x == ext) {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

/// The problems in one file: `file:line: path (write ... instead)`. In Rust
/// sources only doc comment lines count; a fenced block is Rust unless its
/// info string names another language (`text`, `json`, `sh`, ...).
fn check(file: &str, text: &str, markdown: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut in_rust_block = false;
    let mut in_block = false;
    for (n, line) in text.lines().enumerate() {
        let Some(doc) = doc_text(line, markdown) else {
            in_block = false;
            in_rust_block = false;
            continue;
        };
        let trimmed = doc.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_block = !in_block;
            in_rust_block = in_block && is_rust(info);
            continue;
        }
        if !in_rust_block {
            continue;
        }
        for (bare, instead) in INTERNAL {
            if bare_path_at(trimmed, bare) {
                problems.push(format!("{file}:{}: `{bare}` (write {instead})", n + 1));
            }
        }
    }
    problems
}

/// The documentation text of a line: all of it in Markdown, the part after
/// `///` or `//!` in Rust; `None` for a Rust line that is no doc comment.
pub(crate) fn doc_text(line: &str, markdown: bool) -> Option<&str> {
    if markdown {
        return Some(line);
    }
    let t = line.trim_start();
    t.strip_prefix("///").or_else(|| t.strip_prefix("//!"))
}

/// Whether a fence's info string means Rust code (rustdoc's rule: empty,
/// `rust`, or only attributes like `no_run`, `ignore`, `should_panic`).
fn is_rust(info: &str) -> bool {
    info.split([',', ' '])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .all(|w| {
            matches!(
                w,
                "rust"
                    | "no_run"
                    | "ignore"
                    | "should_panic"
                    | "compile_fail"
                    | "edition2021"
                    | "edition2024"
            )
        })
}

/// Whether `bare` occurs in `line` as a path root: not preceded by `::` or
/// an identifier character (so `mcp_client::mcp_types::` is fine).
fn bare_path_at(line: &str, bare: &str) -> bool {
    line.match_indices(bare).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        !matches!(before, Some(c) if c == ':' || c == '_' || c.is_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_bare_paths_in_rust_doc_code_only() {
        let src = "/// ```\n/// use mcp_types::Message;\n/// # let x = mcp_client::mcp_types::Meta::default();\n/// ```\n/// ```text\n/// mcp_core::Connection\n/// ```\n// mcp_auth::x in a plain comment\nfn f() {}\n";
        let found = check("lib.rs", src, false);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("lib.rs:2: `mcp_types::`"), "{found:?}");
    }

    #[test]
    fn hidden_lines_and_markdown_count() {
        let md = "```no_run\n# use mcp_auth::Tokens;\nlet c = mcp_transport_stdio::ServerCommand::new(\"x\");\n```\n";
        let found = check("parity.md", md, true);
        assert_eq!(found.len(), 2, "{found:?}");
    }
}
